# SPDX-License-Identifier: LGPL-2.1-or-later
"""An NvRules-compatible module: what Nsight Compute rule files import.

Rule files do ``import NvRules`` and call ``NvRules.get_context(handle)``;
the runner (:mod:`nvprofiled.rules`) installs this module under that name and
hands every ``apply()`` a handle for one rule invocation.  The context gives
the rule one range holding the one action the rule is applied to; the action
is the report interface's action (:mod:`nvprofiled.ncu_report`) seen through
:class:`IAction`, which adds the metrics rules create with ``add_metric``.
Everything a rule reports goes to :class:`IFrontend`, which records it as a
:class:`RuleResult`.
"""

from __future__ import annotations

import enum
import itertools
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from nvprofiled._metrics import IMetric, IMutableMetric
from nvprofiled._sugar import (INTERFACE_VERSION, ActionMethods,
                               ContextMethods, PublicNames, RangeMethods)

__all__ = [
    "IAction", "IBaseContext", "IContext", "IController", "IEvaluator",
    "IFrontend", "IMessageVault", "IMetric", "IMutableMetric", "IRange",
    "MarkerKind", "MsgType", "RuleError", "RuleKind_DEFAULT",
    "RuleKind_GUIDED", "RuleResult", "get_context", "get_evaluator",
    "get_version", "raise_exception", "require_metrics", "require_rules",
]

VERSION = INTERFACE_VERSION
RuleKind_DEFAULT = 0
RuleKind_GUIDED = 1


class RuleError(Exception):
    """What ``raise_exception`` raises: the rule gave up with a message."""


# ---------------------------------------------------------------------------
# Recorded results


@dataclass
class FocusMetric:
    message_id: int
    name: str
    value: float
    severity: int
    info: str


@dataclass
class Speedup:
    message_id: int
    type: int
    value: float


@dataclass
class SourceMarker:
    message: str
    kind: int
    address: Optional[int]
    line: Optional[int]
    file_name: str
    type: int


@dataclass
class Table:
    message_id: int
    header: list[str]
    columns: list[list[Any]]
    config: Optional[dict[str, Any]]


def read_chart(path: str) -> dict[str, Any]:
    """A .chart file (one section body item in protobuf text format) as a
    dict keyed by the schema's field names, e.g. {"BarChart": {...}}; read
    by the project's text-format reader, as ncu reads it."""
    from nvprofiled import _ncu_report
    with open(path, "rb") as f:
        # One byte past the reader's limit is enough for it to refuse.
        text = f.read(_ncu_report.CHART_MAX_SIZE + 1)
    body: dict[str, Any] = json.loads(_ncu_report.parse_chart(text, path))
    return body


@dataclass
class Chart:
    file_name: str
    path: str
    body: Any = None


@dataclass
class Message:
    id: int
    type: int
    text: str
    name: str


@dataclass
class RuleResult:
    """Everything one rule reported for one action."""

    identifier: str
    name: str = ""
    section: Optional[str] = None
    messages: list[Message] = field(default_factory=list)
    speedups: list[Speedup] = field(default_factory=list)
    focus_metrics: list[FocusMetric] = field(default_factory=list)
    source_markers: list[SourceMarker] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    proposed_rules: list[str] = field(default_factory=list)
    error: Optional[str] = None


# ---------------------------------------------------------------------------
# Enums


class MsgType(enum.IntEnum):
    NONE = 0
    OK = 1
    OPTIMIZATION = 2
    WARNING = 3
    ERROR = 4


class MarkerKind(enum.IntEnum):
    SASS = 0
    SOURCE = 1
    NONE = 2


MsgType_NONE = MsgType.NONE
MsgType_OK = MsgType.OK
MsgType_OPTIMIZATION = MsgType.OPTIMIZATION
MsgType_WARNING = MsgType.WARNING
MsgType_ERR = MsgType.ERROR
MarkerKind_SASS = MarkerKind.SASS
MarkerKind_SOURCE = MarkerKind.SOURCE
MarkerKind_NONE = MarkerKind.NONE


# ---------------------------------------------------------------------------
# Report objects as a rule sees them


class IAction(ActionMethods):
    """One profile result, plus the metrics rules add to it.

    ``hidden`` names metrics of the report that must look absent: fallback
    metrics that rules added at profile time and ncu saved into the report
    (re-running a rule must not find its own fallback).
    """

    NameBase_FUNCTION = 0
    NameBase_DEMANGLED = 1
    NameBase_MANGLED = 2
    WorkloadType_KERNEL = 0
    WorkloadType_RANGE = 1
    WorkloadType_CMDLIST = 2
    WorkloadType_GRAPH = 3

    def __init__(self, base: Any, hidden: Iterable[str] = ()) -> None:
        self._base = base
        self._hidden = frozenset(hidden)
        self._added: dict[str, IMetric] = {}

    def name(self, base: int = NameBase_FUNCTION) -> str:
        return self._base.name(base)

    def workload_type(self) -> int:
        return self._base.workload_type()

    def metric_by_name(self, metric_name: str) -> Optional[IMetric]:
        added = self._added.get(metric_name)
        if added is not None:
            return added
        if metric_name in self._hidden:
            return None
        return self._base.metric_by_name(metric_name)

    def metric_names(self) -> tuple[str, ...]:
        names = [n for n in self._base.metric_names()
                 if n not in self._hidden and n not in self._added]
        return tuple(sorted(itertools.chain(names, self._added)))

    def add_metric(self, value_name: str) -> IMutableMetric:
        metric = IMutableMetric(value_name)
        self._added[value_name] = metric
        return metric

    def source_info(self, address: int) -> Any:
        return self._base.source_info(address)

    def source_files(self) -> dict[str, str]:
        return self._base.source_files()

    def sass_by_pc(self, address: int) -> str:
        return self._base.sass_by_pc(address)

    def ptx_by_pc(self, address: int) -> str:
        return self._base.ptx_by_pc(address)

    def nvtx_state(self) -> Any:
        return self._base.nvtx_state()

    def report_position(self) -> Optional[tuple[Any, int, int]]:
        """(report context, range index, action index) of the report
        action underneath, when it came from nvprofiled.ncu_report."""
        position = getattr(self._base, "report_position", None)
        return position() if callable(position) else None



class IRange(RangeMethods):
    """The one range of a rule invocation: the action the rule looks at."""

    def __init__(self, actions: list[IAction]) -> None:
        self._actions = actions

    def num_actions(self) -> int:
        return len(self._actions)

    def action_by_idx(self, idx: int) -> Optional[IAction]:
        if 0 <= idx < len(self._actions):
            return self._actions[idx]
        return None

    def actions_by_nvtx(self, includes: Iterable[str],
                        excludes: Iterable[str]) -> tuple[int, ...]:
        """Indices of this range's actions that the report's NVTX
        selector picks (see ncu_report.IRange.actions_by_nvtx)."""
        includes, excludes = list(includes), list(excludes)
        picked = []
        for i, action in enumerate(self._actions):
            where = action.report_position()
            if where is None:
                continue
            context, range_index, index = where
            if index in context._actions_by_nvtx(range_index, includes,
                                                 excludes):
                picked.append(i)
        return tuple(picked)


class IMessageVault(PublicNames):
    """Dictionaries rules pass to each other through the controller."""

    def __init__(self) -> None:
        self._messages: dict[str, dict[Any, Any]] = {}

    # NVIDIA's names (Put, Get, ruleId), kept for rules that call them.
    def Put(self, ruleId: str,  # noqa: N802,N803
            message: dict[Any, Any]) -> None:
        self._messages.setdefault(ruleId, {}).update(message)

    def Get(self, ruleId: str) -> dict[Any, Any]:  # noqa: N802,N803
        return dict(self._messages.get(ruleId, {}))


class IController(PublicNames):
    def __init__(self, vault: IMessageVault, result: RuleResult) -> None:
        self._vault = vault
        self._result = result

    def propose_rule(self, rule: str) -> None:
        self._result.proposed_rules.append(str(rule))

    def get_message_vault(self) -> IMessageVault:
        return self._vault


class IFrontend(PublicNames):
    """Records what a rule reports into its :class:`RuleResult`."""

    Severity_SEVERITY_DEFAULT = 0
    Severity_SEVERITY_LOW = 1
    Severity_SEVERITY_HIGH = 2
    SpeedupType_LOCAL = 1
    SpeedupType_GLOBAL = 2
    MarkerKind_SASS = MarkerKind.SASS
    MarkerKind_SOURCE = MarkerKind.SOURCE
    MarkerKind_NONE = MarkerKind.NONE
    MsgType_MSG_NONE = MsgType.NONE
    MsgType_MSG_OK = MsgType.OK
    MsgType_MSG_OPTIMIZATION = MsgType.OPTIMIZATION
    MsgType_MSG_WARNING = MsgType.WARNING
    MsgType_MSG_ERROR = MsgType.ERROR

    def __init__(self, result: RuleResult, rule_dirs: list[str],
                 sent: dict[str, dict[str, float]],
                 parents: Iterable[str],
                 chart_reader: Optional[Callable[[str], Any]] = None) -> None:
        self._result = result
        self._rule_dirs = rule_dirs
        self._sent = sent
        self._parents = frozenset(parents)
        self._chart_reader = chart_reader

    def _message_ids(self) -> set[int]:
        return {m.id for m in self._result.messages}

    def message(self, *args: Any) -> int:
        """message([type,] text[, name]) -> id, unique in this invocation."""
        if args and isinstance(args[0], int) and not isinstance(args[0], bool):
            msg_type, rest = MsgType(args[0]), args[1:]
        else:
            msg_type, rest = MsgType.NONE, args
        if not 1 <= len(rest) <= 2 \
                or not all(isinstance(s, str) for s in rest):
            raise TypeError("message([type,] str[, name])")
        message_id = len(self._result.messages) + 1
        name = rest[1] if len(rest) > 1 else ""
        self._result.messages.append(
            Message(message_id, int(msg_type), rest[0], name))
        return message_id

    def speedup(self, message_id: int, type: int,  # noqa: A002
                estimated_speedup: float) -> bool:
        if message_id not in self._message_ids() or type not in (
                self.SpeedupType_LOCAL, self.SpeedupType_GLOBAL):
            return False
        self._result.speedups.append(
            Speedup(message_id, type, float(estimated_speedup)))
        return True

    def focus_metric(self, message_id: int, metric_name: str,
                     metric_value: float, severity: int, info: str) -> bool:
        if message_id not in self._message_ids():
            return False
        self._result.focus_metrics.append(FocusMetric(
            message_id, str(metric_name), float(metric_value), int(severity),
            str(info)))
        return True

    def source_marker(self, *args: Any) -> None:
        """source_marker(text, address_or_line, kind[, file_name][, type])."""
        if len(args) < 3 or len(args) > 5:
            raise TypeError("source_marker(str, address_or_line, kind"
                            "[, file_name][, type])")
        text, location, kind = args[0], int(args[1]), MarkerKind(args[2])
        file_name, msg_type = "", MsgType.NONE
        for extra in args[3:]:
            if isinstance(extra, str):
                file_name = extra
            else:
                msg_type = MsgType(extra)
        is_sass = kind == MarkerKind.SASS
        self._result.source_markers.append(SourceMarker(
            str(text), int(kind), location if is_sass else None,
            None if is_sass else location, file_name, int(msg_type)))

    def load_chart_from_file(self, filename: str) -> None:
        """Attach a .chart file, found next to the rule file (or in the
        other rule folders), parsed: a bad chart raises ValueError naming
        file, line and column, which the runner reports as the rule's
        error."""
        for folder in self._rule_dirs:
            path = os.path.join(folder, filename)
            if os.path.isfile(path):
                reader = self._chart_reader or read_chart
                self._result.charts.append(Chart(filename, path, reader(path)))
                return
        raise FileNotFoundError(f"chart file {filename} not found next to "
                                "the rule")

    def generate_table(self, message_id: int, header: list[str],
                       data: list[list[Any]],
                       config: Optional[dict[str, Any]] = None) -> None:
        columns = [list(c) for c in zip(*data)] if data else [
            [] for _ in header]
        if len(columns) != len(header):
            raise ValueError("the header does not match the number of "
                             "columns in data")
        for column in columns:
            if any(len(row) != len(header) for row in data):
                raise ValueError("all columns must have the same length")
            kinds = {float if isinstance(v, float) else
                     int if isinstance(v, int) else
                     str for v in column}
            if len(kinds) > 1:
                raise TypeError("a column mixes element types")
        self._result.tables.append(
            Table(message_id, list(header), columns, config))

    def send_dict_to_children(self,
                              dict: dict[str, float]) -> None:  # noqa: A002
        sent = self._sent.setdefault(self._result.identifier, {})
        for key, value in dict.items():
            sent[str(key)] = float(value)

    def receive_dict_from_parent(self, parent_id: str) -> dict[str, float]:
        if parent_id not in self._parents:
            return {}
        return dict(self._sent.get(parent_id, {}))


class IBaseContext(PublicNames):
    def __init__(self, invocation: "_Invocation") -> None:
        self._invocation = invocation

    def get_version(self) -> str:
        return VERSION

    def handle_exception(self, msg: str) -> None:
        raise RuleError(msg)


class IContext(IBaseContext, ContextMethods):
    def num_ranges(self) -> int:
        return len(self._invocation.ranges)

    def range_by_idx(self, idx: int) -> Optional[IRange]:
        ranges = self._invocation.ranges
        return ranges[idx] if 0 <= idx < len(ranges) else None

    def frontend(self) -> IFrontend:
        return self._invocation.frontend

    def controller(self) -> IController:
        return self._invocation.controller


class IEvaluator(IBaseContext):
    def require_metric(self, metric: str) -> None:
        self._invocation.required_metrics.append(str(metric))

    def require_rule(self, rule: str) -> None:
        self._invocation.required_rules.append(str(rule))


# ---------------------------------------------------------------------------
# Handles: the integers NvRules functions take


@dataclass
class _Invocation:
    ranges: list[IRange]
    frontend: IFrontend
    controller: IController
    required_metrics: list[str] = field(default_factory=list)
    required_rules: list[str] = field(default_factory=list)


_invocations: dict[int, _Invocation] = {}
_next_handle = itertools.count(1)


def open_handle(invocation: _Invocation) -> int:
    handle = next(_next_handle)
    _invocations[handle] = invocation
    return handle


def close_handle(handle: int) -> None:
    _invocations.pop(handle, None)


def _invocation(handle: int) -> _Invocation:
    try:
        return _invocations[handle]
    except (KeyError, TypeError):
        raise ValueError(f"invalid NvRules handle {handle!r}") from None


def get_context(h: int) -> IContext:
    return IContext(_invocation(h))


def get_evaluator(h: int) -> IEvaluator:
    return IEvaluator(_invocation(h))


def get_version(h: int) -> str:
    _invocation(h)
    return VERSION


def raise_exception(h: int, msg: str) -> None:
    _invocation(h)
    raise RuleError(msg)


def require_metrics(h: int, metrics: Iterable[str]) -> None:
    evaluator = get_evaluator(h)
    for metric in metrics:
        evaluator.require_metric(metric)


def require_rules(h: int, rules: Iterable[str]) -> None:
    evaluator = get_evaluator(h)
    for rule in rules:
        evaluator.require_rule(rule)


