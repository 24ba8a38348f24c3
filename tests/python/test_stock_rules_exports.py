# SPDX-License-Identifier: LGPL-2.1-or-later
"""NVIDIA's stock rules through our NvRules, over the metric values NVIDIA's
ncu_report returned (expected/*.ncu_report.json), against the rule rows of
ncu's own details export (expected/*.details.csv): type, rendered text and
estimated speedup (%.4g) of every message.  This checks the rule machinery
apart from the report reader; test_rules_reports.py checks it over our
reader against the results stored in the reports."""

from __future__ import annotations

import csv
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
from json_model import load_json_actions  # noqa: E402
from nvprofiled import rules  # noqa: E402

CORPUS = tap.corpus_dir()
RULES = os.path.join(CORPUS, "rules", "ncu-2024.1.1")
EXPECTED = os.path.join(CORPUS, "reports", "expected")

Row = tuple[str, str, str, str, str]


def messages_of(results: list) -> set[Row]:
    rows = set()
    for result in results:
        for message in rules.result_to_json(result)["messages"]:
            speedup = message["speedup"]
            rows.add((result.identifier, message["type"],
                      rules.render_markup(message["text"]),
                      speedup["type"] if speedup else "",
                      rules.format_speedup(speedup["value"]) if speedup
                      else ""))
    return rows


def exported_rows(name: str, action: int) -> tuple[set[Row], set[str]]:
    """The rule rows of the export, and the sections it shows."""
    with open(os.path.join(EXPECTED, name + ".details.csv"),
              encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["ID"] == str(action)]
    return ({(r["Rule Name"], r["Rule Type"], r["Rule Description"],
              r["Estimated Speedup Type"], r["Estimated Speedup"])
             for r in rows if r.get("Rule Name")},
            {r["Section Name"] for r in rows})


def run(name: str) -> list[tuple[set[Row], set[Row], list]]:
    loaded, errors = rules.load_rules([RULES])
    assert errors == [], errors
    assert len(loaded) == 21
    out = []
    for i, action in enumerate(load_json_actions(
            os.path.join(EXPECTED, name + ".ncu_report.json"))):
        expected, sections = exported_rows(name, i)
        results, _ = rules.apply_rules(
            loaded, action, sections,
            hidden=rules.persisted_rule_metrics(action))
        out.append((messages_of(results), expected, results))
    return out


class StockRulesOverExportsTest(unittest.TestCase):
    def test_armleth_all_messages(self) -> None:
        [(got, expected, results)] = run("armleth_report_ncu2024.2.1")
        self.assertEqual(len(expected), 9)
        self.assertEqual(got, expected)
        self.assertEqual([r.error for r in results if r.error], [])

    # ncu 2023.3.0 exported its own MemoryCacheAccessPattern's messages; the
    # 2024.1.1 rule requires metrics these reports lack
    # (smsp__sass_average_data_bytes_per_sector_mem_*, the L2 read and write
    # hit rates, l1tex__throughput) and aborts with an error instead.
    def check_all_but_cache_pattern(self, name: str) -> None:
        for got, expected, results in run(name):
            self.assertTrue(expected)
            self.assertEqual(
                {r for r in got if r[0] != "MemoryCacheAccessPattern"},
                {r for r in expected if r[0] != "MemoryCacheAccessPattern"})
            self.assertEqual([r.identifier for r in results if r.error],
                             ["MemoryCacheAccessPattern"])

    def test_addconstdouble3(self) -> None:
        self.check_all_but_cache_pattern(
            "nvidia_example_addConstDouble3_ncu2023.3.0")

    def test_sobelfloat(self) -> None:
        self.check_all_but_cache_pattern(
            "nvidia_example_sobelFloat_ncu2023.3.0")

    def test_templates_run(self) -> None:
        templates = os.path.join(RULES, "RuleTemplates")
        charts = os.path.join(CORPUS, "sections", "ncu-2024.1.1",
                              "RuleTemplates")
        loaded, errors = rules.load_rules([templates, charts])
        self.assertEqual(sorted(r.identifier for r in loaded),
                         ["KernelInfo", "TemplateRule1", "TemplateRule2",
                          "TemplateRuleSpeedup"])
        # The fifth template imports NVIDIA's nvanalysis, which ncu does
        # not ship: a load error, reported as such.
        self.assertEqual([(os.path.basename(e.path), e.error)
                          for e in errors],
                         [("KernelInstanceBoundsAnalysis.py",
                           "ModuleNotFoundError: No module named "
                           "'nvanalysis'")])
        [action] = load_json_actions(os.path.join(
            EXPECTED, "armleth_report_ncu2024.2.1.ncu_report.json"))
        results, skipped = rules.apply_rules(loaded, action, None,
                                             [templates, charts])
        self.assertEqual(skipped, [])
        self.assertEqual([(r.identifier, r.error) for r in results if r.error],
                         [])
        by_id = {r.identifier: r for r in results}
        self.assertEqual(by_id["TemplateRule2"].messages[0].text,
                         "Added metric new_metric_string with value "
                         "'Hello world'")
        self.assertEqual([c.file_name for c in by_id["TemplateRule1"].charts],
                         ["RuleTemplate_bar.chart",
                          "RuleTemplate_table.chart"])
        self.assertEqual(by_id["KernelInfo"].messages[0].text,
                         "Kernel matrix_addition2D launch config: 3969x256")
        self.assertEqual(len(by_id["TemplateRuleSpeedup"].focus_metrics), 2)


if __name__ == "__main__":
    tap.main()
