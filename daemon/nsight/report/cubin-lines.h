/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* SASS address -> CUDA source line, from the DWARF .debug_line of the cubin a report stores. What an
 * address means follows NVIDIA's ncu_report (the probe files of every corpus report):
 *
 * - Each line-number sequence starts with DW_LNE_set_address, whose operand .rel.debug_line relocates
 *   against the function's symbol. A function the report's RelocationData says was loaded at an address has
 *   its rows there; any other keeps the operand as stored (reports of ncu up to 2022.1 store the cubin as
 *   loaded, without RelocationData; from 2022.3 on it is stored unrelocated, so a function never loaded
 *   keeps offsets from 0).
 * - An address listed by more than one row (or sequence) answers the first.
 * - A file name is its directory and name joined, with '\' read as '/', and empty, '.' and '..' components
 *   resolved (nvcc doubles a Windows include directory's backslashes).
 *
 * The cubin is untrusted: every read is bounded, and anything not understood (ELF other than 64-bit little
 * endian, DWARF line programs other than 32-bit versions 2 to 4, an opcode not defined, a .debug_line over
 * CUBIN_LINES_MAX_PROGRAM bytes, with more than CUBIN_LINES_MAX_ROWS rows or sequences or more than
 * CUBIN_LINES_MAX_FILES directories or files in a unit, relocations that are not the
 * set_address operands') gives no table, never a partial one. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* 600 times the largest .debug_line of the corpus. */
#define CUBIN_LINES_MAX_PROGRAM (8u << 20)
/* Rows are 32 bytes each: at most 32 MiB of them, and as many sequences. */
#define CUBIN_LINES_MAX_ROWS (1u << 20)
/* Directories and files a unit names (a cubin's name a few dozen). */
#define CUBIN_LINES_MAX_FILES (1u << 16)

/* Where the report says a function of the cubin was loaded (RelocationData). */
typedef struct CubinFunction {
        const char *name;
        uint64_t address;
} CubinFunction;

typedef struct CubinLines CubinLines;

/* Builds the line table of cubin, with functions placed where they were loaded (the first of a name wins).
 * Returns 0 with *ret NULL when the cubin has no line information this reader takes (see above), 0 with a
 * table, or -ENOMEM. */
int cubin_lines_new(
                const void *cubin, size_t size, const CubinFunction *functions, size_t n_functions, CubinLines **ret);
CubinLines *cubin_lines_free(CubinLines *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CubinLines *, cubin_lines_free);

/* The source file and line of the instruction at pc; false where no sequence covers pc. The file name lives
 * as long as the table. */
bool cubin_lines_lookup(const CubinLines *l, uint64_t pc, const char **ret_file, int64_t *ret_line);
