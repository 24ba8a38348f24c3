#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The app's Reports page (issue 32) end to end: the real nvprofiled (or none) on a private bus, the app
under Xvfb, read and driven through AT-SPI. Proves: 30 corpus reports opened one after another, with the
daemon holding at most 3 per user, each list their kernels: the app closes the report shown longest ago
rather than stopping at the daemon's refusal, and no configuration key reaches the window; a report's
kernels filtered by NVTX range through the daemon (Report.ActionsByNvtx) and by name; without the daemon,
reports are read by the app itself and the page says so; the kernels sort by duration by their column's
header; the NVTX filter in-process; a failed launch in words; closing a report.

Every process it starts is killed in a finally clause (appworld.World.teardown); its scratch directory is
removed there too."""

import glob
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, DAEMON, FIXTURE_TOOL, POLICY, TOOLS, WAIT, AppWorld, AtSpi,  # noqa: E402
                      text_of, wait_for)

NVTX_REPORT = "NVIDIA_nsight-training_manual_nvtx_ncu2022.3.0.ncu-rep"
# Its kernel 44 has no grid and no duration: its launch failed (nvprofilectl report summary --local).
FAILED_REPORT = "2388612861_GPU-DEMO_occupancy_ncu2025.2.1.ncu-rep"
OPENED = 30
PER_USER = 3  # the daemon's [Reports] ReportsPerUserMax= in the first case
NOT_RUNNING = "Read by this app: nvprofiled is not running"


class ReportsPageTest(unittest.TestCase):
    """One world for both cases, in this order (pyatspi keeps its first AT-SPI bus for the life of the
    process): the daemon stopped, then started again with a small per-user limit."""

    @classmethod
    def setUpClass(cls):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            raise unittest.SkipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "xdotool"):
            if not shutil.which(tool):
                raise unittest.SkipTest(f"{tool} is not installed")
        cls.reports = sorted(glob.glob(os.path.join(CORPUS, "reports", "*.ncu-rep")))
        if os.path.join(CORPUS, "reports", NVTX_REPORT) not in cls.reports:
            raise unittest.SkipTest(f"the corpus reports are not there ({CORPUS})")
        cls.w = AppWorld()
        try:
            cls.w.start_x_and_session()
            cls.w.start_daemon()
            cls.w.stop_daemon()
            cls.a11y = AtSpi()
            cls.pyatspi = cls.a11y.pyatspi
        except BaseException:
            cls.w.teardown()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.w.teardown()

    def logged(self, case):
        try:
            case()
        except BaseException:
            self.w.write_logs("daemon", "app")
            raise
        finally:
            self.w.quit_app(self.w.app)

    # --- AT-SPI ----------------------------------------------------------------------------------------------

    def start(self, args=()):
        # 30 reports' tables: without LeakSanitizer's slow unwinding (appworld.start_app()).
        self.w.start_app(args=[os.path.join(CORPUS, "reports", a) for a in args], leak_check=False)
        self.main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        self.show_page("Reports")

    def find(self, root, pred):
        return self.pyatspi.findDescendant(root, lambda a: a is not None and pred(a))

    def find_all(self, root, pred):
        """Every node of root that satisfies pred, read again while the tree changes under the walk (tabs
        open and close)."""
        for _ in range(50):
            try:
                return self.pyatspi.findAllDescendants(root, lambda a: a is not None and pred(a))
            except Exception:
                time.sleep(0.1)
        raise AssertionError("the window's tree never held still")

    def show_page(self, title):
        tab = wait_for(f"page tab {title}", lambda: self.find(
            self.main, lambda a: a.getRoleName() == "page tab" and a.name == title))
        self.a11y_click(tab)
        wait_for(f"page {title} selected", lambda: tab.getState().contains(self.pyatspi.STATE_SELECTED))

    def a11y_click(self, node):
        action = node.queryAction()
        names = [action.getName(i) for i in range(action.nActions)]
        for name in ("click", "activate", "press"):
            if name in names:
                action.doAction(names.index(name))
                return
        action.doAction(0)

    def window_text(self):
        """Every name, description and text of the window's nodes (those that go while read are skipped:
        reports open and close)."""
        parts = []
        for a in self.find_all(self.main, lambda a: True):
            try:
                parts += [a.name or "", a.description or "", text_of(a)]
            except Exception:
                continue
        return "\n".join(p for p in parts if p)

    def table(self, report):
        return self.find(self.main, lambda a: a.getRoleName() == "tree table" and a.name == f"Kernels of {report}")

    def rows(self, report):
        return self.a11y.kernel_rows(self.main, report)

    def table_has_rows(self, report):
        table = self.table(report)
        return table is not None and self.find(table, lambda a: a.getRoleName() == "table row") is not None

    def names(self, report):
        return [r[1] for r in self.rows(report)]

    def tab_labels(self):
        """The open reports' tabs' labels (libadwaita 1.2's AdwTab has no role of its own)."""
        names = {os.path.basename(r) for r in self.reports}
        return self.find_all(self.main, lambda a: a.getRoleName() == "label" and a.name in names and
                             a.parent is not None and a.parent.name == "AdwFadingLabel")

    def report_tabs(self):
        """The titles of the open reports' tabs."""
        return [a.name for a in self.tab_labels()]

    def entry(self, name):
        return wait_for(f"the entry {name}", lambda: self.find(
            self.main, lambda a: a.getRoleName() in ("entry", "text") and a.name == name and
            a.queryComponent().getExtents(0).width > 0))

    def select_tab(self, report):
        """Shows the report's tab, clicked with the pointer (AdwTab has no AT-SPI action)."""
        label = wait_for(f"the tab of {report}", lambda: [a for a in self.tab_labels() if a.name == report])[0]
        self.w.pointer_click(label)
        wait_for(f"{report} shown", lambda: self.table(report).queryComponent().getExtents(0).width > 0)

    # --- 2. thirty reports, served by the daemon ------------------------------------------------------------

    def test_thirty_reports(self):
        self.w.respawn_daemon(conf=f"[Reports]\nReportsPerUserMax={PER_USER}\n")
        self.logged(self.thirty_case)

    def thirty_case(self):
        self.start(args=[NVTX_REPORT])
        # Served by the daemon: filtered by NVTX range through ActionsByNvtx, and by name.
        wait_for("the NVTX report's kernels", lambda: len(self.rows(NVTX_REPORT)) == 3)
        self.assertNotIn("Read by this app", self.window_text())
        nvtx = self.entry("Filter by NVTX range")
        nvtx.queryEditableText().setTextContents("daxpy/")
        wait_for("only the kernel in the daxpy range", lambda: self.names(NVTX_REPORT) == ["daxpy_kernel"])
        nvtx.queryEditableText().setTextContents("run_test/")
        wait_for("the three kernels in run_test", lambda: len(self.rows(NVTX_REPORT)) == 3)
        nvtx.queryEditableText().setTextContents("")
        search = self.entry("Filter kernels")
        search.queryEditableText().setTextContents("check")
        wait_for("only check_results_kernel", lambda: self.names(NVTX_REPORT) == ["check_results_kernel"])
        search.queryEditableText().setTextContents("")
        wait_for("the three kernels again", lambda: len(self.rows(NVTX_REPORT)) == 3)

        # 30 reports, one after another, as a user opens them (the corpus's, again from the first once
        # every one is open): each lists its kernels, none stops at the daemon's limit.
        for i in range(OPENED):
            path = self.reports[i % len(self.reports)]
            name = os.path.basename(path)
            subprocess.run([APP, path], env=self.w.app_env, check=True, timeout=WAIT, capture_output=True)
            wait_for(f"report {i + 1}, {name}, listed", lambda: self.table_has_rows(name))
            self.assertIsNone(self.w.app.poll(), "the app exited")
            self.assertLessEqual(len(self.report_tabs()), PER_USER, self.report_tabs())
        # None of them read by the app: the daemon served each, the app closing what was shown longest ago;
        # no word of the daemon's limit.
        text = self.window_text()
        self.assertNotIn("ReportsPerUserMax", text)
        self.assertNotIn("close one first", text)
        self.assertNotIn("Read by this app", text)

        # Closing: the shown report's tab goes.
        before = self.report_tabs()
        self.a11y_click(wait_for("Close Report", lambda: self.find(
            self.main, lambda a: a.getRoleName() == "push button" and a.name == "Close Report")))
        wait_for("one report fewer", lambda: len(self.report_tabs()) == len(before) - 1)

    # --- 1. no daemon: read by the app ---------------------------------------------------------------------

    def test_in_process(self):
        self.logged(self.in_process_case)

    def in_process_case(self):
        self.start(args=[FAILED_REPORT, NVTX_REPORT])
        wait_for("the NVTX report's kernels", lambda: len(self.rows(NVTX_REPORT)) == 3)
        self.assertIn(NOT_RUNNING, self.window_text())

        # By duration, by its column's header: shortest first, then longest first.
        header = wait_for("the Duration column's header", lambda: self.a11y.column_header(
            self.table(NVTX_REPORT), "Duration"))
        self.w.pointer_click(header, 0.25)
        wait_for("shortest first", lambda: self.names(NVTX_REPORT) == [
            "init_data_kernel", "check_results_kernel", "daxpy_kernel"])
        self.assertEqual([r[3] for r in self.rows(NVTX_REPORT)], ["84.48 us", "88.51 us", "249.22 us"])
        self.w.pointer_click(header, 0.75)  # apart from the first: not a double click
        wait_for("longest first", lambda: self.names(NVTX_REPORT) == [
            "daxpy_kernel", "check_results_kernel", "init_data_kernel"])

        # The NVTX filter, in-process: the model's selection.
        nvtx = self.entry("Filter by NVTX range")
        nvtx.queryEditableText().setTextContents("init_data/")
        wait_for("only the kernel in init_data", lambda: self.names(NVTX_REPORT) == ["init_data_kernel"])
        nvtx.queryEditableText().setTextContents("[daxpy")
        wait_for("none: daxpy is not at the bottom of any stack", lambda: self.rows(NVTX_REPORT) == [] and
                 self.table(NVTX_REPORT) is not None)
        nvtx.queryEditableText().setTextContents("")
        wait_for("the three kernels again", lambda: len(self.rows(NVTX_REPORT)) == 3)

        # A failed launch, in words.
        self.select_tab(FAILED_REPORT)
        search = self.entry("Filter kernels")
        search.queryEditableText().setTextContents("44")
        row = wait_for("kernel 44", lambda: [r for r in self.rows(FAILED_REPORT) if r[0] == "44"])[0]
        self.assertEqual(row[2], "Did not run: the launch failed")
        self.assertEqual(row[3], "none")
        self.assertNotIn("(0, 0, 0)", " ".join(row))

        # Closed: its tab and its kernels go.
        self.a11y_click(wait_for("Close Report", lambda: self.find(
            self.main, lambda a: a.getRoleName() == "push button" and a.name == "Close Report")))
        wait_for("the report closed", lambda: self.table(FAILED_REPORT) is None)
        self.assertEqual(len(self.rows(NVTX_REPORT)), 3)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
