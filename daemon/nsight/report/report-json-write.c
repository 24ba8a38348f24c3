/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "json-util.h"
#include "report-json-attrs.h"
#include "report-json-write.h"

static const int json_flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

int ncu_report_write_json_attrs(const NcuReport *r, FILE *f)
{
        _cleanup_(json_object_putp) struct json_object *header = NULL;
        const char *text;
        size_t n;
        int k;

        assert(r && f);
        k = ncu_report_header_to_json(r, 0, &header);
        if (k < 0)
                return k;
        text = json_object_to_json_string_length(header, json_flags, &n);
        if (!text)
                return -ENOMEM;
        /* The header is the document up to its last member, "ranges": written without its closing
         * brace, then the ranges as json-c writes them in the whole document. */
        assert(n >= 2 && text[n - 1] == '}');
        fwrite(text, 1, n - 1, f);
        fputs(n > 2 ? ",\"ranges\":[" : "\"ranges\":[", f);
        for (size_t i = 0; i < r->n_ranges; i++) {
                fprintf(f, "%s{\"index\":%zu,\"actions\":[", i > 0 ? "," : "", i);
                for (size_t j = 0; j < r->ranges[i].n_actions; j++) {
                        _cleanup_(json_object_putp) struct json_object *a = NULL;

                        k = ncu_action_to_json_with(r->ranges[i].actions[j], 0, ncu_json_add_metric_attrs, NULL, &a);
                        if (k < 0)
                                return k;
                        text = json_object_to_json_string_length(a, json_flags, &n);
                        if (!text)
                                return -ENOMEM;
                        if (j > 0)
                                fputc(',', f);
                        fwrite(text, 1, n, f);
                }
                fputs("]}", f);
        }
        fputs("]}", f);
        return ferror(f) ? -EIO : 0;
}
