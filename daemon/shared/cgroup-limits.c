/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-limits.h"
#include "fileio.h"
#include "macro.h"
#include "parse-util.h"
#include "string-util.h"

#define CGROUP_FILE_MAX 4096u

/* Whether the comma-separated list has controller. */
static bool has_controller(const char *list, size_t n, const char *controller)
{
        size_t len = strlen(controller);

        for (const char *p = list, *end = list + n; p < end;) {
                const char *comma = memchr(p, ',', (size_t) (end - p));
                size_t k = comma ? (size_t) (comma - p) : (size_t) (end - p);

                if (k == len && memcmp(p, controller, len) == 0)
                        return true;
                p += k + 1;
        }
        return false;
}

/* The file of controller under the v1 hierarchy that holds it, or under v2's path. */
static int limit_file(const char *text, size_t size, const char *sys_fs_cgroup, const char *controller,
                const char *v1_file, const char *v2_file, char **ret)
{
        const char *v2_path = NULL, *end = text + size;
        size_t v2_len = 0;

        for (const char *line = text; line < end;) {
                const char *nl = memchr(line, '\n', (size_t) (end - line));
                const char *stop = nl ? nl : end;
                const char *c1 = memchr(line, ':', (size_t) (stop - line));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t) (stop - c1 - 1)) : NULL;

                if (c2 && c2[1] == '/') {
                        if (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0') {
                                v2_path = c2 + 1;
                                v2_len = (size_t) (stop - v2_path);
                        } else if (has_controller(c1 + 1, (size_t) (c2 - c1 - 1), controller))
                                return asprintf(ret, "%s/%s%.*s/%s", sys_fs_cgroup, controller, (int) (stop - c2 - 1),
                                                       c2 + 1, v1_file) < 0
                                                ? -ENOMEM
                                                : 0;
                }
                line = stop + 1;
        }
        if (!v2_path) {
                *ret = NULL;
                return 0;
        }
        return asprintf(ret, "%s%.*s/%s", sys_fs_cgroup, (int) v2_len, v2_path, v2_file) < 0 ? -ENOMEM : 0;
}

int cgroup_limit_files(
                const char *text, size_t size, const char *sys_fs_cgroup, char **ret_tasks_file, char **ret_memory_file)
{
        _cleanup_free_ char *tasks = NULL, *memory = NULL;
        int r;

        assert(text || size == 0);
        assert(sys_fs_cgroup);
        assert(ret_tasks_file);
        assert(ret_memory_file);

        r = limit_file(text, size, sys_fs_cgroup, "pids", "pids.max", "pids.max", &tasks);
        if (r < 0)
                return r;
        r = limit_file(text, size, sys_fs_cgroup, "memory", "memory.limit_in_bytes", "memory.max", &memory);
        if (r < 0)
                return r;
        *ret_tasks_file = TAKE_PTR(tasks);
        *ret_memory_file = TAKE_PTR(memory);
        return 0;
}

int cgroup_limit_parse(const char *text, uint64_t *ret)
{
        char buf[32];
        size_t n;
        uint64_t v;
        int r;

        assert(text);
        assert(ret);

        n = strcspn(text, "\n");
        if (n == 0 || n >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, text, n);
        buf[n] = '\0';
        if (streq(buf, "max")) {
                *ret = CGROUP_LIMIT_NONE;
                return 0;
        }
        r = safe_atou64(buf, &v);
        if (r < 0)
                return -EINVAL;
        /* v1 says "no limit" with the largest page-aligned number it has (9223372036854771712). */
        *ret = v > (UINT64_C(1) << 62) ? CGROUP_LIMIT_NONE : v;
        return 0;
}

static uint64_t read_limit(const char *path)
{
        _cleanup_free_ char *text = NULL;
        uint64_t v;

        if (!path || read_virtual_file_at(AT_FDCWD, path, CGROUP_FILE_MAX, &text, NULL) < 0 ||
                        cgroup_limit_parse(text, &v) < 0)
                return CGROUP_LIMIT_NONE;
        return v;
}

void cgroup_limits_read_self(CgroupLimits *ret)
{
        _cleanup_free_ char *text = NULL, *tasks = NULL, *memory = NULL;
        size_t size;

        assert(ret);

        *ret = (CgroupLimits){ CGROUP_LIMIT_NONE, CGROUP_LIMIT_NONE };
        if (read_virtual_file_at(AT_FDCWD, "/proc/self/cgroup", CGROUP_FILE_MAX, &text, &size) < 0 ||
                        cgroup_limit_files(text, size, "/sys/fs/cgroup", &tasks, &memory) < 0)
                return;
        ret->tasks_max = read_limit(tasks);
        ret->memory_max = read_limit(memory);
}
