/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every verb prints the same way: JSON documents, setting values, diagnostics, user names. */

#include <inttypes.h>
#include <pwd.h>

#include "client.h"

void json_print(struct json_object *o)
{
        int flags = arg.json == JSON_PRETTY ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                            : JSON_C_TO_STRING_PLAIN;

        puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
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
