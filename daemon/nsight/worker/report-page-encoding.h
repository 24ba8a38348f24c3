/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "report-page-options.h"
#include "report-protocol.h"

/* The options' one encoding, from the client through the daemon to the worker (Report.ExportPageEncoded):
 * in the wire encoding of report-protocol.h, u NCU_PAGE_OPTIONS_ENCODING, u page, b csv, u units, u details,
 * u instances, u summary (NCU_PAGE_OPTIONS_ENCODED_SIZE bytes). The daemon checks the size and passes the
 * bytes on; the worker reads them. Reading checks the encoding's number and each value against its range
 * (-EBADMSG), not the combination (ncu_page_options_valid()). */
#define NCU_PAGE_OPTIONS_ENCODING 1u
#define NCU_PAGE_OPTIONS_ENCODED_SIZE ((size_t) (4 + 4 + 1 + 4 * 4))
void ncu_wire_put_page_options(NcuWire *w, const NcuPageOptions *o);
int ncu_wire_get_page_options(NcuWireReader *r, NcuPageOptions *ret);
