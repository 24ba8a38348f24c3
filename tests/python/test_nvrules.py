# SPDX-License-Identifier: LGPL-2.1-or-later
"""NvRules, the frontend recording and the rule runner, on small models."""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import sys
import tempfile
import textwrap
import unittest
import unittest.mock
from typing import Iterator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
from nvprofiled import NvRules, rules  # noqa: E402
from nvprofiled._metrics import IMetric, IMutableMetric  # noqa: E402


class SmallAction:
    """The IAction methods the runner needs, over a few mutable metrics."""

    def __init__(self, named: dict[str, object] | None = None,
                 **values: object) -> None:
        self._metrics: dict[str, IMutableMetric] = {}
        for name, value in {**(named or {}), **values}.items():
            metric = IMutableMetric(name)
            if isinstance(value, float):
                metric.set_double(IMetric.ValueKind_DOUBLE, value)
            elif isinstance(value, int):
                metric.set_uint64(IMetric.ValueKind_UINT64, value)
            else:
                metric.set_string(IMetric.ValueKind_STRING, str(value))
            self._metrics[name] = metric

    def name(self, base: int = 0) -> str:
        return ["kernel", "kernel(int)", "_Z6kerneli"][base]

    def workload_type(self) -> int:
        return 0

    def metric_by_name(self, name: str) -> IMetric | None:
        return self._metrics.get(name)

    def metric_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._metrics))

    def source_info(self, address: int) -> None:
        return None


def frontend(parents: tuple[str, ...] = (), dirs: list[str] | None = None,
             sent: dict | None = None, rule: str = "R"
             ) -> tuple[NvRules.IFrontend, NvRules.RuleResult]:
    result = NvRules.RuleResult(rule)
    return NvRules.IFrontend(result, dirs or [], {} if sent is None else sent,
                             parents), result


class MutableMetricTest(unittest.TestCase):
    def test_uint64_casts(self) -> None:
        m = IMutableMetric("m")
        self.assertFalse(m.has_value())
        self.assertEqual(m.kind(), IMetric.ValueKind_UNKNOWN)
        self.assertIsNone(m.value())
        self.assertTrue(m.set_uint64(IMetric.ValueKind_UINT64, 42))
        self.assertEqual(m.kind(), IMetric.ValueKind_UINT64)
        self.assertEqual(m.value(), 42)
        self.assertEqual(m.as_double(), 42.0)
        self.assertIsNone(m.as_string())
        self.assertEqual(str(m), "m")

    def test_double_and_string_casts(self) -> None:
        m = IMutableMetric("d")
        self.assertTrue(m.set_double(IMetric.ValueKind_DOUBLE, 2.75))
        self.assertEqual(m.as_uint64(), 2)
        self.assertIsNone(m.as_string())
        self.assertEqual(m.value(), 2.75)
        self.assertTrue(m.set_double(IMetric.ValueKind_DOUBLE, -1.0))
        self.assertEqual(m.as_uint64(), 0)
        s = IMutableMetric("s")
        self.assertTrue(s.set_string(IMetric.ValueKind_ANY, "x"))
        self.assertEqual(s.kind(), IMetric.ValueKind_STRING)
        self.assertEqual(s.as_double(), 0.0)
        self.assertEqual(s.as_uint64(), 0)
        self.assertEqual(s.value(), "x")

    def test_refused_assignments(self) -> None:
        m = IMutableMetric("m")
        self.assertFalse(m.set_uint64(IMetric.ValueKind_DOUBLE, 1))
        self.assertFalse(m.set_uint64(IMetric.ValueKind_UINT64, -1))
        self.assertFalse(m.set_uint64(IMetric.ValueKind_UINT64, 2 ** 64))
        self.assertFalse(m.set_string(IMetric.ValueKind_UINT64, "x"))
        self.assertFalse(m.set_double(IMetric.ValueKind_DOUBLE, "x"))
        self.assertFalse(m.has_value())
        with self.assertRaises(TypeError):
            m.set_uint64(1)

    def test_instances_and_correlation_ids(self) -> None:
        m = IMutableMetric("m")
        self.assertTrue(m.set_uint64(0, IMetric.ValueKind_UINT64, 5))
        self.assertTrue(m.set_uint64(1, IMetric.ValueKind_UINT64, 7))
        self.assertFalse(m.set_uint64(5, IMetric.ValueKind_UINT64, 9))
        self.assertTrue(m.set_uint64(0, IMetric.ValueKind_UINT64, 6))
        self.assertEqual(m.num_instances(), 2)
        self.assertEqual([m.value(0), m.value(1)], [6, 7])
        self.assertEqual(m.as_uint64(9), 0)
        self.assertIsNone(m.as_string(9))
        self.assertFalse(m.has_value())
        self.assertFalse(m.has_correlation_ids())
        self.assertIsNone(m.correlation_ids())
        ids = m.mutable_correlation_ids()
        ids.set_string(0, IMetric.ValueKind_STRING, "IMAD")
        self.assertTrue(m.has_correlation_ids())
        self.assertEqual(m.correlation_ids().as_string(0), "IMAD")


class FrontendTest(unittest.TestCase):
    def test_messages(self) -> None:
        fe, result = frontend()
        first = fe.message("plain")
        second = fe.message(NvRules.IFrontend.MsgType_MSG_OPTIMIZATION,
                            "opt", "Title")
        third = fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, "warn")
        self.assertEqual([first, second, third], [1, 2, 3])
        self.assertEqual([(m.type, m.text, m.name) for m in result.messages],
                         [(NvRules.MsgType.NONE, "plain", ""),
                          (NvRules.MsgType.OPTIMIZATION, "opt", "Title"),
                          (NvRules.MsgType.WARNING, "warn", "")])
        with self.assertRaises(TypeError):
            fe.message(NvRules.IFrontend.MsgType_MSG_OK)
        with self.assertRaises(ValueError):
            fe.message(99, "no such type")

    def test_speedup_and_focus_metrics(self) -> None:
        fe, result = frontend()
        mid = fe.message(NvRules.IFrontend.MsgType_MSG_OPTIMIZATION, "m")
        self.assertTrue(fe.speedup(mid, NvRules.IFrontend.SpeedupType_GLOBAL,
                                   11.607055023609657))
        self.assertFalse(fe.speedup(mid + 1,
                                    NvRules.IFrontend.SpeedupType_LOCAL, 1))
        self.assertFalse(fe.speedup(mid, 7, 1))
        self.assertTrue(fe.focus_metric(
            mid, "smsp__x", 3, NvRules.IFrontend.Severity_SEVERITY_HIGH, "i"))
        self.assertFalse(fe.focus_metric(
            mid + 1, "y", 1.0, NvRules.IFrontend.Severity_SEVERITY_LOW, ""))
        self.assertEqual(len(result.speedups), 1)
        self.assertIsInstance(result.speedups[0].value, float)
        self.assertEqual(result.speedups[0].value, 11.607055023609657)
        self.assertEqual(result.focus_metrics[0],
                         NvRules.FocusMetric(mid, "smsp__x", 3.0, 2, "i"))
        as_json = rules.result_to_json(result)
        self.assertEqual(as_json["messages"][0]["speedup"],
                         {"type": "global", "value": 11.607055023609657})
        focus = as_json["messages"][0]["focus_metrics"][0]
        self.assertEqual(focus["severity"], "high")

    def test_source_markers(self) -> None:
        fe, result = frontend()
        fe.source_marker("sass line", 137454304880400,
                         NvRules.IFrontend.MarkerKind_SASS,
                         NvRules.IFrontend.MsgType_MSG_WARNING)
        fe.source_marker("source line", 55,
                         NvRules.IFrontend.MarkerKind_SOURCE, "/x/y.cu",
                         NvRules.IFrontend.MsgType_MSG_WARNING)
        fe.source_marker("bare", 1, NvRules.IFrontend.MarkerKind_SASS)
        self.assertEqual(result.source_markers, [
            NvRules.SourceMarker("sass line", 0, 137454304880400, None, "",
                                 NvRules.MsgType.WARNING),
            NvRules.SourceMarker("source line", 1, None, 55, "/x/y.cu",
                                 NvRules.MsgType.WARNING),
            NvRules.SourceMarker("bare", 0, 1, None, "", NvRules.MsgType.NONE),
        ])
        with self.assertRaises(TypeError):
            fe.source_marker("too few", 1)

    def test_charts_resolve_next_to_the_rule(self) -> None:
        with tempfile.TemporaryDirectory() as first, \
                tempfile.TemporaryDirectory() as second:
            with open(os.path.join(second, "c.chart"), "w") as f:
                f.write("Table { Columns: 1 }\n")
            fe, result = frontend(dirs=[first, second])
            fe.load_chart_from_file("c.chart")
            self.assertEqual(result.charts[0].path,
                             os.path.join(second, "c.chart"))
            with self.assertRaises(FileNotFoundError):
                fe.load_chart_from_file("missing.chart")
            self.assertEqual(result.charts[0].body, {"Table": {"Columns": 1}})

    def test_charts_are_parsed(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "bar.chart"), "w") as f:
                f.write('BarChart {\n  Label: "L"\n'
                        '  Metrics { Name: "m" ShowInstances: true }\n}\n')
            fe, result = frontend(dirs=[folder])
            fe.load_chart_from_file("bar.chart")
            self.assertEqual(result.charts[0].body, {"BarChart": {
                "Label": "L",
                "Metrics": [{"Name": "m", "ShowInstances": True}]}})

    def test_bad_charts_name_file_line_and_column(self) -> None:
        cases = {
            "field.chart": ("Table {\n  Rows: 2\n  Nope: 1\n}\n",
                            ":3:3: Message type "
                            "\"NV.Profiler.ProfilerSectionTable\" has no "
                            "field named \"Nope\"."),
            "two.chart": ("Table { Columns: 1 }\nBarChart { }\n",
                          ":1:1: A chart file holds exactly one body item; "
                          "this one holds 2."),
            "empty.chart": ("", ":1:1: A chart file holds exactly one body "
                            "item; this one holds 0."),
            "syntax.chart": ("Table {\n", ":2:1: "),
        }
        with tempfile.TemporaryDirectory() as folder:
            for name, (text, _) in cases.items():
                with open(os.path.join(folder, name), "w") as f:
                    f.write(text)
            fe, result = frontend(dirs=[folder])
            for name, (_, error) in cases.items():
                with self.assertRaises(ValueError) as raised:
                    fe.load_chart_from_file(name)
                self.assertTrue(str(raised.exception).startswith(
                    os.path.join(folder, name) + error),
                    str(raised.exception))
            self.assertEqual(result.charts, [])

    def test_charts_are_bounded(self) -> None:
        from nvprofiled import _ncu_report
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "big.chart")
            with open(path, "wb") as f:
                f.write(b"Table { Columns: 1 }\n")
                f.truncate(_ncu_report.CHART_MAX_SIZE + 4096)
            fe, result = frontend(dirs=[folder])
            # Only one byte past the limit is read, whatever the file's size.
            want = (f"{path}:1:1: Input of 16777217 bytes exceeds the limit "
                    "of 16777216.")
            with self.assertRaises(ValueError) as raised:
                fe.load_chart_from_file("big.chart")
            self.assertEqual(str(raised.exception), want)
            self.assertEqual(result.charts, [])

    def test_tables(self) -> None:
        fe, result = frontend()
        mid = fe.message("m")
        fe.generate_table(mid, ["a", "b"], [[1, "x"], [2, "y"]],
                          {"title": "T"})
        self.assertEqual(result.tables[0].columns, [[1, 2], ["x", "y"]])
        fe.generate_table(mid, ["p"], [[pathlib.PurePath("/x")]])
        tables = rules.result_to_json(result)["messages"][0]["tables"]
        self.assertEqual(tables[1], {"header": ["p"], "columns": [["/x"]]})
        with self.assertRaises(TypeError):
            fe.generate_table(mid, ["a"], [[1], ["x"]])
        with self.assertRaises(ValueError):
            fe.generate_table(mid, ["a", "b"], [[1]])

    def test_dicts_reach_declared_children_only(self) -> None:
        sent: dict = {}
        parent, _ = frontend(sent=sent, rule="P")
        parent.send_dict_to_children({"w": 1})
        parent.send_dict_to_children({"v": 2.5})
        child, _ = frontend(parents=("P",), sent=sent, rule="C")
        self.assertEqual(child.receive_dict_from_parent("P"),
                         {"w": 1.0, "v": 2.5})
        stranger, _ = frontend(sent=sent, rule="S")
        self.assertEqual(stranger.receive_dict_from_parent("P"), {})
        self.assertEqual(child.receive_dict_from_parent("Q"), {})


class ContextTest(unittest.TestCase):
    def test_handles_and_navigation(self) -> None:
        action = NvRules.IAction(SmallAction(a=1))
        fe, result = frontend()
        vault = NvRules.IMessageVault()
        invocation = NvRules._Invocation([NvRules.IRange([action])], fe,
                                         NvRules.IController(vault, result))
        h = NvRules.open_handle(invocation)
        ctx = NvRules.get_context(h)
        self.assertEqual(ctx.num_ranges(), 1)
        self.assertEqual(len(ctx), 1)
        self.assertIs(ctx.range_by_idx(0).action_by_idx(0), action)
        self.assertIsNone(ctx.range_by_idx(1))
        self.assertIsNone(ctx[0].action_by_idx(1))
        self.assertIs(ctx[-1][0], action)
        self.assertEqual(len(ctx[0:1]), 1)
        self.assertEqual(list(ctx[0]), [action])
        # Not from a report: no NVTX state to select by.
        self.assertIsNone(action.report_position())
        self.assertEqual(ctx[0].actions_by_nvtx([], []), ())
        with self.assertRaises(IndexError):
            ctx[1]
        with self.assertRaises(TypeError):
            ctx["x"]
        self.assertIs(ctx.frontend(), fe)
        self.assertEqual(NvRules.get_version(h), ctx.get_version())
        ctx.controller().propose_rule("Other")
        self.assertEqual(result.proposed_rules, ["Other"])
        ctx.controller().get_message_vault().Put("R", {"k": 1})
        ctx.controller().get_message_vault().Put("R", {"j": 2})
        self.assertEqual(vault.Get("R"), {"k": 1, "j": 2})
        self.assertEqual(vault.Get("unknown"), {})
        NvRules.require_metrics(h, ["a", "b"])
        NvRules.require_rules(h, ["P"])
        self.assertEqual(invocation.required_metrics, ["a", "b"])
        self.assertEqual(invocation.required_rules, ["P"])
        with self.assertRaises(NvRules.RuleError):
            NvRules.raise_exception(h, "stop")
        with self.assertRaises(NvRules.RuleError):
            ctx.handle_exception("stop")
        NvRules.close_handle(h)
        with self.assertRaises(ValueError):
            NvRules.get_context(h)

    def test_added_and_hidden_metrics(self) -> None:
        base = SmallAction(a=1, b=2.5)
        action = NvRules.IAction(base, hidden=["b"])
        self.assertEqual(action.metric_names(), ("a",))
        self.assertIsNone(action.metric_by_name("b"))
        with self.assertRaises(KeyError):
            action["b"]
        with self.assertRaises(TypeError):
            action[0]
        self.assertNotIn("b", action)
        added = action.add_metric("b")
        added.set_uint64(IMetric.ValueKind_UINT64, 0)
        self.assertIs(action["b"], added)
        action.add_string_metric("s", IMetric.ValueKind_STRING, "hello")
        action.add_integer_metric("a", IMetric.ValueKind_UINT64, 42)
        action.add_double_metric("d", IMetric.ValueKind_DOUBLE, 0.5)
        self.assertEqual(action["a"].value(), 42)
        self.assertEqual(action["s"].as_string(), "hello")
        self.assertEqual(action.metric_names(), ("a", "b", "d", "s"))
        self.assertEqual(len(action), 4)
        self.assertEqual(list(action), ["a", "b", "d", "s"])
        self.assertEqual(base.metric_by_name("a").value(), 1)
        self.assertEqual(action.name(), "kernel")
        self.assertEqual(action.name(NvRules.IAction.NameBase_MANGLED),
                         "_Z6kerneli")
        self.assertEqual(str(action), "kernel")


RULE = """
import NvRules

def get_identifier():
    return {ident!r}

def get_name():
    return "Name of " + {ident!r}

def get_section_identifier():
    return {section!r}

def get_parent_rules_identifiers():
    return {parents!r}

def apply(handle):
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    action = ctx.range_by_idx(0).action_by_idx(0)
{body}
"""


def write_rule(folder: str, file_name: str, ident: str, body: str,
               section: str = "", parents: tuple[str, ...] = ()) -> None:
    with open(os.path.join(folder, file_name), "w") as f:
        body = textwrap.indent(textwrap.dedent(body), "    ")
        f.write(RULE.format(ident=ident, section=section,
                            parents=list(parents), body=body))


class RunnerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_parents_first_and_dicts(self) -> None:
        write_rule(self.dir, "a_child.py", "Child",
                   "fe.message(str(fe.receive_dict_from_parent('Parent')))",
                   parents=("Parent",))
        write_rule(self.dir, "b_parent.py", "Parent",
                   "fe.send_dict_to_children({'x': action['a'].value()})")
        loaded, errors = rules.load_rules([self.dir])
        self.assertEqual(errors, [])
        self.assertEqual([r.identifier for r in loaded], ["Parent", "Child"])
        results, _ = rules.apply_rules(loaded, SmallAction(a=3), None)
        self.assertEqual(results[1].messages[0].text, "{'x': 3.0}")

    def test_exceptions_become_error_results(self) -> None:
        write_rule(self.dir, "boom.py", "Boom",
                   "fe.message('before')\nraise ZeroDivisionError('x')")
        write_rule(self.dir, "giveup.py", "GiveUp",
                   "NvRules.raise_exception(handle, 'gave up')")
        write_rule(self.dir, "missing.py", "Missing", "action['nope']")
        loaded, _ = rules.load_rules([self.dir])
        results, _ = rules.apply_rules(loaded, SmallAction(), None)
        by_id = {r.identifier: r for r in results}
        self.assertEqual(by_id["Boom"].error, "ZeroDivisionError: x")
        self.assertEqual([m.text for m in by_id["Boom"].messages],
                         ["before", "ZeroDivisionError: x"])
        self.assertEqual(by_id["Boom"].messages[1].type, NvRules.MsgType.ERROR)
        self.assertEqual(by_id["GiveUp"].error, "gave up")
        self.assertEqual(by_id["Missing"].error,
                         "KeyError: \"no metric named 'nope'\"")

    def test_bad_chart_is_the_rules_error_result(self) -> None:
        with open(os.path.join(self.dir, "bad.chart"), "w") as f:
            f.write("SourceMetricTable {\n  Label: 3 4\n}\n")
        write_rule(self.dir, "charts.py", "Charts",
                   "fe.message('m')\nfe.load_chart_from_file('bad.chart')")
        loaded, _ = rules.load_rules([self.dir])
        [result], _ = rules.apply_rules(loaded, SmallAction(), None,
                                        [self.dir])
        self.assertRegex(result.error, "^ValueError: " + re.escape(
            os.path.join(self.dir, "bad.chart")) + r":2:\d+: ")
        self.assertEqual(result.messages[1].type, NvRules.MsgType.ERROR)
        self.assertEqual(rules.result_to_json(result)["charts"], [])

    def test_load_errors(self) -> None:
        with open(os.path.join(self.dir, "broken.py"), "w") as f:
            f.write("def (:\n")
        with open(os.path.join(self.dir, "helper.py"), "w") as f:
            f.write("VALUE = 1\n")
        write_rule(self.dir, "one.py", "Same", "pass")
        write_rule(self.dir, "two.py", "Same", "pass")
        loaded, errors = rules.load_rules([self.dir,
                                           os.path.join(self.dir, "absent")])
        self.assertEqual([r.identifier for r in loaded], ["Same"])
        self.assertEqual(len(errors), 3)
        self.assertIn("SyntaxError", errors[0].error)
        self.assertIn("already defined", errors[1].error)
        self.assertIn("No such file", errors[2].error)

    def test_sections_selection_and_evaluate(self) -> None:
        write_rule(self.dir, "in.py", "In", "fe.message('in')", section="S")
        write_rule(self.dir, "out.py", "Out", "fe.message('out')",
                   section="T")
        write_rule(self.dir, "free.py", "Free", "fe.message('free')")
        with open(os.path.join(self.dir, "needs.py"), "a") as f:
            f.write(RULE.format(ident="Needs", section="", parents=[],
                                body="    fe.message('needs')"))
            f.write("\ndef evaluate(handle):\n"
                    "    NvRules.require_metrics(handle, ['zz'])\n")
        loaded, _ = rules.load_rules([self.dir])
        results, skipped = rules.apply_rules(loaded, SmallAction(a=1), ["S"])
        self.assertEqual(sorted(r.identifier for r in results),
                         ["Free", "In"])
        self.assertEqual(dict(skipped), {
            "Out": "section T is not in the report",
            "Needs": "required metric zz is missing"})
        everything, _ = rules.apply_rules(loaded, SmallAction(zz=1), None)
        self.assertEqual(len(everything), 4)
        chosen, _ = rules.apply_rules(loaded, SmallAction(), None,
                                      selected=["Free"])
        self.assertEqual([r.identifier for r in chosen], ["Free"])

    def test_hidden_fallbacks_are_recreated(self) -> None:
        write_rule(self.dir, "fb.py", "Fallback", """
            m = action.metric_by_name('x.sum')
            if m is None:
                fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, 'absent')
                m = action.add_metric('x.sum')
                m.set_uint64(NvRules.IMetric.ValueKind_UINT64, 0)
            fe.message(str(m.value()))
        """)
        loaded, _ = rules.load_rules([self.dir])
        action = SmallAction({"x.sum": 0})
        self.assertIsNotNone(action.metric_by_name("x.sum"))
        seen, _ = rules.apply_rules(loaded, action, None)
        self.assertEqual([m.text for m in seen[0].messages], ["0"])
        hidden, _ = rules.apply_rules(loaded, action, None, hidden=["x.sum"])
        self.assertEqual([m.text for m in hidden[0].messages], ["absent", "0"])


@contextlib.contextmanager
def rule_folder_environ() -> Iterator[None]:
    """The variables the default rule folders depend on, restored after."""
    saved = {k: os.environ.get(k) for k in ("NVPROFILED_RULES_PATH",
                                              "XDG_CONFIG_HOME")}
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class DefaultFoldersTest(unittest.TestCase):
    def test_rule_folders(self) -> None:
        with rule_folder_environ():
            with tempfile.TemporaryDirectory() as config:
                os.environ["NVPROFILED_RULES_PATH"] = "/a::/b"
                self.assertEqual(rules.default_rule_dirs(), ["/a", "/b"])
                del os.environ["NVPROFILED_RULES_PATH"]
                os.environ["XDG_CONFIG_HOME"] = config
                self.assertEqual(rules.default_rule_dirs(config), [])
                folder = os.path.join(config, "nvprofiled", "rules")
                os.makedirs(folder)
                self.assertEqual(rules.default_rule_dirs(), [folder])
                os.rmdir(folder)
                # Nothing anywhere: a usage error that says where rules
                # come from.
                stderr = io.StringIO()
                with self.assertRaises(SystemExit) as stopped, \
                        unittest.mock.patch("sys.stderr", stderr), \
                        unittest.mock.patch.object(
                            rules._paths, "NSIGHT_COMPUTE_SECTIONS_DIR",
                            os.path.join(config, "none")), \
                        unittest.mock.patch.object(
                            rules, "NVIDIA_INSTALL_GLOBS", ()):
                    rules.main(["report.ncu-rep"])
                self.assertEqual(stopped.exception.code, 2)
                message = " ".join(stderr.getvalue().split())
                self.assertIn(
                    "no rule folder: rule files come from --rules-dir DIR, "
                    "else the folders in NVPROFILED_RULES_PATH, else "
                    f"{folder}, else an installed Nsight Compute's sections "
                    "folder (Debian's nsight-compute package: "
                    f"{os.path.join(config, 'none')}; NVIDIA's: "
                    "/opt/nvidia/nsight-compute/VERSION/sections or "
                    "/usr/local/cuda/nsight-compute-VERSION/sections), and "
                    "none of these exists: give --rules-dir DIR", message)


    def test_nsight_compute_rule_folder(self) -> None:
        with rule_folder_environ():
            with tempfile.TemporaryDirectory() as root:
                os.environ.pop("NVPROFILED_RULES_PATH", None)
                os.environ["XDG_CONFIG_HOME"] = os.path.join(root, "config")
                self.assertIsNone(rules.nsight_compute_rule_dir(root))
                self.assertEqual(rules.default_rule_dirs(root), [])
                # NVIDIA's own installs: the newest version's sections
                # (2024.10 after 2024.9); an install without them is none.
                for install in ("opt/nvidia/nsight-compute/2024.9.0",
                                "opt/nvidia/nsight-compute/2024.10.1",
                                "usr/local/cuda/nsight-compute-2023.3.1"):
                    os.makedirs(os.path.join(root, install, "sections"))
                os.makedirs(os.path.join(root,
                                         "opt/nvidia/nsight-compute/2099.1"))
                newest = os.path.join(
                    root, "opt/nvidia/nsight-compute/2024.10.1/sections")
                self.assertEqual(rules.nsight_compute_rule_dir(root), newest)
                # Debian's nsight-compute package before them: the folder
                # the daemon reads sections from by default.
                debian = os.path.join(
                    root, rules._paths.NSIGHT_COMPUTE_SECTIONS_DIR.lstrip("/"))
                os.makedirs(debian)
                self.assertEqual(rules.nsight_compute_rule_dir(root), debian)
                self.assertEqual(rules.default_rule_dirs(root), [debian])
                # The user's own folder, and NVPROFILED_RULES_PATH, first.
                folder = os.path.join(root, "config", "nvprofiled", "rules")
                os.makedirs(folder)
                self.assertEqual(rules.default_rule_dirs(root), [folder])
                os.environ["NVPROFILED_RULES_PATH"] = "/a"
                self.assertEqual(rules.default_rule_dirs(root), ["/a"])


class PresentationTest(unittest.TestCase):
    def test_markup(self) -> None:
        self.assertEqual(rules.render_markup(
            "See @section:MemoryWorkloadAnalysis:Memory Workload Analysis@ "
            "and the @url:Kernel Profiling Guide:https://docs.x/y#z@."),
            "See Memory Workload Analysis and the Kernel Profiling Guide "
            "(https://docs.x/y#z).")
        self.assertEqual(rules.render_markup("no markup @ all"),
                         "no markup @ all")

    def test_speedup_format(self) -> None:
        self.assertEqual(rules.format_speedup(11.607055023609657), "11.61")
        self.assertEqual(rules.format_speedup(64.6723990142505), "64.67")
        self.assertEqual(rules.format_speedup(50.0), "50")
        self.assertEqual(rules.format_speedup(0.42041), "0.4204")

    def test_print_results(self) -> None:
        fe, result = frontend(rule="CPIStall")
        result.name, result.section = "Warp Stall", "WarpStateStats"
        mid = fe.message(NvRules.IFrontend.MsgType_MSG_OPTIMIZATION,
                         "See @url:Guide:https://g@", "Stalls")
        fe.speedup(mid, NvRules.IFrontend.SpeedupType_GLOBAL, 11.6070550236)
        out = io.StringIO()
        rules.print_results([rules.ActionResults(0, 0, "k", [result], [])],
                            [], out)
        self.assertEqual(out.getvalue(),
                         "k (range 0, action 0)\n"
                         "  CPIStall [WarpStateStats]: Warp Stall\n"
                         "    OPT Stalls:  Est. Global Speedup: 11.61%\n"
                         "        See Guide (https://g)\n")


if __name__ == "__main__":
    tap.main()
