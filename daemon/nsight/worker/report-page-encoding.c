/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The page options' one encoding (report-page-encoding.h). */

#include <errno.h>

#include "report-page-encoding.h"

void ncu_wire_put_page_options(NcuWire *w, const NcuPageOptions *o)
{
        ncu_wire_put_u32(w, NCU_PAGE_OPTIONS_ENCODING);
        ncu_wire_put_u32(w, (uint32_t) o->page);
        ncu_wire_put_bool(w, o->csv);
        ncu_wire_put_u32(w, (uint32_t) o->units);
        ncu_wire_put_u32(w, (uint32_t) o->details);
        ncu_wire_put_u32(w, (uint32_t) o->instances);
        ncu_wire_put_u32(w, (uint32_t) o->summary);
}

static int get_enum(NcuWireReader *r, uint32_t max, int *ret)
{
        uint32_t v;
        int k;

        k = ncu_wire_get_u32(r, &v);
        if (k < 0)
                return k;
        if (v >= max)
                return -EBADMSG;
        *ret = (int) v;
        return 0;
}

int ncu_wire_get_page_options(NcuWireReader *r, NcuPageOptions *ret)
{
        NcuPageOptions o;
        int page, units, details, instances, summary, k;
        uint32_t encoding;

        k = ncu_wire_get_u32(r, &encoding);
        if (k >= 0 && encoding != NCU_PAGE_OPTIONS_ENCODING)
                k = -EBADMSG;
        if (k >= 0)
                k = get_enum(r, _NCU_PAGE_MAX, &page);
        if (k >= 0)
                k = ncu_wire_get_bool(r, &o.csv);
        if (k >= 0)
                k = get_enum(r, _NCU_PRINT_UNITS_MAX, &units);
        if (k >= 0)
                k = get_enum(r, _NCU_PRINT_DETAILS_MAX, &details);
        if (k >= 0)
                k = get_enum(r, _NCU_PRINT_INSTANCES_MAX, &instances);
        if (k >= 0)
                k = get_enum(r, _NCU_PRINT_SUMMARY_MAX, &summary);
        if (k < 0)
                return k;
        o.page = page;
        o.units = units;
        o.details = details;
        o.instances = instances;
        o.summary = summary;
        *ret = o;
        return 0;
}
