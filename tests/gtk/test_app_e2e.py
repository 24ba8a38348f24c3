#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app end to end (issue 22, "The app"): the real nvprofiled on a private system-like bus over
fixture /proc and /sys trees (tests/drm/usage-fixture) and a fixture rc tree in a scratch $HOME; the real
nvprofiled-gtk under Xvfb with its own session bus and AT-SPI bus; the app driven and read through AT-SPI
(pyatspi). Proves: the GPUs and Applications views show the daemon's figures for the fixture; a process's
profile and its provenance (file:line:column, as the daemon explains it); "Add a rule" writes the user's
rc.d file, the daemon reloads and the process's row shows the new setting; hiding the window releases the
watch (the daemon's Watchers drops to 0 while the app runs on) and showing it takes one again; a corpus
report opens and lists its kernels. Screenshots of each view go to $NVPROFILED_SCREENSHOT_DIR.

Every process it starts (Xvfb, both buses and what they activate, the daemon, the app) is killed in a
finally clause; its scratch directory is removed there too."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

BUILD = os.environ.get("NVPROFILED_BUILD_ROOT", "")
DAEMON = os.environ.get("NVPROFILED_BIN", "")
APP = os.environ.get("NVPROFILED_GTK_BIN", "")
CTL = os.environ.get("NVPROFILECTL_BIN", "")
FIXTURE_TOOL = os.environ.get("NVPROFILED_USAGE_FIXTURE", "")
POLICY = os.environ.get("NVPROFILED_DBUS_POLICY", "")
CORPUS = os.environ.get("NVPROFILED_CORPUS", "")
SHOTS = os.environ.get("NVPROFILED_SCREENSHOT_DIR", "")
REPORT = "nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep"
WAIT = 30.0

BUS_NAME = "io.github.nvprofiled.NvProfiled1"
ROOT_PATH = "/io/github/nvprofiled/NvProfiled1"
APP_ID = "io.github.nvprofiled.Monitor"

# Two GPU processes on one amdgpu device: glxgears (the test's own uid, in a Flatpak app's scope, $HOME the
# scratch home) and ollama (a system service). Step 2: 0.4 s and 0.25 s of gfx in 1 s.
SCRIPT = """node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu
process 4100 {uid} 5000 glxgears /usr/bin/glxgears /
process 4200 {uid} 4000 ollama /usr/bin/ollama /
fd 4100 5 /dev/full
fd 4200 3 /dev/full
cgroup 4100 /user.slice/user-{uid}.slice/user@{uid}.service/app.slice/app-flatpak-org.example.Game-77.scope
cgroup 4200 /system.slice/ollama.service
step 1
fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1000000000_ns drm-resident-vram=262144_KiB
fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=12 drm-engine-gfx=0_ns drm-resident-vram=524288_KiB
clock 1000000
step 2
fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1400000000_ns drm-resident-vram=262144_KiB
fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=12 drm-engine-gfx=250000000_ns drm-resident-vram=524288_KiB
clock 2000000
"""

# The user's own rc file: a rule for glxgears referring to a profile, on line 3.
RC = """# fixture rc file of the app's end-to-end test
{
    "rules": [ { "pattern": { "feature": "procname", "matches": "glxgears" }, "profile": "Threaded" } ],
    "profiles": [ { "name": "Threaded", "settings": [ { "key": "GLThreadedOptimizations", "value": true } ] } ]
}
"""

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <include>{policy}</include>
  <policy user="{uid}"><allow own="{name}"/></policy>
</busconfig>
"""


def wait_for(what, cond, timeout=WAIT):
    """Polls cond until it returns a true value (returned) or the deadline passes (a failure)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = cond()
        except Exception as e:  # the a11y tree changes under us; try again
            last = e
            if isinstance(e, AssertionError):
                raise
        else:
            if last:
                return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class World:
    """Everything the test starts, torn down in reverse order whatever happened."""

    def __init__(self):
        self.procs = []  # (name, Popen), killed with their process groups
        self.dir = tempfile.mkdtemp(prefix="nvprofiled-gtk-e2e-")
        os.chmod(self.dir, 0o755)

    def spawn(self, name, argv, **kw):
        log = open(os.path.join(self.dir, name + ".log"), "wb")
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", log), stderr=log, start_new_session=True, **kw)
        self.procs.append((name, p, log))
        return p

    def log(self, name):
        try:
            with open(os.path.join(self.dir, name + ".log"), errors="replace") as f:
                return f.read()[-6000:]
        except OSError:
            return ""

    def teardown(self):
        for name, p, log in reversed(self.procs):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class AppTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP), ("NVPROFILECTL_BIN", CTL),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in ("Xvfb", "dbus-daemon", "import", "gdbus", "busctl"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.report = os.path.join(CORPUS, "reports", REPORT)
        if not os.path.exists(self.report):
            self.skipTest(f"{self.report} is not there (corpus_dir)")
        self.w = World()
        self.addCleanup(self.w.teardown)

    # --- the world --------------------------------------------------------------------------------------------

    def start_x_and_session(self):
        r, wfd = os.pipe()
        self.w.spawn("xvfb", ["Xvfb", "-displayfd", str(wfd), "-noreset", "-nolisten", "tcp", "-screen", "0",
                              "1280x1024x24"], pass_fds=(wfd,))
        os.close(wfd)
        with os.fdopen(r) as f:
            display = f.readline().strip()
        self.assertTrue(display, "Xvfb gave no display")
        self.env = dict(os.environ, DISPLAY=":" + display, GDK_BACKEND="x11", GSK_RENDERER="cairo",
                        ADW_DISABLE_PORTAL="1", GTK_A11Y="atspi", NO_AT_BRIDGE="0", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        r, wfd = os.pipe()
        # The session bus (and the AT-SPI bus it activates) see DISPLAY.
        self.w.spawn("session-bus", ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--print-address={wfd}"],
                     pass_fds=(wfd,), env=self.env)
        os.close(wfd)
        with os.fdopen(r) as f:
            self.env["DBUS_SESSION_BUS_ADDRESS"] = f.readline().strip()
        os.environ.update({k: self.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")})

    def start_daemon(self):
        d = self.w.dir
        self.proc, self.sys, self.home = (os.path.join(d, n) for n in ("proc", "sys", "home"))
        for p in (self.proc, self.sys, self.home, os.path.join(d, "dev")):
            os.makedirs(p)
        with open(os.path.join(d, "script"), "w") as f:
            f.write(SCRIPT.format(uid=os.getuid()))
        self.fixture_step(0)
        self.fixture_step(1)
        # The processes' $HOME, which picks the user's rc files.
        for pid in (4100, 4200):
            with open(os.path.join(self.proc, str(pid), "environ"), "wb") as f:
                f.write(b"PATH=/usr/bin\0HOME=" + self.home.encode() + b"\0")
        os.makedirs(os.path.join(self.home, ".nv"))
        self.rc = os.path.join(self.home, ".nv", "nvidia-application-profiles-rc")
        with open(self.rc, "w") as f:
            f.write(RC)

        self.socket = os.path.join(d, "system-bus")
        with open(os.path.join(d, "bus.conf"), "w") as f:
            f.write(BUS_CONFIG.format(socket=self.socket, policy=POLICY, uid=os.getuid(), name=BUS_NAME))
        self.w.spawn("system-bus", ["dbus-daemon", "--nofork", "--nopidfile", f"--config-file={d}/bus.conf"])
        wait_for("the private bus", lambda: os.path.exists(self.socket))
        self.address = "unix:path=" + self.socket
        with open(os.path.join(d, "nvprofiled.conf"), "w") as f:
            f.write(f"[ProcessWatch]\nDeviceDirectory={d}/dev\n[Profiles]\nReloadCoalesceSec=100ms\n"
                    "[Usage]\nDrmMajor=1\nAccelMajor=4095\nMinIntervalSec=10ms\nRescanIntervalSec=100ms\nNVML=no\n")
        env = dict(os.environ, NVPROFILED_REPORT_WORKER=os.environ.get("NVPROFILED_REPORT_WORKER", ""))
        self.w.spawn("daemon", [DAEMON, f"--bus={self.address}", "--root=/", f"--proc={self.proc}",
                                f"--sys={self.sys}", f"--config={d}/nvprofiled.conf", "--log-level=debug"], env=env)
        wait_for("nvprofiled on the bus", lambda: self.watchers() is not None)

    def fixture_step(self, step):
        subprocess.run([FIXTURE_TOOL, os.path.join(self.w.dir, "script"), self.proc, self.sys, "/nonexistent",
                        str(step)], check=True)

    def busctl(self, verb, path, interface, *args):
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", verb, BUS_NAME, path,
                            f"{BUS_NAME}.{interface}", *args], capture_output=True, text=True)
        return json.loads(r.stdout)["data"] if r.returncode == 0 else None

    def watchers(self):
        return self.busctl("get-property", ROOT_PATH, "Usage", "Watchers")

    def start_app(self):
        self.app_env = dict(self.env, HOME=self.home)
        self.app = self.w.spawn("app", [APP, f"--bus-address={self.address}"], env=self.app_env)

    def app_action(self, action):
        subprocess.run(["gdbus", "call", "--session", "--dest", APP_ID, "--object-path",
                        "/" + APP_ID.replace(".", "/"), "--method", "org.gtk.Actions.Activate", action, "[]", "{}"],
                       check=True, env=self.env, capture_output=True)

    def screenshot(self, name):
        if not SHOTS:
            return
        os.makedirs(SHOTS, exist_ok=True)
        subprocess.run(["import", "-window", "root", os.path.join(SHOTS, name + ".png")], env=self.env,
                       check=False, capture_output=True)

    # --- AT-SPI ----------------------------------------------------------------------------------------------

    def a11y_app(self):
        for i in range(self.desktop.childCount):
            a = self.desktop.getChildAtIndex(i)
            if a is not None and a.name == os.path.basename(APP):
                return a
        return None

    def window(self, title):
        app = self.a11y_app()
        if app is None:
            return None
        for i in range(app.childCount):
            w = app.getChildAtIndex(i)
            if w is not None and w.name == title:
                return w
        return None

    @staticmethod
    def text_of(node):
        try:
            t = node.queryText()
            text = t.getText(0, t.characterCount)
        except NotImplementedError:
            text = node.name or ""
        return text.replace("\xa0", " ")  # g_format_size() puts a no-break space before the unit

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

    def button(self, root, name):
        """The push button whose accessible name starts with name (GTK 4.8 appends the button's own label
        to the accessible label it was given, and names a mnemonic button "_Apply Apply")."""
        try:
            return wait_for(f"the button {name}", lambda: self.pyatspi.findDescendant(
                root, lambda a: a is not None and a.getRoleName() == "push button" and (a.name or "").replace("_", "").startswith(name)))
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
            if getattr(self, "app", None) is not None:
                sys.stderr.write(f"app: exit status {self.app.poll()}\n")
            for name in ("daemon", "app"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            raise

    def run_case(self):
        self.start_x_and_session()
        self.start_daemon()
        import pyatspi  # after DISPLAY and the session bus are set
        self.pyatspi = pyatspi
        self.desktop = pyatspi.Registry.getDesktop(0)
        self.assertEqual(self.watchers(), 0)

        self.start_app()
        try:
            main = wait_for("the app's window", lambda: self.window("nvprofiled"))
        except AssertionError:
            names = [self.desktop.getChildAtIndex(i).name for i in range(self.desktop.childCount)]
            app = self.a11y_app()
            windows = [app.getChildAtIndex(i).name for i in range(app.childCount)] if app else None
            raise AssertionError(f"no window: applications {names}, windows {windows}")
        # Visible: the app holds a watch, so the daemon samples; then the fixture's second sample.
        wait_for("Watchers 1 while the window is shown", lambda: self.watchers() == 1)
        wait_for("the device's first sample", lambda: self.row_texts(main, "gfx"))
        self.fixture_step(2)

        # GPUs: the device and its gfx engine at 0.4 + 0.25 s in 1 s, as the daemon reports it.
        wait_for("65.0 % on the device", lambda: "65.0 %" in (self.row_texts(main, "gfx") or []))
        device = self.busctl("call", ROOT_PATH, "Usage", "ListGpuDevices")[0][0]
        self.assertEqual([e[1] for e in device[10] if e[0] == "gfx"], [65.0])
        self.assertIsNotNone(self.find(main, "label", contains="amdgpu (0000:03:00.0)"))
        self.assertIn("768.0 MiB resident", self.row_texts(main, "Memory: vram"))
        self.screenshot("gpus")

        # Applications: by Flatpak application, else unit; each process with its figures and profile.
        self.show_page(main, "Applications")
        game = wait_for("the Flatpak application's row",
                        lambda: [t for t in self.row_texts(main, "org.example.Game") or [] if "gfx 40.0 %" in t])
        self.assertIn("1 process: gfx 40.0 %, vram 256.0 MiB", game)
        ollama = self.row_texts(main, "ollama.service")
        self.assertIn("1 process: gfx 25.0 %, vram 512.0 MiB", ollama)
        row = wait_for("glxgears's profile and settings", lambda: [
            t for t in self.row_texts(main, "glxgears (4100)") or [] if "GLThreadedOptimizations = true" in t])
        self.assertIn("gfx 40.0 %, vram 256.0 MiB\nProfile: Threaded; GLThreadedOptimizations = true", row)
        self.screenshot("applications")

        # The explanation: the rule's file:line:column as the daemon gives it.
        explained = json.loads(subprocess.run([CTL, f"--bus={self.address}", "--json=short", "explain", "4100"],
                                              capture_output=True, text=True, check=True).stdout)
        rule = [r for r in explained["rules"] if r["matched"]][0]
        where = f"{rule['file']}:{rule['line']}:{rule['column']}"
        self.assertEqual(rule["file"], self.rc)
        self.click(self.button(main, "Explain glxgears (4100)"))
        explain = wait_for("the explanation window", lambda: self.window("Explanation of glxgears (4100)"))
        setting = wait_for("the setting's provenance", lambda: self.row_texts(explain, "GLThreadedOptimizations = true"))
        self.assertIn(f"from profile “Threaded”, rule {where}\n__GL_THREADED_OPTIMIZATIONS would override it (not set)",
                      setting)
        self.assertIsNotNone(self.find(explain, "list item", name=where))
        self.screenshot("explanation")
        self.close_window(explain)

        # Add a rule for glxgears: preview first (the daemon's PreviewEdit), then apply; the user's rc.d file
        # is written, the daemon reloads, the row shows the new setting.
        self.click(self.button(main, "Add a rule for glxgears (4100)"))
        dialog = wait_for("the Add a Rule dialog", lambda: self.window("Add a Rule"))
        self.set_entry(dialog, "Value", "5")
        self.click(self.button(dialog, "Preview"))
        wait_for("the preview's changes", lambda: any("4100 glxgears: GLFSAAMode = 5 (new)" in t
                                                      for t in self.texts(dialog)))
        target = os.path.join(self.home, ".nv", "nvidia-application-profiles-rc.d", "50-nvprofilectl")
        self.assertFalse(os.path.exists(target), "the preview wrote the file")
        self.screenshot("add-rule-preview")
        self.click(self.button(dialog, "Apply"))
        wait_for("the user's rc.d file", lambda: os.path.exists(target))
        with open(target) as f:
            written = f.read()
        self.assertIn('"matches": "glxgears"', written)
        self.assertIn('"GLFSAAMode"', written)
        self.assertEqual(os.stat(target).st_mode & 0o7777, 0o644)
        wait_for("the new setting in glxgears's row", lambda: [
            t for t in self.row_texts(main, "glxgears (4100)") or [] if "GLFSAAMode = 5" in t])

        # Hidden: the watch is released while the app keeps running; shown again: a new one.
        self.assertEqual(self.watchers(), 1)
        self.app_action("hide")
        wait_for("Watchers 0 once the window is hidden", lambda: self.watchers() == 0)
        self.assertIsNone(self.app.poll(), "the app exited")
        self.app_action("open-report")  # shows the window again (and asks for a file: cancelled below)
        wait_for("Watchers 1 once it is shown again", lambda: self.watchers() == 1)
        chooser = wait_for("the file chooser", lambda: self.window("Open an Nsight Compute Report"))
        self.close_window(chooser)
        main = wait_for("the app's window, shown again", lambda: self.window("nvprofiled"))

        # A report from the corpus, read in place: its kernels are listed.
        subprocess.run([APP, self.report], env=self.app_env, check=True, timeout=WAIT, capture_output=True)
        kernel = wait_for("the report's kernel", lambda: [
            t for t in self.row_texts(main, "0  addConstDouble3") or [] if "89.86 us" in t])
        self.assertIn("grid (4096,1,1) block (256,1,1), 89.86 us", kernel[0])
        self.screenshot("reports")
        self.show_page(main, "Profiles")
        wait_for("the rules with their files", lambda: self.find(main, "label", contains=f"{self.rc}:3:"))
        self.screenshot("profiles")

        self.app_action("quit")
        self.assertEqual(self.app.wait(timeout=WAIT), 0)
        wait_for("Watchers 0 after quitting", lambda: self.watchers() == 0)

    def close_window(self, window):
        name = window.name
        for i in range(window.queryAction().nActions):
            if window.queryAction().getName(i) == "window.close":
                window.queryAction().doAction(i)
                break
        wait_for(f"the window {name} to close", lambda: self.window(name) is None)

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
