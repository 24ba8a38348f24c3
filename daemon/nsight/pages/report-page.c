/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ncu's pages: the options as ncu spells them, and which page they print (report-page.h). */

#include <errno.h>

#include "macro.h"
#include "report-csv.h"
#include "report-page.h"
#include "string-util.h"

int ncu_page_write(const NcuReport *r, const NcuPageOptions *o, FILE *f)
{
        assert(r);
        assert(o);
        assert(f);

        if (!ncu_page_options_valid(o, NULL))
                return -EINVAL;

        switch (o->page) {
        case NCU_PAGE_DETAILS:
                if (o->summary == NCU_PRINT_SUMMARY_PER_KERNEL)
                        return ncu_page_summary(r, o->csv, o->units, f);
                if (o->csv)
                        return ncu_export_details_csv_page(r, o->units, o->details, o->instances, f);
                return ncu_page_details_text(r, o->units, o->details, o->instances, f);
        case NCU_PAGE_RAW:
                if (o->csv)
                        return ncu_export_raw_csv_page(r, o->units, o->instances, f);
                return ncu_page_raw_text(r, o->units, o->instances, f);
        case NCU_PAGE_SESSION:
                return ncu_page_session(r, o->csv, f);
        default:
                assert_not_reached();
        }
}
