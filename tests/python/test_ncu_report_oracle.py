# SPDX-License-Identifier: LGPL-2.1-or-later
"""NVIDIA's own oracle scripts run unchanged against our module: the
ncu_report_dump.py and ncu_report_probe.py that made every
expected/<name>.ncu_report.json and expected/<name>.ncu_report.probe.txt
with NVIDIA's ncu_report (ncu 2024.1.1), read in place from the tools folder
(meson option tools_dir), each run as its own process with ``import
ncu_report`` resolving to nvprofiled.ncu_report (tests/python/shim), and
their output compared byte for byte, for every corpus report by name."""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
from ncu_scripts import report_names, run_script  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")
TOOLS = tap.tools_dir()
NAMES = report_names(REPORTS)

ORACLES = {"dump": ("ncu_report_dump.py", ".ncu_report.json"),
           "probe": ("ncu_report_probe.py", ".ncu_report.probe.txt")}


def first_difference(got: bytes, want: bytes) -> str:
    got_lines, want_lines = got.splitlines(), want.splitlines()
    for i, (g, w) in enumerate(zip(got_lines, want_lines)):
        if g != w:
            return (f"line {i + 1}:\n  ours:   {g[:300]!r}\n"
                    f"  NVIDIA: {w[:300]!r}")
    return (f"{len(got_lines)} lines, NVIDIA's {len(want_lines)}")


class OracleTest(unittest.TestCase):
    def check(self, name: str, oracle: str) -> None:
        script, suffix = ORACLES[oracle]
        done = run_script(os.path.join(TOOLS, script),
                          os.path.join(REPORTS, name + ".ncu-rep"))
        self.assertEqual(done.returncode, 0,
                         done.stderr.decode(errors="replace"))
        with open(os.path.join(REPORTS, "expected", name + suffix), "rb") as f:
            want = f.read()
        if done.stdout != want:
            self.fail(f"{name}: {script} differs from NVIDIA's at "
                      + first_difference(done.stdout, want))

    def test_every_report_has_both_oracles(self) -> None:
        self.assertEqual(len(NAMES), 21)
        for name in NAMES:
            for _, suffix in ORACLES.values():
                self.assertTrue(os.path.isfile(os.path.join(
                    REPORTS, "expected", name + suffix)), name + suffix)

    def test_shim_is_our_module(self) -> None:
        done = run_script("-c", "import ncu_report,"
                          " nvprofiled.ncu_report as n;"
                          " print(ncu_report is n)")
        self.assertEqual(done.stdout, b"True\n", done.stderr)


def _add(name: str, oracle: str) -> None:
    def test(self: OracleTest) -> None:
        self.check(name, oracle)
    key = name.replace(".", "_").replace("-", "_")
    setattr(OracleTest, f"test_{oracle}_{key}", test)


# Which oracles (meson runs "dump" and "probe" as two tests, side by side).
for _name in NAMES:
    for _oracle in sys.argv[1:] or ORACLES:
        _add(_name, _oracle)

if __name__ == "__main__":
    tap.main()
