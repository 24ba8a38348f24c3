# SPDX-License-Identifier: LGPL-2.1-or-later
"""nvprofiled.diff: the C comparison (daemon/nsight/report/report-diff.c) through the
extension: pairing, changes with units, grouping by section, order, errors."""

from __future__ import annotations

import json
import math
import os
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
WFC = os.path.join(REPORTS, "RottenFishbone_rs-wfc_profile_ncu2022.3.0.ncu-rep")


def indices(pairs: list[dict]) -> list[tuple[int, int]]:
    return [(p["baseline"]["action"], p["current"]["action"]) for p in pairs]


def metrics(pair: dict) -> dict[str, dict]:
    return {m["name"]: m for s in pair["sections"] for m in s["metrics"]}


def size(m: dict) -> float:
    """How much a metric changed, as the comparison orders them: |relative
    change|, infinite when the baseline is 0 (or a string) and it moved."""
    if m["change"] is None:
        return math.inf if m["baseline"] != m["current"] else 0.0
    if m["relative_change"] is None:
        return math.inf if m["change"] != 0 else 0.0
    return abs(m["relative_change"])


class PairingTest(unittest.TestCase):
    def test_by_name_and_launch_index(self) -> None:
        # iterate_ac, iterate_ac, count_domains, reduce_bounds, reduce_bounds:
        # the n-th launch of a name with the n-th.
        ctx = ncu_report.load_report(WFC)
        pairs = diff.diff_reports(ctx, ncu_report.load_report(WFC))
        self.assertEqual(indices(pairs), [(i, i) for i in range(5)])
        self.assertEqual([p["current"]["kernel"] for p in pairs],
                         ["iterate_ac", "iterate_ac", "count_domains",
                          "reduce_bounds", "reduce_bounds"])
        # No kernel name in both: nothing paired.
        self.assertEqual(diff.diff_reports(ncu_report.load_report(SOBEL),
                                           ncu_report.load_report(ADD3)), [])

    def test_specs(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        # A name pairs that kernel's launches only (not vector_add1).
        self.assertEqual(indices(diff.diff_reports(ctx, ctx, ["init_array"])),
                         [(0, 0), (1, 1)])
        self.assertEqual(indices(diff.diff_reports(ctx, ctx, ("vector_add",))),
                         [(2, 2)])
        # Indices pair whatever they name, in the order given.
        pairs = diff.diff_reports(ctx, ctx, ["3:0", "0:3", "vector_dot"])
        self.assertEqual(indices(pairs), [(3, 0), (0, 3), (5, 5)])
        self.assertEqual(pairs[0]["baseline"]["kernel"], "vector_add1")
        self.assertEqual(pairs[0]["current"]["kernel"], "init_array")
        # A bare index N is N:N.
        self.assertEqual(indices(diff.diff_reports(ctx, ctx, ["4", "1:2"])),
                         [(4, 4), (1, 2)])

    def test_bad_specs(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        with self.assertRaises(ValueError) as e:
            diff.diff_reports(ctx, ctx, ["6:0"])
        self.assertEqual(str(e.exception),
                         "--action 6:0: the reports have 6 and 6 actions")
        with self.assertRaises(ValueError) as e:
            diff.diff_reports(ctx, ctx, ["0:1", "no_such_kernel"])
        self.assertEqual(str(e.exception), "--action no_such_kernel: no "
                         "kernel of that name in both reports")
        with self.assertRaises(ValueError) as e:
            diff.diff_reports(ctx, ctx, ["6"])
        self.assertEqual(str(e.exception),
                         "--action 6: the reports have 6 and 6 actions")
        with self.assertRaises(TypeError):
            diff.diff_reports(ctx, ctx, "0:1")  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            diff.diff_reports(ctx, None)  # type: ignore[arg-type]


class CompareTest(unittest.TestCase):
    def test_same_report_has_no_change(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        pairs = diff.diff_reports(ctx, ncu_report.load_report(EXTRAP))
        self.assertEqual(indices(pairs), [(i, i) for i in range(6)])
        for p in pairs:
            action = ctx[0][p["current"]["action"]]
            found = metrics(p)
            self.assertEqual(sorted(found), sorted(
                n for n in action if action[n].has_value()))
            self.assertTrue(all(size(m) == 0 for m in found.values()))
            self.assertTrue(all(m["change"] in (0, None)
                                for m in found.values()))

    def test_changes_units_and_order(self) -> None:
        ctx = ncu_report.load_report(EXTRAP)
        [pair] = diff.diff_reports(ctx, ctx, ["0:1"])
        duration = metrics(pair)["gpu__time_duration.sum"]
        a, b = ctx[0][0], ctx[0][1]
        self.assertEqual(duration, {
            "name": "gpu__time_duration.sum",
            "unit": a["gpu__time_duration.sum"].unit(),
            "baseline": 4064.0, "current": 4224.0, "change": 160.0,
            "relative_change": 160.0 / 4064.0})
        self.assertEqual((duration["baseline"], duration["current"]),
                         (a["gpu__time_duration.sum"].value(),
                          b["gpu__time_duration.sum"].value()))
        # Doubles are floats and integers ints, as json.loads gives them.
        self.assertIsInstance(duration["baseline"], float)
        self.assertTrue(any(isinstance(m["baseline"], int)
                            for m in metrics(pair).values()))
        for section in pair["sections"]:
            sizes = [size(m) for m in section["metrics"]]
            self.assertEqual(sizes, sorted(sizes, reverse=True))
        self.assertTrue(any(size(m) > 0 for m in metrics(pair).values()))
        # What --json prints: no NaN or infinity.
        json.dumps(pair, allow_nan=False)

    def test_grouped_by_section_in_report_order(self) -> None:
        base, cur = ncu_report.load_report(SOBEL), ncu_report.load_report(ADD3)
        [pair] = diff.diff_reports(base, cur, ["0:0"])
        ids = [s["identifier"] for s in pair["sections"]]
        report_order = [s[0] for s in cur[0][0]._sections()]
        self.assertEqual([i for i in ids if i],
                         [i for i in report_order if i in ids])
        # Metrics no section lists come last, without an identifier.
        self.assertEqual(ids[-1], None)
        self.assertEqual(pair["sections"][-1]["name"], "Other metrics")
        self.assertEqual(ids.count(None), 1)
        by_id = {s["identifier"]: s for s in pair["sections"]}
        self.assertEqual(by_id["LaunchStats"]["name"], "Launch Statistics")
        launch = {m["name"]: m for m in by_id["LaunchStats"]["metrics"]}
        regs = launch["launch__registers_per_thread"]
        self.assertEqual((regs["baseline"], regs["current"]), (22.0, 16.0))
        self.assertEqual(regs["unit"], "register_per_thread")
        self.assertEqual(regs["relative_change"], -6.0 / 22.0)
        # Each metric in the first section that lists it: once.
        names = [m["name"] for s in pair["sections"] for m in s["metrics"]]
        self.assertEqual(len(names), len(set(names)))
        strings = [m for m in metrics(pair).values() if m["change"] is None]
        self.assertTrue(strings)
        self.assertTrue(all(isinstance(m["baseline"], str) for m in strings))
        self.assertTrue(all(m["relative_change"] is None for m in strings))
        # From a baseline of 0: a change without a relative one.
        fp64 = metrics(pair)[
            "sm__inst_executed_pipe_fp64_op_fp64.avg.pct_of_peak_sustained_active"]
        self.assertEqual(fp64["baseline"], 0)
        self.assertGreater(fp64["change"], 0)
        self.assertIsNone(fp64["relative_change"])


if __name__ == "__main__":
    tap.main()
