# SPDX-License-Identifier: LGPL-2.1-or-later
"""A script in the style of NVIDIA's customization guide (Python report
interface: load a report, list ranges and actions, read metrics and their
instances, query NVTX), written for NVIDIA's module and run unchanged: with
tests/python/shim first on PYTHONPATH, ``import ncu_report`` is ours."""

import sys

import ncu_report

my_context = ncu_report.load_report(sys.argv[1])

print("ranges:", my_context.num_ranges())
for range_idx in range(my_context.num_ranges()):
    my_range = my_context.range_by_idx(range_idx)
    print(f"range {range_idx}: {my_range.num_actions()} actions")
    for action_idx in range(my_range.num_actions()):
        my_action = my_range.action_by_idx(action_idx)
        print(f"  action {action_idx}: {my_action.name()}"
              f" ({my_action.name(ncu_report.IAction.NameBase_MANGLED)})")

        metric_names = my_action.metric_names()
        print(f"    {len(metric_names)} metrics")
        grid = my_action.metric_by_name("launch__grid_size")
        if grid is not None:
            print(f"    grid size: {grid.as_uint64()}")
        # A launch that failed has no duration.
        duration = my_action.metric_by_name("gpu__time_duration.sum")
        if duration is not None:
            print(f"    duration: {duration.as_double()} {duration.unit()}")

        counters = 0
        for name in my_action:
            metric = my_action[name]
            if metric.metric_type() == ncu_report.IMetric.MetricType_COUNTER:
                counters += 1
            if metric.num_instances() > 0 and metric.has_correlation_ids():
                ids = metric.correlation_ids()
                first = ids.as_uint64(0) if ids.kind() == \
                    ncu_report.IMetric.ValueKind_UINT64 else ids.as_string(0)
                assert metric.value(0) is not None, name
                assert first is not None, name
        print(f"    counters: {counters}")

        state = my_action.nvtx_state()
        if state is None:
            print("    no NVTX state")
        else:
            for domain_id in state.domains():
                domain = state.domain_by_id(domain_id)
                print(f"    NVTX domain {domain_id} {domain.name()}:"
                      f" push/pop {list(domain.push_pop_ranges())}"
                      f" start/end {list(domain.start_end_ranges())}")


