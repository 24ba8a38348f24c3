# SPDX-License-Identifier: LGPL-2.1-or-later
"""SASS address -> CUDA source line, from the cubin a report stores.

A cubin built with line information has a DWARF ``.debug_line`` section with
one line-number sequence per function, read here with pyelftools (Debian's
python3-pyelftools). Each sequence starts with ``DW_LNE_set_address``, whose
operand ``.rel.debug_line`` relocates against the function's symbol. What a
PC means follows NVIDIA's module (the probe files of every corpus report):

- A function the report's RelocationData says was loaded at an address has
  its rows there; any other keeps the operand as stored. RelocationData is
  that of every SourceData entry of the module (ncu writes one again, with
  no binary, when it loads more of its functions). Reports of ncu up to
  2022.1 store the cubin as loaded (operands are already PCs, and there is
  no RelocationData); from 2022.3 on it is stored unrelocated, so a function
  never loaded keeps offsets from 0, and small correlation ids (launch
  statistics indices) resolve to its lines, as in NVIDIA's two sample
  reports.
- An address listed by more than one row (or sequence) answers the first.
- A file name is its directory and name joined, with '\\' read as '/', and
  empty, '.' and '..' components resolved (nvcc doubles a Windows include
  directory's backslashes: C:\\\\Users\\\\...\\src\\/a.cu is
  C:/Users/.../src/a.cu).

Without ``.debug_line`` there is no source information, and
``IAction.source_info`` returns None as NVIDIA's module does. The cubin is
untrusted: anything pyelftools cannot read gives no table, never an
exception, and a line program larger than _MAX_LINE_PROGRAM (600 times the
largest of the corpus) is not read: pyelftools holds every row of it.
"""

from __future__ import annotations

import bisect
import io
import posixpath
from typing import Any, Optional

from elftools.common.utils import struct_parse
from elftools.dwarf.lineprogram import LineProgram
from elftools.dwarf.structs import DWARFStructs
from elftools.elf.elffile import ELFFile

_DW_LNE_SET_ADDRESS = 2
_MAX_LINE_PROGRAM = 8 << 20


def _path(header: Any, index: int) -> str:
    entries = header["file_entry"]
    if not 1 <= index <= len(entries):
        return ""
    entry = entries[index - 1]
    name = entry.name.decode("utf-8", "surrogateescape")
    directories = header["include_directory"]
    if 1 <= entry.dir_index <= len(directories) and not name.startswith("/"):
        directory = directories[entry.dir_index - 1]
        name = directory.decode("utf-8", "surrogateescape") + "/" + name
    name = posixpath.normpath(name.replace("\\", "/"))
    # normpath keeps POSIX's two leading slashes; a path has one.
    return name[1:] if name.startswith("//") else name


def _line_programs(elf: ELFFile) -> list[tuple[int, int, LineProgram]]:
    """(start, end, program) of every unit of .debug_line, whether or not a
    .debug_info unit points at it (-lineinfo cubins have none)."""
    section = elf.get_section_by_name(".debug_line")
    if section.data_size > _MAX_LINE_PROGRAM:
        raise ValueError("line program too large")
    data = section.data()
    stream = io.BytesIO(data)
    structs = DWARFStructs(little_endian=True, dwarf_format=32,
                           address_size=8)
    units = []
    offset = 0
    while offset + 4 <= len(data):
        header = struct_parse(structs.Dwarf_lineprog_header, stream, offset)
        end = offset + 4 + header["unit_length"]
        if header["unit_length"] >= 0xFFFFFFF0 or end > len(data) \
                or not 2 <= header["version"] <= 4:
            raise ValueError("not a 32-bit DWARF 2-4 line program")
        units.append((offset, end, LineProgram(header, stream, structs,
                                               stream.tell(), end)))
        offset = end
    return units


def _relocation_symbols(elf: ELFFile) -> list[tuple[int, str]]:
    """(offset in .debug_line, symbol name) of its relocations, in order."""
    symbols = elf.get_section_by_name(".symtab")
    out = []
    for name in (".rel.debug_line", ".rela.debug_line"):
        section = elf.get_section_by_name(name)
        if section is None or symbols is None:
            continue
        for rel in section.iter_relocations():
            out.append((rel["r_offset"],
                        symbols.get_symbol(rel["r_info_sym"]).name))
    return sorted(out)


class LineTable:
    """PC -> (file name, line) for the functions of one cubin."""

    def __init__(self, rows: list[tuple[int, str, int, int]],
                 sequences: list[tuple[int, int]]) -> None:
        first: dict[int, tuple[str, int]] = {}
        owner: dict[int, int] = {}
        for address, file_name, line, sequence in rows:
            if address not in first:
                first[address] = (file_name, line)
                owner[address] = sequence
        self._addresses = sorted(first)
        self._rows = [first[a] for a in self._addresses]
        self._owner = [owner[a] for a in self._addresses]
        self._sequences = sequences

    def lookup(self, pc: int) -> Optional[tuple[str, int]]:
        i = bisect.bisect_right(self._addresses, pc) - 1
        if i < 0:
            return None
        start, end = self._sequences[self._owner[i]]
        if not start <= pc < end:
            return None
        return self._rows[i]


def _build(cubin: bytes, loaded: dict[str, int]) -> Optional[LineTable]:
    elf = ELFFile(io.BytesIO(cubin))
    if elf.get_section_by_name(".debug_line") is None:
        return None
    relocations = _relocation_symbols(elf)
    rows: list[tuple[int, str, int, int]] = []
    sequences: list[tuple[int, int]] = []
    for start, end, program in _line_programs(elf):
        # The unit's relocations, in order, are its set_address operands'.
        symbols = [name for offset, name in relocations
                   if start <= offset < end]
        set_addresses = 0
        base = 0
        sequence_start: Optional[int] = None
        for entry in program.get_entries():
            if entry.is_extended and entry.command == _DW_LNE_SET_ADDRESS:
                symbol = (symbols[set_addresses]
                          if set_addresses < len(symbols) else None)
                base = loaded.get(symbol, 0) if symbol else 0
                set_addresses += 1
            state = entry.state
            if state is None:
                continue
            address = base + state.address
            if sequence_start is None:
                sequence_start = address
            if state.end_sequence:
                sequences.append((sequence_start, address))
                sequence_start = None
                base = 0
                continue
            rows.append((address, _path(program.header, state.file),
                         state.line, len(sequences)))
        if set_addresses != len(symbols):
            return None  # relocations that are not the operands': unsure
    if not rows:
        return None
    # A sequence left open ends at its last row.
    if sequence_start is not None:
        sequences.append((sequence_start, rows[-1][0] + 1))
    return LineTable(rows, sequences)


def build_line_table(cubin: bytes,
                     functions: tuple[tuple[str, Optional[int]], ...]
                     ) -> Optional[LineTable]:
    loaded: dict[str, int] = {}
    for name, address in functions:
        if address is not None:
            loaded.setdefault(name, address)
    try:
        return _build(cubin, loaded)
    except Exception:  # noqa: BLE001 - untrusted bytes: no table
        return None


def line_table(action: Any) -> Optional[LineTable]:
    """The line table of an action's module, built once per report for all
    the actions that share it (cached on the action, and on its report)."""
    cached = action.__dict__.get("_line_table", False)
    if cached is not False:
        return cached
    cubin = action._cubin()
    table = None
    if cubin:
        functions = action._functions()
        context = action.__dict__.get("_context")
        tables = (context.__dict__.setdefault("_line_tables", {})
                  if context is not None else {})
        key = (cubin, functions)
        if key not in tables:
            tables[key] = build_line_table(cubin, functions)
        table = tables[key]
    action.__dict__["_line_table"] = table
    return table
