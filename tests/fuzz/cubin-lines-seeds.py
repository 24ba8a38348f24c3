#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the seeds of fuzz-cubin-lines (corpus/cubin-lines): small
synthetic ELF64 cubins with a .debug_line of each DWARF version the reader
takes, relocations against function symbols, and the path cases (a Windows
include directory, '.' and '..', DW_LNE_define_file). Not corpus copies."""

import os
import struct
import sys


def uleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def line_unit(version: int, sequences: int,
              close_last: bool) -> tuple[bytes, list[int]]:
    """One line program unit, and the offsets of its set_address operands."""
    opcode_base = 13
    header = bytes([4])  # minimum_instruction_length
    if version >= 4:
        header += bytes([1])  # maximum_operations_per_instruction
    header += bytes([1, (-5) & 0xFF, 14, opcode_base])
    header += bytes([0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1])
    header += b"C:\\\\Users\\\\dev\\src\\\0/opt/./inc/../include\0\0"
    header += b"a.cu\0" + uleb(1) + uleb(0) + uleb(0)
    header += b"b.cuh\0" + uleb(2) + uleb(0) + uleb(0)
    header += b"/abs//x/../c.cu\0" + uleb(9) + uleb(0) + uleb(0) + b"\0"
    program = bytearray()
    operands = []
    for s in range(sequences):
        program += b"\0" + uleb(9) + bytes([2])
        operands.append(len(program))
        program += struct.pack("<Q", 0)
        program += bytes([3]) + sleb(10 + s)  # advance_line
        program += bytes([1])  # copy
        program += bytes([opcode_base + 14 * 4 + 6])  # special
        program += bytes([4]) + uleb(2) + bytes([opcode_base + 20])
        program += b"\0" + uleb(6) + bytes([3]) + b"d.cu\0"
        program += uleb(0) + uleb(0) + uleb(0)
        program += bytes([4]) + uleb(4) + bytes([2]) + uleb(3) + bytes([1])
        program += bytes([8, 9]) + struct.pack("<H", 16) + bytes([1])
        program += bytes([4]) + uleb(3) + bytes([3]) + sleb(-4) + bytes([1])
        program += b"\0" + uleb(2) + bytes([4]) + uleb(7)  # discriminator
        program += b"\0" + uleb(3) + bytes([0x80, 0, 0])  # unknown, skipped
        if close_last or s + 1 < sequences:
            program += bytes([2]) + uleb(4) + b"\0" + uleb(1) + bytes([1])
    body = struct.pack("<H", version) + struct.pack("<I", len(header)) + header
    header_size = 4 + len(body)
    unit = struct.pack("<I", len(body) + len(program)) + body + bytes(program)
    return unit, [header_size + o for o in operands]


def elf(debug_line: bytes, relocations: list[tuple[int, int]],
        symbols: list[str]) -> bytes:
    strtab = b"\0"
    syms = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)
    for name in symbols:
        syms += struct.pack("<IBBHQQ", len(strtab), 0x12, 0, 0, 0, 0x100)
        strtab += name.encode() + b"\0"
    rel = b"".join(struct.pack("<QQ", off, (sym << 32) | 2)
                   for off, sym in relocations)
    names = [b"", b".shstrtab", b".debug_line", b".strtab", b".symtab",
             b".rel.debug_line"]
    shstrtab = b"\0".join(names) + b"\0"
    name_offsets = []
    at = 0
    for n in names:
        name_offsets.append(at)
        at += len(n) + 1
    # type, data, link, entsize
    sections = [(3, shstrtab, 0, 0), (1, debug_line, 0, 0), (3, strtab, 0, 0),
                (2, syms, 3, 24), (9, rel, 4, 16)]
    data = bytearray(64)
    placed = []
    for _, blob, _, _ in sections:
        placed.append(len(data))
        data += blob
    shoff = len(data)
    data += bytes(64)
    for i, (kind, blob, link, entsize) in enumerate(sections):
        data += struct.pack("<IIQQQQIIQQ", name_offsets[i + 1], kind, 0, 0,
                            placed[i], len(blob), link, 0, 1, entsize)
    data[0:64] = (b"\x7fELF\x02\x01\x01" + bytes(9)
                  + struct.pack("<HHIQQQIHHHHHH", 1, 190, 1, 0, 0, shoff, 0,
                                64, 0, 0, 64, len(sections) + 1, 1))
    return bytes(data)


def seed(versions: list[int], close_last: bool = True,
         relocated: bool = True) -> bytes:
    debug_line = b""
    relocations = []
    symbols = []
    for v in versions:
        unit, operands = line_unit(v, 2, close_last)
        for o in operands:
            symbols.append(f"_Z6kernel{len(symbols)}v")
            if relocated:
                relocations.append((len(debug_line) + o, len(symbols)))
        debug_line += unit
    return elf(debug_line, relocations, symbols)


def main() -> None:
    out = (sys.argv[1] if len(sys.argv) > 1 else
           os.path.join(os.path.dirname(__file__), "corpus", "cubin-lines"))
    os.makedirs(out, exist_ok=True)
    seeds = {
        "dwarf2": seed([2]),
        "dwarf3": seed([3]),
        "dwarf4-two-units": seed([4, 3]),
        "open-sequence": seed([4], close_last=False),
        # No relocation at all: the reader must not offset a null array.
        "no-relocations": seed([4], relocated=False),
        "no-elf": b"not an ELF file\n",
    }
    for name, blob in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
