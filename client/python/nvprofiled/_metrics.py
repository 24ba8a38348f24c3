# SPDX-License-Identifier: LGPL-2.1-or-later
"""The metric interface both modules share: constants, the value() helper,
and the metric rules create (IMutableMetric)."""

from __future__ import annotations

# typing costs an import at run time; the annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Union

    Value = Union[int, float, str]

from nvprofiled._sugar import PublicNames


class IMetric(PublicNames):
    """A named metric: one value, instance values, or both.

    Accessors take an optional instance index; a cast that is not possible
    returns 0 (numbers) or None (strings), like NVIDIA's module.
    """

    ValueKind_UNKNOWN = 0
    ValueKind_ANY = 1
    ValueKind_STRING = 2
    ValueKind_FLOAT = 3
    ValueKind_DOUBLE = 4
    ValueKind_UINT32 = 5
    ValueKind_UINT64 = 6

    MetricType_OTHER = 0
    MetricType_COUNTER = 1
    MetricType_RATIO = 2
    MetricType_THROUGHPUT = 3

    MetricSubtype_NONE = 0
    MetricSubtype_PEAK_SUSTAINED = 1
    MetricSubtype_PEAK_SUSTAINED_ACTIVE = 2
    MetricSubtype_PEAK_SUSTAINED_ACTIVE_PER_SECOND = 3
    MetricSubtype_PEAK_SUSTAINED_ELAPSED = 4
    MetricSubtype_PEAK_SUSTAINED_ELAPSED_PER_SECOND = 5
    MetricSubtype_PEAK_SUSTAINED_FRAME = 6
    MetricSubtype_PEAK_SUSTAINED_FRAME_PER_SECOND = 7
    MetricSubtype_PEAK_SUSTAINED_REGION = 8
    MetricSubtype_PEAK_SUSTAINED_REGION_PER_SECOND = 9
    MetricSubtype_PER_CYCLE_ACTIVE = 10
    MetricSubtype_PER_CYCLE_ELAPSED = 11
    MetricSubtype_PER_CYCLE_IN_FRAME = 12
    MetricSubtype_PER_CYCLE_IN_REGION = 13
    MetricSubtype_PER_SECOND = 14
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_ACTIVE = 15
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_ELAPSED = 16
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_FRAME = 17
    MetricSubtype_PCT_OF_PEAK_SUSTAINED_REGION = 18
    MetricSubtype_MAX_RATE = 19
    MetricSubtype_PCT = 20
    MetricSubtype_RATIO = 21

    RollupOperation_NONE = 0
    RollupOperation_AVG = 1
    RollupOperation_MAX = 2
    RollupOperation_MIN = 3
    RollupOperation_SUM = 4

    def name(self) -> str:
        raise NotImplementedError

    def kind(self, instance: Optional[int] = None) -> int:
        raise NotImplementedError

    def as_double(self, instance: Optional[int] = None) -> float:
        raise NotImplementedError

    def as_uint64(self, instance: Optional[int] = None) -> int:
        raise NotImplementedError

    def as_string(self, instance: Optional[int] = None) -> Optional[str]:
        raise NotImplementedError

    def metric_subtype(self) -> Optional[int]:
        raise NotImplementedError

    def rollup_operation(self) -> Optional[int]:
        raise NotImplementedError

    # NVIDIA's ncu_report also has these two names (ncu-format.md section 5),
    # answering as the methods above do: None where there is none.
    def metric_subtype_using_None(self) -> Optional[int]:  # noqa: N802
        return self.metric_subtype()

    def rollup_operation_using_None(self) -> Optional[int]:  # noqa: N802
        return self.rollup_operation()

    def value(self, idx: Optional[int] = None) -> Optional[Value]:
        """The value through the accessor its kind calls for."""
        kind = self.kind() if idx is None else self.kind(idx)
        args = () if idx is None else (idx,)
        if kind in (self.ValueKind_DOUBLE, self.ValueKind_FLOAT):
            return self.as_double(*args)
        if kind in (self.ValueKind_UINT64, self.ValueKind_UINT32):
            return self.as_uint64(*args)
        if kind == self.ValueKind_STRING:
            return self.as_string(*args)
        return None

    def __str__(self) -> str:
        return self.name()


_KIND_OF_TYPE = {int: IMetric.ValueKind_UINT64,
                 float: IMetric.ValueKind_DOUBLE,
                 str: IMetric.ValueKind_STRING}

_ACCEPTED_KINDS = {
    int: (IMetric.ValueKind_UINT32, IMetric.ValueKind_UINT64),
    float: (IMetric.ValueKind_FLOAT, IMetric.ValueKind_DOUBLE),
    str: (IMetric.ValueKind_STRING,),
}


def cast_double(kind: int, value: Any) -> float:
    if kind in (IMetric.ValueKind_DOUBLE, IMetric.ValueKind_FLOAT,
                IMetric.ValueKind_UINT32, IMetric.ValueKind_UINT64):
        return float(value)
    return 0.0


def cast_uint64(kind: int, value: Any) -> int:
    if kind in (IMetric.ValueKind_UINT32, IMetric.ValueKind_UINT64):
        return int(value)
    if kind in (IMetric.ValueKind_DOUBLE, IMetric.ValueKind_FLOAT):
        if value != value or value < 0 or value >= 2.0 ** 64:
            return 0
        return int(value)
    return 0


def cast_string(kind: int, value: Any) -> Optional[str]:
    return value if kind == IMetric.ValueKind_STRING else None


class IMutableMetric(IMetric):
    """A metric a rule creates with ``IAction.add_metric``; its kind is the
    kind of the value last assigned."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._kind = IMetric.ValueKind_UNKNOWN
        self._value: Optional[Value] = None
        self._instances: list[tuple[int, Value]] = []
        self._ids: Optional[IMutableMetric] = None

    def _set(self, python_type: type, args: tuple[Any, ...]) -> bool:
        if len(args) == 2:
            instance, (kind, value) = None, args
        elif len(args) == 3:
            instance, kind, value = args
        else:
            raise TypeError("set_*([instance,] value_kind, value)")
        if kind == IMetric.ValueKind_ANY:
            kind = _KIND_OF_TYPE[python_type]
        if kind not in _ACCEPTED_KINDS[python_type]:
            return False
        if python_type is int:
            if isinstance(value, bool) or not isinstance(value, int) \
                    or not 0 <= value < 2 ** 64:
                return False
        elif python_type is float:
            if not isinstance(value, (int, float)):
                return False
            value = float(value)
        elif not isinstance(value, str):
            return False
        if instance is None:
            self._kind, self._value = kind, value
            return True
        if not 0 <= instance <= len(self._instances):
            return False
        if instance == len(self._instances):
            self._instances.append((kind, value))
        else:
            self._instances[instance] = (kind, value)
        return True

    def set_double(self, *args: Any) -> bool:
        return self._set(float, args)

    def set_uint64(self, *args: Any) -> bool:
        return self._set(int, args)

    def set_string(self, *args: Any) -> bool:
        return self._set(str, args)

    def mutable_correlation_ids(self) -> "IMutableMetric":
        if self._ids is None:
            self._ids = IMutableMetric(self._name + "__correlation_ids")
        return self._ids

    def _slot(self, instance: Optional[int]) -> tuple[int, Any]:
        if instance is None:
            return self._kind, self._value
        if 0 <= instance < len(self._instances):
            return self._instances[instance]
        return IMetric.ValueKind_UNKNOWN, None

    def name(self) -> str:
        return self._name

    def metric_type(self) -> int:
        return IMetric.MetricType_OTHER

    # None where the subtype or rollup is NONE, as NVIDIA's modules answer.
    def metric_subtype(self) -> Optional[int]:
        return None

    def rollup_operation(self) -> Optional[int]:
        return None

    def unit(self) -> str:
        return ""

    def description(self) -> str:
        return ""

    def kind(self, instance: Optional[int] = None) -> int:
        return self._slot(instance)[0]

    def has_value(self, instance: Optional[int] = None) -> bool:
        return self._slot(instance)[0] != IMetric.ValueKind_UNKNOWN

    def as_double(self, instance: Optional[int] = None) -> float:
        return cast_double(*self._slot(instance))

    def as_uint64(self, instance: Optional[int] = None) -> int:
        return cast_uint64(*self._slot(instance))

    def as_string(self, instance: Optional[int] = None) -> Optional[str]:
        return cast_string(*self._slot(instance))

    def num_instances(self) -> int:
        return len(self._instances)

    def has_correlation_ids(self) -> bool:
        return self._ids is not None and self._ids.num_instances() > 0

    def correlation_ids(self) -> Optional[IMetric]:
        return self._ids if self.has_correlation_ids() else None
