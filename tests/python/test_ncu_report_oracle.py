# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every metric of every action of every corpus report, read through our
nvprofiled.ncu_report with the public API only, dumped the way the oracle
was (NVIDIA's ncu_report, expected/<name>.ncu_report.json) and compared
byte for byte."""

from __future__ import annotations

import json
import os
import sys
import unittest
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
import nvprofiled.ncu_report as ncu_report  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")
IMetric = ncu_report.IMetric

KIND_NAMES = {IMetric.ValueKind_STRING: "string",
              IMetric.ValueKind_FLOAT: "float",
              IMetric.ValueKind_DOUBLE: "double",
              IMetric.ValueKind_UINT32: "uint32",
              IMetric.ValueKind_UINT64: "uint64",
              IMetric.ValueKind_UNKNOWN: "unknown"}


def constant_names(prefix: str) -> dict[int, str]:
    return {getattr(IMetric, n): n[len(prefix):].lower()
            for n in dir(IMetric) if n.startswith(prefix)}


TYPE_NAMES = constant_names("MetricType_")
SUBTYPE_NAMES = constant_names("MetricSubtype_")
ROLLUP_NAMES = constant_names("RollupOperation_")


def as_json_value(value: Any) -> Any:
    # The oracle writes doubles as Python repr() strings.
    return repr(value) if isinstance(value, float) else value


def dump_metric(metric: ncu_report.IMetric) -> dict[str, Any]:
    subtype = metric.metric_subtype_using_None()
    rollup = metric.rollup_operation_using_None()
    entry: dict[str, Any] = {
        "kind": KIND_NAMES[metric.kind()],
        "type": TYPE_NAMES[metric.metric_type()],
        "subtype": None if subtype is None else SUBTYPE_NAMES[subtype],
        "rollup": None if rollup is None else ROLLUP_NAMES[rollup],
        "unit": metric.unit(),
        "has_value": metric.has_value(),
    }
    if metric.has_value():
        entry["value"] = as_json_value(metric.value())
    count = metric.num_instances()
    if count:
        ids = metric.correlation_ids()
        entry["num_instances"] = count
        entry["instances"] = [
            [as_json_value(ids.value(i)), as_json_value(metric.value(i))]
            if ids is not None and ids.has_value(i)
            else as_json_value(metric.value(i)) for i in range(count)]
    return entry


def dump_report(path: str) -> str:
    ctx = ncu_report.load_report(path)
    report = {"ranges": [{"actions": [{
        "name": action.name(),
        "demangled": action.name(action.NameBase_DEMANGLED),
        "mangled": action.name(action.NameBase_MANGLED),
        "metrics": {name: dump_metric(action[name]) for name in action},
    } for action in rng]} for rng in ctx]}
    return json.dumps(report, indent=1, sort_keys=True) + "\n"


class OracleTest(unittest.TestCase):
    pass


def _add_case(report: str) -> None:
    name = report[:-len(".ncu-rep")]

    def test(self: OracleTest) -> None:
        with open(os.path.join(REPORTS, "expected", name + ".ncu_report.json"),
                  encoding="utf-8") as f:
            expected = f.read()
        got = dump_report(os.path.join(REPORTS, report))
        if got != expected:
            # Say which metric differs rather than print two large files.
            want, have = json.loads(expected), json.loads(got)
            for r, (wr, hr) in enumerate(zip(want["ranges"], have["ranges"])):
                for a, (wa, ha) in enumerate(zip(wr["actions"],
                                                 hr["actions"])):
                    for key in ("name", "demangled", "mangled"):
                        self.assertEqual(ha[key], wa[key])
                    self.assertEqual(sorted(ha["metrics"]),
                                     sorted(wa["metrics"]))
                    for metric, w in wa["metrics"].items():
                        self.assertEqual(ha["metrics"][metric], w,
                                         f"range {r} action {a} {metric}")
            self.assertEqual(got, expected)

    setattr(OracleTest, "test_" + name.replace(".", "_"), test)


for _report in sorted(os.listdir(REPORTS)):
    if _report.endswith(".ncu-rep"):
        _add_case(_report)

if __name__ == "__main__":
    tap.main()
