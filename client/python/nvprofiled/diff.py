# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare two Nsight Compute reports, like ncu's baseline view.

    import nvprofiled.ncu_report as ncu_report
    from nvprofiled import diff
    pairs = diff.diff_reports(ncu_report.load_report("before.ncu-rep"),
                              ncu_report.load_report("after.ncu-rep"))

The comparison is nvprofiled's one implementation, in C
(daemon/nsight/report/report-diff.c, through the _ncu_report extension): the same
that ``nvprofilectl report diff`` prints and the daemon's ``Report.Diff``
returns.  Actions are paired by kernel name and launch index (the n-th launch
of a kernel in the baseline with the n-th launch of the same kernel in the
other report), or as specs say.  For every metric both actions have, the
baseline and current value, the absolute and relative change and the unit;
metrics are grouped by the first section (of the current report) that lists
them, sections in report order, and sorted by the size of the relative change
within a section.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from nvprofiled import _ncu_report, ncu_report


def diff_reports(baseline: ncu_report.IContext, current: ncu_report.IContext,
                 specs: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The paired actions of two reports with their metrics' changes.

    A spec ``B:C`` pairs action B of the baseline with action C of the
    other report (indices over all ranges), and ``N`` is ``N:N``; a spec
    that is a kernel name pairs that kernel's launches only; without specs,
    every kernel launch is paired by name and launch index.  Returns the "pairs" of
    ``nvprofilectl report diff --json``, as ``json.loads`` gives them::

        [{"baseline": {"action": 0, "kernel": "Sobel"},
          "current": {"action": 0, "kernel": "addConstDouble3"},
          "sections": [{"identifier": "LaunchStats" (None for metrics no
                        section lists), "name": "Launch Statistics",
                        "metrics": [{"name", "unit", "baseline", "current",
                                     "change", "relative_change"}, ...]}]}]

    ``change`` is None for strings, ``relative_change`` for a baseline of
    0, and every number that is not finite is None.  Raises ValueError for
    a spec that pairs nothing or names an action out of range.
    """
    return json.loads(_ncu_report.diff_json(baseline, current, specs))
