/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The CPU call stack ncu recorded at an action's launch (ProfileResult.CpuStack, --call-stack), as the text
 * pages print it under the action's line. */

#include <stdio.h>

#include "report.h"

void ncu_stack_print_text(FILE *f, const NcuAction *a);
