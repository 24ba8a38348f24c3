# SPDX-License-Identifier: LGPL-2.1-or-later
"""Scripts written for NVIDIA's module run unchanged against ours, over every
corpus report (``import ncu_report`` through tests/python/shim): one in the
style of NVIDIA's customization guide, and one written the way third-party
readers are (third_party_reader.py), whose every line is checked against
what NVIDIA's module answered (expected/<name>.ncu_report.json for rollups,
units and instance counts, the probe's first three instances with their own
kinds)."""

from __future__ import annotations

import json
import os
import sys
import unittest
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
from ncu_scripts import report_names, run_script  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")
HERE = os.path.dirname(os.path.abspath(__file__))


def expected(name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """NVIDIA's answers: the dump, and each "R/A METRIC inst" line of the
    probe (its first three (kind, value) pairs, as repr()) by "R/A METRIC"."""
    with open(os.path.join(REPORTS, "expected", name + ".ncu_report.json"),
              encoding="utf-8") as f:
        dump = json.load(f)
    inst = {}
    with open(os.path.join(REPORTS, "expected",
                           name + ".ncu_report.probe.txt"),
              encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) == 4 and parts[2] == "inst":
                inst[f"{parts[0]} {parts[1]}"] = parts[3]
    return dump, inst


class ScriptsTest(unittest.TestCase):
    def third_party(self, name: str) -> None:
        done = run_script(os.path.join(HERE, "third_party_reader.py"),
                          os.path.join(REPORTS, name + ".ncu-rep"))
        self.assertEqual(done.returncode, 0,
                         done.stderr.decode(errors="replace"))
        dump, inst = expected(name)
        lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
        n = 0
        for r, report_range in enumerate(dump["ranges"]):
            for a, action in enumerate(report_range["actions"]):
                for metric in sorted(action["metrics"]):
                    m = action["metrics"][metric]
                    where = f"{r}/{a} {metric}"
                    rollup = m["rollup"] or "none"
                    count = m.get("num_instances", 0)
                    want = f"{where} {rollup} {m['unit']!r} {count}"
                    self.assertLess(n, len(lines), where)
                    self.assertTrue(lines[n].startswith(want + " "),
                                    f"{lines[n]!r} is not {want!r}")
                    first = lines[n][len(want) + 1:]
                    if count:
                        self.assertEqual(first, inst[where], where)
                    else:
                        self.assertEqual(first, "[]", where)
                    n += 1
        self.assertEqual(n, len(lines))

    def guide(self, name: str) -> None:
        done = run_script(os.path.join(HERE, "guide_script.py"),
                          os.path.join(REPORTS, name + ".ncu-rep"))
        self.assertEqual(done.returncode, 0,
                         done.stderr.decode(errors="replace"))
        out = done.stdout.decode("utf-8", "surrogateescape")
        dump, _ = expected(name)
        actions = dump["ranges"][0]["actions"]
        self.assertIn("ranges: 1\n", out)
        self.assertIn(f"range 0: {len(actions)} actions\n", out)
        for a, action in enumerate(actions):
            self.assertIn(f"  action {a}: {action['name']}"
                          f" ({action['mangled']})\n", out)
            self.assertIn(f"    {len(action['metrics'])} metrics\n", out)
            counters = sum(m["type"] == "counter"
                           for m in action["metrics"].values())
            grid = action["metrics"].get("launch__grid_size")
            if grid is not None:
                value = grid["value"]
                if isinstance(value, str):  # a double, as repr()
                    value = int(float(value))
                self.assertIn(f"    grid size: {value}\n", out)
        self.assertEqual(out.count("    counters: "), len(actions))
        self.assertIn(f"    counters: {counters}\n", out)


def _add(name: str) -> None:
    key = name.replace(".", "_").replace("-", "_")
    setattr(ScriptsTest, f"test_third_party_reader_{key}",
            lambda self: self.third_party(name))
    setattr(ScriptsTest, f"test_guide_script_{key}",
            lambda self: self.guide(name))


for _name in report_names(REPORTS):
    _add(_name)

if __name__ == "__main__":
    tap.main()
