/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-model.h"

/* Human-readable forms for explain output: a pattern as
 *   procname "firefox"   dso "libmutter"   and(procname "heaven_x64", not(findfile "browser_x64"))
 * Strings are quoted with '"' and '\' escaped. Nesting is bounded by the reader's depth limit. */
int rc_pattern_format(const RcPattern *p, char **ret);
