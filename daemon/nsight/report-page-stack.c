/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "report-page-stack.h"

void ncu_stack_print_text(FILE *f, const NcuAction *a)
{
}
