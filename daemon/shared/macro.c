/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "macro.h"

int greedy_realloc(void **array, size_t *allocated, size_t need, size_t elsize)
{
        size_t n, bytes;
        void *p;

        assert(array);
        assert(allocated);
        assert(elsize > 0);

        if (*allocated >= need)
                return 0;

        n = MAX(need, 8u);
        if (n < SIZE_MAX / 2 && n * 2 > need)
                n = MAX(need, *allocated * 2);
        if (size_mul_overflow(n, elsize, &bytes))
                return -ENOMEM;

        p = realloc(*array, bytes);
        if (!p)
                return -ENOMEM;

        *array = p;
        *allocated = n;
        return 0;
}
