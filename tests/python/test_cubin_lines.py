# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cubin line-table reader (untrusted bytes from reports): the corpus
cubins' tables, and every truncation and seeded random corruption of them
gives a table or None, never an exception."""

from __future__ import annotations

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
import nvprofiled.ncu_report as ncu_report  # noqa: E402
from nvprofiled import _cubin_lines  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")


def cubins() -> list[tuple[str, bytes, tuple]]:
    out = []
    for name in sorted(os.listdir(REPORTS)):
        if name.endswith(".ncu-rep"):
            ctx = ncu_report.load_report(os.path.join(REPORTS, name))
            for action in ctx[0]:
                cubin = action._cubin()
                if cubin:
                    out.append((name, cubin, action._functions()))
                    break
    return out


class LineTableTest(unittest.TestCase):
    def test_corpus_tables(self) -> None:
        tables = {name: _cubin_lines.build_line_table(cubin, functions)
                  for name, cubin, functions in cubins()}
        self.assertIsNone(tables["armleth_report_ncu2024.2.1.ncu-rep"])
        sobel = tables["nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"]
        # Stored rule results name these PCs at these lines (CPIStall).
        self.assertEqual(sobel.lookup(140675029259376)[1], 78)
        self.assertIsNone(sobel.lookup(0))

    def test_truncated_and_corrupted(self) -> None:
        rng = random.Random(11)
        checked = 0
        for _, cubin, functions in cubins():
            for end in range(0, len(cubin), 7):
                table = _cubin_lines.build_line_table(cubin[:end], functions)
                self.assertTrue(table is None or isinstance(
                    table, _cubin_lines.LineTable))
                checked += 1
            for _ in range(300):
                data = bytearray(cubin)
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                table = _cubin_lines.build_line_table(bytes(data), functions)
                if table is not None:
                    for _, address in functions:
                        table.lookup(address or 0)
                checked += 1
        self.assertGreater(checked, 1000)


if __name__ == "__main__":
    tap.main()
