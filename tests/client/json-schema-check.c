/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "json-schema-check.h"

static const char *env_or_fail(const char *name)
{
        const char *v = g_getenv(name);

        if (!v)
                g_error("%s is not set: run this through meson test", name);
        return v;
}

void assert_json_valid(const char *text)
{
        g_autofree char *script = g_shell_quote(env_or_fail("NVPROFILED_JSON_SCHEMA_CHECK"));
        g_autofree char *dir = g_shell_quote(env_or_fail("NVPROFILED_JSON_SCHEMAS"));
        g_autofree char *command = g_strdup_printf("python3 %s %s", script, dir);
        FILE *f;
        int status;

        g_assert_nonnull(text);
        /* The checker's findings go to stderr, beside the TAP stream, not into it. */
        fflush(stdout);
        f = popen(command, "w");
        g_assert_nonnull(f);
        g_assert_cmpuint(fwrite(text, 1, strlen(text), f), ==, strlen(text));
        status = pclose(f);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                g_error("not valid against its JSON schema (status %d): %s", status, text);
}
