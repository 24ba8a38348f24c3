/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "settings": the keys of application profiles that we know (daemon/appprofile/rc-settings.c, the same
 * table edits are checked against), without the daemon. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "log.h"
#include "rc-settings.h"
#include "string-util.h"
#include "table.h"

/* The values a key takes, in words: "true|false", "0..255", "string". */
static char *values_of(const RcSettingInfo *s)
{
        char *text = NULL;

        switch (s->type) {
        case RC_SETTING_BOOLEAN:
                return strdup("true|false");
        case RC_SETTING_INTEGER:
                if (asprintf(&text, "%" PRIi64 "..%" PRIi64, s->min, s->max) < 0)
                        return NULL;
                return text;
        default:
                return strdup("string");
        }
}

static struct json_object *setting_json(const RcSettingInfo *s)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "key", json_object_new_string(s->key));
        json_object_object_add(o, "type", json_object_new_string(rc_setting_type_to_string(s->type)));
        /* Only integers have a range: null for the others. */
        json_object_object_add(o, "min", s->type == RC_SETTING_INTEGER ? json_object_new_int64(s->min) : NULL);
        json_object_object_add(o, "max", s->type == RC_SETTING_INTEGER ? json_object_new_int64(s->max) : NULL);
        json_object_object_add(o, "variable", s->variable ? json_object_new_string(s->variable) : NULL);
        json_object_object_add(o, "meaning", json_object_new_string(s->meaning));
        json_object_object_add(o, "documented", json_object_new_boolean(s->documented));
        json_object_object_add(o, "replaced_by", s->replaced_by ? json_object_new_string(s->replaced_by) : NULL);
        return o;
}

static int add_row(Table *t, const RcSettingInfo *s)
{
        _cleanup_free_ char *values = values_of(s);

        if (!values || table_add(t, s->key) < 0 || table_add(t, values) < 0 || table_add(t, strna(s->variable)) < 0)
                return -ENOMEM;
        if (s->replaced_by)
                return table_addf(t, "%s (obsolete: use %s)", s->meaning, s->replaced_by);
        return table_add(t, s->meaning);
}

static int print_table(const RcSettingInfo *known, size_t n)
{
        static const TableColumn columns[] = { { "KEY" }, { "VALUES" }, { "VARIABLE" }, { "MEANING" } };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);

        if (!t)
                return log_oom();
        for (size_t i = 0; i < n; i++)
                if (add_row(t, &known[i]) < 0)
                        return log_oom();
        return table_print(t, stdout, arg.legend ? TABLE_HEADER : 0);
}

int verb_settings(int argc, char *argv[])
{
        const RcSettingInfo *known, *one = NULL;
        size_t n;

        known = rc_settings_known(&n);
        if (argc > 1) {
                _cleanup_(escape_pool_done) EscapePool e = { 0 };

                one = rc_setting_lookup(argv[1]);
                if (!one) {
                        const RcSettingInfo *other = rc_setting_lookup_any_case(argv[1]);

                        if (other)
                                log_error("Unknown key %s: did you mean %s?", esc(&e, argv[1]), other->key);
                        else
                                log_error("Unknown key %s (the driver may still read it; edits write it with a "
                                          "warning).",
                                                esc(&e, argv[1]));
                        return EXIT_FAILURE;
                }
                known = one;
                n = 1;
        }

        if (arg.json != JSON_OFF) {
                _cleanup_(json_object_putp) struct json_object *out = json_object_new_array();

                if (!out)
                        return log_oom();
                /* One key or all: the same list, so that one reader reads both. */
                for (size_t i = 0; i < n; i++)
                        json_object_array_add(out, setting_json(&known[i]));
                return json_print_document("settings", "settings", out);
        }

        return print_table(known, n);
}
