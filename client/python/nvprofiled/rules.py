# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run Nsight Compute rule files over a report, like ncu does at profile time.

Rule files are arbitrary Python: this runs as the calling user, in its own
process (``nvprofilectl report rules`` runs this module in an isolated
python3, see client/verb-report-python.c), never inside the daemon.  Only
the rule files of the folders the caller names are code: they come after
everything else on sys.path, and files that would stand for NVIDIA's own
modules (RESERVED_MODULES) are ignored.

What the runner does, in the order ncu does it:

1. load every ``*.py`` of the rule folders that defines ``get_identifier``
   and ``apply`` (helpers such as ``RequestedMetrics.py`` are importable by
   the rules but are not rules; ``NvRules.py`` and the like are ignored);
2. order the rules parents first (``get_parent_rules_identifiers``);
3. for every action of the report, apply the rules whose section is among
   the report's sections, and the rules without a section, giving each a
   context whose one range holds that action;
4. record everything a rule reports (:class:`NvRules.RuleResult`); any
   exception a rule raises becomes an error result of that rule.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import re
import signal
import sys
import traceback
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from nvprofiled import NvRules, _paths
from nvprofiled._terminal import escape

# ncu's one-letter-ish type column of the details page.
MESSAGE_TYPE_LABELS = {
    NvRules.MsgType.NONE: "INF",
    NvRules.MsgType.OK: "INF",
    NvRules.MsgType.OPTIMIZATION: "OPT",
    NvRules.MsgType.WARNING: "WRN",
    NvRules.MsgType.ERROR: "ERR",
}
SPEEDUP_TYPE_LABELS = {NvRules.IFrontend.SpeedupType_LOCAL: "local",
                       NvRules.IFrontend.SpeedupType_GLOBAL: "global"}
SEVERITY_LABELS = {0: "default", 1: "low", 2: "high"}
MARKER_KIND_LABELS = {0: "sass", 1: "source", 2: "none"}

# Modules a rule folder must never provide: ncu's own sections folder ships
# NVIDIA's NvRules.py (a wrapper of its binary _NvRules), and NVIDIA's
# ncu_report may lie beside rules too.  Rules importing these get this
# package's modules (NvRules, ncu_report) or nothing (_NvRules, which only
# NVIDIA's NvRules uses); files of these names in a rule folder are ignored
# with a note.
RESERVED_MODULES = ("NvRules", "_NvRules", "ncu_report")
RESERVED_NOTE = "ignored: NVIDIA's own module, which nvprofiled provides"


@dataclass
class Rule:
    """One loaded rule file."""

    identifier: str
    path: str
    module: types.ModuleType
    name: str = ""
    section: Optional[str] = None
    parents: list[str] = field(default_factory=list)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)


@dataclass
class LoadError:
    path: str
    error: str


# The folders rules were loaded from (appended to sys.path).
_rule_folders: set[str] = set()


def _install_nvrules() -> None:
    """Rule files ``import NvRules``: that name is this package's module
    (see RESERVED_MODULES for the others)."""
    sys.modules.setdefault("NvRules", NvRules)
    if "ncu_report" not in sys.modules:
        from nvprofiled import ncu_report
        sys.modules["ncu_report"] = ncu_report
    # None in sys.modules: "import _NvRules" fails, wherever such a file is.
    sys.modules.setdefault("_NvRules", None)  # type: ignore[arg-type]


def is_reserved_file(name: str) -> bool:
    """Whether a file of a rule folder would provide a RESERVED_MODULES name
    (NvRules.py, _NvRules.cpython-311-x86_64-linux-gnu.so, ...)."""
    return name.split(".", 1)[0] in RESERVED_MODULES


def _may_register(stem: str) -> bool:
    """Whether a rule file may take its name in sys.modules: only when the
    name means a rule folder's file or nothing (json.py in a rule folder
    runs as a rule, but never becomes the json every later import gets)."""
    if "." in stem:
        return False  # finding it would import a package "stem[:dot]"
    try:
        spec = importlib.util.find_spec(stem)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return stem not in sys.modules
    return spec.origin is not None and \
        os.path.dirname(spec.origin) in _rule_folders


def _call_optional(module: types.ModuleType, function: str,
                   default: Any) -> Any:
    getter = getattr(module, function, None)
    return getter() if callable(getter) else default


def load_rule_file(path: str) -> Optional[Rule]:
    """Import one rule file; None when it is a helper rather than a rule.

    The file is imported under its base name, with its folder on sys.path,
    so that rules importing their siblings (``from RequestedMetrics import
    ...``) share one module like they do in ncu.  The folder comes last on
    sys.path, after the standard library, this package and site-packages,
    which nothing in it may shadow.
    """
    _install_nvrules()
    folder = os.path.dirname(os.path.abspath(path))
    _rule_folders.add(folder)
    if folder not in sys.path:
        sys.path.append(folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    module = sys.modules.get(stem)
    if module is None or getattr(module, "__file__", None) != path:
        spec = importlib.util.spec_from_file_location(stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        register = _may_register(stem)
        if register:
            sys.modules[stem] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            if register:
                del sys.modules[stem]
            raise
    if not callable(getattr(module, "get_identifier", None)) or \
            not callable(getattr(module, "apply", None)):
        return None
    section = _call_optional(module, "get_section_identifier", None)
    return Rule(identifier=str(module.get_identifier()),
                path=path,
                module=module,
                name=str(_call_optional(module, "get_name", "")),
                section=str(section) if section else None,
                parents=[str(p) for p in _call_optional(
                    module, "get_parent_rules_identifiers", [])])


def load_rules(folders: Sequence[str],
               ignored: Optional[list[LoadError]] = None
               ) -> tuple[list[Rule], list[LoadError]]:
    """Every rule of the folders, in folder then file-name order; a file
    that fails to import, or repeats an identifier, is a load error.  Files
    that would provide a RESERVED_MODULES name are not loaded: they are
    appended to ``ignored`` with the reason."""
    rules: list[Rule] = []
    errors: list[LoadError] = []
    seen: dict[str, str] = {}
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError as e:
            errors.append(LoadError(folder, f"{e.strerror}"))
            continue
        for name in names:
            path = os.path.abspath(os.path.join(folder, name))
            if is_reserved_file(name):
                if ignored is not None:
                    ignored.append(LoadError(path, RESERVED_NOTE))
                continue
            if not name.endswith(".py"):
                continue
            try:
                rule = load_rule_file(path)
            except Exception as e:  # noqa: BLE001 - any rule code may fail
                errors.append(LoadError(path, _describe(e)))
                continue
            if rule is None:
                continue
            if rule.identifier in seen:
                errors.append(LoadError(
                    path, f"rule {rule.identifier} is already defined by "
                    f"{seen[rule.identifier]}"))
                continue
            seen[rule.identifier] = path
            rules.append(rule)
    return order_parents_first(rules), errors


def order_parents_first(rules: list[Rule]) -> list[Rule]:
    """Parents before children, otherwise in the given order (a cycle or a
    missing parent leaves the rules involved in the given order)."""
    by_id = {r.identifier: r for r in rules}
    ordered: list[Rule] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(rule: Rule) -> None:
        if state.get(rule.identifier):
            return
        state[rule.identifier] = 1
        for parent in rule.parents:
            if parent in by_id:
                visit(by_id[parent])
        state[rule.identifier] = 2
        ordered.append(rule)

    for rule in rules:
        visit(rule)
    return ordered


def _describe(e: BaseException) -> str:
    if isinstance(e, NvRules.RuleError):
        return str(e)
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _rule_dirs_for(rule: Rule, folders: Sequence[str]) -> list[str]:
    dirs = [rule.folder]
    dirs += [os.path.abspath(f) for f in folders
             if os.path.abspath(f) != rule.folder]
    return dirs


@dataclass
class ActionResults:
    range_index: int
    action_index: int
    kernel: str
    results: list[NvRules.RuleResult]
    skipped: list[tuple[str, str]]


def apply_rules(rules: Sequence[Rule], action: Any,
                sections: Optional[Iterable[str]],
                folders: Sequence[str] = (),
                hidden: Iterable[str] = (),
                selected: Optional[Iterable[str]] = None,
                chart_reader: Optional[Callable[[str], Any]] = None
                ) -> tuple[list[NvRules.RuleResult], list[tuple[str, str]]]:
    """Apply the rules to one action (an object with the report interface's
    IAction methods).

    ``sections`` are the section identifiers of the report; None applies
    every rule whatever its section.  ``hidden`` are metric names the rules
    must not see (fallbacks persisted by an earlier run).  ``selected``
    restricts the run to these rule identifiers (their parents still run,
    but only the selected ones are returned).
    """
    section_set = None if sections is None else set(sections)
    wanted = None if selected is None else set(selected)
    needed = _with_parents(rules, wanted)
    rule_action = NvRules.IAction(action, hidden)
    vault = NvRules.IMessageVault()
    sent: dict[str, dict[str, float]] = {}
    applied: set[str] = set()
    results: list[NvRules.RuleResult] = []
    skipped: list[tuple[str, str]] = []
    for rule in rules:
        if needed is not None and rule.identifier not in needed:
            continue
        if rule.section and section_set is not None \
                and rule.section not in section_set:
            skipped.append((rule.identifier,
                            f"section {rule.section} is not in the report"))
            continue
        result = NvRules.RuleResult(rule.identifier, rule.name, rule.section)
        frontend = NvRules.IFrontend(result, _rule_dirs_for(rule, folders),
                                     sent, rule.parents, chart_reader)
        invocation = NvRules._Invocation(
            [NvRules.IRange([rule_action])], frontend,
            NvRules.IController(vault, result))
        handle = NvRules.open_handle(invocation)
        try:
            reason = _evaluate(rule, handle, invocation, rule_action, applied)
            if reason:
                skipped.append((rule.identifier, reason))
                continue
            rule.module.apply(handle)
        except Exception as e:  # noqa: BLE001 - any rule code may fail
            result.error = _describe(e)
            result.messages.append(NvRules.Message(
                len(result.messages) + 1, int(NvRules.MsgType.ERROR),
                result.error, ""))
            if os.environ.get("NVPROFILED_RULES_TRACEBACK"):
                traceback.print_exc()
        finally:
            NvRules.close_handle(handle)
        applied.add(rule.identifier)
        if wanted is None or rule.identifier in wanted:
            results.append(result)
    return results, skipped


def _with_parents(rules: Sequence[Rule],
                  wanted: Optional[set[str]]) -> Optional[set[str]]:
    if wanted is None:
        return None
    by_id = {r.identifier: r for r in rules}
    needed: set[str] = set()
    pending = list(wanted)
    while pending:
        identifier = pending.pop()
        if identifier in needed:
            continue
        needed.add(identifier)
        rule = by_id.get(identifier)
        if rule is not None:
            pending.extend(rule.parents)
    return needed


def _evaluate(rule: Rule, handle: int, invocation: NvRules._Invocation,
              action: NvRules.IAction, applied: set[str]) -> Optional[str]:
    """Run the rule's optional evaluate(); say why it must not be applied."""
    evaluate = getattr(rule.module, "evaluate", None)
    if not callable(evaluate):
        return None
    evaluate(handle)
    for metric in invocation.required_metrics:
        if action.metric_by_name(metric) is None:
            return f"required metric {metric} is missing"
    for required in invocation.required_rules:
        if required not in applied:
            return f"required rule {required} was not applied"
    return None


# ---------------------------------------------------------------------------
# Presentation

_SECTION_LINK = re.compile(r"@section:([^:@]*):([^@]*)@")
_URL_LINK = re.compile(r"@url:([^:@]*):([^@]*)@")
_SASS_LINK = re.compile(r"@sass:([^:@]*):([^@]*)@")
_SOURCE_LINK = re.compile(r"@source:([^:@]*):([^:@]*):([^@]*)@")


def render_markup(text: str) -> str:
    """Text as ncu's details page prints it: ``@section:ID:T@`` -> ``T``,
    ``@url:T:U@`` -> ``T (U)``."""
    text = _SECTION_LINK.sub(lambda m: m.group(2), text)
    text = _SASS_LINK.sub(lambda m: m.group(2), text)
    text = _SOURCE_LINK.sub(lambda m: m.group(3), text)
    return _URL_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)


def format_speedup(value: float) -> str:
    """The estimated speedup as ncu prints it (``%.4g``)."""
    return "%.4g" % value


def _table_cell(value: Any) -> Any:
    # Tables take numbers, strings and anything with __str__ (NVIDIA's
    # documentation of generate_table).
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return value
    return str(value)


def result_to_json(result: NvRules.RuleResult) -> dict[str, Any]:
    """One rule result, messages carrying their speedups and focus metrics."""
    messages = []
    for message in result.messages:
        speedups = [s for s in result.speedups if s.message_id == message.id]
        messages.append({
            "id": message.id,
            "type": MESSAGE_TYPE_LABELS[NvRules.MsgType(message.type)],
            "title": message.name,
            "text": message.text,
            "speedup": None if not speedups else {
                "type": SPEEDUP_TYPE_LABELS.get(speedups[-1].type, "unknown"),
                "value": speedups[-1].value},
            "focus_metrics": [{
                "name": f.name, "value": f.value,
                "severity": SEVERITY_LABELS.get(f.severity, str(f.severity)),
                "info": f.info,
            } for f in result.focus_metrics if f.message_id == message.id],
            "tables": [{"header": t.header,
                        "columns": [[_table_cell(v) for v in column]
                                    for column in t.columns]}
                       for t in result.tables if t.message_id == message.id],
        })
    return {
        "rule": result.identifier,
        "name": result.name,
        "section": result.section,
        "error": result.error,
        "messages": messages,
        "source_markers": [{
            "kind": MARKER_KIND_LABELS.get(m.kind, str(m.kind)),
            "address": m.address,
            "line": m.line,
            "file_name": m.file_name,
            "type": MESSAGE_TYPE_LABELS[NvRules.MsgType(m.type)],
            "text": m.message,
        } for m in result.source_markers],
        "charts": [{"file_name": c.file_name, "path": c.path,
                    "body": c.body} for c in result.charts],
        "proposed_rules": list(result.proposed_rules),
    }


def print_results(actions: Sequence[ActionResults],
                  load_errors: Sequence[LoadError], out: Any) -> None:
    """Like ncu's details page: per action, per rule, each message with its
    type, rendered text and estimated speedup."""
    for error in load_errors:
        out.write(f"error: {escape(error.path)}: {escape(error.error)}\n")
    for entry in actions:
        out.write(f"{escape(entry.kernel)} (range {entry.range_index}, "
                  f"action {entry.action_index})\n")
        for result in entry.results:
            section = f" [{escape(result.section)}]" if result.section else ""
            out.write(f"  {escape(result.identifier)}{section}: "
                      f"{escape(result.name)}\n")
            for message in result_to_json(result)["messages"]:
                speedup = message["speedup"]
                tail = "" if speedup is None else (
                    f"  Est. {speedup['type'].capitalize()} Speedup: "
                    f"{format_speedup(speedup['value'])}%")
                title = (f" {escape(message['title'])}:" if message["title"]
                         else "")
                out.write(f"    {message['type']}{title}{tail}\n")
                out.write(f"        "
                          f"{escape(render_markup(message['text']))}\n")
            for chart in result.charts:
                out.write(f"    chart {escape(chart.file_name)}: "
                          f"{escape(describe_chart(chart.body))}\n")


def describe_chart(body: Any) -> str:
    """A parsed .chart in one line: its kind and label ("SourceMetricTable
    'L2 Theoretical Sectors Global Excessive'")."""
    if not isinstance(body, dict) or not body:
        return "(not parsed)"
    kind, item = next(iter(body.items()))
    label = item.get("Label") if isinstance(item, dict) else None
    return f"{kind} {label!r}" if label else kind


# ---------------------------------------------------------------------------
# Over a report


def is_persisted_rule_metric(metric: Any) -> bool:
    """Whether a stored metric is a fallback a rule added at profile time.

    ncu stores the metrics it collects with a rollup or submetric suffix
    (``.sum``, ``.pct``, ``.per_second``, ...) as doubles; rules' fallbacks
    for missing optional metrics (``add_metric`` + ``set_uint64`` of the
    default) are saved as scalar UINT64 values under such names.  A re-run
    must treat them as absent, or the rule that created one no longer sees
    its metric missing (ncu-format.md section 5.1, condition 1).
    """
    return ("." in metric.name()
            and metric.kind() == metric.ValueKind_UINT64
            and metric.num_instances() == 0)


def persisted_rule_metrics(action: Any) -> list[str]:
    """The fallbacks rules saved into the report: ncu appends them after
    everything it collected, so only the trailing run of such metrics in
    file order counts (all of them when the file order is unknown)."""
    in_file_order = getattr(action, "_metric_names_in_file_order", None)
    if not callable(in_file_order):
        return [name for name in action.metric_names()
                if is_persisted_rule_metric(action.metric_by_name(name))]
    trailing = []
    for name in reversed(in_file_order()):
        if not is_persisted_rule_metric(action.metric_by_name(name)):
            break
        trailing.append(name)
    return trailing


def report_actions(context: Any) -> Iterable[tuple[int, int, Any]]:
    for r in range(context.num_ranges()):
        report_range = context.range_by_idx(r)
        for a in range(report_range.num_actions()):
            yield r, a, report_range.action_by_idx(a)


def run_report(context: Any, folders: Sequence[str],
               selected: Optional[Sequence[str]] = None,
               all_sections: bool = False,
               chart_reader: Optional[Callable[[str], Any]] = None,
               ignored: Optional[list[LoadError]] = None
               ) -> tuple[list[ActionResults], list[LoadError]]:
    """Every action of a loaded report (nvprofiled.ncu_report.IContext);
    ``ignored`` as for load_rules()."""
    rules, load_errors = load_rules(folders, ignored)
    out = []
    for r, a, action in report_actions(context):
        sections = None if all_sections else action.section_identifiers()
        results, skipped = apply_rules(
            rules, action, sections, folders,
            hidden=persisted_rule_metrics(action),
            selected=selected, chart_reader=chart_reader)
        out.append(ActionResults(r, a, action.name(), results, skipped))
    return out, load_errors


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nvprofilectl report rules",
        description="Apply Nsight Compute rule files to a report.")
    parser.add_argument("report", help=".ncu-rep file")
    parser.add_argument("--rules-dir", action="append", default=[],
                        metavar="DIR", help="folder of rule files "
                        "(repeatable)")
    parser.add_argument("--rule", action="append", default=None,
                        metavar="ID", help="apply only this rule "
                        "(repeatable; its parents run too)")
    parser.add_argument("--all-sections", action="store_true",
                        help="apply rules whatever their section")
    parser.add_argument("--json", nargs="?", const="pretty",
                        choices=("pretty", "short"),
                        help="print JSON")
    parser.add_argument("--report-fd", type=int, action="append",
                        metavar="FD", help="read the report from this open "
                        "descriptor (REPORT only names it in messages)")
    args = parser.parse_args(argv)
    if args.report_fd is not None and len(args.report_fd) != 1:
        parser.error("--report-fd: one descriptor, for the one report")
    # Like every command-line tool: a closed pipe (| head) ends it quietly.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    folders = args.rules_dir or default_rule_dirs()
    if not folders:
        parser.error(no_rule_dir_message())

    from nvprofiled import ncu_report
    try:
        context = ncu_report.load_report(
            args.report_fd[0] if args.report_fd else args.report)
    except (OSError, ValueError) as e:
        print(f"error: {escape(args.report)}: {escape(str(e))}",
              file=sys.stderr)
        return 1
    ignored: list[LoadError] = []
    actions, load_errors = run_report(context, folders, args.rule,
                                      args.all_sections, ignored=ignored)
    for note in ignored:
        print(f"note: {escape(note.path)}: {escape(note.error)}",
              file=sys.stderr)
    if args.json:
        json.dump({
            # As nvprofilectl's own --json documents (nvprofilectl(1), "JSON OUTPUT").
            "schema": "io.github.nvprofiled.report-rules",
            "schema_version": 1,
            "report": args.report,
            "load_errors": [{"path": e.path, "error": e.error}
                            for e in load_errors],
            "ignored": [{"path": e.path, "reason": e.error}
                        for e in ignored],
            "actions": [{
                "range": a.range_index, "action": a.action_index,
                "kernel": a.kernel,
                "results": [result_to_json(r) for r in a.results],
                "skipped": [{"rule": s[0], "reason": s[1]}
                            for s in a.skipped],
            } for a in actions],
        }, sys.stdout, indent=2 if args.json == "pretty" else None)
        sys.stdout.write("\n")
    else:
        print_results(actions, load_errors, sys.stdout)
    return 1 if load_errors else 0


def user_rule_dir() -> str:
    """The user's own rule folder, ~/.config/nvprofiled/rules."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(
        os.path.expanduser("~"), ".config")
    return os.path.join(config, "nvprofiled", "rules")


# NVIDIA's own installs: its installer's, then the CUDA toolkit's.
NVIDIA_INSTALL_GLOBS = ("opt/nvidia/nsight-compute/*",
                        "usr/local/cuda/nsight-compute-*")


def _version_key(path: str) -> tuple[int, ...]:
    """2024.1.1 of .../nsight-compute/2024.1.1 or .../nsight-compute-2024.1.1,
    compared as numbers (2024.10 after 2024.9)."""
    return tuple(int(n) for n in re.findall(r"\d+", os.path.basename(path)))


def nsight_compute_rule_dir(root: str = "/") -> Optional[str]:
    """The sections folder of an installed Nsight Compute, where its stock
    rule files are, beside the section files: Debian's nsight-compute
    package's, else the newest version's of NVIDIA's own installs; None if
    there is none.  root: the file system to look in (a test's fake one)."""
    folder = os.path.join(root,
                          _paths.NSIGHT_COMPUTE_SECTIONS_DIR.lstrip("/"))
    if os.path.isdir(folder):
        return folder
    installs = [os.path.join(install, "sections")
                for pattern in NVIDIA_INSTALL_GLOBS
                for install in glob.glob(
                    os.path.join(glob.escape(root), pattern))]
    installs = [d for d in installs if os.path.isdir(d)]
    if not installs:
        return None
    return max(installs, key=lambda d: _version_key(os.path.dirname(d)))


def default_rule_dirs(root: str = "/") -> list[str]:
    """NVPROFILED_RULES_PATH (colon-separated), else the user's
    ~/.config/nvprofiled/rules if it exists, else an installed Nsight
    Compute's rules (:func:`nsight_compute_rule_dir`)."""
    env = os.environ.get("NVPROFILED_RULES_PATH")
    if env:
        return [d for d in env.split(":") if d]
    folder = user_rule_dir()
    if os.path.isdir(folder):
        return [folder]
    nsight_compute = nsight_compute_rule_dir(root)
    return [nsight_compute] if nsight_compute else []


def no_rule_dir_message() -> str:
    """Why there is no rule folder, and where rule files come from."""
    return ("no rule folder: rule files come from --rules-dir DIR, else "
            "the folders in NVPROFILED_RULES_PATH, else "
            f"{escape(user_rule_dir())}, else an installed Nsight Compute's "
            "sections folder (Debian's nsight-compute package: "
            f"{_paths.NSIGHT_COMPUTE_SECTIONS_DIR}; NVIDIA's: "
            "/opt/nvidia/nsight-compute/VERSION/sections or "
            "/usr/local/cuda/nsight-compute-VERSION/sections), and none "
            "of these exists: give --rules-dir DIR")


if __name__ == "__main__":
    sys.exit(main())
