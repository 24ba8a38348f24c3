/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>

#include "fd-util.h"
#include "log.h"
#include "prometheus-textfile.h"
#include "manager-usage.h"
#include "process-observers.h"
#include "prometheus-metrics.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

/* The export's own state, created with the first need of it and kept until the manager's end (its
 * counters and the tests' sources outlive a stop and start at a reload). */
typedef struct PrometheusTextfile {
        PrometheusMetrics *metrics;
        sd_event_source *timer;
        UsageWatch *watch; /* keeps the sampler going at the export interval */
        const DrmUsage *drm; /* tests' sources instead of the sampler's */
        const NvmlSource *nvml;
        gid_t gid;
        int error; /* of the latest write, to log a failure once */
        uint64_t n_writes, n_failures;
} PrometheusTextfile;

static PrometheusTextfile *export_of(Manager *m)
{
        if (!m->prometheus_textfile) {
                m->prometheus_textfile = calloc(1, sizeof(PrometheusTextfile));
                if (m->prometheus_textfile)
                        m->prometheus_textfile->gid = (gid_t) -1;
        }
        return m->prometheus_textfile;
}

typedef struct ExportLookup {
        Manager *m;
        ProcCgroup cgroup; /* of the latest lookup */
} ExportLookup;

/* The same unit the Usage interface reports: the snapshot's when the process is in it, else read now (a
 * test's DRM model, or a process that came after the latest sample). */
static int export_lookup(pid_t pid, void *userdata, PrometheusMetricsOwner *ret)
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
        *ret = (PrometheusMetricsOwner){
                .unit = l->cgroup.path ? proc_cgroup_unit_or_path(&l->cgroup) : NULL,
                .profile = p && p->profiles ? p->profiles[0] : NULL,
                .comm = p ? p->comm : NULL,
        };
        return 0;
}

int manager_prometheus_write(Manager *m)
{
        _cleanup_free_ const NvmlDeviceUsage **devices = NULL;
        _cleanup_free_ char *text = NULL;
        ExportLookup lookup = { .m = m };
        const DrmUsage *drm;
        const NvmlSource *nvml;
        size_t size = 0, n_devices = 0;
        PrometheusMetricsInput in;
        PrometheusTextfile *e;
        int r;

        assert(m);

        if (!m->config.export_textfile)
                return 0;
        e = export_of(m);
        if (!e)
                return -ENOMEM;
        if (!e->metrics) {
                e->metrics = prometheus_metrics_new();
                if (!e->metrics)
                        return -ENOMEM;
        }
        drm = e->drm ? e->drm : manager_usage(m);
        nvml = e->nvml ? e->nvml : manager_usage_nvml(m);

        if (nvml && nvml_source_state(nvml) == NVML_SOURCE_READY) {
                size_t n = nvml_source_n_devices(nvml);

                devices = calloc(n > 0 ? n : 1, sizeof(*devices));
                if (!devices)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        devices[n_devices++] = nvml_source_device(nvml, i);
        }

        in = (PrometheusMetricsInput){
                .version = PACKAGE_VERSION,
                .drm = drm,
                .nvml_devices = devices,
                .n_nvml_devices = n_devices,
                .lookup = export_lookup,
                .userdata = &lookup,
                .flags = m->config.export_process_labels ? PROMETHEUS_METRICS_PROCESS_LABELS : 0,
        };
        r = prometheus_metrics_render(e->metrics, &in, &text, &size);
        proc_cgroup_done(&lookup.cgroup);
        if (r < 0)
                return r;

        r = prometheus_metrics_write_file(m->config.export_textfile, text, size, 0640, e->gid);
        if (r < 0)
                return r;
        e->n_writes++;
        return 0;
}

static void export_and_log(Manager *m, PrometheusTextfile *e)
{
        int r;

        r = manager_prometheus_write(m);
        if (r < 0) {
                e->n_failures++;
                if (e->error != r) {
                        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_EXPORT_FAILED, NULL };

                        (void) log_struct_internal(LOG_WARNING, r, fields, "Cannot write the export file %s",
                                        m->config.export_textfile);
                }
                e->error = r;
                return;
        }
        if (e->error != 0)
                log_info("Export file %s written again.", m->config.export_textfile);
        e->error = 0;
}

static int on_export_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        export_and_log(m, m->prometheus_textfile);
        return sd_event_source_set_time_relative(s, m->config.export_interval_usec);
}

int manager_prometheus_start(Manager *m)
{
        PrometheusTextfile *e;
        int r;

        assert(m);

        if (!m->config.export_textfile)
                return 0;
        e = export_of(m);
        if (!e)
                return log_oom();

        e->gid = (gid_t) -1;
        if (m->config.export_group) {
                /* Once, at start: NSS may be slow, and the event loop must not wait for it later. */
                struct group *g = getgrnam(m->config.export_group);

                if (!g)
                        log_warning("ExportGroup=%s: no such group; the export file stays readable by root only.",
                                        m->config.export_group);
                else
                        e->gid = g->gr_gid;
        }

        /* The daemon samples only while somebody watches: the export is a watcher, at its interval. */
        if (m->usage) {
                r = manager_usage_watch(m, 0, m->config.export_interval_usec, -1, &e->watch);
                if (r < 0)
                        log_warning_errno(r, "Cannot have GPU usage sampled for the export");
        }

        export_and_log(m, e);
        r = sd_event_add_time_relative(m->event, &e->timer, CLOCK_MONOTONIC, m->config.export_interval_usec,
                        m->config.export_interval_usec / 20, on_export_timer, m);
        if (r < 0)
                return log_error_errno(r, "Cannot start the export timer");
        return sd_event_source_set_enabled(e->timer, SD_EVENT_ON);
}

void manager_prometheus_stop(Manager *m)
{
        PrometheusTextfile *e;

        assert(m);

        e = m->prometheus_textfile;
        if (!e)
                return;
        e->timer = sd_event_source_disable_unref(e->timer);
        if (e->watch)
                e->watch = manager_usage_unwatch(e->watch);
        e->metrics = prometheus_metrics_free(e->metrics);
}

void manager_prometheus_free(Manager *m)
{
        manager_prometheus_stop(m);
        m->prometheus_textfile = mfree(m->prometheus_textfile);
}

void manager_prometheus_set_sources(Manager *m, const DrmUsage *drm, const NvmlSource *nvml)
{
        PrometheusTextfile *e;

        assert(m);

        e = export_of(m);
        if (!e) {
                (void) log_oom();
                return;
        }
        e->drm = drm;
        e->nvml = nvml;
}

uint64_t manager_prometheus_n_writes(const Manager *m)
{
        return m->prometheus_textfile ? m->prometheus_textfile->n_writes : 0;
}

uint64_t manager_prometheus_n_failures(const Manager *m)
{
        return m->prometheus_textfile ? m->prometheus_textfile->n_failures : 0;
}

bool manager_prometheus_running(const Manager *m)
{
        return m->prometheus_textfile && m->prometheus_textfile->timer;
}
