/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <stdio.h>

#include "fileio.h"
#include "rc-searchpath.h"
#include "string-util.h"

#define DRIVER_VERSION_MAX 32u

bool rc_driver_version_is_valid(const char *v)
{
        size_t n = 0;
        bool dot = false;

        if (!v || !isdigit((unsigned char) *v))
                return false;
        for (; *v; v++, n++) {
                if (*v == '.')
                        dot = true;
                else if (!isdigit((unsigned char) *v))
                        return false;
        }
        return dot && n <= DRIVER_VERSION_MAX;
}

int rc_entry_path(RcEntryKind kind, const char *home, const char *version, char **ret)
{
        const char *fixed = NULL;
        int r = 0;

        assert(ret);

        switch (kind) {
        case RC_ENTRY_USER_FILE:
        case RC_ENTRY_USER_DIR:
                if (!home || !*home)
                        return -ENOENT;
                if (home[0] != '/')
                        return -EINVAL;
                r = asprintf(ret, "%s%s.nv/nvidia-application-profiles-rc%s", home, endswith(home, "/") ? "" : "/",
                                kind == RC_ENTRY_USER_DIR ? ".d" : "");
                break;
        case RC_ENTRY_SYSTEM_FILE:
                fixed = "/etc/nvidia/nvidia-application-profiles-rc";
                break;
        case RC_ENTRY_SYSTEM_DIR:
                fixed = "/etc/nvidia/nvidia-application-profiles-rc.d";
                break;
        case RC_ENTRY_SHIPPED:
                if (!version)
                        return -ENOENT;
                if (!rc_driver_version_is_valid(version))
                        return -EINVAL;
                r = asprintf(ret, "/usr/share/nvidia/nvidia-application-profiles-%s-rc", version);
                break;
        case _RC_ENTRY_KIND_MAX:
                assert(false);
        }

        if (fixed) {
                *ret = strdup(fixed);
                return *ret ? 0 : -ENOMEM;
        }
        return r < 0 ? -ENOMEM : 0;
}

bool rc_entry_kind_is_user(RcEntryKind kind)
{
        return kind == RC_ENTRY_USER_FILE || kind == RC_ENTRY_USER_DIR;
}

const char *rc_entry_kind_to_string(RcEntryKind kind)
{
        switch (kind) {
        case RC_ENTRY_USER_FILE:
                return "user-file";
        case RC_ENTRY_USER_DIR:
                return "user-directory";
        case RC_ENTRY_SYSTEM_FILE:
                return "system-file";
        case RC_ENTRY_SYSTEM_DIR:
                return "system-directory";
        case RC_ENTRY_SHIPPED:
                return "shipped";
        case _RC_ENTRY_KIND_MAX:
                break;
        }
        return NULL;
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.153.02  Tue May 13 ..." or, for the open modules,
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.153.02  Release Build ...": the first
 * token that looks like a version. */
static int version_from_proc(const char *text, char **ret)
{
        const char *p = text;

        if (!startswith(text, "NVRM version:"))
                return -EBADMSG;

        while (*p && *p != '\n') {
                size_t len;

                p += strspn(p, " \t");
                len = strcspn(p, " \t\n");
                if (len > 0 && len <= DRIVER_VERSION_MAX) {
                        char buf[DRIVER_VERSION_MAX + 1];

                        memcpy(buf, p, len);
                        buf[len] = '\0';
                        if (rc_driver_version_is_valid(buf)) {
                                *ret = strdup(buf);
                                return *ret ? 0 : -ENOMEM;
                        }
                }
                p += len;
        }
        return -EBADMSG;
}

/* sysfs has the bare version on one line. */
static int version_from_sys(const char *text, char **ret)
{
        _cleanup_free_ char *v = strndup(text, strcspn(text, "\n"));

        if (!v)
                return -ENOMEM;
        if (!rc_driver_version_is_valid(v))
                return -EBADMSG;
        *ret = TAKE_PTR(v);
        return 0;
}

static int version_from_file(int dir_fd, const char *path, int (*parse)(const char *text, char **ret), char **ret)
{
        _cleanup_free_ char *text = NULL;
        int r;

        r = read_virtual_file_at(dir_fd, path, 4096, &text, NULL);
        if (r < 0)
                return r;
        return parse(text, ret);
}

int rc_driver_version_detect(int proc_fd, int sys_fd, char **ret)
{
        assert(ret);

        /* Either source may be absent (no driver, a container) or unreadable: a failure of one only means
         * trying the other. */
        if (proc_fd >= 0 && version_from_file(proc_fd, "driver/nvidia/version", version_from_proc, ret) >= 0)
                return 0;
        if (sys_fd >= 0 && version_from_file(sys_fd, "module/nvidia/version", version_from_sys, ret) >= 0)
                return 0;
        return -ENOENT;
}
