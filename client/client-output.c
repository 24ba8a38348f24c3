/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every verb prints the same way: JSON documents, setting values, diagnostics, user names. */

#include <inttypes.h>
#include <pwd.h>

#include "client.h"
#include "log.h"

void json_print(struct json_object *o)
{
        int flags = arg.json == JSON_PRETTY ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                            : JSON_C_TO_STRING_PLAIN;

        puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
}

int json_print_document(const char *name, const char *items_key, struct json_object *o)
{
        _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();
        _cleanup_free_ char *schema = NULL;

        assert(name);
        assert(o);
        assert(items_key ? json_object_is_type(o, json_type_array) : json_object_is_type(o, json_type_object));

        if (!doc || asprintf(&schema, JSON_SCHEMA_PREFIX "%s", name) < 0)
                return log_oom();
        /* First, so that a reader (or a person) sees what the document is before anything else. */
        if (json_object_object_add(doc, "schema", json_object_new_string(schema)) < 0 ||
                        json_object_object_add(doc, "schema_version", json_object_new_int(JSON_SCHEMA_VERSION)) < 0)
                return log_oom();
        if (items_key) {
                if (json_object_object_add(doc, items_key, json_object_get(o)) < 0)
                        return log_oom();
        } else
                for (struct json_object_iterator it = json_object_iter_begin(o), end = json_object_iter_end(o);
                                !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
                        if (json_object_object_add(doc, json_object_iter_peek_name(&it),
                                            json_object_get(json_object_iter_peek_value(&it))) < 0)
                                return log_oom();
        json_print(doc);
        return 0;
}

const char *value_text(EscapePool *pool, struct json_object *v)
{
        _cleanup_free_ char *quoted = NULL;

        assert(pool);

        if (!v)
                return "?";
        if (!json_object_is_type(v, json_type_string))
                /* Numbers and booleans are ours to format; an array's strings are escaped as JSON first. */
                return esc(pool,
                                json_object_to_json_string_ext(
                                                v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (asprintf(&quoted, "\"%s\"", json_object_get_string(v)) < 0)
                return "(out of memory)";
        return esc(pool, quoted);
}

void print_diagnostic(FILE *f, const char *file, uint32_t line, uint32_t column, const char *severity,
                const char *message, const char *suffix)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        assert(f);

        if (file && *file) {
                fputs(esc(&e, file), f);
                if (line > 0) {
                        fprintf(f, ":%" PRIu32, line);
                        if (column > 0)
                                fprintf(f, ":%" PRIu32, column);
                }
                fputs(": ", f);
        }
        fprintf(f, "%s: %s%s\n", esc(&e, severity), esc(&e, message), strempty(suffix));
}

const char *user_name(uint32_t uid, char buf[static 16])
{
        struct passwd *pw = getpwuid(uid);

        /* User names come from NSS, which may serve anything: they are escaped where printed. */
        if (pw)
                return pw->pw_name;
        snprintf(buf, 16, "%" PRIu32, uid);
        return buf;
}
