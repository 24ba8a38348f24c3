/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The words of the details page (report-details-walk.h): breakdown labels as ncu builds them from a metric's
 * name, and rule messages, their type tag, their speedup, and their text without the markup. */

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "report-details-walk.h"
#include "report-csv-cells.h"
#include "string-util.h"

/* "{UNIT}: {COMPOUND_NAME}" labels of breakdowns: the hardware unit in capitals and the counter's words
 * capitalized ("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed" -> "SM: Inst Executed Pipe
 * Lsu"). ncu names some units differently from their prefix. */
char *ncu_details_breakdown_label(const char *template, const char *name)
{
        static const struct {
                const char *prefix, *unit;
        } unit_names[] = {
                { "l1tex", "L1" },
                { "lts", "L2" },
                { "fbpa", "DRAM" },
                { "dram", "DRAM" },
        };
        const char *sep = strstr(name, "__");
        const char *end = strchr(name, '.');
        char unit[64], words[256];
        size_t n = 0;

        if (!sep || (end && end < sep))
                return strdup(name);
        if (!strstr(template, "{UNIT}") || !strstr(template, "{COMPOUND_NAME}"))
                return strdup(template);
        if (!end)
                end = name + strlen(name);

        snprintf(unit, sizeof(unit), "%.*s", (int) (sep - name), name);
        for (size_t i = 0; i < ELEMENTSOF(unit_names); i++)
                if (streq(unit, unit_names[i].prefix))
                        snprintf(unit, sizeof(unit), "%s", unit_names[i].unit);
        for (char *p = unit; *p; p++)
                if (*p >= 'a' && *p <= 'z')
                        *p = (char) (*p - 'a' + 'A');

        bool word_start = true;
        for (const char *p = sep + 2; p < end && n + 1 < sizeof(words); p++) {
                char c = *p;
                if (c == '_') {
                        words[n++] = ' ';
                        word_start = true;
                        continue;
                }
                if (word_start && c >= 'a' && c <= 'z')
                        c = (char) (c - 'a' + 'A');
                words[n++] = c;
                word_start = false;
        }
        words[n] = 0;

        /* The template around them stays ("SOL {UNIT}: {COMPOUND_NAME}" in older sections). */
        const char *u = strstr(template, "{UNIT}"), *w = strstr(template, "{COMPOUND_NAME}");
        char *s;
        if (u < w) {
                if (asprintf(&s, "%.*s%s%.*s%s%s", (int) (u - template), template, unit,
                                    (int) (w - u - strlen("{UNIT}")), u + strlen("{UNIT}"), words,
                                    w + strlen("{COMPOUND_NAME}")) < 0)
                        return NULL;
        } else if (asprintf(&s, "%.*s%s%.*s%s%s", (int) (w - template), template, words,
                                   (int) (u - w - strlen("{COMPOUND_NAME}")), w + strlen("{COMPOUND_NAME}"), unit,
                                   u + strlen("{UNIT}")) < 0)
                return NULL;
        return s;
}

const char *ncu_details_message_type(uint32_t type)
{
        switch (type) {
        case NCU_RULE_MSG_OK:
                return "INF";
        case NCU_RULE_MSG_WARNING:
                return "WRN";
        case NCU_RULE_MSG_ERROR:
                return "ERR";
        case NCU_RULE_MSG_OPTIMIZATION:
                return "OPT";
        default:
                return "";
        }
}

const NcuSpeedup *ncu_details_rule_speedup(const NcuRuleResult *rr, size_t i)
{
        /* The rule's speedup estimates follow its messages one to one. */
        if (i < rr->n_speedups && rr->speedups[i].has_value)
                return &rr->speedups[i];
        return NULL;
}

void ncu_details_markup_parse(const char *s, NcuMarkupSpan span, void *userdata)
{
        assert(s);
        assert(span);

        for (const char *p = s; *p;) {
                const char *at = strchr(p, '@');
                if (!at) {
                        span(userdata, NCU_MARKUP_TEXT, p, strlen(p), NULL, 0);
                        return;
                }
                if (at > p)
                        span(userdata, NCU_MARKUP_TEXT, p, at - p, NULL, 0);
                const char *end = strchr(at + 1, '@');
                const char *kind_end = strchr(at + 1, ':');
                if (!end || !kind_end || kind_end > end) {
                        span(userdata, NCU_MARKUP_TEXT, "@", 1, NULL, 0);
                        p = at + 1;
                        continue;
                }
                size_t kind_len = kind_end - at - 1;
                const char *body = kind_end + 1;
                const char *colon = memchr(body, ':', end - body);
                if (kind_len == 3 && strneq(at + 1, "url", 3) && colon)
                        span(userdata, NCU_MARKUP_URL, body, colon - body, colon + 1, end - colon - 1);
                else if (kind_len == 7 && strneq(at + 1, "section", 7) && colon)
                        span(userdata, NCU_MARKUP_SECTION, colon + 1, end - colon - 1, body, colon - body);
                else if (colon)
                        span(userdata, NCU_MARKUP_TEXT, colon + 1, end - colon - 1, NULL, 0);
                else
                        span(userdata, NCU_MARKUP_TEXT, body, end - body, NULL, 0);
                p = end + 1;
        }
}

static void plain_span(void *userdata, NcuMarkupKind kind, const char *text, size_t n_text, const char *target,
                size_t n_target)
{
        Cell *c = userdata;

        cell_append(c, text, n_text);
        if (kind == NCU_MARKUP_URL) {
                cell_puts(c, " (");
                cell_append(c, target, n_target);
                cell_puts(c, ")");
        }
}

char *ncu_details_plain_message(const char *s)
{
        Cell c = { .data = NULL };

        ncu_details_markup_parse(s, plain_span, &c);
        cell_puts(&c, "");
        if (c.failed) {
                cell_done(&c);
                return NULL;
        }
        return c.data ? c.data : strdup("");
}
