/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <string.h>

#include "macro.h"
#include "report-csv-cells.h"
#include "report-csv.h"
#include "report-page-units.h"
#include "string-util.h"

/* One word of a unit that scales, and its steps: each step's spelling of the word, 1000 times the previous
 * factor. */
typedef struct UnitLadder {
        const char *word;
        enum {
                LADDER_ANYWHERE,
                LADDER_LEADING,
                LADDER_TRAILING,
        } where;
        const char *steps[6];
} UnitLadder;

static const UnitLadder ladders[] = {
        { "byte", LADDER_ANYWHERE, { "byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte" } },
        { "nsecond", LADDER_LEADING, { "nsecond", "usecond", "msecond", "second" } },
        { "/second", LADDER_TRAILING, { "/second", "/msecond", "/usecond", "/nsecond" } },
};

static const char *ladder_find(const UnitLadder *l, const char *unit)
{
        size_t n = strlen(l->word), u = strlen(unit);

        switch (l->where) {
        case LADDER_ANYWHERE:
                return strstr(unit, l->word);
        case LADDER_LEADING:
                return strneq(unit, l->word, n) ? unit : NULL;
        case LADDER_TRAILING:
                return u >= n && streq(unit + u - n, l->word) ? unit + u - n : NULL;
        }
        return NULL;
}

double ncu_unit_scale(const char *base_unit, double magnitude, char ret_unit[static METRIC_UNIT_MAX])
{
        assert(base_unit);

        snprintf(ret_unit, METRIC_UNIT_MAX, "%s", base_unit);
        magnitude = fabs(magnitude);
        if (!isfinite(magnitude) || magnitude == 0)
                return 1;

        for (size_t i = 0; i < ELEMENTSOF(ladders); i++) {
                const UnitLadder *l = &ladders[i];
                const char *at = ladder_find(l, base_unit);
                size_t step = 0;
                double factor = 1;

                if (!at)
                        continue;
                while (step + 1 < ELEMENTSOF(l->steps) && l->steps[step + 1] && magnitude >= factor * 1000) {
                        step++;
                        factor *= 1000;
                }
                snprintf(ret_unit, METRIC_UNIT_MAX, "%.*s%s%s", (int) (at - base_unit), base_unit, l->steps[step],
                                at + strlen(l->word));
                return factor;
        }
        return 1;
}

void ncu_metric_base_unit(const NcuAction *a, const NcuMetric *m, const char *section_unit, bool details_guess,
                char ret_unit[static METRIC_UNIT_MAX])
{
        MetricAttrs attrs;

        assert(a);
        assert(m);

        ncu_metric_attrs(a, m, section_unit, &attrs);
        if (details_guess && (!section_unit || !section_unit[0]))
                metric_attrs_details_unit(m->name, &attrs);
        metric_attrs_csv_unit(&attrs, ret_unit);
}

void ncu_shown_value(const NcuValue *v, const char *base_unit, NcuPrintUnits units, NcuShownValue *ret)
{
        double d;

        assert(v);
        assert(base_unit);
        assert(ret);

        *ret = (NcuShownValue){ .divisor = 1 };
        snprintf(ret->unit, sizeof(ret->unit), "%s", base_unit);
        if (v->kind == NCU_VALUE_STRING || !ncu_value_as_double(v, &d)) {
                const char *s = ncu_cell_format_value(v, ret->text);
                if (s != ret->text)
                        snprintf(ret->text, sizeof(ret->text), "%s", strempty(s));
                return;
        }

        ret->numeric = true;
        ret->nan = isnan(d);
        ret->value = d;
        if (units == NCU_PRINT_UNITS_DYNAMIC && !ret->nan) {
                double factor = ncu_unit_scale(base_unit, d, ret->unit);
                if (factor != 1) {
                        ret->divisor = factor;
                        ret->value = d / factor;
                        ncu_csv_format_double(ret->value, ret->text);
                        return;
                }
        }
        (void) ncu_cell_format_value(v, ret->text);
}
