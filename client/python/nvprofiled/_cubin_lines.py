# SPDX-License-Identifier: LGPL-2.1-or-later
"""SASS address -> CUDA source line, from the cubin a report stores.

A cubin built with line information has a DWARF ``.debug_line`` section with
one line-number sequence per function; each sequence starts with
``DW_LNE_set_address`` whose operand is relocated (``.rel.debug_line``)
against the function's symbol, so addresses in it are offsets into that
function.  The report's RelocationData says where each function was loaded,
which turns a PC (the correlation id of source-level metrics) into a function
and an offset.  Without ``.debug_line`` there is no source information, and
``IAction.source_info`` returns None as NVIDIA's module does.

Everything here reads untrusted bytes: every offset is bounds-checked and a
malformed cubin yields no line table rather than an exception.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field
from typing import Any, Optional

_MAX_ROWS = 1 << 20


class _Malformed(Exception):
    pass


class _Reader:
    def __init__(self, data: bytes, pos: int = 0, end: Optional[int] = None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else min(end, len(data))

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise _Malformed("truncated")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return struct.unpack("<H", self.take(2))[0]

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def uleb(self) -> int:
        result = shift = 0
        while True:
            byte = self.u8()
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result
            if shift > 63:
                raise _Malformed("LEB128 too long")

    def sleb(self) -> int:
        result = shift = 0
        while True:
            byte = self.u8()
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
            if shift > 63:
                raise _Malformed("LEB128 too long")
        if byte & 0x40:
            result -= 1 << shift
        return result

    def cstring(self) -> str:
        end = self.data.find(b"\0", self.pos, self.end)
        if end < 0:
            raise _Malformed("unterminated string")
        s = self.data[self.pos:end].decode("utf-8", "surrogateescape")
        self.pos = end + 1
        return s


@dataclass
class _Elf:
    # name -> offset, size, link, info
    sections: dict[str, tuple[int, int, int, int]]
    symbols: list[tuple[str, int]]  # (name, size)


def _read_elf(data: bytes) -> _Elf:
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 \
            or data[5] != 1:
        raise _Malformed("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize < 64 or shnum > 65535 or shoff + shnum * shentsize > len(
            data) or shstrndx >= shnum:
        raise _Malformed("bad section headers")
    raw = []
    for i in range(shnum):
        name, _type, _flags, _addr, off, size, link, info = struct.unpack_from(
            "<IIQQQQII", data, shoff + i * shentsize)
        if off + size > len(data) and _type != 8:  # SHT_NOBITS has no bytes
            raise _Malformed("section outside the file")
        raw.append((name, off, size, link, info))
    str_off, str_size = raw[shstrndx][1], raw[shstrndx][2]
    names = _Reader(data, 0, str_off + str_size)
    sections = {}
    indexed = []
    for name, off, size, link, info in raw:
        names.pos = str_off + name
        section_name = names.cstring()
        sections.setdefault(section_name, (off, size, link, info))
        indexed.append((section_name, off, size, link, info))
    symbols: list[tuple[str, int]] = []
    if ".symtab" in sections:
        off, size, link, _ = sections[".symtab"]
        if link >= len(indexed):
            raise _Malformed("bad symbol string table")
        _, s_off, s_size, _, _ = indexed[link]
        strings = _Reader(data, 0, s_off + s_size)
        for i in range(size // 24):
            st_name, _info, _other, _shndx, _value, st_size = \
                struct.unpack_from("<IBBHQQ", data, off + i * 24)
            strings.pos = s_off + st_name
            symbols.append((strings.cstring(), st_size))
    return _Elf(sections, symbols)


def _relocated_symbols(data: bytes, elf: _Elf, name: str) -> dict[int, str]:
    """Offset in section ``name`` -> symbol name its relocation names."""
    relocs: dict[int, str] = {}
    for rel_name, entry in ((".rel" + name, 16), (".rela" + name, 24)):
        if rel_name not in elf.sections:
            continue
        off, size, _, _ = elf.sections[rel_name]
        for i in range(size // entry):
            r_offset, r_info = struct.unpack_from("<QQ", data, off + i * entry)
            symbol = r_info >> 32
            if symbol < len(elf.symbols):
                relocs[r_offset] = elf.symbols[symbol][0]
    return relocs


@dataclass
class _Sequence:
    symbol: Optional[str]
    addresses: list[int] = field(default_factory=list)
    rows: list[tuple[str, int]] = field(default_factory=list)
    end: int = 0


def _parse_line_programs(data: bytes, elf: _Elf) -> list[_Sequence]:
    off, size, _, _ = elf.sections[".debug_line"]
    relocs = _relocated_symbols(data, elf, ".debug_line")
    sequences: list[_Sequence] = []
    unit = off
    rows = 0
    while unit < off + size:
        r = _Reader(data, unit, off + size)
        length = r.u32()
        if length == 0xFFFFFFFF:
            raise _Malformed("64-bit DWARF is not used by cubins")
        unit_end = r.pos + length
        r.end = min(unit_end, off + size)
        version = r.u16()
        if not 2 <= version <= 4:
            raise _Malformed(f"DWARF line version {version}")
        header_length = r.u32()
        program = r.pos + header_length
        min_inst = r.u8()
        if version >= 4:
            r.u8()  # maximum operations per instruction
        default_is_stmt = r.u8()
        line_base = struct.unpack("b", r.take(1))[0]
        line_range = r.u8()
        opcode_base = r.u8()
        if line_range == 0 or opcode_base == 0:
            raise _Malformed("bad line program header")
        lengths = [r.u8() for _ in range(opcode_base - 1)]
        directories = [""]
        while (d := r.cstring()):
            directories.append(d)
        files = [""]
        while (f := r.cstring()):
            directory = r.uleb()
            r.uleb()  # modification time
            r.uleb()  # length
            files.append(_join(directories, directory, f))
        r.pos = program

        address, file, line = 0, 1, 1
        current: Optional[_Sequence] = None

        def row() -> None:
            nonlocal current, rows
            if current is None:
                current = _Sequence(None)
            current.addresses.append(address)
            current.rows.append((files[file] if file < len(files) else "",
                                 line))
            rows += 1
            if rows > _MAX_ROWS:
                raise _Malformed("too many rows")

        while r.pos < r.end:
            opcode = r.u8()
            if opcode >= opcode_base:
                adjusted = opcode - opcode_base
                address += (adjusted // line_range) * min_inst
                line += line_base + adjusted % line_range
                row()
            elif opcode == 0:
                n = r.uleb()
                start = r.pos
                sub = r.u8()
                if sub == 1:  # DW_LNE_end_sequence
                    if current is None:
                        current = _Sequence(None)
                    current.end = address
                    sequences.append(current)
                    current, address, file, line = None, 0, 1, 1
                elif sub == 2:  # DW_LNE_set_address
                    operand = r.pos
                    address = int.from_bytes(r.take(n - 1), "little")
                    if current is None:
                        current = _Sequence(relocs.get(operand - off))
                    elif current.symbol is None:
                        current.symbol = relocs.get(operand - off)
                elif sub == 3:  # DW_LNE_define_file
                    name = r.cstring()
                    directory = r.uleb()
                    r.uleb()
                    r.uleb()
                    files.append(_join(directories, directory, name))
                r.pos = start + n
            elif opcode == 1:  # DW_LNS_copy
                row()
            elif opcode == 2:  # DW_LNS_advance_pc
                address += r.uleb() * min_inst
            elif opcode == 3:  # DW_LNS_advance_line
                line += r.sleb()
            elif opcode == 4:  # DW_LNS_set_file
                file = r.uleb()
            elif opcode == 8:  # DW_LNS_const_add_pc
                address += ((255 - opcode_base) // line_range) * min_inst
            elif opcode == 9:  # DW_LNS_fixed_advance_pc
                address += r.u16()
            elif opcode in (5, 7, 10, 11):  # column, basic block, prologue...
                for _ in range(lengths[opcode - 1]):
                    r.uleb()
            elif opcode == 6:  # DW_LNS_negate_stmt
                default_is_stmt = not default_is_stmt
            else:
                for _ in range(lengths[opcode - 1]):
                    r.uleb()
        unit = unit_end
    return sequences


def _join(directories: list[str], index: int, name: str) -> str:
    if name.startswith("/") or index == 0 or index >= len(directories):
        return name
    return directories[index].rstrip("/") + "/" + name


class LineTable:
    """PC -> (file name, line) for the functions of one cubin."""

    def __init__(self, functions: list[tuple[int, int, _Sequence]]) -> None:
        self._functions = sorted(functions, key=lambda f: f[0])
        self._starts = [f[0] for f in self._functions]

    def lookup(self, pc: int) -> Optional[tuple[str, int]]:
        i = bisect.bisect_right(self._starts, pc) - 1
        if i < 0:
            return None
        base, size, sequence = self._functions[i]
        offset = pc - base
        if offset >= max(size, sequence.end):
            return None
        j = bisect.bisect_right(sequence.addresses, offset) - 1
        if j < 0:
            return None
        return sequence.rows[j]


def build_line_table(cubin: bytes,
                     functions: tuple[tuple[str, Optional[int]], ...]
                     ) -> Optional[LineTable]:
    try:
        elf = _read_elf(cubin)
        if ".debug_line" not in elf.sections:
            return None
        sequences = _parse_line_programs(cubin, elf)
    except (_Malformed, struct.error, ValueError, IndexError):
        return None
    by_symbol = {s.symbol: s for s in sequences if s.symbol}
    sizes = dict(elf.symbols)
    placed = []
    for name, address in functions:
        sequence = by_symbol.get(name)
        if sequence is not None and address is not None:
            placed.append((address, sizes.get(name, 0), sequence))
    return LineTable(placed) if placed else None


def line_table(action: Any) -> Optional[LineTable]:
    """The line table of an action's cubin (cached per action object)."""
    cached = action.__dict__.get("_line_table", False)
    if cached is not False:
        return cached
    cubin = action._cubin()
    table = build_line_table(cubin, action._functions()) if cubin else None
    action.__dict__["_line_table"] = table
    return table
