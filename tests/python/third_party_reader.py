# SPDX-License-Identifier: LGPL-2.1-or-later
"""A report reader written the way third-party programs for NVIDIA's module
are (LLNL thicket's NCU reader, report-to-JSON/CSV scripts): walk every
range, action and metric; name each metric's rollup through a dict keyed by
what rollup_operation() returns; read every instance with the kind it has
itself. It runs unchanged on NVIDIA's module, or on ours through
tests/python/shim; one line per metric:
RANGE/ACTION NAME ROLLUP UNIT INSTANCES [(KIND, VALUE) of the first three]."""

import sys

import ncu_report

IMetric = ncu_report.IMetric

# No rollup is None: a metric without one is a KeyError for a table that
# expects 0 there.
ROLLUPS = {None: "none",
           IMetric.RollupOperation_AVG: "avg",
           IMetric.RollupOperation_MAX: "max",
           IMetric.RollupOperation_MIN: "min",
           IMetric.RollupOperation_SUM: "sum"}

READERS = {IMetric.ValueKind_DOUBLE: IMetric.as_double,
           IMetric.ValueKind_FLOAT: IMetric.as_double,
           IMetric.ValueKind_UINT32: IMetric.as_uint64,
           IMetric.ValueKind_UINT64: IMetric.as_uint64,
           IMetric.ValueKind_STRING: IMetric.as_string}


def main(path):
    context = ncu_report.load_report(path)
    for r in range(context.num_ranges()):
        report_range = context.range_by_idx(r)
        for a in range(report_range.num_actions()):
            action = report_range.action_by_idx(a)
            for name in sorted(action.metric_names()):
                metric = action[name]
                instances = []
                for i in range(metric.num_instances()):
                    kind = metric.kind(i)
                    instances.append((kind, READERS[kind](metric, i)))
                print(f"{r}/{a} {name} {ROLLUPS[metric.rollup_operation()]}"
                      f" {metric.unit()!r} {len(instances)}"
                      f" {repr(instances[:3])[:300]}")


if __name__ == "__main__":
    main(sys.argv[1])
