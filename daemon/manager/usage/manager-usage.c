/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "fd-util.h"
#include "log.h"
#include "usage-model.h"
#include "manager-usage.h"
#include "process-observers.h"
#include "string-util.h"

struct UsageWatch {
        ManagerUsage *usage;
        UsageWatch *next;
        uid_t uid;
        uint64_t interval_usec;
        int fd;
        sd_event_source *source;
};

static ManagerUsage *usage_of(Manager *m)
{
        assert(m->usage);
        return m->usage;
}

static void notify_changed(Manager *m)
{
        if (m->callbacks.usage_changed)
                m->callbacks.usage_changed(m, m->userdata);
}

/* The interval the timer runs at: the fastest watch's, else the idle one. */
static uint64_t wanted_interval(const ManagerUsage *u)
{
        uint64_t best = 0;

        for (const UsageWatch *w = u->watches; w; w = w->next)
                if (best == 0 || w->interval_usec < best)
                        best = w->interval_usec;
        return best > 0 ? best : u->manager->config.usage_idle_interval_usec;
}

static int on_sample_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* NVML is open only while sampling runs: an initialised NVML is reported to hold a GPU's runtime PM
 * reference (nvtop #230, btop #738), and an idle daemon must not keep a dGPU awake. */
static void nvml_open(ManagerUsage *u)
{
        Manager *m = u->manager;
        int r;

        if (u->nvml || !m->config.nvml)
                return;
        r = nvml_source_open(m->config.nvml_library, m->sys_fd, &u->nvml);
        if (r < 0)
                log_warning_errno(r, "Cannot open the NVML source");
        else
                log_info("%s", nvml_source_message(u->nvml));
}

static int update_timer(ManagerUsage *u)
{
        uint64_t interval = wanted_interval(u);
        int r;

        if (interval == u->interval_usec && (interval == 0) == !u->sample_timer)
                return 0;
        if ((interval == 0) != (u->interval_usec == 0)) {
                u->interval_usec = interval;
                usage_drm_sampling_changed(u);
        }
        u->interval_usec = interval;
        if (interval == 0) {
                u->sample_timer = sd_event_source_disable_unref(u->sample_timer);
                u->nvml = nvml_source_free(u->nvml);
                return 0;
        }
        nvml_open(u);
        if (u->sample_timer) {
                r = sd_event_source_set_time_relative(u->sample_timer, 0);
                if (r < 0)
                        return r;
                return sd_event_source_set_enabled(u->sample_timer, SD_EVENT_ON);
        }
        /* The first sample at once: a watcher wants figures, and the first sample gives no utilisation. */
        return sd_event_add_time_relative(
                        u->manager->event, &u->sample_timer, CLOCK_MONOTONIC, 0, 0, on_sample_timer, u);
}

static void notify_watchers(ManagerUsage *u)
{
        for (UsageWatch *w = u->watches; w; w = w->next)
                if (w->fd >= 0)
                        (void) send(w->fd, "s", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static int on_sample_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        ManagerUsage *u = userdata;
        int r;

        r = manager_usage_sample(u->manager);
        if (r < 0)
                log_warning_errno(r, "GPU usage sample failed");
        notify_watchers(u);
        if (u->interval_usec == 0)
                return sd_event_source_set_enabled(s, SD_EVENT_OFF);
        r = sd_event_source_set_time(s, usec + u->interval_usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

void manager_usage_config_changed(Manager *m)
{
        ManagerUsage *u = m->usage;

        if (!u)
                return;
        /* IdleIntervalSec= may start or stop sampling; WatchIntervalSec= and MinIntervalSec= apply to the
         * watches made from now on. */
        (void) update_timer(u);
        usage_drm_config_changed(u);
        notify_changed(m);
}

UsageWatch *manager_usage_unwatch(UsageWatch *w)
{
        ManagerUsage *u;

        if (!w)
                return NULL;
        u = w->usage;
        for (UsageWatch **p = &u->watches; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        break;
                }
        u->n_watches--;
        sd_event_source_disable_unref(w->source);
        safe_close(w->fd);
        free(w);
        (void) update_timer(u);
        notify_changed(u->manager);
        return NULL;
}

static int on_watch_hangup(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        UsageWatch *w = userdata;
        char buf[64];

        /* The caller's end closed (or it wrote to us, which means nothing): only a hangup ends it. */
        if (!(revents & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))) {
                while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
                        ;
                return 0;
        }
        manager_usage_unwatch(w);
        return 0;
}

int manager_usage_watch(Manager *m, uid_t uid, uint64_t interval_usec, int notify_fd, UsageWatch **ret)
{
        ManagerUsage *u = usage_of(m);
        unsigned mine = 0;
        UsageWatch *w;
        int r;

        for (const UsageWatch *x = u->watches; x; x = x->next)
                if (x->uid == uid)
                        mine++;
        if (u->n_watches >= USAGE_WATCHERS_MAX || mine >= m->config.usage_watchers_per_user)
                return -E2BIG;

        w = calloc(1, sizeof(UsageWatch));
        if (!w)
                return -ENOMEM;
        *w = (UsageWatch){
                .usage = u,
                .uid = uid,
                .interval_usec = MAX(interval_usec > 0 ? interval_usec : m->config.usage_watch_interval_usec,
                                m->config.usage_min_interval_usec),
                .fd = -EBADF,
        };
        if (w->interval_usec == 0)
                w->interval_usec = 1000000;
        if (notify_fd >= 0) {
                r = sd_event_add_io(m->event, &w->source, notify_fd, EPOLLIN | EPOLLRDHUP, on_watch_hangup, w);
                if (r < 0) {
                        free(w);
                        return r;
                }
                w->fd = notify_fd;
        }
        w->next = u->watches;
        u->watches = w;
        u->n_watches++;
        r = update_timer(u);
        if (r < 0)
                log_warning_errno(r, "Cannot start GPU usage sampling");
        notify_changed(m);
        if (ret)
                *ret = w;
        return 0;
}

int manager_usage_start(Manager *m)
{
        _cleanup_free_ ManagerUsage *u = NULL;
        int r;

        if (m->usage)
                return 0;
        u = calloc(1, sizeof(ManagerUsage));
        if (!u)
                return log_oom();
        u->manager = m;
        r = usage_drm_start(u);
        if (r < 0)
                return r;
        m->usage = TAKE_PTR(u);
        /* Before the timer: sampling asks for FORK events through the observer. */
        r = usage_drm_observe_processes(m->usage);
        if (r < 0)
                return log_oom();
        return update_timer(m->usage);
}

void manager_usage_stop(Manager *m)
{
        ManagerUsage *u = m->usage;

        if (!u)
                return;
        while (u->watches) {
                UsageWatch *w = u->watches;
                u->watches = w->next;
                sd_event_source_disable_unref(w->source);
                safe_close(w->fd);
                free(w);
        }
        manager_unobserve_processes(m, u);
        sd_event_source_disable_unref(u->sample_timer);
        usage_drm_stop(u);
        nvml_source_free(u->nvml);
        usage_snapshot_done(&u->snapshot);
        usage_pci_names_free(u);
        m->usage = mfree(u);
}

int manager_usage_sample(Manager *m)
{
        ManagerUsage *u = usage_of(m);
        _cleanup_(usage_snapshot_done) UsageSnapshot s = { 0 };
        uint64_t now;
        int r;

        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return r;

        r = usage_drm_sample(u);
        if (r < 0)
                log_warning_errno(r, "DRM fdinfo sample incomplete");
        if (u->nvml && nvml_source_state(u->nvml) == NVML_SOURCE_READY) {
                r = nvml_source_sample(u->nvml);
                if (r < 0)
                        log_warning_errno(r, "NVML sample failed");
        }

        r = usage_snapshot_build(u, now, &s);
        if (r < 0)
                return r;
        usage_snapshot_done(&u->snapshot);
        u->snapshot = s;
        s = (UsageSnapshot){ 0 };
        u->n_samples++;
        return 0;
}

const UsageSnapshot *manager_usage_snapshot(Manager *m)
{
        static const UsageSnapshot empty = { 0 };
        return m->usage ? &m->usage->snapshot : &empty;
}

const DrmUsage *manager_usage(Manager *m)
{
        return m->usage ? m->usage->drm_usage : NULL;
}

const NvmlSource *manager_usage_nvml(Manager *m)
{
        return m->usage ? m->usage->nvml : NULL;
}

uint64_t manager_usage_interval(Manager *m)
{
        return m->usage && m->usage->sample_timer ? m->usage->interval_usec : 0;
}

unsigned manager_usage_n_watchers(Manager *m)
{
        return m->usage ? m->usage->n_watches : 0;
}

uint64_t manager_usage_n_samples(Manager *m)
{
        return m->usage ? m->usage->n_samples : 0;
}

void manager_usage_source_state(Manager *m, const char *source, const char **ret_state, const char **ret_message)
{
        ManagerUsage *u = m->usage;

        if (streq(source, USAGE_SOURCE_NVML)) {
                /* Neither is a failure: clients show a warning only for "unavailable". */
                if (!m->config.nvml) {
                        *ret_state = "disabled";
                        *ret_message = "NVML disabled (NVML=no)";
                        return;
                }
                if (!u || !u->nvml) {
                        *ret_state = "idle";
                        *ret_message = "NVML not loaded: it is loaded only while sampling runs";
                        return;
                }
                *ret_state = nvml_source_state(u->nvml) == NVML_SOURCE_READY ? "ready" : "unavailable";
                *ret_message = nvml_source_message(u->nvml);
                return;
        }
        *ret_state = u ? "ready" : "unavailable";
        *ret_message = u ? u->drm_message : "not started";
}
