/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>

#include "fd-util.h"
#include "log.h"
#include "prometheus-textfile.h"
#include "manager-usage.h"
#include "prometheus-metrics.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

typedef struct ExportLookup {
        Manager *m;
        ProcCgroup cgroup; /* of the latest lookup */
} ExportLookup;

/* The same unit the Usage interface reports: the snapshot's when the process is in it, else read now (a
 * test's DRM model, or a process that came after the latest sample). */
static int export_lookup(pid_t pid, void *userdata, UsageExportOwner *ret)
{
        ExportLookup *l = userdata;
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        const UsageProcess *up = l->m->usage ? usage_snapshot_find_process(manager_usage_snapshot(l->m), pid) : NULL;
        Process *p;
        int r = 0;

        proc_cgroup_done(&l->cgroup);
        if (up && up->cgroup.path)
                r = proc_cgroup_copy(&up->cgroup, &l->cgroup);
        else {
                r = proc_facts_open(l->m->proc_fd, pid, NULL, &f, &dfd);
                if (r >= 0)
                        r = proc_facts_add(dfd, PROC_FACTS_CGROUP, NULL, &f);
                if (r >= 0) {
                        l->cgroup = f.cgroup;
                        f.cgroup = (ProcCgroup){ 0 };
                }
        }
        if (r == -ENOMEM)
                return r;

        p = manager_get_process(l->m, pid);
        if (!p && r < 0)
                return r;
        *ret = (UsageExportOwner){
                .unit = l->cgroup.path ? proc_cgroup_unit_or_path(&l->cgroup) : NULL,
                .profile = p && p->profiles ? p->profiles[0] : NULL,
                .comm = p ? p->comm : NULL,
        };
        return 0;
}

int manager_export_write(Manager *m)
{
        _cleanup_free_ const NvmlDeviceUsage **devices = NULL;
        _cleanup_free_ char *text = NULL;
        ExportLookup lookup = { .m = m };
        const DrmUsage *drm = m->export_drm ? m->export_drm : manager_usage(m);
        const NvmlSource *nvml = m->export_nvml ? m->export_nvml : manager_usage_nvml(m);
        size_t size = 0, n_devices = 0;
        UsageExportInput in;
        int r;

        assert(m);

        if (!m->config.export_textfile)
                return 0;
        if (!m->usage_export) {
                m->usage_export = usage_export_new();
                if (!m->usage_export)
                        return -ENOMEM;
        }

        if (nvml && nvml_source_state(nvml) == NVML_SOURCE_READY) {
                size_t n = nvml_source_n_devices(nvml);

                devices = calloc(n > 0 ? n : 1, sizeof(*devices));
                if (!devices)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        devices[n_devices++] = nvml_source_device(nvml, i);
        }

        in = (UsageExportInput){
                .version = PACKAGE_VERSION,
                .drm = drm,
                .nvml_devices = devices,
                .n_nvml_devices = n_devices,
                .lookup = export_lookup,
                .userdata = &lookup,
                .flags = m->config.export_process_labels ? USAGE_EXPORT_PROCESS_LABELS : 0,
        };
        r = usage_export_render(m->usage_export, &in, &text, &size);
        proc_cgroup_done(&lookup.cgroup);
        if (r < 0)
                return r;

        r = usage_export_write_file(m->config.export_textfile, text, size, 0640, m->export_gid);
        if (r < 0)
                return r;
        m->n_exports++;
        return 0;
}

static void export_and_log(Manager *m)
{
        int r;

        r = manager_export_write(m);
        if (r < 0) {
                m->n_export_failures++;
                if (m->export_error != r) {
                        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_EXPORT_FAILED, NULL };

                        (void) log_struct_internal(LOG_WARNING, r, fields, "Cannot write the export file %s",
                                        m->config.export_textfile);
                }
                m->export_error = r;
                return;
        }
        if (m->export_error != 0)
                log_info("Export file %s written again.", m->config.export_textfile);
        m->export_error = 0;
}

static int on_export_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        export_and_log(m);
        return sd_event_source_set_time_relative(s, m->config.export_interval_usec);
}

int manager_export_start(Manager *m)
{
        int r;

        assert(m);

        if (!m->config.export_textfile)
                return 0;

        m->export_gid = (gid_t) -1;
        if (m->config.export_group) {
                /* Once, at start: NSS may be slow, and the event loop must not wait for it later. */
                struct group *g = getgrnam(m->config.export_group);

                if (!g)
                        log_warning("ExportGroup=%s: no such group; the export file stays readable by root only.",
                                        m->config.export_group);
                else
                        m->export_gid = g->gr_gid;
        }

        /* The daemon samples only while somebody watches: the export is a watcher, at its interval. */
        if (m->usage) {
                r = manager_usage_watch(m, 0, m->config.export_interval_usec, -1, &m->export_watch);
                if (r < 0)
                        log_warning_errno(r, "Cannot have GPU usage sampled for the export");
        }

        export_and_log(m);
        r = sd_event_add_time_relative(m->event, &m->export_timer, CLOCK_MONOTONIC, m->config.export_interval_usec,
                        m->config.export_interval_usec / 20, on_export_timer, m);
        if (r < 0)
                return log_error_errno(r, "Cannot start the export timer");
        return sd_event_source_set_enabled(m->export_timer, SD_EVENT_ON);
}

void manager_export_stop(Manager *m)
{
        assert(m);

        m->export_timer = sd_event_source_disable_unref(m->export_timer);
        if (m->export_watch)
                m->export_watch = manager_usage_unwatch(m->export_watch);
        m->usage_export = usage_export_free(m->usage_export);
}

void manager_export_set_sources(Manager *m, const DrmUsage *drm, const NvmlSource *nvml)
{
        assert(m);

        m->export_drm = drm;
        m->export_nvml = nvml;
}
