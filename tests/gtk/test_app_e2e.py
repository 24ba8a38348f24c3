#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app end to end (issue 22, "The app"): the real nvprofiled on a private system-like bus over
fixture /proc and /sys trees (tests/drm/usage-fixture) and a fixture rc tree in a scratch $HOME; the real
nvprofiled-gtk under Xvfb with its own session bus and AT-SPI bus; the app driven and read through AT-SPI
(pyatspi). Proves: the GPUs and Applications views show the daemon's figures for the fixture; a process's
profile and its provenance (file:line:column, as the daemon explains it); "Add a rule" writes the user's
rc.d file, the daemon reloads and the process's row shows the new setting; hiding the window releases the
watch (the daemon's Watchers drops to 0 while the app runs on) and showing it takes one again; a corpus
report opened through the file chooser (its path typed as a keyboard user types it) and by command-line
argument lists its kernels. Applications are rows of a column view (issue 31), collapsed at first and
expanded by their expander. With LANGUAGE=de the app speaks German from the build tree's
catalogue (NVPROFILED_GTK_LOCALEDIR): page tabs, a dialog's labels, a plural, and numbers with their
units still formatted. Screenshots of each view go to $NVPROFILED_SCREENSHOT_DIR.

Every process it starts (Xvfb, both buses and what they activate, the daemon, the app) is killed in a
finally clause; its scratch directory is removed there too."""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, CTL, DAEMON, FIXTURE_TOOL, POLICY, REPORT, ROOT_PATH, TOOLS, WAIT,  # noqa: E402
                      AppWorld, AtSpi, text_of, wait_for)


class AppTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP), ("NVPROFILECTL_BIN", CTL),
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

    def connect_atspi(self):
        """Once DISPLAY and the session bus are set: pyatspi keeps the bus it first connects to."""
        self.a11y = AtSpi()
        self.pyatspi, self.desktop = self.a11y.pyatspi, self.a11y.desktop

    def window(self, title):
        return self.a11y.window(title)

    def close_window(self, window):
        self.a11y.close_window(window)

    text_of = staticmethod(text_of)

    def find(self, root, role, name=None, contains=None):
        def pred(a):
            if a is None or a.getRoleName() != role:
                return False
            if name is not None and a.name != name:
                return False
            return contains is None or contains in (a.name or "")
        return self.pyatspi.findDescendant(root, pred)

    def texts(self, node):
        found = self.pyatspi.findAllDescendants(node, lambda a: a is not None and a.getRoleName() == "label")
        return [self.text_of(a) for a in found]

    def row_texts(self, root, title):
        """The labels of the list item (AdwActionRow, AdwExpanderRow) titled title, or None."""
        row = self.find(root, "list item", name=title)
        return self.texts(row) if row is not None else None

    def button(self, root, name, gtk_own=False):
        """The push button named exactly name: each of the app's buttons has one accessible name
        (app_button_new()). gtk_own: a button GTK made itself (the file chooser's), which GTK 4.8 names
        by its label with the mnemonic's underscore, then its text: "_Open Open"."""
        def named(a):
            n = a.name or ""
            if not gtk_own:
                return n == name
            raw, _, text = n.rpartition(" ")
            return text == name and raw.replace("_", "") == name
        try:
            return wait_for(f"the button {name}", lambda: self.pyatspi.findDescendant(
                root, lambda a: a is not None and a.getRoleName() == "push button" and named(a)))
        except AssertionError:
            buttons = self.pyatspi.findAllDescendants(root, lambda a: a is not None and "button" in a.getRoleName())
            raise AssertionError(f"no button {name}: {[(b.getRoleName(), b.name) for b in buttons]}")

    def click(self, node):
        action = node.queryAction()
        for i in range(action.nActions):
            if action.getName(i) in ("click", "activate", "press"):
                action.doAction(i)
                return
        action.doAction(0)

    def type_text(self, text):
        self.pyatspi.Registry.generateKeyboardEvent(0, text, self.pyatspi.KEY_STRING)

    @staticmethod
    def height(node):
        return node.queryComponent().getExtents(0).height  # 0: ATSPI_COORD_TYPE_SCREEN; only the size is used

    def table_row(self, main, name):
        return self.a11y.table_row(main, name)

    def cells(self, main, name):
        """The label texts of the row table_row() finds, or None."""
        row = self.table_row(main, name)
        return self.texts(row) if row is not None else None

    def expand(self, main, title, child):
        """Expands the application row titled title; child (a process row's name) is in the view only
        then."""
        self.assertIsNone(self.table_row(main, child), f"{child} is shown before {title} is expanded")
        self.a11y.expand_row(main, title, child)

    def show_page(self, main, title):
        tab = wait_for(f"page tab {title}", lambda: self.find(main, "page tab", name=title))
        self.click(tab)
        wait_for(f"page {title} selected",
                 lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    # --- the case --------------------------------------------------------------------------------------------

    def test_app(self):
        try:
            self.run_case()
        except BaseException:
            if getattr(self.w, "app", None) is not None:
                sys.stderr.write(f"app: exit status {self.w.app.poll()}\n")
            for name in ("daemon", "app"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            raise

    def run_case(self):
        self.w.start_x_and_session()
        self.w.start_daemon()
        self.connect_atspi()
        self.assertEqual(self.w.watchers(), 0)

        self.w.start_app()
        try:
            main = wait_for("the app's window", lambda: self.window("nvprofiled"))
        except AssertionError:
            names = [self.desktop.getChildAtIndex(i).name for i in range(self.desktop.childCount)]
            app = self.a11y.app()
            windows = [app.getChildAtIndex(i).name for i in range(app.childCount)] if app else None
            raise AssertionError(f"no window: applications {names}, windows {windows}")
        # Visible: the app holds a watch, so the daemon samples; then the fixture's second sample.
        wait_for("Watchers 1 while the window is shown", lambda: self.w.watchers() == 1)
        wait_for("the device's first sample", lambda: self.row_texts(main, "gfx"))
        self.w.fixture_step(2)

        # GPUs: the device and its gfx engine at 0.4 + 0.25 s in 1 s, as the daemon reports it.
        wait_for("65.0 % on the device", lambda: "65.0 %" in (self.row_texts(main, "gfx") or []))
        device = self.w.busctl("call", ROOT_PATH, "Usage", "ListGpuDevices")[0][0]
        self.assertEqual([e[1] for e in device[10] if e[0] == "gfx"], [65.0])
        self.assertIsNotNone(self.find(main, "label", contains="amdgpu (0000:03:00.0)"))
        self.assertIn("768.0 MiB resident", self.row_texts(main, "Memory: vram"))
        self.w.screenshot("gpus")

        # Applications: by Flatpak application, else unit; each process with its figures and profile.
        self.show_page(main, "Applications")
        # No desktop file names them here: the Flatpak by its id, the service by its command. The device
        # as ListGpuDevices names it (its product name, else its driver and slot).
        shown_device = device[4] or f"{device[2]} ({device[3]})"
        game = wait_for("the Flatpak application's row",
                        lambda: [t for t in [self.cells(main, "org.example.Game")] if t and "gfx 40.0 %" in t])[0]
        self.assertEqual(game[:5], ["org.example.Game", "1 process", shown_device, "gfx 40.0 %", "256.0 MiB"])
        ollama = self.cells(main, "ollama")
        self.assertEqual(ollama[:5], ["ollama", "1 process", shown_device, "gfx 25.0 %", "512.0 MiB"])
        self.expand(main, "org.example.Game", "glxgears (4100)")
        row = wait_for("glxgears's profile and settings", lambda: [
            t for t in [self.cells(main, "glxgears (4100)")] if t and "GLThreadedOptimizations = true" in t])[0]
        self.assertEqual(row[:5], ["glxgears (4100)", shown_device, "gfx 40.0 %", "256.0 MiB", "Threaded"])
        self.w.screenshot("applications")

        # The explanation: the rule's file:line:column as the daemon gives it.
        explained = json.loads(subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", "explain", "4100"],
                                              capture_output=True, text=True, check=True).stdout)
        rule = [r for r in explained["rules"] if r["matched"]][0]
        where = f"{rule['file']}:{rule['line']}:{rule['column']}"
        self.assertEqual(rule["file"], self.w.rc)
        self.click(self.button(main, "Explain glxgears (4100)"))
        explain = wait_for("the explanation window", lambda: self.window("Explanation of glxgears (4100)"))
        setting = wait_for("the setting's provenance", lambda: self.row_texts(explain, "GLThreadedOptimizations = true"))
        self.assertIn(f"from profile “Threaded”, rule {where}\n__GL_THREADED_OPTIMIZATIONS would override it (not set)",
                      setting)
        self.assertIsNotNone(self.find(explain, "list item", name=where))
        self.w.screenshot("explanation")
        self.close_window(explain)

        # Add a rule for glxgears: preview first (the daemon's PreviewEdit), then apply; the user's rc.d file
        # is written, the daemon reloads, the row shows the new setting.
        self.click(self.button(main, "Add a rule for glxgears (4100)"))
        dialog = wait_for("the Add a Rule dialog", lambda: self.window("Add a Rule"))
        self.a11y.pick(dialog, "Value", "5: 4x (4xMS)")
        self.click(self.button(dialog, "Preview…"))
        preview = wait_for("the preview", lambda: self.a11y.windows("Preview: Add a rule for ")[0])
        wait_for("the preview's changes", lambda: any("4100 glxgears: GLFSAAMode = 5 (new)" in t
                                                      for t in self.texts(preview)))
        target = os.path.join(self.w.home, ".nv", "nvidia-application-profiles-rc.d", "50-nvprofilectl")
        self.assertFalse(os.path.exists(target), "the preview wrote the file")
        self.w.screenshot("add-rule-preview")
        self.click(self.button(preview, "Apply"))
        wait_for("the user's rc.d file", lambda: os.path.exists(target))
        with open(target) as f:
            written = f.read()
        self.assertIn('"matches": "glxgears"', written)
        self.assertIn('"GLFSAAMode"', written)
        self.assertEqual(os.stat(target).st_mode & 0o7777, 0o644)
        wait_for("the dialogs to close", lambda: self.window("Add a Rule") is None and
                 not self.a11y.windows("Preview: "))
        wait_for("the new setting in glxgears's row", lambda: [
            t for t in self.cells(main, "glxgears (4100)") or [] if "GLFSAAMode = 5" in t])

        # Hidden: the watch is released while the app keeps running; shown again: a new one.
        self.assertEqual(self.w.watchers(), 1)
        self.w.app_action("hide")
        wait_for("Watchers 0 once the window is hidden", lambda: self.w.watchers() == 0)
        self.assertIsNone(self.w.app.poll(), "the app exited")
        self.w.app_action("open-report")  # shows the window again and asks for a report
        wait_for("Watchers 1 once it is shown again", lambda: self.w.watchers() == 1)
        main = wait_for("the app's window, shown again", lambda: self.window("nvprofiled"))

        # A report from the corpus, read in place, chosen in the file chooser as a keyboard user does: "/"
        # opens the location entry, the path is typed, then Open; the app passes its descriptor to
        # LoadReport and lists its kernels.
        chooser = wait_for("the file chooser", lambda: self.window("Open an Nsight Compute Report"))
        wait_for("the chooser's focus", lambda: self.a11y.focused(chooser))
        self.type_text(self.report)
        location = wait_for("the typed path in the location entry", lambda: self.pyatspi.findDescendant(
            chooser, lambda a: a is not None and a.getRoleName() == "text" and self.text_of(a) == self.report))
        self.assertTrue(location.getState().contains(self.pyatspi.STATE_FOCUSED))
        self.click(self.button(chooser, "Open", gtk_own=True))
        wait_for("the file chooser to close", lambda: self.window("Open an Nsight Compute Report") is None)
        kernel = wait_for("the report's kernel", lambda: [
            r for r in self.a11y.kernel_rows(main, REPORT) if r[1] == "addConstDouble3" and r[3] == "89.86 us"])
        self.assertEqual(kernel[0][:4], ["0", "addConstDouble3", "(4096, 1, 1) × (256, 1, 1)", "89.86 us"])
        self.assertTrue(kernel[0][4].startswith("Uncoalesced Global Accesses (est. 64.7%)"), kernel[0])
        # The same report by command-line argument (to the running app): a second one is listed, in a tab
        # of its own.
        subprocess.run([APP, self.report], env=self.w.app_env, check=True, timeout=WAIT, capture_output=True)
        wait_for("the report opened by argument", lambda: len(self.pyatspi.findAllDescendants(
            main, lambda a: a is not None and a.getRoleName() == "tree table" and
            a.name == f"Kernels of {REPORT}")) == 2)
        self.w.screenshot("reports")
        # One kernel's sections by their display names, with their rule advice (test_app_details.py: all).
        self.click(self.button(main, "Details of kernel 0 addConstDouble3"))
        details = wait_for("the kernel's window", lambda: self.window("Kernel addConstDouble3"))
        wait_for("the rule's message", lambda: [t for t in self.texts(details) if t.startswith(
            "The kernel is utilizing greater than 80.0% of the available compute")])
        self.assertIsNotNone(self.find(details, "label", name="GPU Speed Of Light Throughput"))
        self.w.screenshot("report-kernel")
        self.close_window(details)
        self.show_page(main, "Profiles")
        wait_for("the rules with their files", lambda: self.find(main, "label", contains=f"{self.w.rc}:3:"))
        self.assertIsNotNone(self.button(main, "Add Rule…"))  # named by its label's text alone
        self.w.screenshot("profiles")

        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=WAIT), 0)
        wait_for("Watchers 0 after quitting", lambda: self.w.watchers() == 0)

        # In the same world (pyatspi keeps its first AT-SPI bus for the life of the process): in German.
        self.run_german()

    def run_german(self):
        """LANGUAGE=de under LANG=LC_ALL=C.UTF-8 (glibc ignores LANGUAGE only for the locale "C" itself):
        the app finds the build tree's catalogue through NVPROFILED_GTK_LOCALEDIR. Fails, not skips,
        without it: English text fails every assertion below."""
        locale_dir = os.environ.get("NVPROFILED_GTK_LOCALEDIR", "")
        self.assertTrue(os.path.exists(os.path.join(locale_dir, "de", "LC_MESSAGES", "nvprofiled-gtk.mo")),
                        f"no German catalogue under NVPROFILED_GTK_LOCALEDIR={locale_dir!r}")
        self.w.start_app(env={"LANGUAGE": "de"})
        main = wait_for("the app's window", lambda: self.window("nvprofiled"))
        tabs = wait_for("four page tabs", lambda: [t.name for t in self.pyatspi.findAllDescendants(
            main, lambda a: a is not None and a.getRoleName() == "page tab")] if self.find(main, "page tab") else None)
        # Each view switcher names them: the header bar's (a wide and a narrow one) and the bottom bar's
        # (revealed in a narrow window).
        self.assertEqual(tabs, ["GPUs", "Anwendungen", "Profile", "Berichte"] * (len(tabs) // 4))
        # Numbers and units as in English (LC_NUMERIC is C.UTF-8's): a percentage, IEC sizes.
        wait_for("the device's memory", lambda: "768.0 MiB resident" in (self.row_texts(main, "Speicher: vram") or []))
        self.show_page(main, "Anwendungen")
        game = wait_for("the application's figures, with the German plural", lambda: [
            t for t in [self.cells(main, "org.example.Game")] if t and "1 Prozess" in t])[0]
        self.assertEqual(game[1], "1 Prozess")
        self.assertRegex(game[3], r"^gfx [0-9]+\.[0-9] %$")
        self.assertEqual(game[4], "256.0 MiB")
        self.expand(main, "org.example.Game", "glxgears (4100)")
        self.click(self.button(main, "Regel für glxgears (4100) hinzufügen"))
        dialog = wait_for("the dialog Regel hinzufügen", lambda: self.window("Regel hinzufügen"))
        wait_for("the dialog's editors", lambda: self.find(dialog, "combo box", name="Wert"))
        labels = self.texts(dialog)
        for text in ("Schreiben in", "Welche Prozesse (Muster)", "Was sie anwendet", "nicht", "JSON"):
            self.assertIn(text, labels)
        self.assertIsNotNone(self.button(dialog, "Vorschau …"))
        self.w.screenshot("add-rule-de")
        self.close_window(dialog)
        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=WAIT), 0)

    def set_entry(self, root, title, text):
        row = wait_for(f"the {title} entry", lambda: self.find(root, "list item", name=title) or
                       self.find(root, "text", name=title))
        entry = row if row.getRoleName() == "text" else self.pyatspi.findDescendant(
            row, lambda a: a is not None and a.getRoleName() in ("text", "entry"))
        entry.queryEditableText().setTextContents(text)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
