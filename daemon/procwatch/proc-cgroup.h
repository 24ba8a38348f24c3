/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* Who a process runs for, from its cgroup v2 path (the "0::" line of /proc/<pid>/cgroup): the systemd unit
 * and slice, the container, the sandboxed application. Only names systemd, podman, docker, machined,
 * Flatpak and snapd give their cgroups are recognised; anything else leaves the field "". */

typedef struct ProcCgroup {
        char *path; /* the cgroup v2 path, "/system.slice/foo.service" */
        char *unit; /* the last *.service or *.scope component */
        char *slice; /* the last *.slice component */
        char *container_kind; /* "podman", "docker", "machine" or "" */
        char *container; /* the container id (64 hex digits) or the machine's name */
        char *app_kind; /* "flatpak", "snap" or "" */
        char *app; /* the Flatpak application id, or the snap's name */
} ProcCgroup;

void proc_cgroup_done(ProcCgroup *c);

/* Takes the contents of /proc/<pid>/cgroup (size bytes, not necessarily NUL-terminated). -ENODATA when it
 * has no cgroup v2 line (a v1-only system), -EBADMSG when that line's path is not an absolute path of
 * printable components of at most 255 bytes. Every field is set ("" when not known) on success. */
int proc_cgroup_parse(const char *text, size_t size, ProcCgroup *ret);

/* The same from a path alone. */
int proc_cgroup_from_path(const char *path, ProcCgroup *ret);

/* What a process's usage is grouped under as an application: the Flatpak or snap id, else the unit. */
const char *proc_cgroup_application(const ProcCgroup *c);
