/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "section-listing.h"
#include "strv.h"

typedef struct TableColumn {
        const char *header;
        size_t max_width; /* 0: as wide as the widest cell */
        bool truncate_start; /* too long: "..." and the end; otherwise wrapped */
} TableColumn;

/* Number of lines a cell takes and, for line l, its text. */
static size_t cell_lines(const TableColumn *col, size_t width, const char *s)
{
        size_t len = strlen(s);
        if (col->truncate_start || len <= width)
                return 1;
        return (len + width - 1) / width;
}

static void cell_line(FILE *f, const TableColumn *col, size_t width, const char *s, size_t line)
{
        size_t len = strlen(s), printed;

        if (col->truncate_start && len > width) {
                if (line == 0) {
                        fprintf(f, "...%s", s + len - (width - 3));
                        printed = width;
                } else
                        printed = 0;
        } else {
                size_t from = MIN(line * width, len);
                printed = MIN(width, len - from);
                fwrite(s + from, 1, printed, f);
        }
        for (; printed < width; printed++)
                fputc(' ', f);
}

static void table_print(FILE *f, const TableColumn *cols, size_t n_cols, char *const *cells, size_t n_rows)
{
        size_t width[8] = { 0 };

        assert(n_cols <= ELEMENTSOF(width));
        for (size_t c = 0; c < n_cols; c++) {
                width[c] = strlen(cols[c].header);
                for (size_t r = 0; r < n_rows; r++)
                        width[c] = MAX(width[c], strlen(cells[r * n_cols + c]));
                if (cols[c].max_width > 0)
                        width[c] = MIN(width[c], cols[c].max_width);
        }

        for (int pass = 0; pass < 3; pass++) {
                for (size_t c = 0; c < n_cols; c++) {
                        if (c > 0)
                                fputc(' ', f);
                        if (pass == 1)
                                cell_line(f, &cols[c], width[c], cols[c].header, 0);
                        else
                                for (size_t k = 0; k < width[c]; k++)
                                        fputc('-', f);
                }
                fputc('\n', f);
        }

        for (size_t r = 0; r < n_rows; r++) {
                size_t lines = 1;
                for (size_t c = 0; c < n_cols; c++)
                        lines = MAX(lines, cell_lines(&cols[c], width[c], cells[r * n_cols + c]));
                for (size_t l = 0; l < lines; l++) {
                        for (size_t c = 0; c < n_cols; c++) {
                                if (c > 0)
                                        fputc(' ', f);
                                cell_line(f, &cols[c], width[c], cells[r * n_cols + c], l);
                        }
                        fputc('\n', f);
                }
        }
}

int section_listing_sections(const SectionCatalog *c, FILE *f)
{
        static const TableColumn section_cols[] = {
                { "Identifier" },
                { "Display Name" },
                { "Enabled" },
                { "Filename", 50, true },
        };
        static const TableColumn error_cols[] = {
                { "Filename", 50, true },
                { "Error", 50, false },
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

        _cleanup_free_ char **cells = calloc(MAX(n_sorted * 4, n_broken * 2) + 1, sizeof(char *));
        if (!cells)
                return -ENOMEM;
        for (size_t i = 0; i < n_sorted; i++) {
                const NV__Profiler__ProfilerSection *s = sorted[i]->section;
                cells[i * 4] = s->identifier;
                cells[i * 4 + 1] = s->displayname;
                cells[i * 4 + 2] = (char *) (section_in_set(s, SECTION_DEFAULT_SET) ? "yes" : "no");
                cells[i * 4 + 3] = sorted[i]->display;
        }
        table_print(f, section_cols, ELEMENTSOF(section_cols), cells, n_sorted);

        if (n_broken == 0)
                return 0;

        /* ncu's error text ends in a newline that it wraps like any other character. */
        _cleanup_strv_free_ char **texts = calloc(n_broken + 1, sizeof(char *));
        if (!texts)
                return -ENOMEM;
        for (size_t i = 0; i < n_broken; i++) {
                if (asprintf(&texts[i], "%s\n", broken[i]->error) < 0) {
                        texts[i] = NULL;
                        return -ENOMEM;
                }
                cells[i * 2] = broken[i]->display;
                cells[i * 2 + 1] = texts[i];
        }
        fputc('\n', f);
        table_print(f, error_cols, ELEMENTSOF(error_cols), cells, n_broken);
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
                { "Sections", 75, false },
                { "Enabled" },
                { "Estimated Metrics" },
        };
        SectionSet *sets = NULL;
        size_t n_sets = 0;
        int r;

        r = section_catalog_sets(c, &sets, &n_sets);
        if (r < 0)
                return r;

        char **cells = calloc(n_sets * 4 + 1, sizeof(char *));
        if (!cells) {
                section_sets_free(sets, n_sets);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n_sets && r >= 0; i++) {
                size_t len = 0;
                FILE *m = open_memstream(&cells[i * 4 + 1], &len);
                if (!m) {
                        r = -ENOMEM;
                        break;
                }
                for (size_t k = 0; k < sets[i].n; k++)
                        fprintf(m, "%s%s", k > 0 ? ", " : "", sets[i].sections[k]->section->identifier);
                fclose(m);
                cells[i * 4] = strdup(sets[i].name);
                cells[i * 4 + 2] = strdup(streq(sets[i].name, SECTION_DEFAULT_SET) ? "yes" : "no");
                if (asprintf(&cells[i * 4 + 3], "%zu", estimate ? estimate(&sets[i], userdata) : (size_t) 0) < 0)
                        cells[i * 4 + 3] = NULL;
                if (!cells[i * 4] || !cells[i * 4 + 1] || !cells[i * 4 + 2] || !cells[i * 4 + 3])
                        r = -ENOMEM;
        }
        if (r >= 0)
                table_print(f, cols, ELEMENTSOF(cols), cells, n_sets);
        for (size_t i = 0; i < n_sets * 4; i++)
                free(cells[i]);
        free(cells);
        section_sets_free(sets, n_sets);
        return r;
}
