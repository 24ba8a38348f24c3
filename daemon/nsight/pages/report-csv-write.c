/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "report-csv-write.h"

const char *ncu_csv_format_double(double d, char buf[static NCU_CSV_NUMBER_MAX])
{
        if (d == 0)
                d = 0; /* no "-0" */
        if (isnan(d)) /* whatever its sign: ncu's formatter writes no "-nan" */
                snprintf(buf, NCU_CSV_NUMBER_MAX, "nan");
        else if (isfinite(d) && d == trunc(d))
                snprintf(buf, NCU_CSV_NUMBER_MAX, "%.0f", d);
        else
                snprintf(buf, NCU_CSV_NUMBER_MAX, "%.2f", d);
        return buf;
}

void ncu_csv_write_field(FILE *f, const char *s, bool first)
{
        assert(f);

        if (!first)
                fputc(',', f);
        fputc('"', f);
        for (const char *p = s ? s : ""; *p;) {
                const char *q = strchr(p, '"');
                if (!q) {
                        fputs(p, f);
                        break;
                }
                fwrite(p, 1, q - p + 1, f);
                fputc('"', f);
                p = q + 1;
        }
        fputc('"', f);
}
