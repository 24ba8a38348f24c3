/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-csv-cells.h"
#include "report-csv-write.h"

void cell_append(Cell *c, const char *s, size_t n)
{
        if (c->failed)
                return;
        if (c->len + n + 1 > c->allocated) {
                size_t a = MAX(c->allocated * 2, c->len + n + 1);
                char *p = realloc(c->data, MAX(a, (size_t) 256));
                if (!p) {
                        c->failed = true;
                        return;
                }
                c->data = p;
                c->allocated = MAX(a, (size_t) 256);
        }
        memcpy(c->data + c->len, s, n);
        c->len += n;
        c->data[c->len] = 0;
}

void cell_puts(Cell *c, const char *s)
{
        cell_append(c, s, strlen(s));
}

void cell_done(Cell *c)
{
        free(c->data);
        *c = (Cell){ .data = NULL };
}

void cell_reset(Cell *c)
{
        c->len = 0;
        if (c->data)
                c->data[0] = 0;
}

/* A value as ncu prints it; NULL when there is none. */
const char *ncu_cell_format_value(const NcuValue *v, char buf[static NCU_CSV_NUMBER_MAX])
{
        switch (v->kind) {
        case NCU_VALUE_DOUBLE:
                return ncu_csv_format_double(v->d, buf);
        case NCU_VALUE_FLOAT:
                return ncu_csv_format_double(v->f, buf);
        case NCU_VALUE_UINT32:
                snprintf(buf, NCU_CSV_NUMBER_MAX, "%" PRIu32, v->u32);
                return buf;
        case NCU_VALUE_UINT64:
                snprintf(buf, NCU_CSV_NUMBER_MAX, "%" PRIu64, v->u64);
                return buf;
        case NCU_VALUE_STRING:
                return v->s ? v->s : "";
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        return NULL;
}

const char *ncu_cell_format_scaled(const NcuValue *v, const void *userdata, char buf[static NCU_CSV_NUMBER_MAX])
{
        const double *divisor = userdata;
        double d;

        if (v->kind == NCU_VALUE_STRING || !ncu_value_as_double(v, &d))
                return ncu_cell_format_value(v, buf);
        return ncu_csv_format_double(d / *divisor, buf);
}

static const char *format_plain(const NcuValue *v, const void *userdata, char buf[static NCU_CSV_NUMBER_MAX])
{
        return ncu_cell_format_value(v, buf);
}

void ncu_cell_format_metric(Cell *c, const NcuMetric *m, NcuPrintInstances instances, const char *value_text,
                NcuCellFormat format, const void *userdata)
{
        char buf[NCU_CSV_NUMBER_MAX];

        if (!format)
                format = format_plain;
        cell_reset(c);
        if (m->has_value) {
                const char *s = value_text ? value_text : format(&m->value, userdata, buf);
                cell_puts(c, s ? s : "");
        } else if (m->kind == NCU_VALUE_UNKNOWN && m->n_instances == 0)
                cell_puts(c, "no data");

        if (instances == NCU_PRINT_INSTANCES_NONE || m->n_instances == 0)
                return;
        cell_puts(c, c->len > 0 ? " (" : "(");
        for (size_t i = 0; i < m->n_instances; i++) {
                const NcuValue *id = &m->instances[i].correlation_id;
                const char *s;
                if (i > 0)
                        cell_puts(c, "; ");
                if (instances == NCU_PRINT_INSTANCES_DETAILS && id->kind != NCU_VALUE_UNKNOWN) {
                        s = ncu_cell_format_value(id, buf);
                        cell_puts(c, s ? s : "");
                        cell_puts(c, ": ");
                }
                s = format(&m->instances[i].value, userdata, buf);
                cell_puts(c, s ? s : "");
        }
        cell_puts(c, ")");
}
