# SPDX-License-Identifier: LGPL-2.1-or-later
"""The world the desktop app's test and benchmark run in: Xvfb, a session bus (and the AT-SPI bus it
activates), a private system-like bus, the real nvprofiled over fixture /proc and /sys trees
(tests/drm/usage-fixture) and a user rc file in a scratch $HOME, and nvprofiled-gtk. Every process it
starts is killed with its process group, and its scratch directory removed, by teardown()."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DAEMON = os.environ.get("NVPROFILED_BIN", "")
APP = os.environ.get("NVPROFILED_GTK_BIN", "")
CTL = os.environ.get("NVPROFILECTL_BIN", "")
FIXTURE_TOOL = os.environ.get("NVPROFILED_USAGE_FIXTURE", "")
NVML_FIXTURE = os.environ.get("NVPROFILED_NVML_FIXTURE", "")
# A crafted pci.ids (tests/drm): 1002:73bf is "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]".
PCI_IDS_FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "drm", "fixture-pci.ids")
POLICY = os.environ.get("NVPROFILED_DBUS_POLICY", "")
CORPUS = os.environ.get("NVPROFILED_CORPUS", "")
SHOTS = os.environ.get("NVPROFILED_SCREENSHOT_DIR", "")
REPORT = "nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep"
WAIT = float(os.environ.get("NVPROFILED_TEST_WAIT", "30"))  # seconds: a bound on each wait, not a timing

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

# start_daemon(sensors=True): the amdgpu card's hwmon, as ListGpuSensors gives it: temperature edge 45 and
# junction 52.5 celsius, power PPT 120 of 255 watt, clocks sclk 2100 and mclk 1000 megahertz, fan 1250 rpm.
HWMON_SCRIPT = """hwmon renderD128 temp1_input 45000
hwmon renderD128 temp1_label edge
hwmon renderD128 temp2_input 52500
hwmon renderD128 temp2_label junction
hwmon renderD128 power1_average 120000000
hwmon renderD128 power1_label PPT
hwmon renderD128 power1_cap 255000000
hwmon renderD128 freq1_input 2100000000
hwmon renderD128 freq1_label sclk
hwmon renderD128 freq2_input 1000000000
hwmon renderD128 freq2_label mclk
hwmon renderD128 fan1_input 1250
"""

# start_daemon(nvml_script=NVML_RTX4070): an NVIDIA GPU through the fixture NVML (tests/nvml/nvml-fixture.h),
# idle, with sensors: 61 celsius, 118.25 of 200 watt, 2475 and 10501 megahertz, fan 40 percent.
NVML_RTX4070 = """device name="NVIDIA GeForce RTX 4070" uuid=GPU-1 bus=00000000:01:00.0 gpu=0 mem=0 used=536870912 total=12884901888 temp=61 power=118250 limit=200000 gclk=2475 mclk=10501 fan=40
"""

# The user's own rc file: a rule for glxgears referring to a profile, on line 3.
RC = """# fixture rc file of the app's end-to-end test
{
    "rules": [ { "pattern": { "feature": "procname", "matches": "glxgears" }, "profile": "Threaded" } ],
    "profiles": [ { "name": "Threaded", "settings": [ { "key": "GLThreadedOptimizations", "value": true } ] } ]
}
"""

# The C tests' system-like bus (tests/lib/test-bus-daemon.c fills in the same template): deny by default,
# our policy file included. $NVPROFILED_TEST_LIB_DIR where the checkout is out of reach.
BUS_TEMPLATE = os.path.join(os.environ.get("NVPROFILED_TEST_LIB_DIR")
                            or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"),
                            "test-bus-system.conf")

# What the world needs on PATH besides what a test adds.
TOOLS = ("Xvfb", "dbus-daemon", "gdbus", "busctl")


def bus_config(socket: str, extra_policy: str) -> str:
    """The system-like bus's configuration: the template with our policy file and extra_policy."""
    with open(BUS_TEMPLATE) as f:
        template = f.read()
    return (template.replace("@SOCKET@", socket).replace("@POLICY@", POLICY)
            .replace("@EXTRA_POLICY@", extra_policy))


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

    def write_logs(self, *names):
        """The ends of these processes' logs to stderr: what a failing test shows."""
        for name in names:
            sys.stderr.write(f"--- {name} log ---\n{self.log(name)}\n")

    def stop(self):
        """Kills what spawn() started, last first."""
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
        self.procs = []

    def teardown(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)



def missing_world() -> list[str]:
    """The variables naming what the world runs (the daemon, the app, the CLI, the fixture tool, the bus
    policy) that are unset or name nothing: a test skips with them."""
    return [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP), ("NVPROFILECTL_BIN", CTL),
                           ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
            if not v or not os.path.exists(v)]


def text_of(node) -> str:
    """A node's text: its Text interface's whole text (GTK 4.8 answers "" to getText(0, -1)), else its name;
    no-break spaces (g_format_size() puts one before the unit) as spaces."""
    try:
        t = node.queryText()
        text = t.getText(0, t.characterCount)
    except NotImplementedError:
        text = node.name or ""
    return text.replace("\xa0", " ")


def click(node) -> None:
    """Does the node's click (else activate, press, else first) action, as a pointer click would."""
    action = node.queryAction()
    for i in range(action.nActions):
        if action.getName(i) in ("click", "activate", "press"):
            action.doAction(i)
            return
    action.doAction(0)


class AppWorld(World):
    """The daemon and the app over the fixture."""

    # --- the world --------------------------------------------------------------------------------------------

    def start_x_and_session(self, screen="1280x1024x24"):
        """screen: Xvfb's screen, WIDTHxHEIGHTxDEPTH (wider for a test of a wide window)."""
        r, wfd = os.pipe()
        self.spawn("xvfb", ["Xvfb", "-displayfd", str(wfd), "-noreset", "-nolisten", "tcp", "-screen", "0",
                              screen], pass_fds=(wfd,))
        os.close(wfd)
        with os.fdopen(r) as f:
            display = f.readline().strip()
        assert display, "Xvfb gave no display"
        self.env = dict(os.environ, DISPLAY=":" + display, GDK_BACKEND="x11", GSK_RENDERER="cairo",
                        ADW_DISABLE_PORTAL="1", GTK_A11Y="atspi", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env.pop("LANGUAGE", None)  # English unless a case asks for another language (start_app's env)
        self.env.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        r, wfd = os.pipe()
        # The session bus (and the AT-SPI bus it activates) see DISPLAY.
        self.spawn("session-bus", ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--print-address={wfd}"],
                     pass_fds=(wfd,), env=self.env)
        os.close(wfd)
        with os.fdopen(r) as f:
            self.env["DBUS_SESSION_BUS_ADDRESS"] = f.readline().strip()
        os.environ.update({k: self.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")})

    def start_window_manager(self):
        """openbox in the Xvfb display, as on a desktop: it iconifies on request (Xvfb alone has nobody to
        minimise a window) and gives the window the keyboard focus. Its files go to the scratch directory."""
        config = os.path.join(self.dir, "wm")
        os.makedirs(config)
        self.spawn("openbox", ["openbox", "--sm-disable"],
                   env=dict(self.env, HOME=config, XDG_CONFIG_HOME=config, XDG_CACHE_HOME=config, XDG_DATA_HOME=config))
        # Set once openbox has taken the screen's window management (EWMH), before it manages windows.
        wait_for("openbox to manage the screen", lambda: self.xdotool("get_num_desktops", check=False) is not None)

    def xdotool(self, *args, check=True):
        """xdotool's output (None where it failed and check is false): a user's keys (XTest), window
        manager requests."""
        r = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            if check:
                raise AssertionError(f"xdotool {' '.join(args)}: {r.stderr.strip()}")
            return None
        return r.stdout.strip()

    def start_daemon(self, rescan="100ms", log_level="debug", root="/", uid=None, bus_policy="", pci_ids="",
                     sensors=False, nvml_script=None, script=SCRIPT, home_pids=(4100, 4200)):
        """rescan: RescanIntervalSec= (short for the test, the default for the benchmark). root: the daemon's
        --root, which must hold the scratch directory (the processes' $HOME is given below it). uid: the
        fixture processes' and the scratch $HOME's owner (default: ours). bus_policy: more <policy> elements
        for the private bus. pci_ids: the PCI ID database ([Usage] PCIIDs=; PCI_IDS_FIXTURE names the card),
        "" for none (the card unnamed, whatever the host has installed). sensors: the card has hwmon files
        (HWMON_SCRIPT). nvml_script: the fixture NVML's script (NVML_RTX4070, say); None: NVML off. script:
        the fixture script ({uid} is filled in), home_pids: its processes whose $HOME is the scratch home."""
        d = self.dir
        uid = os.getuid() if uid is None else uid
        self.proc, self.sys, self.home = (os.path.join(d, n) for n in ("proc", "sys", "home"))
        for p in (self.proc, self.sys, self.home, os.path.join(d, "dev")):
            os.makedirs(p)
        with open(os.path.join(d, "script"), "w") as f:
            node, rest = script.format(uid=uid).split("\n", 1)
            f.write(node + "\n" + (HWMON_SCRIPT if sensors else "") + rest)
        self.fixture_step(0)
        self.fixture_step(1)
        # The processes' $HOME, which picks the user's rc files: the daemon finds it below its root.
        home = os.path.join("/", os.path.relpath(self.home, root))
        for pid in home_pids:
            with open(os.path.join(self.proc, str(pid), "environ"), "wb") as f:
                f.write(b"PATH=/usr/bin\0HOME=" + home.encode() + b"\0")
        os.makedirs(os.path.join(self.home, ".nv"))
        self.rc = os.path.join(self.home, ".nv", "nvidia-application-profiles-rc")
        with open(self.rc, "w") as f:
            f.write(RC)
        for p in (self.home, os.path.dirname(self.rc), self.rc):
            os.chown(p, uid, -1)

        self.socket = os.path.join(d, "system-bus")
        with open(os.path.join(d, "bus.conf"), "w") as f:
            f.write(bus_config(self.socket, f'  <policy user="{os.getuid()}"><allow own="{BUS_NAME}"/></policy>\n'
                                            + bus_policy))
        self.spawn("system-bus", ["dbus-daemon", "--nofork", "--nopidfile", f"--config-file={d}/bus.conf"])
        wait_for("the private bus", lambda: os.path.exists(self.socket))
        self.address = "unix:path=" + self.socket
        nvml = "NVML=no\n"
        env = dict(os.environ, NVPROFILED_REPORT_WORKER=os.environ.get("NVPROFILED_REPORT_WORKER", ""))
        if nvml_script is not None:
            with open(os.path.join(d, "nvml.script"), "w") as f:
                f.write(nvml_script)
            nvml = f"NVML=yes\nNVMLLibrary={NVML_FIXTURE}\n"
            env["NVPROFILED_NVML_FIXTURE_SCRIPT"] = os.path.join(d, "nvml.script")
        with open(os.path.join(d, "nvprofiled.conf"), "w") as f:
            f.write(f"[ProcessWatch]\nDeviceDirectory={d}/dev\n[Profiles]\nReloadCoalesceSec=100ms\n"
                    f"[Usage]\nDrmMajor=1\nAccelMajor=4095\nMinIntervalSec=10ms\nRescanIntervalSec={rescan}\n{nvml}"
                    f"PCIIDs={pci_ids or '/nonexistent/pci.ids'}\n")
        self.daemon = self.spawn("daemon", [DAEMON, f"--bus={self.address}", f"--root={root}",
                                            f"--proc={self.proc}", f"--sys={self.sys}", f"--config={d}/nvprofiled.conf",
                                            f"--log-level={log_level}"], env=env)
        wait_for("nvprofiled on the bus", lambda: self.watchers() is not None)

    # --- the daemon's and the bus's states (test_app_states.py) ------------------------------------------------

    def stop_daemon(self, sig=signal.SIGTERM):
        """Stops the daemon start_daemon() started (SIGTERM: as systemctl stop does) and waits for it to
        leave the bus; respawn_daemon() starts it again with the same command line."""
        self.daemon_argv = open(f"/proc/{self.daemon.pid}/cmdline", "rb").read().decode().split("\0")[:-1]
        os.kill(self.daemon.pid, sig)
        self.daemon.wait(timeout=WAIT)
        wait_for("nvprofiled to leave the bus", lambda: self.watchers() is None)

    def respawn_daemon(self, conf=""):
        """Starts the daemon again as stop_daemon() found it, conf (more nvprofiled.conf lines: sections
        may be given again; later keys win) appended to its configuration first."""
        if conf:
            with open(os.path.join(self.dir, "nvprofiled.conf"), "a") as f:
                f.write(conf)
        env = dict(os.environ, NVPROFILED_REPORT_WORKER=os.environ.get("NVPROFILED_REPORT_WORKER", ""))
        self.daemon = self.spawn("daemon", self.daemon_argv, env=env)
        wait_for("nvprofiled back on the bus", lambda: self.watchers() is not None)

    def set_bus_policy(self, bus_policy):
        """Rewrites the private bus's extra policy (start_daemon's bus_policy) and has dbus-daemon read it
        again (SIGHUP), as an administrator changing the system's policy does."""
        with open(os.path.join(self.dir, "bus.conf"), "w") as f:
            f.write(bus_config(self.socket, f'  <policy user="{os.getuid()}"><allow own="{BUS_NAME}"/></policy>\n'
                                            + bus_policy))
        bus = [p for name, p, _ in self.procs if name == "system-bus"][0]
        os.kill(bus.pid, signal.SIGHUP)

    def fixture_step(self, step):
        subprocess.run([FIXTURE_TOOL, os.path.join(self.dir, "script"), self.proc, self.sys, "/nonexistent",
                        str(step)], check=True)

    def busctl(self, verb, path, interface, *args):
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", verb, BUS_NAME, path,
                            f"{BUS_NAME}.{interface}", *args], capture_output=True, text=True)
        return json.loads(r.stdout)["data"] if r.returncode == 0 else None

    def watchers(self):
        return self.busctl("get-property", ROOT_PATH, "Usage", "Watchers")

    def watch_usage(self, interval_usec=1000000):
        """A WatchUsage descriptor of the test's own (the caller closes it): the daemon samples while it
        is open, whether the app watches or not."""
        from gi.repository import Gio, GLib
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        bus = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        _, fds = bus.call_with_unix_fd_list_sync(BUS_NAME, ROOT_PATH, BUS_NAME + ".Usage", "WatchUsage",
                                                 GLib.Variant("(t)", (interval_usec,)), GLib.VariantType("(h)"),
                                                 Gio.DBusCallFlags.NONE, -1, None, None)
        fd = fds.get(0)
        bus.close_sync(None)
        return fd

    def start_app(self, env=None, args=(), leak_check=True):
        """env: more variables for the app (LANGUAGE=de, for instance); args: more arguments (reports to
        open). leak_check: False where LeakSanitizer's whole stacks (below) would cost minutes: large worlds
        and long tests (rulelist, reports, compare, desktop, shell, screenshots, the second start of gpus),
        which CI's 90 minutes cannot hold. ASan and UBSan still check the app there; its leaks are checked by the others (e2e,
        states, system-rule, details, ruleedit, apps, gpus), which reach the same views."""
        self.app_env = dict(self.env, HOME=self.home, **(env or {}))
        if "ASAN_OPTIONS" in self.app_env:
            # Whole stacks for LeakSanitizer: GLib, GTK and their modules have no frame pointers, and
            # tests/sanitizers/lsan.supp names the library functions whose leaks are theirs. That is a slow
            # unwind (libgcc's, from the DWARF tables) at every allocation: laying out a few hundred rows
            # then takes minutes.
            self.app_env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0" if leak_check else ":detect_leaks=0"
        self.app = self.spawn("app", [APP, f"--bus-address={self.address}", *args], env=self.app_env)

    def quit_app(self, app):
        """Quits app (a process start_app() started) through its quit action, as Ctrl+Q does; one that has
        not exited within WAIT is killed, and that is a failure."""
        if app.poll() is None:
            self.app_action("quit", check=False)
            try:
                app.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                os.killpg(app.pid, signal.SIGKILL)
                app.wait()
                raise AssertionError("the app did not quit")

    def app_action(self, action, check=True):
        self.app_action_with(action, None, check)

    def app_action_with(self, action, parameter, check=True):
        """Activates the app's action with parameter, a GVariant in text form (None: none)."""
        subprocess.run(["gdbus", "call", "--session", "--dest", APP_ID, "--object-path",
                        "/" + APP_ID.replace(".", "/"), "--method", "org.gtk.Actions.Activate", action,
                        f"[<{parameter}>]" if parameter else "[]", "{}"],
                       check=check, env=self.env, capture_output=True)

    def pointer_click(self, node, at=0.5):
        """A pointer click into node (of the window titled nvprofiled), at that fraction of its width, as a
        user clicks a column's header: GTK 4.8 gives it no action. Extents are relative to the window (GTK
        reports no screen coordinates)."""
        import pyatspi
        e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        window = self.xdotool("search", "--onlyvisible", "--name", "^nvprofiled$").split()[0]
        # Raised first: another of the app's windows (a comparison, a kernel's) may lie over it.
        self.xdotool("windowraise", window, "mousemove", "--window", window, str(e.x + int(e.width * at)),
                     str(e.y + e.height // 2), "click", "1")

    def window_pixels(self, window):
        """The X window's pixels as (width, height, RGB bytes), read with ImageMagick's import."""
        data = subprocess.run(["import", "-window", str(window), "-depth", "8", "ppm:-"], env=self.env, check=True,
                              capture_output=True).stdout
        header = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
        assert header, f"import wrote no 8-bit PPM: {data[:20]!r}"
        width, height = int(header[1]), int(header[2])
        pixels = data[header.end():]
        assert len(pixels) == width * height * 3, f"a {width}x{height} PPM of {len(pixels)} bytes"
        return width, height, pixels

    def screenshot(self, name):
        if not SHOTS:
            return
        os.makedirs(SHOTS, exist_ok=True)
        subprocess.run(["import", "-window", "root", os.path.join(SHOTS, name + ".png")], env=self.env,
                       check=False, capture_output=True)


    def window_screenshot(self, window, path):
        """The X window's pixels as a PNG file at path (ImageMagick's import)."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.run(["import", "-window", str(window), path], env=self.env, check=True, capture_output=True)


# X keysyms of the keys the tests press.
KEYSYMS = {"Tab": 0xFF09, "Return": 0xFF0D, "Up": 0xFF52, "Down": 0xFF54}


class AtSpi:
    """The app as the AT-SPI bus shows it. Made once DISPLAY and the session bus are set (pyatspi keeps the
    bus it first connects to)."""

    def __init__(self):
        import pyatspi
        from gi.repository import GLib
        self.pyatspi, self.GLib = pyatspi, GLib
        self.desktop = pyatspi.Registry.getDesktop(0)

    def app(self):
        for i in range(self.desktop.childCount):
            a = self.desktop.getChildAtIndex(i)
            if a is not None and a.name == os.path.basename(APP):
                return a
        return None

    def window(self, title):
        app = self.app()
        for i in range(app.childCount if app is not None else 0):
            w = app.getChildAtIndex(i)
            if w is not None and w.name == title:
                return w
        return None

    def close_window(self, window):
        """Closes it as its title bar's close button does (GTK's window.close action). The app answers the
        action once the window is destroyed: a large window under ASan can take longer than AT-SPI waits
        for that answer, so a missing answer is no failure; the window being gone is what counts."""
        name = window.name
        action = window.queryAction()
        for i in range(action.nActions):
            if action.getName(i) == "window.close":
                try:
                    action.doAction(i)
                except self.GLib.GError as e:
                    if "Did not receive a reply" not in e.message:
                        raise
                break
        wait_for(f"the window {name} to close", lambda: self.window(name) is None)

    def key(self, name):
        """A real key press and release (KEYSYMS) through XTest (the AT-SPI registry's), to the focused
        window."""
        self.pyatspi.Registry.generateKeyboardEvent(KEYSYMS[name], None, self.pyatspi.KEY_SYM)

    def focused(self, root, pred=lambda node: True):
        """The node of root that has the keyboard focus if it satisfies pred, else None."""
        found = self.pyatspi.findAllDescendants(
            root, lambda a: a is not None and a.getState().contains(self.pyatspi.STATE_FOCUSED))
        return found[-1] if found and pred(found[-1]) else None

    @staticmethod
    def role_name(node):
        return (node.getRoleName(), node.name) if node is not None else None

    def texts(self, node):
        """The texts of node's labels, in order."""
        found = self.pyatspi.findAllDescendants(node, lambda a: a is not None and a.getRoleName() == "label")
        return [text_of(a) for a in found]

    def table_row(self, root, name):
        """The Applications column view's row whose first cell starts with the label name (an application
        or a process), or None."""
        body = self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == "list" and
                                           a.parent is not None and a.parent.getRoleName() == "tree table")
        for i in range(body.childCount if body is not None else 0):
            row = body.getChildAtIndex(i)
            if row is not None and row.childCount and self.texts(row.getChildAtIndex(0))[:1] == [name]:
                return row
        return None

    def report_tab(self, root, report):
        """The label of the open report's tab, report its file's name (libadwaita 1.2's AdwTab has no role
        or action of its own: a pointer click on it selects it)."""
        return self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == "label" and
                                           a.name == report and a.parent is not None and
                                           a.parent.name == "AdwFadingLabel")

    def shown(self, root, role, pred):
        """The node of role under root for which pred holds that is laid out (hidden tabs' pages stay in the
        accessibility tree in GTK 4.8)."""
        return self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == role and pred(a)
                                           and a.queryComponent().getExtents(0).width > 0)

    def kernel_rows(self, root, report):
        """The Reports page's kernel rows of the report named report (its file's name) laid out, each as its
        cells' texts: index, name, grid × block, duration, findings, the Details button."""
        table = self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == "tree table" and
                                            a.name == f"Kernels of {report}")
        body = self.pyatspi.findDescendant(table, lambda a: a is not None and a.getRoleName() == "list") \
            if table is not None else None
        rows = []
        for i in range(body.childCount if body is not None else 0):
            row = body.getChildAtIndex(i)
            if row is None or row.getRoleName() != "table row" or row.queryComponent().getExtents(0).height == 0:
                continue
            rows.append([" ".join(self.texts(row.getChildAtIndex(j))) for j in range(row.childCount)])
        return rows

    def column_header(self, table, title):
        """The column view's header titled title (GtkColumnViewTitle, which has no AT-SPI action)."""
        return self.pyatspi.findDescendant(table, lambda a: a is not None and a.name == "GtkColumnViewTitle" and
                                           self.pyatspi.findDescendant(a, lambda b: b is not None and
                                                                       b.getRoleName() == "label" and
                                                                       b.name == title) is not None)

    def expand_row(self, root, title, child):
        """Expands the application row titled title by its expander (GTK's listitem.expand action of the
        first cell's GtkTreeExpander); returns the row of child (a process), shown only then."""
        row = wait_for(f"the row {title}", lambda: self.table_row(root, title))
        expander = row.getChildAtIndex(0).getChildAtIndex(0)
        action = expander.queryAction()
        names = [action.getName(i) for i in range(action.nActions)]
        if "listitem.expand" not in names:
            raise AssertionError(f"the row {title} has no expand action: {names}")
        action.doAction(names.index("listitem.expand"))
        return wait_for(f"{child} shown once {title} is expanded", lambda: self.table_row(root, child))

    def windows(self, prefix):
        """The app's windows whose title starts with prefix."""
        app = self.app()
        found = [app.getChildAtIndex(i) for i in range(app.childCount if app is not None else 0)]
        return [w for w in found if w is not None and (w.name or "").startswith(prefix)]

    def point(self, node):
        """A pointer click in the middle of node, for widgets GTK gives no AT-SPI action (drop-downs, check
        buttons, switches). No window manager: a dialog sits at the screen's origin, so its window
        coordinates are the screen's."""
        ext = node.queryComponent().getExtents(self.pyatspi.WINDOW_COORDS)
        self.pyatspi.Registry.generateMouseEvent(ext.x + ext.width // 2, ext.y + ext.height // 2, "b1c")

    def pick(self, root, name, item):
        """Selects item in the drop-down (GtkDropDown) named name. It has no AT-SPI action: a pointer click
        (point()) opens its popover, whose list has the focus on the current item; the keyboard moves to
        item and takes it. Returns the drop-down."""
        pyatspi = self.pyatspi
        combo = wait_for(f"the drop-down {name}", lambda: pyatspi.findDescendant(
            root, lambda a: a is not None and a.getRoleName() == "combo box" and a.name == name))
        self.point(combo)
        popover = wait_for(f"the popover of {name}", lambda: pyatspi.findDescendant(
            combo, lambda a: a is not None and a.getRoleName() == "filler" and a.name == "GtkPopover"))
        items = wait_for(f"the items of {name}", lambda: self.texts(popover))

        def shown():
            """The item the drop-down's button shows: its first label that is an item."""
            return next((t for t in self.texts(combo) if t in items), None)
        current = shown()
        if item not in items:
            raise AssertionError(f"{item!r} is not among the items of {name}: {items}")
        steps = items.index(item) - items.index(current)
        for _ in range(abs(steps)):
            self.key("Down" if steps > 0 else "Up")
        self.key("Return")
        wait_for(f"{item} chosen in {name}", lambda: shown() == item)
        return combo

    def tab_to(self, root, what, pred, press_tab=None, limit=40):
        """Presses Tab (press_tab, else key("Tab")) until the focused node satisfies pred, at most limit
        times (a bound, not a timing); returns it."""
        press_tab = press_tab or (lambda: self.key("Tab"))
        node, seen = self.focused(root), []
        for _ in range(limit):
            if node is not None and pred(node):
                return node
            before = self.role_name(node)
            press_tab()
            # One key at a time, and the next only once the focus has left the node it was on.
            node = wait_for("the focus to move", lambda: self.focused(root, lambda a: self.role_name(a) != before))
            seen.append(self.role_name(node))
        raise AssertionError(f"Tab never reached {what}; focus went through {seen}")
