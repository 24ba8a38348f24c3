/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "drm-profiling.h"
#include "drm-sampler.h"
#include "fileio.h"
#include "log.h"
#include "process-observers.h"
#include "process-watch.h"
#include "usage-model.h"
#include "proc-facts.h"
#include "string-util.h"

/* The DRM side of usage: keeps the sampler's index of DRM fd holders current from the manager's events,
 * and reads it when a sample is due. The index is kept only while sampling runs (somebody watches, or
 * IdleIntervalSec= is set): with nobody watching, GPU node opens only mark it stale and cost nothing
 * else. */

#define SWEEP_COALESCE_USEC (50 * 1000)
/* Opens of render nodes are any user's to make: targeted sweeps are at most this frequent. */
#define SWEEP_INTERVAL_MIN_USEC (1000 * 1000)
#define USAGE_PIDS_MAX (4u * 1024u * 1024u)
#define FIXTURE_CLOCK_FILE "nvprofiled-fixture-clock"

static bool sampling(const ManagerUsage *u)
{
        return u->interval_usec > 0;
}

/* A fixture /proc (not the live one) may script the clock each read is stamped with, so that a test's
 * utilisation figures are exact: the file holds CLOCK_MONOTONIC microseconds. */
static uint64_t fixture_clock(void *userdata)
{
        ManagerUsage *u = userdata;
        _cleanup_free_ char *text = NULL;
        size_t size;
        uint64_t v;
        struct timespec ts;

        if (read_virtual_file_at(u->manager->proc_fd, FIXTURE_CLOCK_FILE, 64, &text, &size) >= 0 &&
                        sscanf(text, "%" SCNu64, &v) == 1)
                return v;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* Start time and owner of each holder: the manager's when it tracks the process, else from /proc. */
static void fill_identities(ManagerUsage *u)
{
        Manager *m = u->manager;
        const DrmSamplerHolder *h;

        for (size_t i = 0; drm_sampler_next_holder(u->sampler, &i, &h);) {
                Process *p;
                ProcIdentity id;
                uid_t uid;

                if (h->start_time != 0)
                        continue;
                p = manager_get_process(m, h->pid);
                if (p) {
                        drm_sampler_set_identity(u->sampler, h->pid, p->id.start_time, p->uid);
                        /* A holder is a GPU user, whether it opened a node we watch or got its fd
                         * otherwise (inherited, passed over a socket): worth a process object. */
                        if (!p->gpu_user) {
                                p->gpu_user = true;
                                if (m->callbacks.process_changed)
                                        m->callbacks.process_changed(m, p, m->userdata);
                        }
                        continue;
                }
                if (proc_identity_read(m->proc_fd, h->pid, &id) < 0 ||
                                manager_process_owner(m, h->pid, id.start_time, &uid) < 0)
                        continue;
                drm_sampler_set_identity(u->sampler, h->pid, id.start_time, uid);
        }
}

/* A device whose "profiling" switch was looked at while sampling (DriverProfiling=yes). */
typedef struct UsageProfiled {
        dev_t rdev;
        bool restore; /* we turned it on: it goes back to 0 when sampling stops */
} UsageProfiled;

/* Turns on "profiling" of panfrost/panthor devices found since the last look, remembering which were
 * off; only with DriverProfiling=yes and while sampling runs. */
static void profiling_enable(ManagerUsage *u)
{
        Manager *m = u->manager;

        if (!m->config.drm_profiling || !sampling(u))
                return;
        for (size_t i = 0; i < drm_sampler_n_devices(u->sampler); i++) {
                const DrmSamplerDevice *d = drm_sampler_device(u->sampler, i);
                UsageProfiled *x;
                bool seen = false;
                int was, r;

                if (!drm_driver_has_profiling(d->info.driver))
                        continue;
                for (size_t k = 0; k < u->n_profiled && !seen; k++)
                        seen = u->profiled[k].rdev == d->info.rdev;
                if (seen)
                        continue;
                x = reallocarray(u->profiled, u->n_profiled + 1, sizeof(UsageProfiled));
                if (!x) {
                        log_oom();
                        return;
                }
                u->profiled = x;
                was = drm_profiling_get(m->sys_fd, d->info.rdev);
                if (was < 0)
                        log_debug_errno(was, "GPU %s (%s, %s) has no profiling switch to read", d->info.key,
                                        d->info.driver, d->info.node);
                r = was == 0 ? drm_profiling_set(m->sys_fd, d->info.rdev, true) : 0;
                if (r < 0)
                        log_warning_errno(r, "Cannot turn on profiling of GPU %s (%s)", d->info.key, d->info.driver);
                else if (was == 0)
                        log_info("Profiling of GPU %s (%s) turned on while usage is sampled (DriverProfiling=yes).",
                                        d->info.key, d->info.driver);
                u->profiled[u->n_profiled++] = (UsageProfiled){ .rdev = d->info.rdev, .restore = was == 0 && r >= 0 };
        }
}

/* Puts back what profiling_enable() changed. */
static void profiling_restore(ManagerUsage *u)
{
        for (size_t i = 0; i < u->n_profiled; i++) {
                int r;

                if (!u->profiled[i].restore)
                        continue;
                r = drm_profiling_set(u->manager->sys_fd, u->profiled[i].rdev, false);
                if (r < 0)
                        log_warning_errno(r, "Cannot turn profiling of GPU %u:%u off again", major(u->profiled[i].rdev),
                                        minor(u->profiled[i].rdev));
                else
                        log_info("Profiling of GPU %u:%u turned off again: nobody watches.", major(u->profiled[i].rdev),
                                        minor(u->profiled[i].rdev));
        }
        u->profiled = mfree(u->profiled);
        u->n_profiled = 0;
}

static int sweep(ManagerUsage *u, bool force)
{
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = proc_list_pids(u->manager->proc_fd, USAGE_PIDS_MAX, &pids, &n);
        if (r < 0)
                return log_warning_errno(r, "Cannot list processes");
        r = drm_sampler_sweep(u->sampler, pids, n, force);
        if (r < 0)
                return log_warning_errno(r, "Cannot sweep /proc for DRM file descriptors");
        u->index_stale = false;
        fill_identities(u);
        log_debug("%s sweep: %i processes hold DRM fds.", force ? "Full" : "Targeted", r);
        return 0;
}

static int on_sweep_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        ManagerUsage *u = userdata;

        u->last_sweep_usec = usec;
        (void) sweep(u, false);
        return 0;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        ManagerUsage *u = userdata;
        uint64_t interval = u->manager->config.usage_rescan_interval_usec;

        if (sampling(u))
                (void) sweep(u, true);
        else
                u->index_stale = true;
        if (interval == 0)
                return sd_event_source_set_enabled(s, SD_EVENT_OFF);
        (void) sd_event_source_set_time(s, usec + interval);
        return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

void manager_usage_nodes_opened(Manager *m)
{
        ManagerUsage *u = m->usage;
        uint64_t now, when;
        int r;

        if (!u || !u->sampler)
                return;
        if (!sampling(u)) {
                u->index_stale = true;
                return;
        }
        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        when = MAX(now + SWEEP_COALESCE_USEC, u->last_sweep_usec + SWEEP_INTERVAL_MIN_USEC);
        if (u->sweep_timer) {
                int enabled = SD_EVENT_OFF;
                (void) sd_event_source_get_enabled(u->sweep_timer, &enabled);
                if (enabled != SD_EVENT_OFF)
                        return;
                (void) sd_event_source_set_time(u->sweep_timer, when);
                (void) sd_event_source_set_enabled(u->sweep_timer, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time(m->event, &u->sweep_timer, CLOCK_MONOTONIC, when, 0, on_sweep_timer, u);
        if (r < 0)
                log_warning_errno(r, "Cannot schedule a DRM fd sweep");
}

static void on_process_exec(Manager *m, pid_t pid, void *userdata)
{
        ManagerUsage *u = userdata;
        Process *p;

        /* A child of a holder inherits its DRM fds (a game's launcher, a compositor's children): look at
         * it. Nothing to do, and nothing read, while nobody holds any or nobody watches. */
        if (!u->sampler || !sampling(u) || drm_sampler_n_holders(u->sampler) == 0)
                return;
        /* The manager has just read the process: its parent costs nothing more. */
        p = manager_get_process(m, pid);
        if (!p || p->ppid <= 0 || !drm_sampler_holder(u->sampler, p->ppid))
                return;
        if (drm_sampler_check_pid(u->sampler, pid, false) > 0)
                fill_identities(u);
}

static void on_process_fork(Manager *m, pid_t parent, pid_t child, uint64_t event_ns, void *userdata)
{
        ManagerUsage *u = userdata;
        const DrmSamplerHolder *h;
        ProcIdentity id;

        /* The child shares its parent's DRM fds (same clients): one hash lookup for every other fork. */
        if (!u->sampler || !sampling(u))
                return;
        h = drm_sampler_holder(u->sampler, parent);
        if (!h || (h->start_time != 0 && !manager_event_may_describe(m, event_ns, h->start_time)))
                return;
        /* Only the child that was forked then, not a later holder of its pid. */
        if (proc_identity_read(m->proc_fd, child, &id) < 0 || !manager_event_may_describe(m, event_ns, id.start_time))
                return;
        if (drm_sampler_check_pid(u->sampler, child, false) > 0)
                fill_identities(u);
}

unsigned manager_usage_proc_event_types(Manager *m)
{
        /* FORK events wake the daemon for every process started on the machine: wanted only while
         * usage is sampled and holders are followed. */
        return m->usage && m->usage->sampler && sampling(m->usage) ? 1u << PROC_EVENT_TYPE_FORK : 0;
}

static unsigned on_event_types(Manager *m, void *userdata)
{
        return manager_usage_proc_event_types(m);
}

void usage_drm_sampling_changed(ManagerUsage *u)
{
        if (!sampling(u))
                profiling_restore(u);
        manager_process_event_types_changed(u->manager);
}

static void on_process_exit(Manager *m, pid_t pid, uint64_t event_ns, void *userdata)
{
        ManagerUsage *u = userdata;
        const DrmSamplerHolder *h;

        if (!u->sampler)
                return;
        /* Not a holder that started after the exit: the pid was reused. */
        h = drm_sampler_holder(u->sampler, pid);
        if (h && h->start_time != 0 && !manager_event_may_describe(m, event_ns, h->start_time))
                return;
        drm_sampler_drop_pid(u->sampler, pid);
}

static void on_gpu_nodes_opened(Manager *m, void *userdata)
{
        manager_usage_nodes_opened(m);
}

int usage_drm_observe_processes(ManagerUsage *u)
{
        /* What the index of DRM fd holders follows: execs and forks of holders' children, exits. */
        ProcessObserver o = {
                .exec = on_process_exec,
                .fork = on_process_fork,
                .exit = on_process_exit,
                .gpu_nodes_opened = on_gpu_nodes_opened,
                .event_types = on_event_types,
                .userdata = u,
        };

        return manager_observe_processes(u->manager, &o);
}

/* Whether fd is the live /sys: libdrm reads that one, whatever --sys says. */
static bool is_live_sys(int fd)
{
        struct stat a, b;

        return fstat(fd, &a) >= 0 && stat("/sys", &b) >= 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int usage_drm_start(ManagerUsage *u)
{
        Manager *m = u->manager;
        DrmSamplerConfig c = {
                .drm_major = m->config.drm_major,
                .accel_major = m->config.accel_major,
                .open_files_max = m->config.usage_open_files_max,
                .keep_open = m->real_proc && drm_fdinfo_pread_is_fresh() > 0,
                .use_libdrm = is_live_sys(m->sys_fd),
                .clock = m->real_proc ? NULL : fixture_clock,
                .clock_userdata = u,
        };
        int r;

        r = drm_sampler_new(m->proc_fd, m->sys_fd, &c, &u->sampler);
        if (r < 0)
                return log_error_errno(r, "Cannot set up DRM fdinfo sampling");
        u->drm_usage = drm_usage_new();
        if (!u->drm_usage)
                return log_oom();
        u->index_stale = true;
        snprintf(u->drm_message, sizeof(u->drm_message), "DRM majors %u and %u, fdinfo %s", c.drm_major, c.accel_major,
                        c.keep_open ? "kept open and re-read in place" : "reopened for each sample");
        if (m->config.usage_rescan_interval_usec > 0) {
                r = sd_event_add_time_relative(m->event, &u->rescan_timer, CLOCK_MONOTONIC,
                                m->config.usage_rescan_interval_usec, 0, on_rescan_timer, u);
                if (r < 0)
                        return r;
        }
        return 0;
}

void usage_drm_config_changed(ManagerUsage *u)
{
        uint64_t interval = u->manager->config.usage_rescan_interval_usec;

        if (!u->sampler)
                return;
        if (interval == 0) {
                u->rescan_timer = sd_event_source_disable_unref(u->rescan_timer);
                return;
        }
        if (!u->rescan_timer) {
                if (sd_event_add_time_relative(u->manager->event, &u->rescan_timer, CLOCK_MONOTONIC, interval, 0,
                                    on_rescan_timer, u) < 0)
                        log_warning("Cannot start the DRM rescan timer.");
                return;
        }
        (void) sd_event_source_set_time_relative(u->rescan_timer, interval);
        (void) sd_event_source_set_enabled(u->rescan_timer, SD_EVENT_ON);
}

void usage_drm_stop(ManagerUsage *u)
{
        profiling_restore(u);
        u->sweep_timer = sd_event_source_disable_unref(u->sweep_timer);
        u->rescan_timer = sd_event_source_disable_unref(u->rescan_timer);
        u->sampler = drm_sampler_free(u->sampler);
        u->drm_usage = drm_usage_free(u->drm_usage);
}

int usage_drm_sample(ManagerUsage *u)
{
        int r;

        /* The index was not kept while nobody watched: one sweep brings it up to date (it walks only the
         * fd tables whose size changed since they were last walked). */
        if (u->index_stale) {
                r = sweep(u, false);
                if (r < 0)
                        return r;
        }
        r = drm_sampler_sample(u->sampler, u->drm_usage);
        fill_identities(u);
        /* Devices seen for the first time are switched on for the next sample. */
        profiling_enable(u);
        /* Say so when a device is left alone to sleep, and when it is read again. */
        for (size_t i = 0; i < drm_sampler_n_devices(u->sampler); i++) {
                const DrmSamplerDevice *d = drm_sampler_device(u->sampler, i);

                if (!d->power_changed)
                        continue;
                if (d->power == DRM_POWER_SUSPENDED) {
                        char gpu[sizeof("NVPROFILED_GPU=") + sizeof(d->info.key)];
                        char node[sizeof("NVPROFILED_GPU_NODE=") + sizeof(d->info.node)];
                        const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_GPU_SUSPENDED, gpu, node, NULL };

                        snprintf(gpu, sizeof(gpu), "NVPROFILED_GPU=%s", d->info.key);
                        snprintf(node, sizeof(node), "NVPROFILED_GPU_NODE=%s", d->info.node);
                        (void) log_struct_internal(LOG_INFO, 0, fields,
                                        "GPU %s (%s) is runtime-suspended: its clients are not read, so as not to wake it.",
                                        d->info.key, d->info.node);
                } else if (d->n_samples > 1)
                        log_info("GPU %s (%s) is awake again: its clients are read.", d->info.key, d->info.node);
        }
        return r;
}
