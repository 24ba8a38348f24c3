/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "report.h"

int ncu_range_actions_by_nvtx(const NcuRange *range, char *const *includes, size_t n_includes, char *const *excludes,
                size_t n_excludes, size_t **ret_indices)
{
        return -EOPNOTSUPP;
}
