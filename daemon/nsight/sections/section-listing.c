/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "section-listing.h"
#include "strv.h"
#include "table.h"

int section_listing_sections(const SectionCatalog *c, FILE *f)
{
        static const TableColumn section_cols[] = {
                { "Identifier" },
                { "Display Name" },
                { "Enabled" },
                { "Filename", .max_width = 50, .cut_start = true },
        };
        static const TableColumn error_cols[] = {
                { "Filename", .max_width = 50, .cut_start = true },
                { "Error", .max_width = 50 },
        };
        _cleanup_free_ const SectionEntry **sorted = NULL, **broken = NULL;
        size_t n_sorted, n_broken;
        int r;

        r = section_catalog_sorted(c, &sorted, &n_sorted);
        if (r < 0)
                return r;
        r = section_catalog_errors(c, &broken, &n_broken);
        if (r < 0)
                return r;

        _cleanup_(table_freep) Table *sections = table_new(section_cols, ELEMENTSOF(section_cols), NULL);
        if (!sections)
                return -ENOMEM;
        for (size_t i = 0; i < n_sorted; i++) {
                const NV__Profiler__ProfilerSection *s = sorted[i]->section;
                if (table_add(sections, s->identifier) < 0 || table_add(sections, s->displayname) < 0 ||
                                table_add(sections, section_in_set(s, SECTION_DEFAULT_SET) ? "yes" : "no") < 0 ||
                                table_add(sections, sorted[i]->display) < 0)
                        return -ENOMEM;
        }
        r = table_print(sections, f, TABLE_HEADER | TABLE_RULES);
        if (r < 0 || n_broken == 0)
                return r;

        /* ncu's error text ends in a newline that it wraps like any other character. */
        _cleanup_(table_freep) Table *errors = table_new(error_cols, ELEMENTSOF(error_cols), NULL);
        if (!errors)
                return -ENOMEM;
        for (size_t i = 0; i < n_broken; i++)
                if (table_add(errors, broken[i]->display) < 0 || table_addf(errors, "%s\n", broken[i]->error) < 0)
                        return -ENOMEM;
        fputc('\n', f);
        r = table_print(errors, f, TABLE_HEADER | TABLE_RULES);
        if (r < 0)
                return r;
        fputs("You can use --section-folder-restore to restore the deployed section and rule files to their "
              "stock version.\n",
                        f);
        return 0;
}

int section_listing_sets(const SectionCatalog *c, size_t (*estimate)(const SectionSet *set, void *userdata),
                void *userdata, FILE *f)
{
        static const TableColumn cols[] = {
                { "Identifier" },
                { "Sections", .max_width = 75 },
                { "Enabled" },
                { "Estimated Metrics" },
        };
        SectionSet *sets = NULL;
        size_t n_sets = 0;
        int r;

        r = section_catalog_sets(c, &sets, &n_sets);
        if (r < 0)
                return r;

        Table *t = table_new(cols, ELEMENTSOF(cols), NULL);
        if (!t)
                r = -ENOMEM;
        for (size_t i = 0; i < n_sets && r >= 0; i++) {
                _cleanup_free_ char *identifiers = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&identifiers, &len);
                if (!m) {
                        r = -ENOMEM;
                        break;
                }
                for (size_t k = 0; k < sets[i].n; k++)
                        fprintf(m, "%s%s", k > 0 ? ", " : "", sets[i].sections[k]->section->identifier);
                fclose(m);
                if (table_add(t, sets[i].name) < 0 || table_add(t, identifiers) < 0 ||
                                table_add(t, streq(sets[i].name, SECTION_DEFAULT_SET) ? "yes" : "no") < 0 ||
                                table_addf(t, "%zu", estimate ? estimate(&sets[i], userdata) : (size_t) 0) < 0)
                        r = -ENOMEM;
        }
        if (r >= 0)
                r = table_print(t, f, TABLE_HEADER | TABLE_RULES);
        table_free(t);
        section_sets_free(sets, n_sets);
        return r;
}
