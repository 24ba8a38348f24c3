/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "rc-diagnostic.h"

void rc_diagnostics_done(RcDiagnostics *d)
{
        if (!d)
                return;
        for (size_t i = 0; i < d->n_items; i++)
                free(d->items[i].message);
        free(d->items);
        *d = (RcDiagnostics){ 0 };
}

/* Takes message, also when it is dropped or on failure. */
static int diagnostics_push(
                RcDiagnostics *d, const char *path, RcSeverity severity, uint32_t line, uint32_t column, char *message)
{
        _cleanup_free_ char *m = message;

        if (severity == RC_SEVERITY_ERROR)
                d->n_errors++;
        else if (severity == RC_SEVERITY_WARNING)
                d->n_warnings++;

        if (d->n_items >= RC_DIAGNOSTICS_MAX) {
                d->n_dropped++;
                return 0;
        }
        if (GREEDY_REALLOC(d->items, d->allocated, d->n_items + 1) < 0)
                return -ENOMEM;
        d->items[d->n_items++] = (RcDiagnostic){
                .severity = severity,
                .path = path,
                .line = line,
                .column = column,
                .message = TAKE_PTR(m),
        };
        return 0;
}

int rc_diagnostics_add_atv(RcDiagnostics *d, const char *path, RcSeverity severity, uint32_t line, uint32_t column,
                const char *fmt, va_list ap)
{
        char *message;

        assert(d);
        assert(fmt);

        if (vasprintf(&message, fmt, ap) < 0)
                return -ENOMEM;
        return diagnostics_push(d, path, severity, line, column, message);
}

int rc_diagnostics_add(RcDiagnostics *d, RcSeverity severity, uint32_t line, uint32_t column, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = rc_diagnostics_add_atv(d, NULL, severity, line, column, fmt, ap);
        va_end(ap);
        return r;
}

int rc_diagnostics_add_at(RcDiagnostics *d, const char *path, RcSeverity severity, uint32_t line, uint32_t column,
                const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = rc_diagnostics_add_atv(d, path, severity, line, column, fmt, ap);
        va_end(ap);
        return r;
}

int rc_diagnostics_copy(RcDiagnostics *dst, const RcDiagnostics *src)
{
        int r;

        assert(dst);
        assert(src);

        for (size_t i = 0; i < src->n_items; i++) {
                char *m = strdup(src->items[i].message);
                if (!m)
                        return -ENOMEM;
                r = diagnostics_push(dst, src->items[i].path, src->items[i].severity, src->items[i].line,
                                src->items[i].column, m);
                if (r < 0)
                        return r;
        }
        /* Keep the totals right for what was dropped at the source. */
        dst->n_dropped += src->n_dropped;
        return 0;
}

const char *rc_severity_to_string(RcSeverity s)
{
        switch (s) {
        case RC_SEVERITY_ERROR:
                return "error";
        case RC_SEVERITY_WARNING:
                return "warning";
        case RC_SEVERITY_NOTE:
                return "note";
        case _RC_SEVERITY_MAX:
                break;
        }
        return NULL;
}
