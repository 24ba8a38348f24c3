#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app's GPU page (issue 31) end to end: the real nvprofiled on a private system-like bus over
fixture /proc and /sys trees with an amdgpu device in use (named by a fixture pci.ids, with hwmon sensors), a
runtime-suspended amdgpu device, and an NVIDIA device through the fixture NVML library (tests/nvml) with its
sensors; the real nvprofiled-gtk under Xvfb, read through AT-SPI. Proves: each device is titled by its product name (the daemon's ListGpuDevices name,
else driver and address), never by its usage source; each engine and memory region has a history graph
whose accessible description states the current and peak values the fixture gives over the window shown,
and the page's window choice changes that window; VRAM of known size has a bar at used/size with the
figures as text; the sensors (Usage.ListGpuSensors) are shown with their units, none for the suspended
device, which says it is suspended; Tab reaches only what can be operated (no read-only row, graph, bar
or label is a Tab stop). A screenshot of the page goes to $NVPROFILED_SCREENSHOT_DIR.

Every process it starts is killed, and its scratch directory removed, by AppWorld.teardown()."""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import appworld  # noqa: E402
from appworld import (APP, DAEMON, FIXTURE_TOOL, NVML_FIXTURE, PCI_IDS_FIXTURE, POLICY, ROOT_PATH,  # noqa: E402
                      TOOLS, AppWorld, AtSpi, click, text_of, wait_for)


# appworld's glxgears and ollama on an amdgpu device (0.4 + 0.25 s of gfx in 1 s at step 2), then 0.1 s at
# step 3, so that the current value and the peak differ; and a second amdgpu device (an id the fixture pci.ids
# lacks), runtime-suspended, which a sleeping process holds open.
SUSPENDED = """node renderD130 /dev/urandom pci 0000:05:00.0 0x1002 0x7470 amdgpu
power renderD130 suspended
process 4300 {uid} 3000 sleeper /usr/bin/sleeper /
fd 4300 3 /dev/urandom
fdinfo 4300 3 keys drm-driver=amdgpu drm-pdev=0000:05:00.0 drm-client-id=99 drm-engine-gfx=1_ns
"""
STEP_3 = """step 3
fdinfo 4100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1500000000_ns drm-resident-vram=262144_KiB
fdinfo 4200 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=12 drm-engine-gfx=250000000_ns drm-resident-vram=524288_KiB
clock 3000000
"""
SCRIPT = appworld.SCRIPT.replace("process 4100 ", SUSPENDED + "process 4100 ", 1) + STEP_3

# An RTX 4070: 45 % busy, 3 of 12 GiB used, and its sensors (mW for power, as NVML gives them).
NVIDIA = "NVIDIA GeForce RTX 4070"
NVML_SCRIPT = (f'device name="{NVIDIA}" uuid=GPU-1 bus=00000000:01:00.0 gpu=45 mem=30 used=3221225472 reserved=0 '
               'total=12884901888 temp=54 power=120500 limit=200000 gclk=2475 mclk=10501 fan=35\n')
SENSORS = {"Temperature": "54 °C", "Power draw": "120.5 W", "Power limit": "200.0 W", "Graphics clock": "2475 MHz",
           "Memory clock": "10501 MHz", "Fan": "35 %"}
# The amdgpu card's hwmon files (appworld.HWMON_SCRIPT) as the page shows them.
HWMON_SENSORS = {"Temperature (edge)": "45 °C", "Power draw (PPT)": "120.0 W", "Power limit (PPT)": "255.0 W",
                 "Graphics clock (sclk)": "2100 MHz", "Memory clock (mclk)": "1000 MHz", "Fan": "1250 RPM"}
NAVI = "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]"
SOURCES = ("drm-fdinfo", "nvml")

# What may take the keyboard focus on the page: the view switcher's tabs, the window choice, buttons.
OPERABLE = {"page tab", "toggle button", "push button", "menu", "menu item", "check box", "combo box"}


class GpusTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY),
                                  ("NVPROFILED_NVML_FIXTURE", NVML_FIXTURE))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "import"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)

    # --- AT-SPI ----------------------------------------------------------------------------------------------

    def all(self, root, role, pred=lambda a: True):
        return self.pyatspi.findAllDescendants(root, lambda a: a is not None and a.getRoleName() == role and pred(a))

    def find(self, root, role, name):
        return self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == role and a.name == name)

    def labels(self, root):
        return [text_of(a) for a in self.all(root, "label")]

    def card(self, main, title):
        """The device's card: the list its group titles (AdwPreferencesGroup names its list by its title)."""
        return self.find(main, "list", title)

    def card_labels(self, card):
        """The labels of the whole card: its list's, and the group's title and description above it."""
        node = card
        while node is not None and card.name not in self.labels(node):
            node = node.parent
        return self.labels(node) if node is not None else []

    def graph(self, card, what):
        return self.find(card, "image", f"{what} history")

    def description(self, card, what):
        g = self.graph(card, what)
        return g.description.replace("\xa0", " ") if g is not None else None

    def row_texts(self, card, title):
        row = self.find(card, "list item", title)
        return self.labels(row) if row is not None else None

    # --- the case --------------------------------------------------------------------------------------------

    def test_gpus(self):
        try:
            self.run_case()
        except BaseException:
            if getattr(self.w, "app", None) is not None:
                sys.stderr.write(f"app: exit status {self.w.app.poll()}\n")
            self.w.write_logs("daemon", "app")
            raise

    def run_case(self):
        self.w.start_x_and_session()
        self.w.start_daemon(script=SCRIPT, nvml_script=NVML_SCRIPT, pci_ids=PCI_IDS_FIXTURE, sensors=True)
        a11y = AtSpi()
        self.pyatspi = a11y.pyatspi
        self.w.start_app()
        main = wait_for("the app's window", lambda: a11y.window("nvprofiled"))
        wait_for("Watchers 1 while the window is shown", lambda: self.w.watchers() == 1)

        # Titles: the product name where the daemon knows one, else driver and address; the source never.
        try:
            devices = {(d[0], d[1]): d for d in wait_for("three devices", self.three_devices)}
        except AssertionError:
            raise AssertionError(f"not three devices: {self.last_devices}")
        self.assertEqual(devices[("0000:01:00.0", "nvml")][4], NVIDIA)
        self.assertEqual(devices[("0000:03:00.0", "drm-fdinfo")][4], NAVI)  # from the fixture pci.ids
        self.assertEqual(devices[("0000:05:00.0", "drm-fdinfo")][4], "")  # not in it
        nvidia = wait_for(f"the card {NVIDIA}", lambda: self.card(main, NVIDIA))
        amd = wait_for(f"the card {NAVI}", lambda: self.card(main, NAVI))
        asleep = wait_for("the suspended card", lambda: self.card(main, "amdgpu (0000:05:00.0)"))
        self.assertIn(NVIDIA, self.labels(main))
        texts = self.card_labels(nvidia) + self.card_labels(amd) + self.card_labels(asleep)
        self.assertIn("nvidia driver, 0000:01:00.0: 0 clients", texts)
        for text in texts:
            self.assertFalse(any(s in text for s in SOURCES), f"a usage source in the text {text!r}")

        # Graphs: NVML's device engines and VRAM; amdgpu's gfx, first 65 %, then 10 % with 65 % the peak.
        wait_for("the gpu graph", lambda: self.description(nvidia, "gpu") ==
                 "gpu: 45.0 % now, peak 45.0 % in the last minute")
        wait_for("the memory graph", lambda: self.description(nvidia, "memory") ==
                 "memory: 30.0 % now, peak 30.0 % in the last minute")
        wait_for("the vram graph", lambda: self.description(nvidia, "vram") ==
                 "vram: 3.0 GiB now, peak 3.0 GiB in the last minute")
        wait_for("amdgpu's first gfx sample", lambda: self.graph(amd, "gfx"))
        self.w.fixture_step(2)
        wait_for("65 % on the amdgpu device", lambda: self.description(amd, "gfx") ==
                 "gfx: 65.0 % now, peak 65.0 % in the last minute")
        self.w.fixture_step(3)
        wait_for("10 % now, 65 % the peak", lambda: self.description(amd, "gfx") ==
                 "gfx: 10.0 % now, peak 65.0 % in the last minute")
        self.assertEqual(self.description(amd, "vram"), "vram: 768.0 MiB now, peak 768.0 MiB in the last minute")

        # The window: one choice for the page; every graph says so.
        # (GTK 4.8 gives toggle buttons the role of a push button, with a pressed state.)
        five = wait_for("the 5 minute choice", lambda: self.find(main, "push button", "5 min"))
        click(five)
        wait_for("the graphs over 5 minutes", lambda: self.description(amd, "gfx") ==
                 "gfx: 10.0 % now, peak 65.0 % in the last 5 minutes")
        self.assertEqual(self.description(nvidia, "vram"), "vram: 3.0 GiB now, peak 3.0 GiB in the last 5 minutes")
        click(self.find(main, "push button", "10 min"))
        wait_for("the graphs over 10 minutes", lambda: self.description(nvidia, "gpu") ==
                 "gpu: 45.0 % now, peak 45.0 % in the last 10 minutes")

        # VRAM: a bar at used/size, the figures as text.
        bar = self.find(nvidia, "level bar", "Memory: vram")
        self.assertIsNotNone(bar, "no VRAM bar")
        value = bar.queryValue()
        self.assertAlmostEqual(value.currentValue, 0.25)
        self.assertAlmostEqual(value.maximumValue, 1.0)
        self.assertIn("3.0 GiB of 12.0 GiB", self.row_texts(nvidia, "Memory: vram"))
        self.assertIn("768.0 MiB resident", self.row_texts(amd, "Memory: vram"))

        # Tab: only what can be operated takes the focus, around the whole window and back.
        self.tab_round(a11y, main)

        click(self.find(main, "push button", "1 min"))
        # Sensors, with their units: NVML's, and the amdgpu card's hwmon, which has the driver's labels; the
        # suspended device has none and says why.
        for card, sensors in ((nvidia, SENSORS), (amd, HWMON_SENSORS)):
            for title, text in sensors.items():
                shown = wait_for(f"the sensor {title}", lambda: self.row_texts(card, title))
                self.assertIn(text, shown, title)
        self.assertIn("Runtime-suspended", self.labels(asleep))
        for title in SENSORS:
            self.assertIsNone(self.find(asleep, "list item", title), f"{title} on the suspended device")

        # A wide window: cards side by side, graphs as wide as their cards.
        window = self.w.xdotool("search", "--onlyvisible", "--name", "^nvprofiled$").split()[0]
        self.w.xdotool("windowsize", window, "1280", "1000")
        wait_for("cards side by side", lambda: len({self.extents(c).x // 300 for c in (nvidia, amd, asleep)}) > 1)
        self.assertGreater(self.extents(self.graph(nvidia, "gpu")).width, 450)
        self.w.screenshot("gpus-page")

        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=30), 0)

        # The dark style: the graphs take the style's colours (a screenshot to look at).
        # Its leaks were checked in the first start: see appworld.start_app().
        self.w.start_app(env={"ADW_DEBUG_COLOR_SCHEME": "prefer-dark"}, leak_check=False)
        main = wait_for("the app's window, dark", lambda: a11y.window("nvprofiled"))
        nvidia = wait_for(f"the card {NVIDIA}, dark", lambda: self.card(main, NVIDIA))
        window = self.w.xdotool("search", "--onlyvisible", "--name", "^nvprofiled$").split()[0]
        self.w.xdotool("windowsize", window, "1280", "1000")
        wait_for("a few samples", lambda: self.description(nvidia, "gpu") ==
                 "gpu: 45.0 % now, peak 45.0 % in the last minute")
        self.w.screenshot("gpus-page-dark")
        self.w.app_action("quit")
        self.assertEqual(self.w.app.wait(timeout=30), 0)

    @staticmethod
    def extents(node):
        return node.queryComponent().getExtents(1)  # 1: ATSPI_COORD_TYPE_WINDOW

    def three_devices(self):
        data = self.w.busctl("call", ROOT_PATH, "Usage", "ListGpuDevices")
        self.last_devices = data
        return data[0] if data and len(data[0]) == 3 else None

    def tab_round(self, a11y, main):
        if a11y.focused(main) is None:
            a11y.key("Tab")
        start = wait_for("the focus in the window", lambda: a11y.focused(main))
        first, seen = a11y.role_name(start), [a11y.role_name(start)]
        self.assertIn(start.getRoleName(), OPERABLE, f"a Tab stop that does nothing: {seen}")
        for _ in range(60):
            before = a11y.role_name(a11y.focused(main))
            a11y.key("Tab")
            try:
                node = wait_for("the focus to move", lambda: a11y.focused(main, lambda a: a11y.role_name(a) != before))
            except AssertionError:
                raise AssertionError(f"the focus did not move from {before} to a node that says so, after {seen}")
            seen.append(a11y.role_name(node))
            self.assertIn(node.getRoleName(), OPERABLE, f"a Tab stop that does nothing: {seen}")
            if a11y.role_name(node) == first:
                break
        else:
            self.fail(f"Tab never came round: {seen}")
        self.assertIn(("push button", "1 min"), seen)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
