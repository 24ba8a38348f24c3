#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop app's report comparison and source page (issue 32) end to end: the real nvprofiled on a
private system-like bus serving corpus reports (read in place), the real nvprofiled-gtk under Xvfb, read
and driven through AT-SPI. Proves: two reports compared (Report.Diff) list exactly the metrics that changed
in `nvprofilectl report diff --json` of the same files and pairing, each with its baseline, current value
and change in percent as nvprofilectl's JSON has them, sorted by the size of the change; changes beyond the
threshold are marked, and a threshold the user raises unmarks them; two reports without a kernel name in
common say so, and a pair chosen by hand compares those kernels. A kernel's source page shows the lines of
a report with embedded source with the metric values Report.GetSourceView gives, the hottest lines marked.

Every process it starts is killed, and its scratch directory removed, by AppWorld.teardown()."""

import json
import math
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from appworld import (APP, CORPUS, CTL, DAEMON, FIXTURE_TOOL, POLICY, TOOLS, WAIT, AppWorld, AtSpi,  # noqa: E402
                      click, text_of, wait_for)

# The two reports of NVIDIA's samples: one kernel each, of different names (addConstDouble3 and Sobel), so
# that the comparison pairs them only by hand; the first stores its CUDA source.
BASELINE = "nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep"
CURRENT = "nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"


def value_text(v) -> str:
    """A value of the comparison as the app shows it (and nvprofilectl's text): "%.6g", integers in full."""
    if isinstance(v, str):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return "%.6g" % (math.nan if v is None else v)


def changed_rows(pairs):
    """(kernels, section, metric, unit, baseline, current, change, size) of every metric that changed."""
    rows = []
    for pair in pairs:
        b, c = pair["baseline"], pair["current"]
        kernels = f"{b['kernel']} ({b['action']}) → {c['kernel']} ({c['action']})"
        for section in pair["sections"]:
            for m in section["metrics"]:
                base, cur, rel = m["baseline"], m["current"], m["relative_change"]
                numbers = all(isinstance(v, (int, float)) or v is None for v in (base, cur))
                if numbers and m["change"] == 0:
                    continue
                if isinstance(base, str) and base == cur:
                    continue
                if rel is not None:
                    change, size = "%+.2f %%" % (rel * 100), abs(rel * 100)
                elif numbers and base == 0 and m["change"] is not None:
                    change, size = "from 0", math.inf
                else:
                    change, size = ("changed" if isinstance(cur, str) else ""), math.nan
                rows.append((kernels, section["name"], m["name"], m["unit"], value_text(base), value_text(cur),
                             change, size))
    return rows


class CompareTest(unittest.TestCase):
    def setUp(self):
        missing = [n for n, v in (("NVPROFILED_BIN", DAEMON), ("NVPROFILED_GTK_BIN", APP), ("NVPROFILECTL_BIN", CTL),
                                  ("NVPROFILED_USAGE_FIXTURE", FIXTURE_TOOL), ("NVPROFILED_DBUS_POLICY", POLICY))
                   if not v or not os.path.exists(v)]
        if missing:
            self.skipTest("not built or not set: " + ", ".join(missing))
        for tool in (*TOOLS, "openbox", "xdotool"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed")
        self.reports = os.path.join(CORPUS, "reports")
        for name in (BASELINE, CURRENT):
            if not os.path.exists(os.path.join(self.reports, name)):
                self.skipTest(f"{name} is not in {self.reports} (corpus_dir)")
        self.w = AppWorld()
        self.addCleanup(self.w.teardown)
        self.w.start_x_and_session()
        # A window manager gives the popups the keyboard focus, as on a desktop (choose()).
        self.w.start_window_manager()
        self.w.start_daemon()
        self.a11y = AtSpi()
        self.pyatspi = self.a11y.pyatspi

    def start(self, *names):
        # Tables of hundreds of metrics: without LeakSanitizer's slow unwinding (appworld.start_app()).
        self.w.start_app(args=[os.path.join(self.reports, n) for n in names], leak_check=False)
        self.main = wait_for("the app's window", lambda: self.a11y.window("nvprofiled"))
        tab = wait_for("the Reports tab", lambda: self.find(self.main, "page tab", "Reports"))
        click(tab)

    def find(self, root, role, name=None, pred=None):
        return self.pyatspi.findDescendant(root, lambda a: a is not None and a.getRoleName() == role and
                                           (name is None or a.name == name) and (pred is None or pred(a)))

    def find_all(self, root, role):
        return self.pyatspi.findAllDescendants(root, lambda a: a is not None and a.getRoleName() == role)

    def button(self, root, name):
        return wait_for(f"the button {name}", lambda: self.find(root, "push button", name))

    def labels(self, node):
        return [text_of(a) for a in self.find_all(node, "label")]

    def table_rows(self, window, name, limit=40):
        """The first limit rows of the column view labelled name (each row read costs a call per cell:
        the first rows are the sample)."""
        table = self.find(window, "tree table", name)
        if table is None:
            return None
        body = self.find(table, "list")
        rows = []
        for i in range(min(body.childCount, limit) if body is not None else 0):
            row = body.getChildAtIndex(i)
            if row is not None and row.getRoleName() == "table row":
                rows.append(row)
        return rows

    def cells(self, row):
        return [text_of(self.find(row.getChildAtIndex(i), "label")) for i in range(row.childCount)]

    def ctl_diff(self, *args):
        r = subprocess.run([CTL, f"--bus={self.w.address}", "--json=short", "report", "diff", *args,
                            os.path.join(self.reports, BASELINE), os.path.join(self.reports, CURRENT)],
                           capture_output=True, text=True, timeout=WAIT * 4)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["pairs"]

    def choose(self, window, drop_down_name, index):
        """Picks item index of the drop-down (GtkDropDown) named drop_down_name, as a keyboard user does:
        its popup opened, the item reached with the arrow key, Return."""
        combo = wait_for(f"the drop-down {drop_down_name}", lambda: self.find(window, "combo box", drop_down_name))
        toggle = wait_for("its button", lambda: self.find(combo, "push button"))
        click(toggle)
        popup = wait_for("its list", lambda: self.find(combo, "list", pred=lambda a: a.childCount > index))
        # The list has the keyboard focus on the chosen item (the first): down to index, Return.
        def focused_texts():
            node = self.a11y.focused(popup)
            return tuple(self.labels(node)) if node is not None else None
        for _ in range(index + 5):  # a bound, not a timing
            texts = wait_for("the list's focus", focused_texts)
            if any(t.startswith(f"{index - 1}  ") for t in texts):
                break
            self.a11y.key("Down")
            wait_for("the focus to move", lambda: focused_texts() not in (None, texts))
        self.a11y.key("Return")

    # --- the comparison --------------------------------------------------------------------------------------

    def test_app(self):
        """One app, one world (pyatspi keeps the first session bus it connects to): the three reports opened
        at once, the comparison of the second with the first, then the source pages."""
        try:
            self.start(BASELINE, CURRENT)
            self.run_compare()
            self.w.xdotool("key", "Escape")  # a drop-down's list the choice left open
            self.move_aside(f"{CURRENT} Compared with {BASELINE}")
            self.run_source()
        except BaseException:
            self.w.screenshot("compare-failed")
            self.w.write_logs("daemon", "app")
            raise
        finally:
            if getattr(self.w, "app", None) is not None:
                self.w.quit_app(self.w.app)

    def select_tab(self, report):
        """Shows the report's tab, clicked with the pointer."""
        label = wait_for(f"the tab of {report}", lambda: self.a11y.report_tab(self.main, report))
        self.w.pointer_click(label)
        wait_for(f"{report} shown", lambda: self.a11y.shown(
            self.main, "tree table", lambda a: a.name == f"Kernels of {report}"))

    def kernel_window(self, report):
        """Opens the window of the report's first kernel (its Details button), returns it."""
        self.select_tab(report)
        button = wait_for(f"the Details button of {report}'s first kernel", lambda: self.a11y.shown(
            self.main, "push button", lambda a: (a.name or "").startswith("Details of kernel 0 ")))
        name = button.name[len("Details of kernel 0 "):]
        click(button)
        return wait_for(f"the window of kernel {name}", lambda: self.a11y.window(f"Kernel {name}"))

    def move_aside(self, title):
        """Moves the app's window titled title off the screen, so that the main window can be clicked again:
        a window transient for it stays above it (and minimizing it would minimize the main window too).
        Tried again while it fails: xdotool's search reads every window's attributes, and one that goes away
        meanwhile (a drop-down's list just closed) fails the whole command with BadWindow."""
        wait_for(f"{title} moved aside", lambda: self.w.xdotool(
            "search", "--onlyvisible", "--name", "^" + title + "$", "windowmove", "%@", "4000", "0",
            check=False) is not None)

    def show_source(self, window):
        tab = wait_for("the Source tab", lambda: self.find(window, "page tab", "Source"))
        click(tab)

    def run_compare(self):
        # The second report compared with the first, as a user does: its "Compare with…" menu, the first
        # report's row.
        self.select_tab(CURRENT)
        menu = wait_for("Compare with…", lambda: self.a11y.shown(
            self.main, "toggle button", lambda a: a.name == "Compare with…") or self.a11y.shown(
            self.main, "push button", lambda a: a.name == "Compare with…"))
        click(menu)
        item = wait_for("the baseline in the menu", lambda: self.a11y.shown(
            self.main, "push button", lambda a: a.name == BASELINE))
        click(item)
        title = f"{CURRENT} Compared with {BASELINE}"
        window = wait_for("the comparison's window", lambda: self.a11y.window(title))
        # No kernel name in both: said, with what to do.
        wait_for("the state without pairs", lambda: self.find(window, "panel",
                                                                "No kernel of the same name in both reports"))
        self.assertEqual(self.ctl_diff(), [])

        # The one kernel of each paired by hand: the rows of nvprofilectl's comparison of action 0 with 0.
        expected = changed_rows(self.ctl_diff("--action=0:0"))
        self.assertGreater(len(expected), 100)
        self.choose(window, "Baseline kernel", 1)
        self.choose(window, "Current kernel", 1)
        n_metrics = sum(len(s["metrics"]) for p in self.ctl_diff("--action=0:0") for s in p["sections"])
        # (Found first, before the table's many cells: a walk of every node of a window takes long.)
        summary = wait_for("the comparison's summary", lambda: self.find(window, "label",
                                                                         pred=lambda a: "changed" in text_of(a)),
                           timeout=WAIT * 4)
        self.assertEqual(text_of(summary), f"{len(expected)} of {n_metrics} metrics changed")

        # Sorted by the size of the change, largest first: the rows shown are the first of that order (ties
        # in any order).
        shown = wait_for("the changed metrics", lambda: self.table_rows(window, "Changed metrics"))
        got = [tuple(self.cells(r)) for r in shown]
        by_size = sorted(expected, key=lambda r: -1 if math.isnan(r[7]) else r[7], reverse=True)
        sizes = {r[:7]: r[7] for r in expected}
        self.assertGreater(len(got), 10)
        for row in got:
            self.assertTrue(row in sizes, f"a row not in nvprofilectl's comparison: {row}")
        self.assertEqual([sizes[r] for r in got], [r[7] for r in by_size[:len(got)]])

        # Beyond the threshold (5 % by default): marked; under a threshold raised past it: not.
        def marks(threshold):
            """(whether the row's change is beyond threshold, whether it is marked) of every row shown."""
            return {(sizes[tuple(self.cells(r))] > threshold,
                     self.find(r.getChildAtIndex(6), "label").description == "beyond the threshold")
                    for r in self.table_rows(window, "Changed metrics")}
        self.assertEqual(marks(5), {(True, True)})
        # A threshold between the changes shown: those above stay marked, those below lose the mark.
        finite = sorted(sizes[tuple(self.cells(r))] for r in shown if math.isfinite(sizes[tuple(self.cells(r))]))
        self.assertGreater(len(finite), 2)
        threshold = math.floor(finite[len(finite) // 2])
        spin = self.find(window, "spin button")
        spin.queryValue().currentValue = threshold
        wait_for(f"the marks of a threshold of {threshold} %",
                 lambda: marks(threshold) == {(True, True), (False, False)}, timeout=WAIT * 4)
        self.w.screenshot("compare")

    # --- the source page -------------------------------------------------------------------------------------

    def source_view(self, name):
        """Report.GetSourceView of the report's kernel (range 0, action 0), through the daemon."""
        from gi.repository import Gio, GLib
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        bus = Gio.DBusConnection.new_for_address_sync(self.w.address, flags, None, None)
        try:
            root = "/io/github/nvprofiled/NvProfiled1"
            iface = "io.github.nvprofiled.NvProfiled1"
            fd = os.open(os.path.join(self.reports, name), os.O_RDONLY)
            fds = Gio.UnixFDList.new_from_array([fd])
            reply, _ = bus.call_with_unix_fd_list_sync(iface, root, iface + ".Manager", "LoadReport",
                                                       GLib.Variant("(h)", (0,)), None, Gio.DBusCallFlags.NONE, -1,
                                                       fds, None)
            path = reply.unpack()[0]
            reply, out = bus.call_with_unix_fd_list_sync(iface, path, iface + ".Report", "GetSourceView",
                                                         GLib.Variant("(uu)", (0, 0)), None, Gio.DBusCallFlags.NONE,
                                                         -1, None, None)
            with os.fdopen(out.get(reply.unpack()[0]), "rb") as f:
                doc = json.loads(f.read())
            bus.call_sync(iface, path, iface + ".Report", "Close", None, None, Gio.DBusCallFlags.NONE, -1, None)
            return doc
        finally:
            bus.close_sync(None)

    def run_source(self):
        doc = self.source_view(BASELINE)
        window = self.kernel_window(BASELINE)
        self.show_source(window)
        wait_for("the source lines", lambda: self.table_rows(window, "Source lines", limit=1))
        # The hottest line by the first metric: its text and values as GetSourceView has them.
        lines = doc["files"][0]["lines"]
        hot = max((s for s in doc["source"] if s["file"] == 0), key=lambda s: s["values"][0] or 0)
        want = [str(hot["line"]), "hot", lines[hot["line"] - 1]] + [
            "" if v is None else ("%.0f" % v if float(v).is_integer() else "%.6g" % v) for v in hot["values"]]
        # Bring the line into the rows GTK made (the first ~200): the sample is short.
        self.assertLess(hot["line"], 150)
        self.assertIn(want, [self.cells(r) for r in self.table_rows(window, "Source lines", limit=hot["line"])])
        self.w.screenshot("source")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import tap  # noqa: E402
    tap.main()
