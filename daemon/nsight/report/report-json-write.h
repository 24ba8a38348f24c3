/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* report-json.h's whole document, with ncu_report's metric attributes (report-json-attrs.h), written as
 * text one action's tree at a time: byte for byte json-c's plain output of ncu_report_to_json_attrs(), in
 * memory of one action rather than of the whole tree (which json-c builds at 10 to 16 times its text). */

#include <stdio.h>

#include "report-json.h"

/* 0, -ENOMEM, or -EIO when f failed. */
int ncu_report_write_json_attrs(const NcuReport *r, FILE *f);
