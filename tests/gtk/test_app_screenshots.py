#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The AppStream screenshots, made from the fixture world (appworld.py: the real daemon, an amdgpu device
with two processes, a user rc file, a corpus report opened by argument) in Xvfb with openbox: each page
(GPUs, Applications, Profiles, Reports) at 1000x700, the window at 360 px wide, and the dark style
(ADW_DEBUG_COLOR_SCHEME=prefer-dark), each the app's window only, as
$NVPROFILED_APPSTREAM_SCREENSHOT_DIR/NAME.png (the build tree's tests/gtk/screenshots; their paths are
printed). Every image the metainfo's <screenshots> names is one of them, by file name; the dark one is
dark and the others light.

Every process it starts is killed, and its scratch directory removed, by AppWorld.teardown, whatever
happened."""

import os
import shutil
import sys
import time
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, DAEMON, FIXTURE_TOOL, NVML_FIXTURE, NVML_RTX4070,  # noqa: E402
                      PCI_IDS_FIXTURE, POLICY, REPORT, SCRIPT, TOOLS, AppWorld, AtSpi, text_of, wait_for)

SHOTS = os.environ.get("NVPROFILED_APPSTREAM_SCREENSHOT_DIR", "")
METAINFO = os.environ.get("NVPROFILED_METAINFO", "")
# Page title -> screenshot name, and what shows the page has its figures.
PAGES = {"GPUs": "gpus", "Applications": "applications", "Profiles": "profiles", "Reports": "reports"}
# The Flatpak game's desktop file, as the user's desktop has it: the Applications page names it so.
GAME_DESKTOP = "[Desktop Entry]\nType=Application\nName=Example Game\nIcon=applications-games\nExec=true\n"
GAME = "Example Game"
# A minute's worth of use to draw: the game's and ollama's gfx percent, second by second.
GAME_LOAD = [40, 55, 70, 85, 60, 35, 50, 90, 75, 45, 30, 65]
OLLAMA_LOAD = [25, 10, 5, 20, 45, 60, 30, 10, 15, 40, 55, 20]


def busy_script():
    """SCRIPT's devices and processes, then a step a second with the loads above."""
    head = SCRIPT[:SCRIPT.index("step 1")]
    steps, game_ns, ollama_ns = [], 1000000000, 0
    for i, (g, o) in enumerate(zip([0] + GAME_LOAD, [0] + OLLAMA_LOAD), start=1):
        game_ns += g * 10000000
        ollama_ns += o * 10000000
        steps.append(f"step {i}\n"
                     f"fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 "
                     f"drm-engine-gfx={game_ns}_ns drm-resident-vram=262144_KiB\n"
                     f"fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=12 "
                     f"drm-engine-gfx={ollama_ns}_ns drm-resident-vram=524288_KiB\n"
                     f"clock {i * 1000000}\n")
    return head + "".join(steps)


class ScreenshotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY),
                                  ("NVPROFILED_METAINFO", METAINFO)) if not v or not os.path.exists(v)]
        if not NVML_FIXTURE or not os.path.exists(NVML_FIXTURE):
            missing.append("NVPROFILED_NVML_FIXTURE")
        if missing:
            raise unittest.SkipTest("not built or not set: " + ", ".join(missing))
        if not SHOTS:
            raise unittest.SkipTest("NVPROFILED_APPSTREAM_SCREENSHOT_DIR is not set")
        for tool in (*TOOLS, "openbox", "xdotool", "import"):
            if not shutil.which(tool):
                raise unittest.SkipTest(f"{tool} is not installed")
        cls.report = os.path.join(CORPUS, "reports", REPORT)
        if not os.path.exists(cls.report):
            raise unittest.SkipTest(f"{cls.report} is not there (corpus_dir)")
        # Only this run's images: one the metainfo names but this run did not make is a failure.
        shutil.rmtree(SHOTS, ignore_errors=True)
        cls.w = AppWorld()
        cls.addClassCleanup(cls.w.teardown)
        cls.w.start_x_and_session()
        cls.w.start_window_manager()
        # What the screenshots show: the amdgpu card by its product name with its sensors, an RTX 4070
        # through the fixture NVML, the game by its desktop file's name.
        cls.w.start_daemon(pci_ids=PCI_IDS_FIXTURE, sensors=True, nvml_script=NVML_RTX4070, script=busy_script())
        cls.data_dirs = os.path.join(cls.w.dir, "xdg-data")
        os.makedirs(os.path.join(cls.data_dirs, "applications"))
        with open(os.path.join(cls.data_dirs, "applications", "org.example.Game.desktop"), "w") as f:
            f.write(GAME_DESKTOP)
        cls.a11y = AtSpi()
        cls.pyatspi = cls.a11y.pyatspi

    def logged(self, case):
        try:
            case()
        except BaseException:
            self.w.write_logs("daemon", "app", "openbox")
            raise

    def start_app(self, env=None):
        env = dict(env or {}, XDG_DATA_DIRS=f"{self.data_dirs}:/usr/share")
        self.w.start_app(env=env, args=[self.report], leak_check=False)  # see appworld.start_app()
        self.addCleanup(self.stop_app, self.w.app)
        self.main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        self.xid = wait_for("the window on the X screen", lambda: (self.w.xdotool(
            "search", "--onlyvisible", "--name", "^nvprofiled$", check=False) or "").split()[:1])[0]

    def stop_app(self, app):
        self.w.quit_app(app)

    def find(self, role, pred=lambda a: True):
        return self.pyatspi.findDescendant(self.main, lambda a: a is not None and a.getRoleName() == role and pred(a))

    def show_page(self, title):
        tab = wait_for(f"the page tab {title}", lambda: self.find("page tab", lambda a: a.name == title))
        action = tab.queryAction()
        action.doAction(0)
        wait_for(f"the page {title} selected", lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    def resize(self, width, height):
        self.w.xdotool("windowsize", "--sync", self.xid, str(width), str(height))
        wait_for(f"the window {width}x{height}", lambda: f"Geometry: {width}x{height}" in self.w.xdotool(
            "getwindowgeometry", self.xid))

    def shoot(self, name):
        path = os.path.join(SHOTS, name + ".png")
        self.w.window_screenshot(self.xid, path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)
        print(f"# screenshot: {path}")
        return path

    def luminance(self):
        _, _, pixels = self.w.window_pixels(self.xid)
        counts = {}
        for i in range(0, len(pixels), 3 * 7):
            rgb = pixels[i:i + 3]
            counts[rgb] = counts.get(rgb, 0) + 1
        r, g, b = max(counts, key=counts.get)
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    def test_screenshots(self):
        self.logged(self.screenshots_case)

    def screenshots_case(self):
        self.start_app(env={"ADW_DEBUG_COLOR_SCHEME": "default"})
        self.resize(1000, 700)
        # The loads, a second apart, while the app watches: its graphs and sparklines fill.
        for step in range(2, len(GAME_LOAD) + 2):
            self.w.fixture_step(step)
            time.sleep(1)
        for title, name in PAGES.items():
            self.show_page(title)
            if title == "Applications":
                wait_for(f"the application {GAME} with its use", lambda: [
                    row for row in [self.a11y.table_row(self.main, GAME)]
                    if row is not None and "gfx" in " ".join(self.a11y.texts(row))])
            elif title == "Reports":
                # Its kernels' rows, in the table of the report's kernels.
                wait_for("the report's kernels", lambda: self.a11y.kernel_rows(self.main, REPORT))
            elif title == "GPUs":
                # The graphs have samples, and the sensors are read.
                wait_for("the device's graphs and sensors", lambda: self.find(
                    "image", lambda a: "peak" in (a.description or "")) and self.find(
                    "label", lambda a: "°C" in text_of(a)))
            self.shoot(name)
            self.assertGreater(self.luminance(), 0.8, f"{name} is not light")
        self.show_page("GPUs")
        self.resize(360, 720)
        self.shoot("narrow")
        self.stop_app(self.w.app)

        self.start_app(env={"ADW_DEBUG_COLOR_SCHEME": "prefer-dark"})
        self.resize(1000, 700)
        self.show_page("Applications")
        wait_for(f"the application {GAME}", lambda: self.a11y.table_row(self.main, GAME))
        wait_for("a dark window", lambda: self.luminance() < 0.3)
        self.shoot("dark")

        # Every screenshot the metainfo names, by its file name, is one this run made.
        images = [el.text.strip() for el in ET.parse(METAINFO).getroot().iter("image")]
        self.assertTrue(images, "the metainfo names no screenshot")
        made = set(os.listdir(SHOTS))
        published = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "client", "gtk",
                                 "screenshots")
        for url in images:
            self.assertIn(os.path.basename(url), made, f"{url}: not made by this test")
            # The address is the checkout's copy, as the repository publishes it.
            self.assertTrue(url.endswith("/main/client/gtk/screenshots/" + os.path.basename(url)), url)
            self.assertTrue(os.path.isfile(os.path.join(published, os.path.basename(url))),
                            f"{url}: not in client/gtk/screenshots")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
