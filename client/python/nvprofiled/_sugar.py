# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python conveniences NVIDIA's modules put on their objects, shared by
nvprofiled.ncu_report and nvprofiled.NvRules."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

    from nvprofiled._metrics import IMetric, IMutableMetric

# The Nsight Compute version whose interface both modules follow
# (NvRules.get_version(), IContext.get_version()): that of the oracle,
# NVIDIA's ncu_report of ncu 2024.1.1.
INTERFACE_VERSION = "2024.1.1"


def public_dir(obj: Any) -> list[str]:
    """dir() without private names: Python suggests a name from dir() when
    an attribute is misspelt ("Did you mean"), and a script is to be
    pointed at the API, not at nvprofiled's internals."""
    return sorted(name for name in object.__dir__(obj)
                  if not name.startswith("_") or name.startswith("__"))


class PublicNames:
    """Objects whose dir() is public_dir()."""

    def __dir__(self) -> list[str]:
        return public_dir(self)


def sequence_item(owner: Any, key: Any, length: int,
                  by_index: Callable[[int], Any], what: str) -> Any:
    """``owner[key]`` for an int (negative counts from the end) or a slice;
    IndexError out of range, TypeError for another key type."""
    if isinstance(key, int):
        if key < -length or key >= length:
            raise IndexError(f"{what} index out of range")
        return by_index(key + length if key < 0 else key)
    if isinstance(key, slice):
        return tuple(owner[i] for i in range(*key.indices(length)))
    raise TypeError(f"{what} indices must be integers or slices, not "
                    + type(key).__name__)


class RangeMethods(PublicNames):
    """``len``, ``[]`` (index or slice) and iteration over a range's
    actions, from num_actions and action_by_idx."""

    def num_actions(self) -> int:
        raise NotImplementedError

    def action_by_idx(self, idx: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.num_actions()

    def __getitem__(self, key: int | slice) -> Any:
        return sequence_item(self, key, len(self), self.action_by_idx,
                             "IRange")

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))


class ContextMethods(PublicNames):
    """The same over a context's ranges, from num_ranges and
    range_by_idx."""

    def num_ranges(self) -> int:
        raise NotImplementedError

    def range_by_idx(self, idx: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.num_ranges()

    def __getitem__(self, key: int | slice) -> Any:
        return sequence_item(self, key, len(self), self.range_by_idx,
                             "IContext")

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))


class ActionMethods(PublicNames):
    """What IAction derives from metric_by_name, metric_names, name and
    add_metric: ``action[name]`` (KeyError when missing), iteration over
    the names, ``len``, ``in``, ``str``, and the typed add_*_metric."""

    def metric_by_name(self, metric_name: str) -> IMetric | None:
        raise NotImplementedError

    def metric_names(self) -> tuple[str, ...]:
        raise NotImplementedError

    def name(self, base: int = 0) -> str:
        raise NotImplementedError

    def add_metric(self, value_name: str) -> IMutableMetric:
        raise NotImplementedError

    def add_integer_metric(self, value_name: str, value_kind: int,
                           value: int) -> IMutableMetric:
        metric = self.add_metric(value_name)
        metric.set_uint64(value_kind, value)
        return metric

    def add_double_metric(self, value_name: str, value_kind: int,
                          value: float) -> IMutableMetric:
        metric = self.add_metric(value_name)
        metric.set_double(value_kind, value)
        return metric

    def add_string_metric(self, value_name: str, value_kind: int,
                          value: str) -> IMutableMetric:
        metric = self.add_metric(value_name)
        metric.set_string(value_kind, value)
        return metric

    def __getitem__(self, key: str) -> IMetric:
        if not isinstance(key, str):
            raise TypeError("IAction metric keys must be strings, not "
                            + type(key).__name__)
        metric = self.metric_by_name(key)
        if metric is None:
            raise KeyError(f"no metric named '{key}'")
        return metric

    def __iter__(self) -> Iterator[str]:
        return iter(self.metric_names())

    def __len__(self) -> int:
        return len(self.metric_names())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.metric_by_name(key) is not None

    def __str__(self) -> str:
        return self.name()
