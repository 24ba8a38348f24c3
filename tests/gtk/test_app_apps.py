#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's Applications page (issue 31) end to end: the real nvprofiled over fixture /proc and /sys trees
with processes in the units a desktop starts (GNOME's app-gnome-org.gnome.Console-4242.scope, a Flatpak's
app-flatpak-<id>-N.scope) and in a rootless podman container (libpod-<64 hex>.scope), the app under Xvfb
with desktop files in a temporary XDG_DATA_DIRS and podman's containers.json in its XDG_DATA_HOME, read
and driven through AT-SPI. Proves: applications are named as their desktop files and the container store
name them, never by their unit names; the device column names the device as ListGpuDevices does; clicking
a column's header re-sorts the rows; the search filters them; each application has a sparkline of its use;
the selection and the expanded rows stay across updates; with 300 more processes (each in a service of
its own) the page is filled in (the time from the app's new watch is the
benchmark bench-gtk-fill's figure; the issue measured 6.6 s, the old page 3.2 s here). Screenshots of the page go to $NVPROFILED_SCREENSHOT_DIR.

Every process it starts is killed in a finally clause (appworld.World.teardown); its scratch directory is
removed there too."""

import json
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, DAEMON, FIXTURE_TOOL, POLICY, ROOT_PATH, TOOLS, AppWorld, AtSpi,  # noqa: E402
                      text_of, wait_for)

CONTAINER = "3f4e5d6c7b8a" + "0" * 52
CONSOLE_SCOPE = "app-gnome-org.gnome.Console-4242.scope"
GAME_SCOPE = "app-flatpak-org.example.Game-77.scope"
FARM_UNITS = 300  # the 300 processes each in a service of its own: the slow case of the old page
FARM_PROCESSES = 300
FILL_LIMIT = 1.0  # seconds: the bound for 300 processes

USER_APPS = "/user.slice/user-{uid}.slice/user@{uid}.service/app.slice/"


def script() -> str:
    """Three applications on one amdgpu device, busy 10 % (Console), 40 % (the game) and 20 % (the
    container) from step 2; step 3 adds 300 processes, each in a system service of its own."""
    s = ["node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu"]
    apps = ((5100, "kgx", USER_APPS + CONSOLE_SCOPE, 100, 11),
            (5200, "game", USER_APPS + GAME_SCOPE, 400, 12),
            (5300, "nginx", f"/machine.slice/libpod-{CONTAINER}.scope/container", 200, 13))
    for pid, comm, cgroup, _, _ in apps:
        s += [f"process {pid} {{uid}} 5000 {comm} /usr/bin/{comm} /", f"fd {pid} 5 /dev/full",
              f"cgroup {pid} {cgroup}"]
    for step, factor in ((1, 0), (2, 1)):
        s.append(f"step {step}")
        for pid, _, _, ms, client in apps:
            s.append(f"fdinfo {pid} 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id={client} "
                     f"drm-engine-gfx={factor * ms * 1000000}_ns drm-resident-vram={client * 1024}_KiB")
        s.append(f"clock {step * 1000000}")
    s.append("step 3")
    for i in range(FARM_PROCESSES):
        pid, unit = 6000 + i, i % FARM_UNITS
        s += [f"process {pid} {{uid}} 5000 job{unit} /usr/bin/job{unit} /", f"fd {pid} 3 /dev/full",
              f"cgroup {pid} /system.slice/farm{unit}.service",
              f"fdinfo {pid} 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id={100 + i} "
              f"drm-engine-gfx={i}_ns drm-resident-vram=1024_KiB"]
    s.append("clock 3000000")
    return "\n".join(s) + "\n"


DESKTOP_FILES = {
    "org.gnome.Console.desktop": "[Desktop Entry]\nType=Application\nName=Console\nIcon=utilities-terminal\n"
                                 "Exec=true\n",
    "org.example.Game.desktop": "[Desktop Entry]\nType=Application\nName=Example Game\nIcon=applications-games\n"
                                "Exec=true\n",
}


class AppsPageTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "import"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)

    # --- AT-SPI ----------------------------------------------------------------------------------------------

    text_of = staticmethod(text_of)

    def labels(self, root):
        return [self.text_of(a) for a in self.pyatspi.findAllDescendants(
            root, lambda a: a is not None and a.getRoleName() == "label")]

    def find(self, root, role, name=None):
        return self.pyatspi.findDescendant(
            root, lambda a: a is not None and a.getRoleName() == role and (name is None or a.name == name))

    def click(self, node):
        action = node.queryAction()
        for i in range(action.nActions):
            if action.getName(i) in ("click", "activate", "press"):
                action.doAction(i)
                return
        action.doAction(0)

    def table(self, main):
        return wait_for("the applications table",
                        lambda: self.find(main, "tree table", name="Applications using a GPU"))

    def rows(self, main):
        """The column view's rows shown, each as the texts of its cells' labels, in order (header excluded)."""
        table = self.table(main)
        body = self.find(table, "list")
        rows = []
        for i in range(body.childCount if body is not None else 0):
            row = body.getChildAtIndex(i)
            if row is None or row.getRoleName() != "table row" or row.queryComponent().getExtents(0).height == 0:
                continue
            cells = [self.labels(row.getChildAtIndex(j)) for j in range(row.childCount)]
            rows.append(cells)
        return rows

    def names(self, main):
        """The first column's first line of each row shown."""
        return [cells[0][0] for cells in self.rows(main) if cells and cells[0]]

    def dump(self, node, depth=0, out=None):
        out = [] if out is None else out
        if node is None or depth > 40:
            return out
        out.append("  " * depth + f"{node.getRoleName()} {node.name!r} {self.text_of(node)!r}")
        for i in range(node.childCount):
            self.dump(node.getChildAtIndex(i), depth + 1, out)
        return out

    # --- the case --------------------------------------------------------------------------------------------

    def test_apps_page(self):
        try:
            self.run_case()
        except BaseException:
            if getattr(self.w, "app", None) is not None:
                sys.stderr.write(f"app: exit status {self.w.app.poll()}\n")
            main = getattr(self, "main", None)
            if main is not None:
                try:
                    sys.stderr.write("--- the window ---\n" + "\n".join(self.dump(main)[:400]) + "\n")
                except Exception as e:  # the app may be gone
                    sys.stderr.write(f"no dump: {e!r}\n")
            for name in ("daemon", "app"):
                sys.stderr.write(f"--- {name} log ---\n{self.w.log(name)}\n")
            raise

    def start_app(self):
        self.w.start_app(env=self.app_env)
        self.main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        return self.main

    def show_applications(self, main):
        tab = wait_for("page tab Applications", lambda: self.find(main, "page tab", name="Applications"))
        self.click(tab)
        wait_for("page Applications selected", lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    def run_case(self):
        self.w.start_x_and_session()
        self.w.start_daemon(script=script(), home_pids=(5100, 5200, 5300))
        self.a11y = AtSpi()
        self.pyatspi = self.a11y.pyatspi

        # The user's desktop files and rootless podman's store, as the app (not the daemon) reads them.
        data_dirs, data_home = os.path.join(self.w.dir, "xdg-data-dirs"), os.path.join(self.w.dir, "xdg-data-home")
        for name, text in DESKTOP_FILES.items():
            os.makedirs(os.path.join(data_dirs, "applications"), exist_ok=True)
            with open(os.path.join(data_dirs, "applications", name), "w") as f:
                f.write(text)
        store = os.path.join(data_home, "containers", "storage", "overlay-containers")
        os.makedirs(store)
        with open(os.path.join(store, "containers.json"), "w") as f:
            json.dump([{"id": CONTAINER, "names": ["web-frontend"], "image": "0" * 64}], f)
        self.app_env = {"XDG_DATA_DIRS": data_dirs, "XDG_DATA_HOME": data_home}

        main = self.start_app()
        self.show_applications(main)
        self.w.fixture_step(2)

        # Named by their desktop files and the container store; the units only as a detail.
        wait_for("the three applications by name",
                 lambda: sorted(self.names(main)) == ["Console", "Example Game", "web-frontend"])
        shown = self.labels(main)
        for raw in (CONSOLE_SCOPE, GAME_SCOPE, "org.example.Game", f"libpod-{CONTAINER}.scope", CONTAINER[:12]):
            self.assertFalse([t for t in shown if raw in t], f"{raw} is shown: {shown}")

        # The device column: ListGpuDevices' product name, else its driver and slot.
        device = self.w.busctl("call", ROOT_PATH, "Usage", "ListGpuDevices")[0][0]
        expected = device[4] or f"{device[2]} ({device[3]})"
        for cells in self.rows(main):
            self.assertEqual(cells[1], [expected], f"device column of {cells[0]}")

        # By use (the busiest engine) unless the user picks a column: the game (40 %), the container
        # (20 %), Console (10 %).
        by_use = ["Example Game", "web-frontend", "Console"]
        wait_for("the applications by use", lambda: self.names(main) == by_use)
        self.assertEqual([cells[2] for cells in self.rows(main)], [["gfx 40.0 %"], ["gfx 20.0 %"], ["gfx 10.0 %"]])
        # Each application's use over the last minute, described for those who cannot see the line.
        graph = wait_for("the game's sparkline", lambda: self.find(main, "image", name="Example Game history"))
        self.assertRegex(graph.description, r"^Example Game: 40\.0 % now, peak 40\.0 % in the last minute$")
        self.w.screenshot("applications-page")

        # A column's header re-sorts: by name.
        table = self.table(main)
        header = wait_for("the Name column's header", lambda: self.a11y.column_header(table, "Name"))
        self.w.pointer_click(header, 0.25)
        wait_for("the applications by name", lambda: self.names(main) == ["Console", "Example Game", "web-frontend"])
        self.w.pointer_click(header, 0.75)  # apart from the first: not a double click
        wait_for("the applications by name, descending",
                 lambda: self.names(main) == ["web-frontend", "Example Game", "Console"])

        # The search: by name, by unit, by command.
        self.click(wait_for("the search button", lambda: self.find(main, "push button", name="Search applications")))
        entry = wait_for("the search entry", lambda: self.pyatspi.findDescendant(
            main, lambda a: a is not None and a.getRoleName() == "entry" and a.name == "Search applications" and
            a.getState().contains(self.pyatspi.STATE_VISIBLE)))
        entry.queryEditableText().setTextContents("game")
        wait_for("only the game", lambda: self.names(main) == ["Example Game"])
        entry.queryEditableText().setTextContents("gnome.console")
        wait_for("only Console, by its unit", lambda: self.names(main) == ["Console"])
        entry.queryEditableText().setTextContents("nginx")
        wait_for("only the container, by its command", lambda: self.names(main) == ["web-frontend"])
        entry.queryEditableText().setTextContents("")
        wait_for("all three again", lambda: len(self.names(main)) == 3)

        # The selection and the expanded application stay as they were across samples (the rows are
        # updated in place and sorted again, not rebuilt).
        self.expand(main, "Console", "kgx (5100)")
        body = self.find(self.table(main), "list")
        body.querySelection().selectChild(self.row_index(main, "web-frontend"))
        # The app asks for the figures on each sample its watch announces: three samples, two updates.
        samples = self.w.busctl("get-property", ROOT_PATH, "Usage", "Samples")
        wait_for("three more samples",
                 lambda: self.w.busctl("get-property", ROOT_PATH, "Usage", "Samples") >= samples + 3)
        self.assertEqual(self.names(main), ["web-frontend", "Example Game", "Console", "kgx (5100)"])
        self.assertIn("kgx (5100)", self.names(main))
        self.assertTrue(body.querySelection().isChildSelected(self.row_index(main, "web-frontend")))
        self.assertEqual(body.querySelection().nSelectedChildren, 1)
        self.w.screenshot("applications-expanded")

        # 300 more processes, while the window is hidden (no watch, so no data), on the page the window
        # shows again. Measured from the app's new watch (on which it asks for the figures at once) to the
        # page filled in: the summary counts them all and the rows are laid out. The nodes are found now,
        # while the page is small, and read alone then: walking the whole accessible tree over the bus
        # would take longer than what is measured.
        summary = self.summary(main)
        body = self.find(self.table(main), "list")
        watch = self.w.watch_usage()  # the daemon samples (and finds the processes) while the app does not
        self.addCleanup(os.close, watch)
        self.w.app_action("hide")
        wait_for("Watchers 1 (the test's) once the window is hidden", lambda: self.w.watchers() == 1)
        self.w.fixture_step(3)
        total = FARM_PROCESSES + 3
        wait_for("the daemon's 303 processes", lambda: len(
            self.w.busctl("call", ROOT_PATH, "Usage", "ListGpuProcessesAttributed")[0]) == total, timeout=60)
        shown = time.monotonic()
        # A second instance activates the first, which shows its window again.
        activation = subprocess.Popen([APP], env=self.w.app_env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        try:
            wait_for("the app's watch", lambda: self.w.watchers() == 2, timeout=60)
            start = time.monotonic()
            expected = f"{total} processes in {FARM_UNITS + 3} applications"
            wait_for("the page filled in", lambda: self.text_of(summary) == expected and body.childCount >= 10,
                     timeout=30)
            end = time.monotonic()
        finally:
            activation.wait(timeout=30)
        # A figure, not an assertion (tests are never timed): `ninja -C build-release bench-gtk-fill` runs
        # this case as the benchmark and prints it against the bound.
        figure = (f"{total} processes filled in {end - start:.2f} s after the watch, "
                  f"{end - shown:.2f} s after the window was asked to show")
        sys.stderr.write(figure + "\n")
        if os.environ.get("NVPROFILED_BENCH_FILL"):
            print(f"# bench gtk-fill: {figure}; aim < {FILL_LIMIT:.1f} s (the issue's old page: 6.6 s): "
                  f"{'met' if end - start < FILL_LIMIT else 'missed'}", flush=True)
        self.w.screenshot("applications-300")

        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=30), 0)

    def row_index(self, main, name):
        """The index among the list's children of the row whose first label is name."""
        body = self.find(self.table(main), "list")
        for i in range(body.childCount):
            labels = self.labels(body.getChildAtIndex(i))
            if labels[:1] == [name]:
                return i
        raise AssertionError(f"no row {name}")

    def expand(self, main, name, child):
        """Expands the application's row by its tree expander's action (listitem.expand)."""
        body = self.find(self.table(main), "list")
        expander = body.getChildAtIndex(self.row_index(main, name)).getChildAtIndex(0).getChildAtIndex(0)
        action = expander.queryAction()
        names = [action.getName(i) for i in range(action.nActions)]
        action.doAction(names.index("listitem.expand"))
        wait_for(f"{child} shown once {name} is expanded", lambda: child in self.names(main))

    def summary(self, main):
        """The label that counts the processes and applications: beside the search button."""
        button = wait_for("the search button", lambda: self.find(main, "push button", name="Search applications"))
        label = button.parent.getChildAtIndex(0)
        self.assertEqual(label.getRoleName(), "label")
        return label


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
