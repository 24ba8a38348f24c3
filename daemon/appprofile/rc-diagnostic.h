/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdarg.h>

#include "macro.h"

/* Diagnostics about one rc file (or about the configuration as a whole), printed as
 * "file:line:col: severity: message" like a compiler's. */

typedef enum RcSeverity {
        RC_SEVERITY_ERROR, /* the file contributes nothing */
        RC_SEVERITY_WARNING, /* the file loads, but something in it is ignored or suspicious */
        RC_SEVERITY_NOTE, /* information, e.g. why an entry of the search path was skipped */
        _RC_SEVERITY_MAX,
} RcSeverity;

typedef struct RcDiagnostic {
        RcSeverity severity;
        const char *path; /* borrowed; NULL when the list belongs to one file and means that file */
        uint32_t line; /* 1-based; 0 = about the whole file */
        uint32_t column; /* 1-based byte column; 0 = whole line or file */
        char *message;
} RcDiagnostic;

/* Stored diagnostics are bounded; further ones are only counted. */
#define RC_DIAGNOSTICS_MAX 64u

typedef struct RcDiagnostics {
        RcDiagnostic *items;
        size_t n_items, allocated;
        size_t n_errors, n_warnings, n_dropped;
} RcDiagnostics;

void rc_diagnostics_done(RcDiagnostics *d);
int rc_diagnostics_add(RcDiagnostics *d, RcSeverity severity, uint32_t line, uint32_t column, const char *fmt, ...)
                _printf_(5, 6);
int rc_diagnostics_add_at(RcDiagnostics *d, const char *path, RcSeverity severity, uint32_t line, uint32_t column,
                const char *fmt, ...) _printf_(6, 7);
int rc_diagnostics_add_atv(RcDiagnostics *d, const char *path, RcSeverity severity, uint32_t line, uint32_t column,
                const char *fmt, va_list ap) _printf_(6, 0);
int rc_diagnostics_copy(RcDiagnostics *dst, const RcDiagnostics *src);

const char *rc_severity_to_string(RcSeverity s) _const_;
