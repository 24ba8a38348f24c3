# SPDX-License-Identifier: LGPL-2.1-or-later
"""report diff: pairing, changes with units, grouping by section, order."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
import nvprofiled.ncu_report as ncu_report  # noqa: E402
from nvprofiled import diff  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")
EXTRAP = os.path.join(REPORTS, "extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep")
SOBEL = os.path.join(REPORTS, "nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep")
ADD3 = os.path.join(REPORTS,
                    "nvidia_example_addConstDouble3_ncu2023.3.0.ncu-rep")


class Named:
    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name


class PairingTest(unittest.TestCase):
    def test_by_name_and_launch_index(self) -> None:
        base = [Named(n) for n in ("a", "b", "a", "c")]
        cur = [Named(n) for n in ("b", "a", "a", "a")]
        self.assertEqual(diff.pair_actions(base, cur), [(0, 1), (1, 0),
                                                        (2, 2)])
        self.assertEqual(diff.pair_actions(base, cur, ["a"]),
                         [(0, 1), (2, 2)])
        self.assertEqual(diff.pair_actions(base, cur, ["3:0", "0:3"]),
                         [(3, 0), (0, 3)])
        with self.assertRaises(ValueError):
            diff.pair_actions(base, cur, ["4:0"])
        with self.assertRaises(ValueError):
            diff.pair_actions(base, cur, ["c"])


class CompareTest(unittest.TestCase):
    def test_same_report_has_no_change(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        pairs = diff.diff_reports(ctx, ncu_report.load_report(EXTRAP))
        self.assertEqual([(p.baseline_index, p.current_index) for p in pairs],
                         [(i, i) for i in range(6)])
        for p in pairs:
            metrics = [m for s in p.sections for m in s.metrics]
            self.assertEqual(len(metrics), len(
                [n for n in ctx[0][p.current_index]
                 if ctx[0][p.current_index][n].has_value()]))
            self.assertTrue(all(m.size == 0 for m in metrics))

    def test_changes_units_and_order(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        [pair] = diff.diff_reports(ctx, ctx, ["0:1"])
        changed = {m.name: m for s in pair.sections for m in s.metrics
                   if m.size > 0}
        duration = changed["gpu__time_duration.sum"]
        a, b = ctx[0][0], ctx[0][1]
        self.assertEqual((duration.baseline, duration.current),
                         (a["gpu__time_duration.sum"].value(),
                          b["gpu__time_duration.sum"].value()))
        self.assertEqual(duration.change, 4224.0 - 4064.0)
        self.assertEqual(duration.relative, 160.0 / 4064.0)
        self.assertEqual(duration.unit, a["gpu__time_duration.sum"].unit())
        for section in pair.sections:
            sizes = [m.size for m in section.metrics]
            self.assertEqual(sizes, sorted(sizes, reverse=True))

    def test_grouped_by_section_in_report_order(self) -> None:
        base, cur = ncu_report.load_report(SOBEL), ncu_report.load_report(ADD3)
        [pair] = diff.diff_reports(base, cur, ["0:0"])
        ids = [s.identifier for s in pair.sections]
        report_order = [s[0] for s in cur[0][0]._sections()]
        self.assertEqual([i for i in ids if i],
                         [i for i in report_order if i in ids])
        by_id = {s.identifier: s for s in pair.sections}
        launch = {m.name: m for m in by_id["LaunchStats"].metrics}
        regs = launch["launch__registers_per_thread"]
        self.assertEqual((regs.baseline, regs.current), (22.0, 16.0))
        self.assertEqual(regs.relative, -6.0 / 22.0)
        strings = [m for s in pair.sections for m in s.metrics
                   if m.change is None]
        self.assertTrue(strings)
        self.assertTrue(all(m.size in (0.0, math.inf) for m in strings))
        out = io.StringIO()
        diff.print_pairs([pair], out, changed_only=True)
        self.assertIn("Sobel (action 0) -> addConstDouble3 (action 0)\n",
                      out.getvalue())
        self.assertIn("    launch__registers_per_thread register_per_thread:"
                      " 22 -> 16 (-6, -27.27%)\n", out.getvalue())

    def test_json_and_exit_codes(self) -> None:
        run = [sys.executable, "-m", "nvprofiled.diff"]
        done = subprocess.run(run + [SOBEL, ADD3, "--json", "--action", "0:0"],
                              capture_output=True, text=True, check=False)
        self.assertEqual(done.returncode, 0, done.stderr)
        doc = json.loads(done.stdout)
        self.assertEqual(doc["pairs"][0]["current"]["kernel"],
                         "addConstDouble3")
        none = subprocess.run(run + [SOBEL, ADD3], capture_output=True,
                              text=True, check=False)
        self.assertEqual(none.returncode, 0)
        self.assertIn("No actions paired", none.stdout)
        bad = subprocess.run(run + [SOBEL, ADD3, "--action", "9:0"],
                             capture_output=True, text=True, check=False)
        self.assertEqual(bad.returncode, 2)
        missing = subprocess.run(run + [SOBEL, "/nonexistent"],
                                 capture_output=True, text=True, check=False)
        self.assertEqual(missing.returncode, 1)

    def test_escape(self) -> None:
        self.assertEqual(diff.escape("k\x1b[31m\u2028"), "k\\x1b[31m\\u2028")


if __name__ == "__main__":
    tap.main()
