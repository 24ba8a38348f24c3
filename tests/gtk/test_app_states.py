#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app in every state of the service (issue 31, "States" and "Reconnect"), with the real nvprofiled on
a private system-like bus, stopped and restarted, not a mock: no daemon on the bus; the daemon appearing
while the app waits; the daemon stopped with SIGTERM (the figures are stale at once: the GPU rows
insensitive, a banner says so) and started again (live again, without relaunching the app, and an open
report's Details works: it is loaded again from its file); a report dropped for idleness ([Reports]
IdleSec=) loaded again on use; a bus policy that refuses the user; no bus at all; NVML missing (the daemon's
Usage.Sources message shown). In each, the window's accessible text names the state in the words of
client/service-state.c, never "No GPU" for a failure, and holds no D-Bus internals (no error or interface
names, no dbus-daemon text, no pids).

pyatspi keeps its first AT-SPI bus for the life of the process: every case runs in one world (Xvfb, the
session bus, the private system bus), in order. Everything it starts is killed, and its scratch directory
removed, by the world's teardown."""

import os
import re
import shutil
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, BUS_NAME, CORPUS, DAEMON, FIXTURE_TOOL, POLICY, REPORT, TOOLS, WAIT,  # noqa: E402
                      AppWorld, AtSpi, wait_for)

# client/service-state.c's words.
NOT_RUNNING = "nvprofiled is not running"
NOT_RUNNING_NEXT = "Start it with: sudo systemctl start nvprofiled"
STOPPED = "nvprofiled stopped"
DENIED = "Access to nvprofiled was denied"
UNREACHABLE = "nvprofiled cannot be reached"
SOURCE_UNAVAILABLE = "A GPU usage source is unavailable"
NO_GPU = "nvprofiled has found no GPU"
NO_GPU_NEXT = "see why each is unavailable with: nvprofilectl status"

# "At once": no poll or timeout in between, only the bus's and the watch's own news (2 s; more under the
# sanitizers, whose NVPROFILED_TEST_WAIT is 150).
AT_ONCE = 2 * WAIT / 30

# What the window must never show: D-Bus names and the bus's own texts.
INTERNALS = ("org.freedesktop.DBus", BUS_NAME, "GDBus.Error", "was not provided by any .service files",
             "Rejected send message", "matched rules", "Unknown object", "/io/github/nvprofiled")


class StatesTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "import"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.report = os.path.join(CORPUS, "reports", REPORT)
        if not os.path.exists(self.report):
            self.skipTest(f"{self.report} is not there (corpus_dir)")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)

    # --- AT-SPI ----------------------------------------------------------------------------------------------

    @staticmethod
    def text_of(node):
        try:
            t = node.queryText()
            text = t.getText(0, t.characterCount)
        except NotImplementedError:
            text = ""
        return text.replace("\xa0", " ")

    @staticmethod
    def showing(node):
        """Laid out: GTK 4.8 sets no SHOWING state, and presents a GtkStack's hidden pages too (as VISIBLE),
        but gives them no size."""
        if node is None:
            return False
        extents = node.queryComponent().getExtents(0)  # 0: ATSPI_COORD_TYPE_SCREEN; only the size is used
        return extents.width > 0 and extents.height > 0

    def window_text(self, window):
        """Every text the window shows a user or a screen reader: names, descriptions and label texts of
        the nodes that are laid out."""
        parts = []
        for a in self.pyatspi.findAllDescendants(window, self.showing):
            parts += [a.name or "", a.description or "", self.text_of(a)]
        return "\n".join(p for p in parts if p)

    def main_window(self):
        return wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))

    def wait_text(self, window, what, needle):
        return wait_for(what, lambda: needle in self.window_text(window))

    def assert_clean(self, text, daemon_pid=None, views_shown=False):
        """No D-Bus internals, no "No GPU" (the fixture always has a device), no pids. views_shown: the pages
        are shown (not a whole-window state); the GPUs page's own empty page is hidden, not only behind
        the devices (GTK 4.8 presents a GtkStack's other pages over AT-SPI)."""
        for bad in INTERNALS:
            self.assertNotIn(bad, text)
        self.assertNotIn("No GPU", text)
        self.assertIsNone(re.search(r"\bpid[ =]", text), text)
        if daemon_pid is not None:
            self.assertIsNone(re.search(rf"\b{daemon_pid}\b", text), text)

    def daemon_log(self):
        """The running daemon's whole log (respawn_daemon() starts a new one)."""
        with open(os.path.join(self.w.dir, "daemon.log"), errors="replace") as f:
            return f.read()

    def row(self, root, title):
        return self.pyatspi.findDescendant(
            root, lambda a: a is not None and a.getRoleName() == "list item" and a.name == title)

    def sensitive(self, node):
        """Neither node nor a container of it is insensitive (GTK sets the state on the widget made
        insensitive, not on what it contains)."""
        while node is not None and node.getRoleName() not in ("frame", "window"):
            if not node.getState().contains(self.pyatspi.STATE_SENSITIVE):
                return False
            node = node.parent
        return True

    def button(self, root, name):
        return wait_for(f"the button {name}", lambda: self.pyatspi.findDescendant(
            root, lambda a: a is not None and a.getRoleName() == "push button" and a.name == name))

    def click(self, node):
        action = node.queryAction()
        for i in range(action.nActions):
            if action.getName(i) in ("click", "activate", "press"):
                action.doAction(i)
                return
        action.doAction(0)

    def show_page(self, main, title):
        tab = wait_for(f"page tab {title}", lambda: self.pyatspi.findDescendant(
            main, lambda a: a is not None and a.getRoleName() == "page tab" and a.name == title))
        self.click(tab)
        wait_for(f"page {title} selected", lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    def details_work(self, main):
        """The report's Details shows its sections and rule advice (the daemon has the report, or it was
        loaded again)."""
        self.show_page(main, "Reports")
        self.click(self.button(main, "Details of kernel 0 addConstDouble3"))
        details = wait_for("the kernel's window", lambda: self.a11y.window("Kernel addConstDouble3"))
        try:
            wait_for("the rule's message", lambda: "The kernel is utilizing greater than 80.0% of the available "
                     "compute" in self.window_text(details) or
                     ("Cannot read the kernel's details" in self.window_text(details) and
                      self.fail("Details failed: " + self.window_text(details))))
            self.assert_clean(self.window_text(details))
        finally:
            self.a11y.close_window(details)
        self.show_page(main, "GPUs")

    # --- the case --------------------------------------------------------------------------------------------

    def test_states(self):
        try:
            self.run_case()
        except BaseException:
            for name in ("daemon", "app"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            raise

    def run_case(self):
        w = self.w
        w.start_x_and_session()
        # Reports dropped after 2 s idle, so that the case can wait for it.
        w.start_daemon()
        w.stop_daemon()
        self.a11y = AtSpi()
        self.pyatspi = self.a11y.pyatspi

        # No daemon: the name has no owner and the bus cannot start it.
        w.start_app()
        main = self.main_window()
        self.wait_text(main, "the not-running page", NOT_RUNNING)
        text = self.window_text(main)
        self.assertIn(NOT_RUNNING_NEXT, text)
        self.assert_clean(text)
        w.screenshot("state-not-running")

        # It starts: the app, waiting, shows its figures.
        w.respawn_daemon(conf="[Reports]\nIdleSec=2s\n")
        wait_for("the device's first sample", lambda: self.row(main, "gfx"))
        w.fixture_step(2)
        wait_for("65.0 % on the device", lambda: "65.0 %" in self.window_text(main))
        self.assertNotIn(NOT_RUNNING, self.window_text(main))
        # A report, open while the daemon restarts.
        subprocess.run([APP, self.report], env=w.app_env, check=True, timeout=WAIT, capture_output=True)
        self.show_page(main, "Reports")
        wait_for("the report's kernel", lambda: [
            r for r in self.a11y.kernel_rows(main, REPORT) if r[1] == "addConstDouble3"])
        self.show_page(main, "GPUs")

        # SIGTERM: the figures are stale at once (bounded from when the daemon has left the bus), and say so.
        gfx = self.row(main, "gfx")
        self.assertTrue(self.sensitive(gfx))
        pid = w.daemon.pid
        w.stop_daemon(signal.SIGTERM)
        wait_for("the stopped banner", lambda: STOPPED in self.window_text(main), timeout=AT_ONCE)
        wait_for("the figures marked stale", lambda: not self.sensitive(gfx), timeout=AT_ONCE)
        text = self.window_text(main)
        self.assertNotIn(NOT_RUNNING, text)
        self.assert_clean(text, pid, views_shown=True)
        # The figures stay, marked stale: the device's, not an empty page.
        self.assertIn("amdgpu (0000:03:00.0)", text)
        self.assertIn("65.0 %", text)
        w.screenshot("state-stopped")

        # Started again: live, without relaunching the app; the open report works.
        w.respawn_daemon()
        wait_for("live figures again", lambda: self.sensitive(self.row(main, "gfx")) and
                 STOPPED not in self.window_text(main))
        wait_for("a watch of the app's again", lambda: w.watchers() == 1)
        self.assertIsNone(w.app.poll(), "the app exited")
        # The open report is loaded again on the daemon's return, before anybody uses it.
        wait_for("the open report loaded again", lambda: "loading" in self.daemon_log())
        self.details_work(main)

        # Idle for longer than IdleSec: the daemon dropped the report; Details loads it again.
        wait_for("the daemon to drop the idle report", lambda: "idle, closed" in self.daemon_log())
        self.details_work(main)
        self.assert_clean(self.window_text(main), views_shown=True)

        w.app_action("quit")
        self.assertEqual(w.app.wait(timeout=WAIT), 0)

        # A bus policy that refuses this user: the denied page, none of dbus-daemon's text.
        w.set_bus_policy(f'  <policy user="{os.getuid()}"><deny send_destination="{BUS_NAME}"/></policy>\n')
        wait_for("the bus to refuse", lambda: w.watchers() is None)
        w.start_app()
        main = self.main_window()
        self.wait_text(main, "the denied page", DENIED)
        self.assert_clean(self.window_text(main), w.daemon.pid)
        self.assertNotIn(NOT_RUNNING, self.window_text(main))
        w.screenshot("state-denied")
        w.app_action("quit")
        self.assertEqual(w.app.wait(timeout=WAIT), 0)
        w.set_bus_policy("")
        wait_for("the bus to allow again", lambda: w.watchers() is not None)

        # No bus to talk over: the unreachable page.
        address, w.address = w.address, "unix:path=" + os.path.join(w.dir, "no-such-bus")
        try:
            w.start_app()
        finally:
            w.address = address
        main = self.main_window()
        self.wait_text(main, "the unreachable page", UNREACHABLE)
        self.assert_clean(self.window_text(main))
        self.assertNotIn("No such file", self.window_text(main))
        w.screenshot("state-unreachable")
        w.app_action("quit")
        self.assertEqual(w.app.wait(timeout=WAIT), 0)

        # NVML missing: the daemon's message beside the figures, never "No GPU".
        w.stop_daemon()
        w.respawn_daemon(conf="[Usage]\nNVML=yes\nNVMLLibrary=/nonexistent/libnvidia-ml.so.1\n")
        w.start_app()
        main = self.main_window()
        self.wait_text(main, "the unavailable source", SOURCE_UNAVAILABLE)
        wait_for("NVML's load error", lambda: re.search(r"nvml: .*libnvidia-ml\.so\.1", self.window_text(main)))
        wait_for("the device's figures beside it", lambda: self.row(main, "gfx"))
        self.assert_clean(self.window_text(main), views_shown=True)
        w.screenshot("state-source-unavailable")
        w.app_action("quit")
        self.assertEqual(w.app.wait(timeout=WAIT), 0)

        # No GPU: the daemon runs, but its sources find no device (empty /proc and /sys trees): the
        # state's words and next step, which here rightly say there is no GPU.
        w.stop_daemon()
        empty = {name: os.path.join(w.dir, f"empty-{name}") for name in ("proc", "sys")}
        for path in empty.values():
            os.makedirs(path)
        w.daemon_argv = [f"--proc={empty['proc']}" if a.startswith("--proc=") else
                         f"--sys={empty['sys']}" if a.startswith("--sys=") else a for a in w.daemon_argv]
        w.respawn_daemon()
        w.start_app()
        main = self.main_window()
        self.wait_text(main, "the no-GPU state", NO_GPU)
        self.wait_text(main, "its next step", NO_GPU_NEXT)
        text = self.window_text(main)
        for bad in INTERNALS:
            self.assertNotIn(bad, text)
        self.assertNotIn(STOPPED, text)
        w.screenshot("state-no-gpu")
        w.app_action("quit")
        self.assertEqual(w.app.wait(timeout=WAIT), 0)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
