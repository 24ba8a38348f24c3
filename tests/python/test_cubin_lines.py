# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cubin line tables (untrusted bytes from reports, read by
daemon/nsight/report/cubin-lines.c through _ncu_report.line_table): what
the corpus cubins' tables answer where the probe files do not look, the
rules on synthetic cubins (the fuzz seeds), and cut or corrupted cubins
giving a table or None, never an exception. What source_info answers for
every correlation id of every corpus report is NVIDIA's probe oracle's
part (test_ncu_report_oracle)."""

from __future__ import annotations

import os
import random
import struct
import sys
import unittest
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tap  # noqa: E402
import nvprofiled.ncu_report as ncu_report  # noqa: E402
from nvprofiled import _ncu_report  # noqa: E402

CORPUS = tap.corpus_dir()
REPORTS = os.path.join(CORPUS, "reports")
SOBEL_FLOAT = 0x7FF17525D200  # where Sobel<float> was loaded


def cubins() -> dict[str, tuple[bytes, tuple]]:
    """The first cubin of every corpus report, with its functions."""
    out = {}
    for name in sorted(os.listdir(REPORTS)):
        if name.endswith(".ncu-rep"):
            ctx = ncu_report.load_report(os.path.join(REPORTS, name))
            for action in ctx[0]:
                cubin = action._cubin()
                if cubin:
                    out[name] = (cubin, action._functions())
                    break
    return out


def debug_line(cubin: bytes) -> Optional[tuple[int, int]]:
    """(offset, size) of the ELF64 cubin's .debug_line section."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def header(i: int) -> tuple[int, ...]:
        return struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
    names = header(shstrndx)[4]
    for i in range(shnum):
        h = header(i)
        name = cubin[names + h[0]:cubin.index(b"\0", names + h[0])]
        if name == b".debug_line":
            return h[4], h[5]
    return None


class LineTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.cubins = cubins()

    def test_corpus_tables(self) -> None:
        tables = {name: _ncu_report.line_table(*c)
                  for name, c in self.cubins.items()}
        self.assertEqual(len(tables), 21)
        # No .debug_line: no source information.
        self.assertIsNone(tables["armleth_report_ncu2024.2.1.ncu-rep"])
        sobel = tables["nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"]
        # The stored rule results name this PC at this line (CPIStall).
        self.assertEqual(sobel.lookup(140675029259376)[1], 78)
        # Past the end of Sobel<float>; and offsets of Sobel<double>, which
        # was never loaded (its sequence ends at 0x1000).
        self.assertIsNone(sobel.lookup(SOBEL_FLOAT + 0x1000))
        self.assertEqual(sobel.lookup(0)[1], 86)
        self.assertIsNone(sobel.lookup(0x1000))

    def test_functions_placed_by_relocation_data(self) -> None:
        cubin, functions = self.cubins[
            "nvidia_example_sobelFloat_ncu2023.3.0.ncu-rep"]
        # Without RelocationData, every function keeps its offsets: the
        # first sequence's rows win where both start.
        table = _ncu_report.line_table(cubin, ())
        self.assertIsNone(table.lookup(SOBEL_FLOAT))
        self.assertEqual(table.lookup(0)[1], 86)
        # Sobel<double> placed too: no offsets left.
        both = functions + (("_Z5SobelIdEvP6uchar4S1_ii", 1 << 40),)
        table = _ncu_report.line_table(cubin, both)
        self.assertIsNone(table.lookup(0))
        self.assertEqual(table.lookup(1 << 40)[1], 86)

    def test_synthetic_rules(self) -> None:
        """The fuzz seeds (tests/fuzz/cubin-lines-seeds.py): a placed and
        an unplaced function, a Windows include directory, '.' and '..',
        DW_LNE_define_file, two rows at one address, an open sequence."""
        seeds = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "fuzz", "corpus", "cubin-lines")
        placed = (("_Z6kernel0v", 0x10000), ("_Z6kernel1v", None),
                  ("_Z6kernel0v", 0x30000))
        for name in ("dwarf2", "dwarf3", "dwarf4-two-units"):
            with open(os.path.join(seeds, name), "rb") as f:
                table = _ncu_report.line_table(f.read(), placed)
            self.assertEqual(table.lookup(0x10000),
                             ("C:/Users/dev/src/a.cu", 11), name)
            self.assertEqual(table.lookup(0),
                             ("C:/Users/dev/src/a.cu", 12), name)
            self.assertEqual(table.lookup(0x14),
                             ("/opt/include/b.cuh", 14), name)
            # The first of two rows at 0x74 (the second: /abs/c.cu).
            self.assertEqual(table.lookup(0x77), ("d.cu", 14), name)
            self.assertEqual(table.lookup(0x10083), ("d.cu", 13), name)
            self.assertIsNone(table.lookup(0x10084), name)
            self.assertIsNone(table.lookup(0x30000), name)
        with open(os.path.join(seeds, "open-sequence"), "rb") as f:
            table = _ncu_report.line_table(f.read(), placed)
        # The last sequence, left open, ends at its last row.
        self.assertEqual(table.lookup(0x74), ("d.cu", 14))
        self.assertIsNone(table.lookup(0x75))
        with open(os.path.join(seeds, "no-elf"), "rb") as f:
            self.assertIsNone(_ncu_report.line_table(f.read(), placed))

    def test_cut_and_corrupted(self) -> None:
        rng = random.Random(11)
        checked = 0
        for name, (cubin, functions) in self.cubins.items():
            where = debug_line(cubin)
            if where is None:
                continue  # no line table to damage
            start, size = where
            cuts = set(range(0, len(cubin), max(1, len(cubin) // 40)))
            cuts.update(range(max(0, start - 2), min(len(cubin), start + 64)))
            cuts.update(range(start + size - 16, start + size + 2))
            damaged = [cubin[:end] for end in sorted(cuts)]
            for _ in range(120):
                data = bytearray(cubin)
                for _ in range(rng.randint(1, 8)):
                    # Mostly the line program, the rest anywhere.
                    at = (start + rng.randrange(size) if rng.random() < 0.8
                          else rng.randrange(len(data)))
                    data[at] = rng.randrange(256)
                damaged.append(bytes(data))
            for data in damaged:
                table = _ncu_report.line_table(data, functions)
                self.assertTrue(table is None
                                or isinstance(table, _ncu_report.LineTable),
                                name)
                if table is not None:
                    for _, address in functions:
                        table.lookup(address or 0)
                    table.lookup(0)
                checked += 1
        self.assertGreater(checked, 2000)


if __name__ == "__main__":
    tap.main()
