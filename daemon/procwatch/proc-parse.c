/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>

#include "parse-util.h"
#include "proc-parse.h"
#include "string-util.h"
#include "strv.h"

int proc_parse_stat(const char *text, size_t size, uint64_t *ret_start_time, pid_t *ret_ppid)
{
        const char *p = NULL, *end = text + size;
        uint64_t start_time = 0;
        pid_t ppid = 0;

        assert(text || size == 0);

        for (const char *q = text; q < end; q++)
                if (*q == ')')
                        p = q;
        if (!p)
                return -EBADMSG;
        p++;

        /* After ')': field 3 (state) is the first. */
        for (unsigned field = 3; field <= 22; field++) {
                char buf[32];
                size_t len;

                while (p < end && *p == ' ')
                        p++;
                len = 0;
                while (p + len < end && p[len] != ' ' && p[len] != '\n')
                        len++;
                if (len == 0 || len >= sizeof(buf))
                        return -EBADMSG;
                memcpy(buf, p, len);
                buf[len] = '\0';
                p += len;

                if (field == 4) {
                        uint32_t v;
                        if (safe_atou32(buf, &v) < 0 || v > INT32_MAX)
                                return -EBADMSG;
                        ppid = (pid_t) v;
                } else if (field == 22) {
                        if (safe_atou64(buf, &start_time) < 0)
                                return -EBADMSG;
                }
        }

        if (ret_start_time)
                *ret_start_time = start_time;
        if (ret_ppid)
                *ret_ppid = ppid;
        return 0;
}

int proc_parse_status_uid(const char *text, size_t size, uid_t *ret_uid)
{
        const char *p = text, *end = text + size;

        assert(text || size == 0);

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);

                if (len > 4 && strneq(p, "Uid:", 4)) {
                        char buf[16];
                        size_t i = 4, n = 0;
                        uint32_t uid;

                        while (i < len && isspace((unsigned char) p[i]))
                                i++;
                        while (i < len && isdigit((unsigned char) p[i]) && n < sizeof(buf) - 1)
                                buf[n++] = p[i++];
                        buf[n] = '\0';
                        if (safe_atou32(buf, &uid) < 0 || uid == UINT32_MAX)
                                return -EBADMSG;
                        *ret_uid = (uid_t) uid;
                        return 0;
                }
                p = nl ? nl + 1 : end;
        }
        return -EBADMSG;
}

/* The mapped file of one maps line ("addr perms offset dev inode   /path", " (deleted)" cut), or NULL for
 * an anonymous mapping. A '/' can only start the path, since the fields before it are hex, letters and
 * ':'. */
static const char *maps_line_path(const char *line, size_t len, size_t *ret_len)
{
        const char *path = memchr(line, '/', len);
        size_t plen;

        if (!path)
                return NULL;
        plen = len - (size_t) (path - line);
        if (plen > strlen(" (deleted)") &&
                        memcmp(path + plen - strlen(" (deleted)"), " (deleted)", strlen(" (deleted)")) == 0)
                plen -= strlen(" (deleted)");
        *ret_len = plen;
        return path;
}

/* Consecutive mappings of one file are the norm; compare with the last few only. */
static bool maps_recently_seen(char *const *paths, size_t n, const char *path, size_t plen)
{
        for (size_t i = n; i > 0 && i + 8 > n; i--)
                if (strlen(paths[i - 1]) == plen && memcmp(paths[i - 1], path, plen) == 0)
                        return true;
        return false;
}

int proc_parse_maps(const char *text, size_t size, size_t max, char ***ret_paths, bool *ret_truncated)
{
        _cleanup_strv_free_ char **paths = NULL;
        const char *p = text, *end = text + size;
        size_t n = 0, allocated = 0;
        bool truncated = false;

        assert(text || size == 0);
        assert(ret_paths);

        for (; p < end;) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p), plen = 0;
                const char *path = maps_line_path(p, len, &plen);

                p = nl ? nl + 1 : end;
                if (!path || maps_recently_seen(paths, n, path, plen))
                        continue;
                if (n >= max) {
                        truncated = true;
                        break;
                }
                if (GREEDY_REALLOC(paths, allocated, n + 2) < 0)
                        return -ENOMEM;
                paths[n] = strndup(path, plen);
                if (!paths[n])
                        return -ENOMEM;
                paths[++n] = NULL;
        }

        if (!paths) {
                paths = calloc(1, sizeof(char *));
                if (!paths)
                        return -ENOMEM;
        }
        *ret_paths = TAKE_PTR(paths);
        if (ret_truncated)
                *ret_truncated = truncated;
        return 0;
}

int proc_parse_environ(const char *buf, size_t size, size_t max, char ***ret_env)
{
        _cleanup_strv_free_ char **env = NULL;
        const char *p = buf, *end = buf + size;
        size_t n = 0;
        int r;

        assert(buf || size == 0);
        assert(ret_env);

        while (p < end) {
                const char *z = memchr(p, '\0', (size_t) (end - p));
                size_t len = z ? (size_t) (z - p) : (size_t) (end - p);

                if ((len > 5 && strneq(p, "HOME=", 5)) || (len > 5 && strneq(p, "__GL_", 5))) {
                        /* Values land in D-Bus replies: skip what is not UTF-8 rather than fail. */
                        if (n < max && utf8_is_valid_n(p, len)) {
                                r = strv_consume(&env, strndup(p, len));
                                if (r < 0)
                                        return r;
                                n++;
                        }
                }
                p += len + 1;
        }

        if (!env) {
                env = calloc(1, sizeof(char *));
                if (!env)
                        return -ENOMEM;
        }
        *ret_env = TAKE_PTR(env);
        return 0;
}

int proc_parse_stat_comm(const char *text, size_t size, char *comm, size_t comm_size, char *ret_state)
{
        const char *open, *close = NULL, *end = text + size;
        size_t len;

        assert(text || size == 0);
        assert(comm);
        assert(comm_size > 0);

        open = size > 0 ? memchr(text, '(', size) : NULL;
        if (!open)
                return -EBADMSG;
        for (const char *q = open + 1; q < end; q++)
                if (*q == ')')
                        close = q;
        if (!close || end - close < 3 || close[1] != ' ')
                return -EBADMSG;

        len = (size_t) (close - open - 1);
        /* /proc/<pid>/comm is read up to its first newline; a name can hold one (prctl takes any byte). */
        len = strnlen(open + 1, MIN(len, comm_size - 1));
        {
                const char *nl = memchr(open + 1, '\n', len);
                if (nl)
                        len = (size_t) (nl - open - 1);
        }
        memcpy(comm, open + 1, len);
        comm[len] = '\0';
        if (ret_state)
                *ret_state = close[2];
        return 0;
}
