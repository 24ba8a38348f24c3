/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* Who a process runs for, from its cgroup v2 path (the "0::" line of /proc/<pid>/cgroup): the systemd unit
 * and slice, the container, the sandboxed application. Only names systemd, podman, docker, machined,
 * Flatpak and snapd give their cgroups are recognised; anything else leaves the field "". */

typedef struct ProcCgroup {
        char *path; /* the cgroup v2 path, "/system.slice/foo.service" */
        /* The last *.service, *.scope, *.socket, *.mount or *.swap component; below a user's manager
         * prefixed with it, "user@1000.service/nginx.service": what names the unit wherever the daemon
         * shows or groups by one, so that no user's own unit passes for a system service. */
        char *unit;
        char *slice; /* the last *.slice component */
        char *container_kind; /* "podman", "docker", "machine" or "" */
        char *container; /* the container id (64 hex digits) or the machine's name */
        char *app_kind; /* "flatpak", "snap" or "" */
        char *app; /* the Flatpak application id, or the snap's name */
} ProcCgroup;

void proc_cgroup_done(ProcCgroup *c);
/* A copy of every field of from, which must be known (path set). 0 or -ENOMEM. */
int proc_cgroup_copy(const ProcCgroup *from, ProcCgroup *to);

/* Takes the contents of /proc/<pid>/cgroup (size bytes, not necessarily NUL-terminated): its cgroup v2
 * "0::" line, or where that is only "/" or missing (systemd's hybrid and legacy modes) the v1
 * "name=systemd" line. -ENODATA when it has neither, -EBADMSG when the path is not an absolute path of
 * printable components of at most 255 bytes. Every field is set ("" when not known) on success. */
int proc_cgroup_parse(const char *text, size_t size, ProcCgroup *ret);

/* The same from a path alone. */
int proc_cgroup_from_path(const char *path, ProcCgroup *ret);

/* The application id of the process's Flatpak sandbox (its /.flatpak-info), which c (known: path set)
 * then names whatever its scope's name said: app_kind "flatpak", app app. 0 or -ENOMEM. */
int proc_cgroup_set_flatpak_app(ProcCgroup *c, const char *app);

/* What a process's usage is grouped under as an application: the Flatpak or snap id, else the unit. */
const char *proc_cgroup_application(const ProcCgroup *c);

/* The unit label of the Prometheus export: the unit, else the cgroup path (a cgroup no unit names, such
 * as libvirt's /machine/qemu-1/emulator), else NULL (the root cgroup, or nothing known). */
const char *proc_cgroup_unit_or_path(const ProcCgroup *c);
