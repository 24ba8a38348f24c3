# SPDX-License-Identifier: LGPL-2.1-or-later
"""A drop-in for NVIDIA's ``ncu_report`` module over nvprofiled's reader.

    import nvprofiled.ncu_report as ncu_report
    ctx = ncu_report.load_report("profile.ncu-rep")
    for rng in ctx:
        for action in rng:
            print(action.name(), action["gpu__time_duration.sum"].value())

Same classes, method names, arguments, enum constants, return values and
failure conventions as NVIDIA's module: ``as_double``/``as_uint64`` return 0
and ``as_string`` None when a value cannot be cast, ``metric_by_name``
returns None and ``IAction[name]`` raises KeyError for a missing metric,
``range_by_idx``/``action_by_idx`` return None out of range.
"""

from __future__ import annotations

import io
import os
import weakref
# typing costs an import at run time; the annotations are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, Iterable, Iterator, Optional, Union

from nvprofiled import _ncu_report
from nvprofiled._metrics import IMetric as _IMetricBase
from nvprofiled._metrics import IMutableMetric
from nvprofiled._sugar import (INTERFACE_VERSION, ActionMethods,
                               ContextMethods, PublicNames, RangeMethods)

__all__ = [
    "IAction", "IContext", "IMetric", "IMutableMetric", "INvtxDomainInfo",
    "INvtxRange", "INvtxState", "IRange", "IRuleResult", "ISourceInfo",
    "load_report",
]


class IMetric(_ncu_report.Metric, _IMetricBase):
    """A metric of an action: a value, instance values, or both."""

    def description(self) -> str:
        # Reports do not store metric descriptions (ncu's database does).
        return ""

    def __repr__(self) -> str:
        return f"<IMetric {self.name()}>"


class ISourceInfo(PublicNames):
    """Where a SASS address comes from in the CUDA source."""

    def __init__(self, file_name: str, line: int) -> None:
        self._file_name = file_name
        self._line = line

    def file_name(self) -> str:
        return self._file_name

    def line(self) -> int:
        return self._line

    def __repr__(self) -> str:
        return f"<ISourceInfo {self._file_name}:{self._line}>"


class INvtxRange(PublicNames):
    PayloadType_PAYLOAD_UNKNOWN = 0
    PayloadType_PAYLOAD_UINT64 = 1
    PayloadType_PAYLOAD_INT64 = 2
    PayloadType_PAYLOAD_DOUBLE = 3
    PayloadType_PAYLOAD_UINT32 = 4
    PayloadType_PAYLOAD_INT32 = 5
    PayloadType_PAYLOAD_FLOAT = 6
    PayloadType_PAYLOAD_JSON = 7

    _INTEGER_PAYLOADS = (1, 2, 4, 5)
    _FLOAT_PAYLOADS = (3, 6)

    def __init__(self, fields: tuple[Any, ...]) -> None:
        (self._name, self._has_attributes, self._category, self._color,
         self._payload_type, self._payload_bits, self._payload_double,
         self._payload_string, self._message) = fields

    def name(self) -> str:
        return self._name

    def has_attributes(self) -> bool:
        return self._has_attributes

    def category(self) -> int:
        return self._category if self._has_attributes else 0

    def color(self) -> int:
        return self._color if self._has_attributes else 0

    def payload_type(self) -> int:
        return self._payload_type

    def _signed(self) -> int:
        bits = self._payload_bits
        if self._payload_type == self.PayloadType_PAYLOAD_INT64:
            return bits - (1 << 64) if bits >= 1 << 63 else bits
        if self._payload_type == self.PayloadType_PAYLOAD_INT32:
            bits &= 0xFFFFFFFF
            return bits - (1 << 32) if bits >= 1 << 31 else bits
        return bits

    def payload_as_uint64(self) -> int:
        if self._payload_type in self._INTEGER_PAYLOADS:
            return self._signed() & 0xFFFFFFFFFFFFFFFF
        if self._payload_type in self._FLOAT_PAYLOADS:
            d = self._payload_double
            return int(d) if d == d and 0 <= d < 2.0 ** 64 else 0
        return 0

    def payload_as_double(self) -> float:
        if self._payload_type in self._INTEGER_PAYLOADS:
            return float(self._signed())
        if self._payload_type in self._FLOAT_PAYLOADS:
            return self._payload_double
        return 0.0

    def payload_as_string(self) -> str:
        if self._payload_type == self.PayloadType_PAYLOAD_JSON:
            return self._payload_string
        if self._payload_type in self._INTEGER_PAYLOADS:
            return str(self._signed())
        if self._payload_type in self._FLOAT_PAYLOADS:
            return repr(self._payload_double)
        return ""

    def message(self) -> str:
        return self._message if self._has_attributes else ""

    def __repr__(self) -> str:
        return f"<INvtxRange {self._name}>"


class INvtxDomainInfo(PublicNames):
    def __init__(self, fields: tuple[Any, ...]) -> None:
        _, self._name, push_pop, start_end = fields
        self._push_pop = [INvtxRange(r) for r in push_pop]
        self._start_end = [INvtxRange(r) for r in start_end]

    def name(self) -> str:
        return self._name

    def push_pop_ranges(self) -> tuple[str, ...]:
        return tuple(r.name() for r in self._push_pop)

    def push_pop_range(self, idx: int) -> Optional[INvtxRange]:
        return self._push_pop[idx] if 0 <= idx < len(self._push_pop) else None

    def start_end_ranges(self) -> tuple[str, ...]:
        return tuple(sorted(r.name() for r in self._start_end))

    def start_end_range(self, idx: int) -> Optional[INvtxRange]:
        return (self._start_end[idx] if 0 <= idx < len(self._start_end)
                else None)

    def __str__(self) -> str:
        return self.name()


class INvtxState(PublicNames):
    def __init__(self, domains: tuple[tuple[Any, ...], ...]) -> None:
        self._domains = {d[0]: d for d in domains}

    def domains(self) -> tuple[int, ...]:
        return tuple(self._domains)

    def domain_by_id(self, id: int) -> Optional[INvtxDomainInfo]:  # noqa: A002
        fields = self._domains.get(id)
        return None if fields is None else INvtxDomainInfo(fields)

    def __len__(self) -> int:
        return len(self._domains)

    def __iter__(self) -> Iterator[int]:
        return iter(self.domains())

    def __getitem__(self, key: int) -> INvtxDomainInfo:
        if not isinstance(key, int):
            raise TypeError("INvtxState IDs must be integers, not "
                            + type(key).__name__)
        domain = self.domain_by_id(key)
        if domain is None:
            raise KeyError("INvtxState invalid ID")
        return domain


class RuleResultMessage:
    def __init__(self, title: str, message: str,
                 type: int) -> None:  # noqa: A002
        self.title = title
        self.message = message
        self.type = type


class IRuleResult(PublicNames):
    """A rule result stored in the report (what ncu's rules said when the
    report was made).  Message and marker types keep the file's numbers:
    None 0, Ok 1, Warning 2, Error 3, Optimization 4."""

    def __init__(self, fields: tuple[Any, ...]) -> None:
        (self._identifier, self._name, self._section, self._messages,
         self._focus, self._speedups, self._markers,
         self._proposals) = fields

    def rule_identifier(self) -> str:
        return self._identifier

    def name(self) -> str:
        return self._name

    def section_identifier(self) -> Optional[str]:
        return self._section

    def has_rule_message(self) -> bool:
        return bool(self._messages)

    def rule_message(self) -> Optional[RuleResultMessage]:
        if not self._messages:
            return None
        text, msg_type, _, title = self._messages[0]
        return RuleResultMessage(title or "", text, msg_type)

    def messages(self) -> list[tuple[str, int, int, Optional[str]]]:
        """Every message: (text, type, id, title); id -1 when unset."""
        return list(self._messages)

    def focus_metrics(self) -> list[tuple[int, str, float, int, str]]:
        """(message id, metric name, value, severity, info)."""
        return list(self._focus)

    def has_speedup_estimation(self) -> bool:
        return bool(self._speedups)

    def speedup_estimation(self) -> Optional[tuple[int, Optional[float]]]:
        return self._speedups[0] if self._speedups else None

    def speedups(self) -> list[tuple[int, Optional[float]]]:
        """(type, value) of each speedup item, in body order; type Local 1,
        Global 2."""
        return list(self._speedups)

    def source_markers(self) -> list[tuple[Any, ...]]:
        """(kind, address, line, tooltip, type, file name)."""
        return list(self._markers)

    def proposals(self) -> list[str]:
        return list(self._proposals)

    def __repr__(self) -> str:
        return f"<IRuleResult {self._identifier}>"


class IAction(_ncu_report.Action, ActionMethods):
    """One profile result (a kernel launch, or a range/cmdlist/graph)."""

    NameBase_FUNCTION = 0
    NameBase_DEMANGLED = 1
    NameBase_MANGLED = 2
    WorkloadType_KERNEL = 0
    WorkloadType_RANGE = 1
    WorkloadType_CMDLIST = 2
    WorkloadType_GRAPH = 3

    def report_position(self) -> Optional[tuple[IContext, int, int]]:
        """(context, range index, action index) of this action
        (nvprofiled's addition, for NvRules)."""
        context = self.__dict__.get("_context")
        if context is None:
            return None
        return (context, *self.__dict__["_position"])

    def nvtx_state(self) -> Optional[INvtxState]:
        domains = self._nvtx()
        return None if domains is None else INvtxState(domains)

    def source_info(self, address: int) -> Optional[ISourceInfo]:
        lines = self._line_table()
        found = lines.lookup(address) if lines else None
        return None if found is None else ISourceInfo(*found)

    def _line_table(self) -> Optional[_ncu_report.LineTable]:
        """The line table of the action's module (the C reader's,
        daemon/nsight/report/cubin-lines.h), built once per report for all
        the actions that share it (cached on the action, and on its
        report)."""
        cached = self.__dict__.get("_line_table_cached", False)
        if cached is not False:
            return cached
        cubin = self._cubin()
        table = None
        if cubin:
            functions = self._functions()
            context = self.__dict__.get("_context")
            tables = (context.__dict__.setdefault("_line_tables", {})
                      if context is not None else {})
            key = (cubin, functions)
            if key not in tables:
                tables[key] = _ncu_report.line_table(cubin, functions)
            table = tables[key]
        self.__dict__["_line_table_cached"] = table
        return table

    def sass_by_pc(self, address: int) -> Optional[str]:
        # SASS text needs NVIDIA's disassembler; reports do not store it.
        return None

    def ptx_by_pc(self, address: int) -> Optional[str]:
        return None

    def rule_results(self) -> list[IRuleResult]:
        return [IRuleResult(r) for r in self._stored_rule_results()]

    # metric_by_name and metric_names are the extension's own, called
    # directly; an action given metrics gets these two in its __dict__.
    def _metric_by_name_with_added(self, metric_name: str
                                   ) -> Optional[IMetric]:
        metric = self.__dict__["_added"].get(metric_name)
        if metric is not None:
            return metric
        return _ncu_report.Action.metric_by_name(self, metric_name)

    def _metric_names_with_added(self) -> tuple[str, ...]:
        names = _ncu_report.Action.metric_names(self)
        return tuple(sorted(set(names).union(self.__dict__["_added"])))

    def add_metric(self, value_name: str) -> IMutableMetric:
        """A new metric of this action (replacing one of that name)."""
        metric = IMutableMetric(value_name)
        if "_added" not in self.__dict__:
            self.__dict__["_added"] = {}
            self.__dict__["metric_by_name"] = self._metric_by_name_with_added
            self.__dict__["metric_names"] = self._metric_names_with_added
        self.__dict__["_added"][value_name] = metric
        context = self.__dict__.get("_context")
        if context is not None:
            context.__dict__.setdefault("_pinned", {})[id(self)] = self
        return metric

    def __repr__(self) -> str:
        return f"<IAction {self.name()}>"


_ncu_report._register(IAction, IMetric)


class IRange(RangeMethods):
    """A serial, ordered stream of execution: every result of the report
    in file order (like NVIDIA's module, one range per report)."""

    def __init__(self, context: "IContext", index: int) -> None:
        self._context = context
        self._index = index

    def num_actions(self) -> int:
        return self._context._num_actions(self._index)

    def action_by_idx(self, idx: int) -> Optional[IAction]:
        return self._context._cached_action(self._index, idx)

    def actions_by_nvtx(self, includes: Iterable[str],
                        excludes: Iterable[str]) -> tuple[int, ...]:
        return self._context._actions_by_nvtx(self._index, list(includes),
                                              list(excludes))


class IContext(_ncu_report.Report, ContextMethods):
    """A loaded report."""

    def _cached_action(self, range_index: int, idx: int) -> Optional[IAction]:
        # One object per action while anyone holds it; an action given
        # metrics (add_metric) is kept for good, so that they stay.  Only
        # that keeps a reference from the report to an action.
        cache = self.__dict__.get("_actions")
        if cache is None:
            cache = self.__dict__["_actions"] = weakref.WeakValueDictionary()
        action = cache.get((range_index, idx))
        if action is None:
            action = self._action(range_index, idx)
            if action is not None:
                action.__dict__["_context"] = self
                action.__dict__["_position"] = (range_index, idx)
                cache[(range_index, idx)] = action
        return action

    def range_by_idx(self, idx: int) -> Optional[IRange]:
        if 0 <= idx < self.num_ranges():
            return IRange(self, idx)
        return None

    # What NVIDIA's IContext has besides the ranges (its NvRules interface,
    # IBaseContext): outside a rule, a frontend and a controller that record
    # what a script sends them, one of each per report.
    def get_version(self) -> str:
        """The Nsight Compute version whose interface this is."""
        return INTERFACE_VERSION

    def handle_exception(self, msg: str) -> bool:
        """Whether a Python exception is to be set for msg: always, nothing
        masks one outside a rule."""
        return True

    def frontend(self) -> Any:
        """An NvRules.IFrontend; what it is sent is kept in its result."""
        if "_frontend" not in self.__dict__:
            from nvprofiled import NvRules
            result = NvRules.RuleResult("")
            self.__dict__["_frontend"] = NvRules.IFrontend(result, [], {}, ())
            self.__dict__["_controller"] = NvRules.IController(
                NvRules.IMessageVault(), result)
        return self.__dict__["_frontend"]

    def controller(self) -> Any:
        """An NvRules.IController (rules proposed, its message vault)."""
        self.frontend()
        return self.__dict__["_controller"]


def load_report(file: Union[str, os.PathLike[str], int, IO[bytes]]
                ) -> IContext:
    """Load a .ncu-rep (or zstd-compressed .ncu-repz) report from a path,
    an open binary file object, or a file descriptor (read from its
    current position; neither is closed).

    Raises OSError when the file cannot be read and ValueError (naming the
    byte offset) when it is not a valid report. An action's metrics are
    decoded when first read, and its cubin (source_info()) and CUDA sources
    (source_files()) read when first needed (from a regular file, read
    again then: the report keeps its own descriptor); that read raises the
    same errors, and OSError(ESTALE) when the file changed since it was
    loaded.
    """
    if isinstance(file, int):
        return _ncu_report.load(file, IContext)
    if isinstance(file, (str, bytes, os.PathLike)):
        with open(file, "rb") as f:
            return _ncu_report.load(f.fileno(), IContext)
    try:
        fd = file.fileno()
    except (AttributeError, io.UnsupportedOperation):
        fd = -1
    if fd >= 0:
        # What the file object buffered is not at fd's position any more.
        if hasattr(file, "tell") and hasattr(file, "seek"):
            os.lseek(fd, file.tell(), os.SEEK_SET)
        return _ncu_report.load(fd, IContext)
    # An in-memory file: through a pipe would need a thread; read it into
    # a temporary file instead.
    import tempfile
    with tempfile.TemporaryFile() as tmp:
        while True:
            chunk = file.read(1 << 20)
            if not chunk:
                break
            tmp.write(chunk)
        tmp.seek(0)
        return _ncu_report.load(tmp.fileno(), IContext)
