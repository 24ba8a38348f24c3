/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the cubin line table (cubin-lines.h): the input is a cubin, with two of its functions
 * placed as a report's RelocationData would (the seeds' symbol names, see cubin-lines-seeds.py). Every
 * answer must be a table or none, and a table's lookups must name a file. */

#include <stddef.h>
#include <stdint.h>

#include "cubin-lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const CubinFunction functions[] = {
                { "_Z6kernel0v", 0x10000 }, { "_Z6kernel2v", UINT64_MAX - 0x40 },
                { "_Z6kernel0v", 0x30000 }, /* the first of a name wins */
        };
        _cleanup_(cubin_lines_freep) CubinLines *l = NULL;
        static const uint64_t pcs[] = { 0, 4, 0x20, 0x80, 0x10000, 0x10020, UINT64_MAX - 0x40, UINT64_MAX };

        if (cubin_lines_new(data, size, functions, ELEMENTSOF(functions), &l) < 0)
                return 0;
        if (!l)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(pcs); i++) {
                const char *file = NULL;
                int64_t line;

                if (cubin_lines_lookup(l, pcs[i], &file, &line))
                        assert(file);
        }
        return 0;
}
