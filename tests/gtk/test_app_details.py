#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A kernel's details page in the app (issue 32, client/gtk/report-details.c) against `nvprofilectl report
details` for the same corpus report (read in place), in the headless world of appworld.py, read through
AT-SPI. Proves: every section the CLI prints is there by its display name, with the same tables (metric
names, units, values, in order); every rule message's estimated speedup as the CLI prints it; the advice
shows no ncu markup ("@url:", "@section:"), its web links are links, and a section reference opens and
focuses the section it names. Without a daemon, the app reads a report itself and says so, and a kernel's
page is the CLI's again, with the NVTX ranges the kernel ran in.

Every process it starts is killed, and its scratch directory removed, by AppWorld.teardown, whatever
happened."""

import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (CORPUS, CTL, REPORT, TOOLS, WAIT, AppWorld, AtSpi, click, missing_world,  # noqa: E402
                      text_of, wait_for)

KERNEL = "addConstDouble3"
# A corpus report whose kernels ran inside NVTX ranges, and its first kernel.
NVTX_REPORT, NVTX_KERNEL = "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0.ncu-rep", "init_data_kernel"


def nvtx_block(text: str) -> str:
    """The first kernel's NVTX ranges on the CLI's details page: from the first "    NVTX " line to its
    first section."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    NVTX "))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("    Section: "))
    return "\n".join(lines[start:end])


def parse_details(text: str) -> list[dict]:
    """The CLI's details page of a one-kernel report: per section its name, its table rows (label, unit,
    value, cut where the dashed lines start their columns) and its rule messages' speedup lines."""
    sections, section, starts, state = [], None, [], "none"
    for line in text.splitlines():
        if line.startswith("    Section: "):
            section = {"name": line[len("    Section: "):], "rows": [], "speedups": []}
            sections.append(section)
            state = "none"
            continue
        if section is None:
            continue
        dashed = re.fullmatch(r"    -+( -+)+ *", line)
        if dashed:
            # Above the heading, below it, below the rows.
            state = {"none": "top", "heading": "rows", "rows": "none"}.get(state, "none")
            starts = [m.start() for m in re.finditer(r"-+", line)]
        elif state == "top" and line.split()[:2] == ["Metric", "Name"]:
            state = "heading"
        elif state == "rows":
            cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
            if cells[0]:
                section["rows"].append(tuple(cells))
            else:  # a value wrapped within its column
                label, unit, value = section["rows"][-1]
                section["rows"][-1] = (label, unit, value + cells[2])
        else:
            state = "none"  # a rule message's separator is no table
            m = re.match(r"    (?:INF|WRN|ERR|OPT)\s+(Est\. (?:Local )?Speedup: \S+%)", line)
            if m:
                section["speedups"].append(m[1])
    return sections


class DetailsTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        missing = missing_world()
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        absent = [tool for tool in TOOLS if not shutil.which(tool)]
        if absent:
            self.skipTest("not installed: " + ", ".join(absent))
        self.report = os.path.join(CORPUS, "reports", REPORT)
        if not os.path.exists(self.report):
            self.skipTest(f"{self.report} is not there (corpus_dir)")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)

    def find(self, root, pred):
        return self.a11y.pyatspi.findDescendant(root, lambda a: a is not None and pred(a))

    def find_all(self, root, pred):
        return self.a11y.pyatspi.findAllDescendants(root, lambda a: a is not None and pred(a))

    def table_rows(self, table):
        """A details table's rows: its labels three by three (metric, unit, value)."""
        cells = [text_of(a) for a in self.find_all(table, lambda a: a.getRoleName() == "label")]
        self.assertEqual(len(cells) % 3, 0, cells)
        return [tuple(cells[i:i + 3]) for i in range(0, len(cells), 3)]

    def test_details(self):
        """Through the daemon, then (one world: AT-SPI binds to its first session bus) without it."""
        try:
            self.run_details()
            self.run_in_process()
        except BaseException:
            self.w.write_logs("daemon", "app")
            raise

    def cli_details(self, report):
        """The CLI's details page of the report's first kernel, and its sections."""
        cli = subprocess.run([CTL, "report", "details", report, "--local"], check=True, capture_output=True,
                             text=True, timeout=WAIT).stdout
        # Each kernel's line is indented by two spaces, what belongs to it by four.
        kernels = [i for i, line in enumerate(cli.splitlines()) if re.match(r"  \S", line)]
        if len(kernels) > 1:
            cli = "\n".join(cli.splitlines()[:kernels[1]]) + "\n"
        expected = parse_details(cli)
        self.assertGreater(len(expected), 3)
        self.assertTrue(any(s["rows"] for s in expected))
        return cli, expected

    def open_kernel(self, report, kernel, daemon):
        """The app on report (through the daemon, or read by itself when there is none), kernel 0's
        window."""
        if daemon:
            self.w.start_x_and_session()
            self.w.start_daemon()
            self.a11y = AtSpi()
        self.w.start_app(args=(report,))
        self.addCleanup(self.w.quit_app, self.w.app)
        main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        details_button = wait_for("the kernel's Details button", lambda: self.find(
            main, lambda a: a.getRoleName() == "push button" and a.name == f"Details of kernel 0 {kernel}"))
        if not daemon:
            self.assertTrue(self.find(main, lambda a: a.getRoleName() == "label" and
                                      text_of(a).startswith("Read by this app")), "no word of the in-process read")
        click(details_button)
        return wait_for("the kernel's window", lambda: self.a11y.window(f"Kernel {kernel}"))

    def check_sections(self, window, expected):
        """Sections by display name, each with the CLI's rows in the CLI's order and its speedups."""
        for section in expected:
            name = section["name"]
            # A section is an expander: a push button named by the section's display name.
            node = wait_for(f"section {name}", lambda: self.find(
                window, lambda a: a.name == name and a.getRoleName() == "push button"))
            tables = self.find_all(node, lambda a: a.getRoleName() == "table")
            rows = [r for t in tables for r in self.table_rows(t)]
            self.assertEqual(rows, section["rows"], name)
            labels = [text_of(a) for a in self.find_all(node, lambda a: a.getRoleName() == "label")]
            self.assertEqual([t for t in labels if re.match(r"Est\. (Local )?Speedup", t)], section["speedups"],
                             name)
        self.assertIsNone(self.find(window, lambda a: a.name == "Section SpeedOfLight"))

    def run_in_process(self):
        """No daemon: the app reads the report itself, and a kernel's page is the same, its NVTX ranges
        included."""
        report = os.path.join(CORPUS, "reports", NVTX_REPORT)
        cli, expected = self.cli_details(report)
        self.w.quit_app(self.w.app)
        self.w.stop_daemon()
        window = self.open_kernel(report, NVTX_KERNEL, daemon=False)
        self.check_sections(window, expected)
        nvtx = wait_for("the NVTX Ranges section", lambda: self.find(
            window, lambda a: a.name == "NVTX Ranges" and a.getRoleName() == "push button"))
        texts = [text_of(a) for a in self.find_all(nvtx, lambda a: a.getRoleName() == "label")]
        self.assertIn(nvtx_block(cli), texts)

    def run_details(self):
        _, expected = self.cli_details(self.report)
        window = self.open_kernel(self.report, KERNEL, daemon=True)
        self.check_sections(window, expected)
        # This kernel ran in no NVTX range.
        self.assertIsNone(self.find(window, lambda a: a.name == "NVTX Ranges"))

        # The advice: no markup; its web links are links; a section reference moves to the section.
        texts = [text_of(a) for a in self.find_all(window, lambda a: a.getRoleName() == "label")]
        self.assertFalse([t for t in texts if "@url:" in t or "@section:" in t])
        self.assertTrue([t for t in texts if "https://" not in t and "Kernel Profiling Guide" in t] or
                        [t for t in texts if "CUDA Best Practices Guide" in t], texts)
        links = self.find_all(window, lambda a: a.getRoleName() == "link" or
                              (a.getRoleName() == "push button" and (a.name or "").startswith("https://")))
        self.assertTrue(links, "no web link")
        goto = self.find_all(window, lambda a: a.getRoleName() == "push button" and
                             (a.name or "").startswith("Go to section "))
        self.assertTrue(goto, "no section reference")
        target_name = goto[0].name[len("Go to section "):]
        target = self.find(window, lambda a: a.getRoleName() == "push button" and a.name == target_name)
        self.assertIsNotNone(target, f"no section {target_name}")
        expanded, focused = self.a11y.pyatspi.STATE_EXPANDED, self.a11y.pyatspi.STATE_FOCUSED
        self.assertFalse(target.getState().contains(focused))
        click(goto[0])
        wait_for(f"section {target_name} focused by its reference", lambda: target.getState().contains(focused))
        self.assertTrue(target.getState().contains(expanded))
        # Scrolled to: the section's title lies within the window.
        box, title = window.queryComponent().getExtents(0), target.queryComponent().getExtents(0)
        self.assertTrue(box.y <= title.y < box.y + box.height, (box, title))
        # Closed (Return on the focused title), the reference opens it again.
        self.a11y.key("Return")
        wait_for(f"section {target_name} closed", lambda: not target.getState().contains(expanded))
        click(goto[0])
        wait_for(f"section {target_name} opened by its reference", lambda: target.getState().contains(expanded))
        self.w.screenshot("report-kernel-details")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
