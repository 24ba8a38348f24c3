# SPDX-License-Identifier: LGPL-2.1-or-later
"""A report model built from expected/<name>.ncu_report.json (what NVIDIA's
ncu_report returned for every metric), for testing the rule machinery apart
from the report reader.  Metrics are the package's own IMutableMetric."""

from __future__ import annotations

import json
from typing import Any, Optional

from nvprofiled._metrics import IMetric, IMutableMetric

_KINDS = {"double": IMetric.ValueKind_DOUBLE,
          "uint64": IMetric.ValueKind_UINT64,
          "string": IMetric.ValueKind_STRING,
          "float": IMetric.ValueKind_FLOAT,
          "uint32": IMetric.ValueKind_UINT32}


def _set(metric: IMutableMetric, kind: int, value: Any,
         instance: Optional[int] = None) -> None:
    args = () if instance is None else (instance,)
    if kind in (IMetric.ValueKind_DOUBLE, IMetric.ValueKind_FLOAT):
        ok = metric.set_double(*args, IMetric.ValueKind_DOUBLE, float(value))
    elif kind in (IMetric.ValueKind_UINT64, IMetric.ValueKind_UINT32):
        ok = metric.set_uint64(*args, IMetric.ValueKind_UINT64, int(value))
    else:
        ok = metric.set_string(*args, IMetric.ValueKind_STRING, value)
    assert ok


def _id_kind(value: Any) -> int:
    if isinstance(value, str):
        return IMetric.ValueKind_STRING
    return IMetric.ValueKind_UINT64


def metric_from_json(name: str, entry: dict[str, Any]) -> IMutableMetric:
    metric = IMutableMetric(name)
    kind = _KINDS[entry["kind"]]
    if entry["has_value"]:
        _set(metric, kind, entry["value"])
    for i, instance in enumerate(entry.get("instances") or []):
        if isinstance(instance, list):
            cid, value = instance
            _set(metric.mutable_correlation_ids(), _id_kind(cid), cid, i)
        else:
            value = instance
        _set(metric, kind, value, i)
    return metric


class JsonAction:
    """The IAction methods rules use, over one action of the JSON."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self._entry = entry
        self._metrics = {n: metric_from_json(n, m)
                         for n, m in entry["metrics"].items()}

    def name(self, base: int = 0) -> str:
        return [self._entry["name"], self._entry["demangled"],
                self._entry["mangled"]][base]

    def workload_type(self) -> int:
        return 0

    def metric_by_name(self, name: str) -> Optional[IMetric]:
        return self._metrics.get(name)

    def metric_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._metrics))

    def source_info(self, address: int) -> None:
        return None


def load_json_actions(path: str) -> list[JsonAction]:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    return [JsonAction(a) for r in report["ranges"] for a in r["actions"]]
