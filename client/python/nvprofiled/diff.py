# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare two Nsight Compute reports, like ncu's baseline view.

``nvprofilectl report diff BASELINE FILE`` runs this module (in an isolated
python3, see client/verb-report-python.c).
Actions are paired by kernel name and launch index (the n-th launch of a
kernel in the baseline with the n-th launch of the same kernel in the other
report), or as ``--action`` says.  For every metric both actions have, the
baseline and current value, the absolute and relative change and the unit;
metrics are grouped by the first section (of the current report) that lists
them, sections in report order, and sorted by the size of the relative
change within a section.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from nvprofiled import ncu_report
from nvprofiled._terminal import escape

OTHER_SECTION = ("", "Other metrics")


@dataclass
class MetricChange:
    name: str
    unit: str
    baseline: Any
    current: Any
    change: Optional[float]  # current - baseline; None for strings
    relative: Optional[float]  # change / |baseline|; None when baseline is 0

    @property
    def size(self) -> float:
        """How much it changed, for sorting: |relative change|, infinite
        when the baseline is 0 and the value moved."""
        if self.change is None:
            return math.inf if self.baseline != self.current else 0.0
        if self.relative is None:
            return math.inf if self.change != 0 else 0.0
        return abs(self.relative)


@dataclass
class SectionChanges:
    identifier: str
    name: str
    metrics: list[MetricChange]


@dataclass
class ActionPair:
    baseline_index: int
    current_index: int
    baseline_name: str
    current_name: str
    sections: list[SectionChanges]


def flat_actions(ctx: ncu_report.IContext) -> list[ncu_report.IAction]:
    return [action for rng in ctx for action in rng]


def pair_actions(baseline: list[Any], current: list[Any],
                 specs: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Pairs of action indices (into the flat action lists).

    Without specs, every kernel launch is paired with the same launch (by
    count) of the same kernel name.  A spec ``B:C`` pairs action B of the
    baseline with action C of the other report; a spec that is a kernel
    name pairs that kernel's launches only.  Raises ValueError for a bad
    spec.
    """
    if not specs:
        return _pair_by_name(baseline, current, None)
    pairs: list[tuple[int, int]] = []
    for spec in specs:
        left, sep, right = spec.partition(":")
        if sep and left.isdigit() and right.isdigit():
            b, c = int(left), int(right)
            if b >= len(baseline) or c >= len(current):
                raise ValueError(f"--action {spec}: the reports have "
                                 f"{len(baseline)} and {len(current)} "
                                 "actions")
            pairs.append((b, c))
            continue
        found = _pair_by_name(baseline, current, spec)
        if not found:
            raise ValueError(f"--action {spec}: no kernel of that name in "
                             "both reports")
        pairs.extend(found)
    return pairs


def _pair_by_name(baseline: list[Any], current: list[Any],
                  only: Optional[str]) -> list[tuple[int, int]]:
    launches: dict[str, list[int]] = {}
    for i, action in enumerate(current):
        launches.setdefault(action.name(), []).append(i)
    seen: dict[str, int] = {}
    pairs = []
    for i, action in enumerate(baseline):
        name = action.name()
        if only is not None and name != only:
            continue
        n = seen.get(name, 0)
        seen[name] = n + 1
        others = launches.get(name, [])
        if n < len(others):
            pairs.append((i, others[n]))
    return pairs


def _numeric(metric: Any) -> bool:
    return metric.kind() in (metric.ValueKind_DOUBLE, metric.ValueKind_FLOAT,
                             metric.ValueKind_UINT32, metric.ValueKind_UINT64)


def compare_actions(base: Any, cur: Any) -> list[SectionChanges]:
    """Every metric with a value in both actions, grouped by section."""
    changes: list[MetricChange] = []
    for name in cur.metric_names():
        b, c = base.metric_by_name(name), cur.metric_by_name(name)
        if b is None or not b.has_value() or not c.has_value():
            continue
        if _numeric(b) and _numeric(c):
            bv, cv = b.value(), c.value()
            change = float(cv) - float(bv)
            relative = change / abs(float(bv)) if bv else None
            changes.append(MetricChange(name, c.unit(), bv, cv, change,
                                        relative))
        else:
            changes.append(MetricChange(name, c.unit(), b.value(), c.value(),
                                        None, None))
    owner: dict[str, tuple[str, str]] = {}
    order: list[tuple[str, str]] = []
    for identifier, display, names in cur._sections():
        order.append((identifier, display))
        for name in names:
            owner.setdefault(name, (identifier, display))
    grouped: dict[tuple[str, str], list[MetricChange]] = {}
    for change in changes:
        grouped.setdefault(owner.get(change.name, OTHER_SECTION),
                           []).append(change)
    out = []
    for key in order + [OTHER_SECTION]:
        metrics = grouped.pop(key, None)
        if metrics:
            metrics.sort(key=lambda m: (-m.size, -abs(m.change or 0.0),
                                        m.name))
            out.append(SectionChanges(key[0], key[1], metrics))
    return out


def diff_reports(baseline: ncu_report.IContext, current: ncu_report.IContext,
                 specs: Sequence[str] = ()) -> list[ActionPair]:
    base_actions, cur_actions = flat_actions(baseline), flat_actions(current)
    return [ActionPair(b, c, base_actions[b].name(), cur_actions[c].name(),
                       compare_actions(base_actions[b], cur_actions[c]))
            for b, c in pair_actions(base_actions, cur_actions, specs)]


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(pairs: list[ActionPair]) -> list[dict[str, Any]]:
    return [{
        "baseline": {"action": p.baseline_index, "kernel": p.baseline_name},
        "current": {"action": p.current_index, "kernel": p.current_name},
        "sections": [{
            "identifier": s.identifier or None,
            "name": s.name,
            "metrics": [{
                "name": m.name, "unit": m.unit,
                "baseline": _json_number(m.baseline),
                "current": _json_number(m.current),
                "change": _json_number(m.change),
                "relative_change": _json_number(m.relative),
            } for m in s.metrics],
        } for s in p.sections],
    } for p in pairs]


def _number(value: Any) -> str:
    if isinstance(value, float):
        return "%.6g" % value
    return escape(str(value))


def print_pairs(pairs: list[ActionPair], out: Any,
                changed_only: bool = False) -> None:
    for p in pairs:
        out.write(f"{escape(p.baseline_name)} (action {p.baseline_index})"
                  f" -> {escape(p.current_name)} (action {p.current_index})\n")
        for section in p.sections:
            metrics = [m for m in section.metrics
                       if not changed_only or m.size > 0]
            if not metrics:
                continue
            label = escape(section.name)
            if section.identifier:
                label += f" [{escape(section.identifier)}]"
            out.write(f"  {label}\n")
            for m in metrics:
                unit = f" {escape(m.unit)}" if m.unit else ""
                line = (f"    {escape(m.name)}{unit}: {_number(m.baseline)}"
                        f" -> {_number(m.current)}")
                if m.change is not None:
                    line += f" ({'+' if m.change >= 0 else ''}"
                    line += f"{_number(m.change)}"
                    if m.relative is not None:
                        line += f", {m.relative * 100:+.2f}%"
                    line += ")"
                out.write(line + "\n")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nvprofilectl report diff",
        description="Compare the metrics of two Nsight Compute reports.")
    parser.add_argument("baseline", help="the baseline .ncu-rep file")
    parser.add_argument("report", help="the .ncu-rep file to compare")
    parser.add_argument("--action", action="append", default=[],
                        metavar="SPEC", help="pair BASE:INDEX, or the "
                        "launches of a kernel name (repeatable)")
    parser.add_argument("--changed", action="store_true",
                        help="text: only metrics whose value changed")
    parser.add_argument("--json", nargs="?", const="pretty",
                        choices=("pretty", "short"), help="print JSON")
    parser.add_argument("--report-fd", type=int, action="append",
                        metavar="FD", help="read the reports from these open "
                        "descriptors, given twice, in order (BASELINE and "
                        "REPORT only name them in messages)")
    args = parser.parse_args(argv)
    names = (args.baseline, args.report)
    if args.report_fd is not None and len(args.report_fd) != len(names):
        parser.error("--report-fd: two descriptors, baseline first")
    # Like every command-line tool: a closed pipe (| head) ends it quietly.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    contexts = []
    for name, source in zip(names, args.report_fd or names):
        try:
            contexts.append(ncu_report.load_report(source))
        except (OSError, ValueError) as e:
            print(f"error: {escape(name)}: {escape(str(e))}", file=sys.stderr)
            return 1
    try:
        pairs = diff_reports(contexts[0], contexts[1], args.action)
    except ValueError as e:
        print(f"error: {escape(str(e))}", file=sys.stderr)
        return 2
    if args.json:
        json.dump({"baseline": args.baseline, "report": args.report,
                   "pairs": to_json(pairs)}, sys.stdout,
                  indent=2 if args.json == "pretty" else None, allow_nan=False)
        sys.stdout.write("\n")
    else:
        if not pairs:
            print("No actions paired (no kernel name in both reports; "
                  "see --action).")
        print_pairs(pairs, sys.stdout, args.changed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
