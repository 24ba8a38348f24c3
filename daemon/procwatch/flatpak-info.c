/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flatpak-info.h"
#include "string-util.h"

/* The key file rules of GLib's gkeyfile.c, as far as a group and one key need them: lines end at '\n'
 * (a '\r' before it is part of no token); leading blanks are skipped; '#' starts a comment; "[NAME]"
 * (blanks after it allowed) opens a group, and a group named twice is one group; "KEY = VALUE" is a pair,
 * its key without trailing blanks and its value without leading ones; a localised key ("name[de]") is
 * another key. */

#define APP_ID_MAX 255u

bool flatpak_app_id_valid(const char *id)
{
        size_t len = strlen(id);

        if (len == 0 || len > APP_ID_MAX || !strchr(id, '.') || id[0] == '.' || id[len - 1] == '.' || strstr(id, ".."))
                return false;
        for (const char *p = id; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                                    *p == '_' || *p == '-'))
                        return false;
        return true;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* A line without its leading blanks and its end ('\r' before '\n' too). */
static void trim(const char **s, size_t *n)
{
        while (*n > 0 && is_blank(**s)) {
                (*s)++;
                (*n)--;
        }
        while (*n > 0 && ((*s)[*n - 1] == '\r' || is_blank((*s)[*n - 1])))
                (*n)--;
}

/* "[NAME]": whether the line is a group, and the name. */
static bool line_group(const char *s, size_t n, const char **ret, size_t *ret_n)
{
        const char *close;

        if (n < 2 || s[0] != '[')
                return false;
        close = memchr(s, ']', n);
        if (!close || close != s + n - 1)
                return false;
        *ret = s + 1;
        *ret_n = (size_t) (close - s - 1);
        return true;
}

/* Whether the pair in l (n bytes, trimmed) has the key "name"; its value then. */
static bool pair_is_name(const char *l, size_t n, const char *eq, const char **ret, size_t *ret_n)
{
        size_t key_n = (size_t) (eq - l);

        while (key_n > 0 && is_blank(l[key_n - 1]))
                key_n--;
        if (key_n != strlen("name") || memcmp(l, "name", key_n) != 0)
                return false;
        for (eq++; eq < l + n && is_blank(*eq); eq++)
                ;
        *ret = eq;
        *ret_n = (size_t) (l + n - eq);
        return true;
}

static int fault(unsigned line, unsigned *ret_line)
{
        if (ret_line)
                *ret_line = line;
        return -EBADMSG;
}

int flatpak_info_parse(const char *text, size_t size, char **ret_app, unsigned *ret_line)
{
        _cleanup_free_ char *app = NULL;
        const char *end = text + size, *next;
        bool in_group = false, in_application = false;
        unsigned line = 0, app_line = 0;

        assert(text || size == 0);
        assert(ret_app);

        if (size > FLATPAK_INFO_MAX)
                return -EFBIG;
        if (memchr(text, '\0', size) || !utf8_is_valid_n(text, size))
                return fault(0, ret_line);
        for (const char *l = text; l < end; l = next) {
                const char *eol = memchr(l, '\n', (size_t) (end - l)), *name, *eq, *value;
                size_t n = (size_t) ((eol ? eol : end) - l), name_n, value_n;

                next = l + n + 1;
                line++;
                trim(&l, &n);
                if (n == 0 || l[0] == '#')
                        continue;
                if (line_group(l, n, &name, &name_n)) {
                        in_group = true;
                        in_application = name_n == strlen("Application") && memcmp(name, "Application", name_n) == 0;
                        continue;
                }
                eq = memchr(l, '=', n);
                if (!eq || eq == l || !in_group)
                        return fault(line, ret_line);
                if (!in_application || !pair_is_name(l, n, eq, &value, &value_n))
                        continue;
                free(app);
                app = strndup(value, value_n);
                if (!app)
                        return -ENOMEM;
                app_line = line;
        }
        if (!app)
                return -ENODATA;
        if (!flatpak_app_id_valid(app))
                return fault(app_line, ret_line);
        *ret_app = TAKE_PTR(app);
        return 0;
}
