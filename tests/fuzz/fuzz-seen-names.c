/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the daemon's file of remembered process names (in its state directory; corrupted by a
 * crash, a full disk or an administrator's hand): the whole input is the file. A content that loads must
 * write back to a file that loads to the same names; one that does not must add nothing and name an
 * offset inside the input. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seen-names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const SeenNamesLimits limits = { .per_user_max = 16, .per_user_bytes_max = 2048, .total_max = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        SeenNames *s = NULL, *t = NULL;
        void *out = NULL, *again = NULL;
        size_t out_size, again_size, offset = SIZE_MAX;
        int r;

        if (seen_names_new(&limits, &s) < 0)
                return 0;
        r = seen_names_parse(s, data, size, UINT64_MAX / 2, UINT64_MAX, &offset);
        if (r < 0) {
                if (r == -ENOMEM)
                        goto done;
                if (seen_names_size(s) != 0 || offset > size)
                        abort();
                goto done;
        }
        if (seen_names_size(s) > limits.total_max)
                abort();

        /* Written back and read again: the same file (the order of entries is kept by a parse of our own). */
        if (seen_names_serialize(s, &out, &out_size) < 0 || seen_names_new(&limits, &t) < 0)
                goto done;
        r = seen_names_parse(t, out, out_size, UINT64_MAX / 2, UINT64_MAX, &offset);
        if (r == -ENOMEM)
                goto done;
        if (r < 0 || seen_names_size(t) != seen_names_size(s))
                abort();
        if (seen_names_serialize(t, &again, &again_size) < 0)
                goto done;
        if (again_size != out_size || memcmp(again, out, out_size) != 0)
                abort();

done:
        free(out);
        free(again);
        seen_names_free(t);
        seen_names_free(s);
        return 0;
}
