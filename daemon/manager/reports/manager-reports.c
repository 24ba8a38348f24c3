/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "manager-reports.h"
#include "report-budget.h"
#include "manager.h"
#include "report-limits.h"
#include "report-page-encoding.h"
#include "report-server.h"
#include "report-worker.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/libexec"
#endif

/* A reply's reservation: read into the daemon, then copied into its D-Bus message. */
#define REPLY_CHARGE(max_reply) (2 * (uint64_t) (max_reply))
/* An output too small to hold anything useful is not started. */
#define OUTPUT_MIN ((uint64_t) 64 * 1024)
#define PAGE_ROUND(n) (((n) + 4095u) & ~(uint64_t) 4095u)

typedef struct ReportOutput ReportOutput;

struct ManagerReport {
        ManagerReports *rs;
        uint64_t id;
        char *owner;
        uid_t uid;
        int fd; /* the caller's descriptor, read again by diffs */
        int64_t start; /* its offset at LoadReport, where the report starts; -1 when it cannot seek */
        uint64_t memory; /* the worker's reservation */
        NcuReportServer *server;
        bool loaded;
        ManagerReportLoaded loaded_cb;
        void *loaded_userdata;
        unsigned n_calls; /* calls waiting, in flight included */
        uint64_t call_bytes; /* their replies' reservations */
        sd_event_source *idle;
        ManagerReport *prev, *next;
};

/* An export or diff: while it is made, what it may take (and a diff's worker); then the memfd its caller
 * holds. */
struct ReportOutput {
        ManagerReports *rs;
        char *owner;
        uid_t uid;
        uint64_t charge; /* the memfd: its limit while made, then its size */
        uint64_t worker_memory; /* a diff's own worker, while it runs */
        int fd; /* our descriptor of the memfd: read-write, sealed against growing past its limit */
        int wd; /* the inotify watch once held, else -1 */
        bool held;
        ManagerReportOutputDone done;
        void *userdata;
        /* A diff: its worker, the reports it reads (by id: they may end before it does) and their
         * descriptors, and its arguments. */
        NcuReportServer *server;
        uint64_t current_id, baseline_id;
        int baseline_fd;
        int64_t baseline_start;
        void *args;
        size_t args_size;
        ReportOutput *prev, *next;
};

struct ManagerReports {
        Manager *manager;
        ManagerReport *reports;
        ReportOutput *outputs;
        uint64_t last_id;
        int inotify_fd;
        sd_event_source *inotify_source;
        /* A worker started and confined ahead of the next LoadReport ([Reports] SpareWorker=): started
         * after each load, ended IdleSec= after the last. The daemon's own, charged to nobody until a
         * load takes it. */
        NcuReportServer *spare;
        sd_event_source *spare_timer;
        bool spare_expires; /* the timer's next firing ends the spare (else it starts one) */
};

typedef struct ReportCall {
        ManagerReport *report;
        uint64_t charge;
        ManagerReportReply reply;
        void *userdata;
} ReportCall;

static const char *worker_path(void)
{
        /* Tests run the daemon from the build tree; only whoever starts the daemon sets its environment. */
        const char *p = getenv("NVPROFILED_REPORT_WORKER");
        return p && p[0] == '/' ? p : LIBEXECDIR "/" NCU_REPORT_WORKER_NAME;
}

static ManagerReports *reports_of(const Manager *m)
{
        return m->reports;
}

static uint64_t report_charge(const ManagerReport *r)
{
        return r->memory + r->call_bytes;
}

static uint64_t output_charge(const ReportOutput *o)
{
        return o->charge + o->worker_memory;
}

uint64_t manager_reports_memory(const Manager *m, uid_t uid)
{
        const ManagerReports *rs = reports_of(m);
        uint64_t bytes = 0;

        for (const ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next)
                if (r->uid == uid)
                        bytes += report_charge(r);
        for (const ReportOutput *o = rs ? rs->outputs : NULL; o; o = o->next)
                if (o->uid == uid)
                        bytes += output_charge(o);
        return bytes;
}

uint64_t manager_reports_memory_total(const Manager *m)
{
        const ManagerReports *rs = reports_of(m);
        uint64_t bytes = 0;

        for (const ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next)
                bytes += report_charge(r);
        for (const ReportOutput *o = rs ? rs->outputs : NULL; o; o = o->next)
                bytes += output_charge(o);
        return bytes;
}

unsigned manager_reports_count(const Manager *m, uid_t uid)
{
        const ManagerReports *rs = reports_of(m);
        unsigned n = 0;

        for (const ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next)
                n += r->uid == uid;
        for (const ReportOutput *o = rs ? rs->outputs : NULL; o; o = o->next)
                n += o->uid == uid && o->server; /* a diff's worker */
        return n;
}

unsigned manager_reports_count_total(const Manager *m)
{
        const ManagerReports *rs = reports_of(m);
        unsigned n = 0;

        for (const ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next)
                n++;
        for (const ReportOutput *o = rs ? rs->outputs : NULL; o; o = o->next)
                n += !!o->server;
        return n;
}

unsigned manager_reports_outputs(const Manager *m, uid_t uid)
{
        const ManagerReports *rs = reports_of(m);
        unsigned n = 0;

        for (const ReportOutput *o = rs ? rs->outputs : NULL; o; o = o->next)
                n += o->uid == uid;
        return n;
}

/* The budgets in force: the configured ones within the daemon's cgroup. */
static ReportBudget budget(const Manager *m)
{
        ReportBudget b;

        report_budget_fit(&m->config, &m->cgroup_limits, &b);
        return b;
}

/* What uid may still be charged: the least of its share and of what is left for everyone. */
static uint64_t memory_left(const Manager *m, uid_t uid)
{
        uint64_t used = manager_reports_memory(m, uid), total = manager_reports_memory_total(m);
        ReportBudget b = budget(m);
        uint64_t user_left = used < b.memory_per_user_max ? b.memory_per_user_max - used : 0;
        uint64_t total_left = total < b.memory_max ? b.memory_max - total : 0;

        return MIN(user_left, total_left);
}

/* Whether a worker may start for uid; *ret_why says which cap refuses it. */
static int check_worker_caps(const Manager *m, uid_t uid, const char **ret_why)
{
        ReportBudget b = budget(m);

        if (manager_reports_count(m, uid) >= b.workers_per_user_max) {
                *ret_why = "a user may hold ReportsPerUserMax= reports (and diffs being made); close one first";
                return -E2BIG;
        }
        if (manager_reports_count_total(m) >= b.workers_max) {
                *ret_why = "the daemon serves ReportsMax= reports (and diffs being made) at most";
                return -E2BIG;
        }
        return 0;
}

static void output_free(ReportOutput *o)
{
        ManagerReports *rs;

        if (!o)
                return;
        rs = o->rs;
        if (o->prev)
                o->prev->next = o->next;
        else if (rs->outputs == o)
                rs->outputs = o->next;
        if (o->next)
                o->next->prev = o->prev;
        if (o->wd >= 0)
                (void) inotify_rm_watch(rs->inotify_fd, o->wd);
        /* Whoever may still hold a descriptor of it reads an empty file: the pages go now. */
        if (o->fd >= 0)
                (void) ftruncate(o->fd, 0);
        safe_close(o->fd);
        safe_close(o->baseline_fd);
        ncu_report_server_free(o->server);
        free(o->args);
        free(o->owner);
        free(o);
}

/* The output failed (or its report ended before it was made). */
static void output_fail(ReportOutput *o, int error, const char *message)
{
        ManagerReportOutputDone done = o->done;
        void *userdata = o->userdata;

        o->done = NULL;
        output_free(o);
        if (done)
                done(error, -EBADF, message, userdata);
}

static void on_inotify_event(ManagerReports *rs, const struct inotify_event *ev)
{
        if (ev->mask & IN_Q_OVERFLOW) {
                /* Which closes were lost cannot be told: those memfds stay charged until their owners
                 * leave the bus. */
                log_debug("Report outputs: inotify queue overflow");
                return;
        }
        for (ReportOutput *o = rs->outputs; o; o = o->next)
                if (o->held && o->wd == ev->wd) {
                        if (ev->mask & IN_IGNORED)
                                o->wd = -1;
                        log_user_debug(o->uid, "Report output of uid %u (%" PRIu64 " bytes) released",
                                        (unsigned) o->uid, o->charge);
                        output_free(o);
                        return;
                }
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ManagerReports *rs = userdata;
        union {
                struct inotify_event ev;
                uint8_t raw[4096];
        } buf;

        for (;;) {
                ssize_t n = read(fd, &buf, sizeof(buf));

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return 0; /* EAGAIN */
                }
                for (size_t off = 0; off + sizeof(struct inotify_event) <= (size_t) n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) (buf.raw + off);

                        on_inotify_event(rs, ev);
                        off += sizeof(struct inotify_event) + ev->len;
                }
        }
}

int manager_reports_new(Manager *m, ManagerReports **ret)
{
        ManagerReports *rs;
        int r;

        rs = calloc(1, sizeof(ManagerReports));
        if (!rs)
                return -ENOMEM;
        rs->manager = m;
        rs->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (rs->inotify_fd < 0) {
                r = -errno;
                free(rs);
                return r;
        }
        r = sd_event_add_io(m->event, &rs->inotify_source, rs->inotify_fd, EPOLLIN, on_inotify, rs);
        /* Before the bus: a caller that closed an output and then asks for another finds it released. */
        if (r >= 0)
                r = sd_event_source_set_priority(rs->inotify_source, SD_EVENT_PRIORITY_IMPORTANT);
        if (r < 0) {
                rs->inotify_source = sd_event_source_disable_unref(rs->inotify_source);
                safe_close(rs->inotify_fd);
                free(rs);
                return r;
        }
        *ret = rs;
        return 0;
}

static void report_free(ManagerReport *r);

ManagerReports *manager_reports_free(ManagerReports *rs)
{
        if (!rs)
                return NULL;
        rs->spare_timer = sd_event_source_disable_unref(rs->spare_timer);
        rs->spare = ncu_report_server_free(rs->spare);
        while (rs->reports)
                report_free(rs->reports);
        while (rs->outputs)
                output_fail(rs->outputs, -ECANCELED, "the daemon is stopping");
        sd_event_source_disable_unref(rs->inotify_source);
        safe_close(rs->inotify_fd);
        return mfree(rs);
}

static int reports_get(Manager *m, ManagerReports **ret)
{
        int r;

        if (!m->reports) {
                r = manager_reports_new(m, &m->reports);
                if (r < 0)
                        return r;
        }
        *ret = m->reports;
        return 0;
}

static void report_free(ManagerReport *r)
{
        ManagerReports *rs = r->rs;
        ManagerReportLoaded loaded_cb = r->loaded_cb;
        void *loaded_userdata = r->loaded_userdata;

        if (r->prev)
                r->prev->next = r->next;
        else if (rs->reports == r)
                rs->reports = r->next;
        if (r->next)
                r->next->prev = r->prev;
        /* Its waiting calls get -ECANCELED (each its own callback, which releases its charge). */
        r->server = ncu_report_server_free(r->server);
        sd_event_source_disable_unref(r->idle);
        safe_close(r->fd);
        free(r->owner);
        free(r);
        if (loaded_cb)
                loaded_cb(NULL, -ECANCELED, "the report was closed before it loaded", loaded_userdata);
}

void manager_report_close(ManagerReport *r)
{
        assert(r);
        log_user_debug(r->uid, "Report %" PRIu64 " of uid %u closed", r->id, (unsigned) r->uid);
        report_free(r);
}

void manager_reports_owner_gone(Manager *m, const char *owner)
{
        ManagerReports *rs = reports_of(m);
        ManagerReport *r;
        ReportOutput *o;

        if (!rs)
                return;
        for (r = rs->reports; r;) {
                ManagerReport *next = r->next;
                if (streq(r->owner, owner))
                        report_free(r);
                r = next;
        }
        /* Its outputs being made end with their reports (or go on, for a diff, which reads descriptors of
         * its own, and is answered to nobody). The memfds it holds stay charged to its uid until every
         * descriptor of them is closed: a client may leave the bus before it read what it got. */
        for (o = rs->outputs; o;) {
                ReportOutput *next = o->next;
                if (!o->held && streq(o->owner, owner))
                        output_fail(o, -ECANCELED, "the caller left the bus");
                o = next;
        }
}

static int on_idle(sd_event_source *s, uint64_t usec, void *userdata)
{
        ManagerReport *r = userdata;

        if (r->n_calls > 0)
                return sd_event_source_set_time_relative(s, r->rs->manager->config.report_idle_usec) < 0
                                ? 0
                                : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        log_user_debug(r->uid, "Report %" PRIu64 " of uid %u: idle, closed", r->id, (unsigned) r->uid);
        report_free(r);
        return 0;
}

static void touch(ManagerReport *r)
{
        if (!r->idle || r->rs->manager->config.report_idle_usec == 0)
                return;
        if (sd_event_source_set_time_relative(r->idle, r->rs->manager->config.report_idle_usec) >= 0)
                (void) sd_event_source_set_enabled(r->idle, SD_EVENT_ONESHOT);
}

static void on_loaded(NcuReportServer *s, int error, const char *message, void *userdata)
{
        ManagerReport *r = userdata;
        ManagerReportLoaded cb = TAKE_PTR(r->loaded_cb);

        if (error < 0) {
                log_user_debug(r->uid, "Report %" PRIu64 " of uid %u: %s", r->id, (unsigned) r->uid, message);
                if (cb)
                        cb(r, error, message, r->loaded_userdata);
                report_free(r);
                return;
        }
        r->loaded = true;
        if (r->rs->manager->config.report_idle_usec > 0 &&
                        sd_event_add_time_relative(r->rs->manager->event, &r->idle, CLOCK_MONOTONIC,
                                        r->rs->manager->config.report_idle_usec, 1000000, on_idle, r) < 0) {
                if (cb)
                        cb(r, -ENOMEM, "out of memory", r->loaded_userdata);
                report_free(r);
                return;
        }
        if (cb)
                cb(r, 0, NULL, r->loaded_userdata);
}

static void on_gone(NcuReportServer *s, int error, const char *message, void *userdata)
{
        ManagerReport *r = userdata;

        log_user_debug(r->uid, "Report %" PRIu64 " of uid %u: %s", r->id, (unsigned) r->uid, message);
        report_free(r);
}

static int on_spare_timer(sd_event_source *source, uint64_t usec, void *userdata)
{
        ManagerReports *rs = userdata;
        const ManagerConfig *c = &rs->manager->config;

        if (rs->spare_expires || !c->report_spare_worker) {
                rs->spare = ncu_report_server_free(rs->spare);
                return 0;
        }
        if (!ncu_report_server_is_spare(rs->spare)) {
                int k;

                rs->spare = ncu_report_server_free(rs->spare);
                k = ncu_report_server_spawn(rs->manager->event, worker_path(), &rs->spare);
                if (k < 0)
                        log_warning_errno(k, "Cannot start a spare report worker, loads start their own");
        }
        if (c->report_idle_usec > 0) {
                rs->spare_expires = true;
                (void) sd_event_source_set_time_relative(source, c->report_idle_usec);
                (void) sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
        }
        return 0;
}

/* After a load: a spare for the next one, once the loop is free. */
static void spare_schedule(ManagerReports *rs)
{
        int k = 0;

        if (!rs->manager->config.report_spare_worker)
                return;
        rs->spare_expires = false;
        if (!rs->spare_timer)
                k = sd_event_add_time_relative(
                                rs->manager->event, &rs->spare_timer, CLOCK_MONOTONIC, 0, 0, on_spare_timer, rs);
        else {
                k = sd_event_source_set_time_relative(rs->spare_timer, 0);
                if (k >= 0)
                        k = sd_event_source_set_enabled(rs->spare_timer, SD_EVENT_ONESHOT);
        }
        if (k < 0)
                log_debug_errno(k, "Cannot schedule a spare report worker");
}

/* The report's worker: the spare when there is one, else one started now. */
static int report_server_start(ManagerReports *rs, const NcuReportServerOptions *o, ManagerReport *r)
{
        if (rs->manager->config.report_spare_worker && ncu_report_server_is_spare(rs->spare)) {
                NcuReportServer *s = TAKE_PTR(rs->spare);

                if (ncu_report_server_load(s, o, r->fd, on_loaded, on_gone, r) >= 0) {
                        r->server = s;
                        return 0;
                }
                ncu_report_server_free(s);
        }
        rs->spare = ncu_report_server_free(rs->spare);
        return ncu_report_server_start(rs->manager->event, o, r->fd, on_loaded, on_gone, r, &r->server);
}

int manager_report_load(Manager *m, const char *owner, uid_t uid, int fd, ManagerReportLoaded loaded, void *userdata,
                ManagerReport **ret, const char **ret_why)
{
        ManagerReports *rs;
        ManagerReport *r;
        NcuReportServerOptions o;
        uint64_t left;
        off_t start;
        int k;

        assert(m && owner && fd >= 0 && loaded && ret && ret_why);
        k = reports_get(m, &rs);
        if (k < 0)
                return k;
        k = check_worker_caps(m, uid, ret_why);
        if (k < 0)
                return k;
        left = memory_left(m, uid);
        if (left < NCU_REPORT_MEMORY_BASE) {
                *ret_why = "the reports loaded take all the memory allowed (ReportMemoryPerUserMax=, "
                           "ReportMemoryMax=)";
                return -E2BIG;
        }

        r = calloc(1, sizeof(ManagerReport));
        if (!r)
                return -ENOMEM;
        r->rs = rs;
        r->uid = uid;
        r->id = ++rs->last_id;
        r->owner = strdup(owner);
        r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (!r->owner || r->fd < 0) {
                k = r->fd < 0 ? -errno : -ENOMEM;
                safe_close(r->fd);
                free(r->owner);
                free(r);
                return k;
        }
        start = lseek(r->fd, 0, SEEK_CUR);
        r->start = start < 0 ? -1 : (int64_t) start;
        /* What the file needs, within what is left (a pipe's need is unknown: the ceiling). */
        r->memory = MIN(ncu_report_memory_for_fd(r->fd, budget(m).worker_memory_max), left);
        r->loaded_cb = loaded;
        r->loaded_userdata = userdata;
        r->next = rs->reports;
        if (rs->reports)
                rs->reports->prev = r;
        rs->reports = r;

        o = (NcuReportServerOptions){
                .worker_path = worker_path(),
                .memory = r->memory,
                .timeout_usec = m->config.report_timeout_usec,
        };
        k = report_server_start(rs, &o, r);
        spare_schedule(rs);
        if (k < 0) {
                r->loaded_cb = NULL;
                report_free(r);
                return k;
        }
        log_user_debug(uid, "Report %" PRIu64 " of uid %u: loading, %" PRIu64 " bytes reserved", r->id, (unsigned) uid,
                        r->memory);
        *ret = r;
        return 0;
}

ManagerReport *manager_report_find(Manager *m, const char *owner, uint64_t id)
{
        ManagerReports *rs = reports_of(m);

        for (ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next)
                if (r->id == id && r->loaded && streq(r->owner, owner))
                        return r;
        return NULL;
}

static int compare_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

int manager_report_list(Manager *m, const char *owner, uint64_t **ret_ids, size_t *ret_n)
{
        ManagerReports *rs = reports_of(m);
        _cleanup_free_ uint64_t *ids = NULL;
        size_t n = 0, allocated = 0;

        for (ManagerReport *r = rs ? rs->reports : NULL; r; r = r->next) {
                if (!r->loaded || !streq(r->owner, owner))
                        continue;
                if (GREEDY_REALLOC(ids, allocated, n + 1) < 0)
                        return -ENOMEM;
                ids[n++] = r->id;
        }
        qsort_safe(ids, n, sizeof(uint64_t), compare_u64);
        *ret_ids = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

uint64_t manager_report_id(const ManagerReport *r)
{
        return r->id;
}

Manager *manager_report_manager(const ManagerReport *r)
{
        return r->rs->manager;
}

uid_t manager_report_uid(const ManagerReport *r)
{
        return r->uid;
}

pid_t manager_report_worker_pid(const ManagerReport *r)
{
        return r->server ? ncu_report_server_pid(r->server) : 0;
}

static void on_call_reply(int error, const void *data, size_t size, const char *message, void *userdata)
{
        ReportCall *c = userdata;

        c->report->n_calls--;
        c->report->call_bytes -= c->charge;
        c->reply(error, data, size, message, c->userdata);
        free(c);
}

int manager_report_call(ManagerReport *r, NcuServeOp op, const void *args, size_t size, size_t max_reply,
                ManagerReportReply reply, void *userdata, const char **ret_why)
{
        Manager *m = r->rs->manager;
        uint64_t left;
        ReportCall *c;
        int k;

        assert(r->loaded && reply && ret_why);
        if (r->n_calls >= NCU_REPORT_CALLS_MAX) {
                *ret_why = "a report answers one call at a time and keeps few waiting; wait for the answers";
                return -E2BIG;
        }
        /* The reply may take what is left of the caller's memory, and at most what one reply may. */
        left = memory_left(m, r->uid) / 2;
        max_reply = (size_t) MIN((uint64_t) max_reply, left);
        if (max_reply < 4096) {
                *ret_why = "the reports loaded take all the memory allowed (ReportMemoryPerUserMax=, "
                           "ReportMemoryMax=)";
                return -E2BIG;
        }
        c = calloc(1, sizeof(ReportCall));
        if (!c)
                return -ENOMEM;
        *c = (ReportCall){ .report = r, .charge = REPLY_CHARGE(max_reply), .reply = reply, .userdata = userdata };
        k = ncu_report_server_call(r->server, op, args, size, max_reply, NULL, 0, on_call_reply, c);
        if (k < 0) {
                free(c);
                return k;
        }
        r->n_calls++;
        r->call_bytes += c->charge;
        touch(r);
        return 0;
}

/* An output's memfd: sized to its limit and sealed against growing, so that whatever the worker writes
 * stays within what was charged. */
static int output_new(ManagerReports *rs, const char *owner, uid_t uid, uint64_t limit, ManagerReportOutputDone done,
                void *userdata, ReportOutput **ret)
{
        ReportOutput *o;
        int k;

        o = calloc(1, sizeof(ReportOutput));
        if (!o)
                return -ENOMEM;
        o->rs = rs;
        o->uid = uid;
        o->charge = limit;
        o->wd = -1;
        o->baseline_fd = -EBADF;
        o->done = done;
        o->userdata = userdata;
        o->next = rs->outputs;
        if (rs->outputs)
                rs->outputs->prev = o;
        rs->outputs = o;
        o->owner = strdup(owner);
        o->fd = memfd_create("nvprofiled-report-output", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (!o->owner || o->fd < 0) {
                k = o->fd < 0 ? -errno : -ENOMEM;
                o->done = NULL;
                output_free(o);
                return k;
        }
        if (ftruncate(o->fd, (off_t) limit) < 0 || fcntl(o->fd, F_ADD_SEALS, F_SEAL_GROW) < 0) {
                k = -errno;
                o->done = NULL;
                output_free(o);
                return k;
        }
        *ret = o;
        return 0;
}

/* The worker wrote size bytes: the memfd is cut to them, sealed against writes, and handed to the caller
 * as a read-only descriptor of its own, whose end (every copy closed) inotify reports. */
static void output_finish(ReportOutput *o, uint64_t size)
{
        ManagerReportOutputDone done = TAKE_PTR(o->done);
        _cleanup_close_ int ro = -EBADF;
        char path[64];

        if (size > o->charge) {
                o->done = done;
                output_fail(o, -ECHILD, "the report worker claimed more output than it may write");
                return;
        }
        /* F_SEAL_WRITE fails while the worker keeps a writable mapping of it. Not F_SEAL_SHRINK: the
         * daemon truncates it when the caller leaves. */
        if (ftruncate(o->fd, (off_t) size) < 0 ||
                        fcntl(o->fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                o->done = done;
                output_fail(o, -ECHILD, "the report worker's output could not be sealed");
                return;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", o->fd);
        ro = open(path, O_RDONLY | O_CLOEXEC);
        if (ro >= 0) {
                snprintf(path, sizeof(path), "/proc/self/fd/%d", ro);
                o->wd = inotify_add_watch(o->rs->inotify_fd, path, IN_CLOSE_NOWRITE);
        }
        if (ro < 0 || o->wd < 0) {
                o->done = done;
                output_fail(o, -E2BIG, "the daemon cannot follow more outputs; close some");
                return;
        }
        o->charge = PAGE_ROUND(size);
        o->held = true;
        o->server = ncu_report_server_free(o->server);
        o->worker_memory = 0;
        o->baseline_fd = safe_close(o->baseline_fd);
        done(0, ro, NULL, o->userdata);
        /* ro closes here: from now on only the caller's copies hold that description. */
}

static void on_output_reply(int error, const void *data, size_t size, const char *message, void *userdata)
{
        ReportOutput *o = userdata;
        NcuWireReader in;
        uint64_t written;

        if (error < 0) {
                output_fail(o, error, message);
                return;
        }
        ncu_wire_reader_init(&in, data, size);
        if (ncu_wire_get_u64(&in, &written) < 0 || in.left != 0) {
                output_fail(o, -ECHILD, "the report worker returned a malformed answer");
                return;
        }
        output_finish(o, written);
}

/* An output's checks: how many the caller holds, and what it may take: what is left of the caller's
 * memory, and no more than its reports' models were reserved (an export of a model is smaller than the
 * model: the corpus's JSON takes 1.2 to 3.7 times its file, a reservation 32 times plus 32 MiB). */
static int output_limit(Manager *m, uid_t uid, uint64_t worker_memory, uint64_t model_memory, uint64_t *ret,
                const char **ret_why)
{
        uint64_t left = memory_left(m, uid);

        if (manager_reports_outputs(m, uid) >= m->config.report_outputs_per_user_max) {
                *ret_why = "a user may hold ReportOutputsPerUserMax= exports and diffs; close the descriptors "
                           "of earlier ones";
                return -E2BIG;
        }
        if (left < worker_memory + OUTPUT_MIN) {
                *ret_why = "the reports and outputs held take all the memory allowed (ReportMemoryPerUserMax=, "
                           "ReportMemoryMax=)";
                return -E2BIG;
        }
        *ret = MIN(left - worker_memory, model_memory);
        return 0;
}

/* An output of the report's worker: op with args (built, not yet finished) and the memfd. */
static int report_output(ManagerReport *r, NcuServeOp op, NcuWire *args, ManagerReportOutputDone done, void *userdata,
                const char **ret_why)
{
        Manager *m = r->rs->manager;
        ReportOutput *o;
        uint64_t limit;
        int k;

        assert(r->loaded && done && ret_why);
        if (r->n_calls >= NCU_REPORT_CALLS_MAX) {
                *ret_why = "a report answers one call at a time and keeps few waiting; wait for the answers";
                return -E2BIG;
        }
        k = output_limit(m, r->uid, 0, r->memory, &limit, ret_why);
        if (k < 0)
                return k;
        k = output_new(r->rs, r->owner, r->uid, limit, done, userdata, &o);
        if (k < 0)
                return k;
        k = ncu_wire_finish(args);
        if (k >= 0)
                k = ncu_report_server_call(r->server, op, args->data, args->size, 64, (const int[]){ o->fd }, 1,
                                on_output_reply, o);
        if (k < 0) {
                o->done = NULL;
                output_free(o);
                return k;
        }
        touch(r);
        return 0;
}

int manager_report_export(ManagerReport *r, NcuServeExport kind, const void *page, size_t page_size,
                ManagerReportOutputDone done, void *userdata, const char **ret_why)
{
        NcuWire args;
        int k;

        assert((kind == NCU_SERVE_EXPORT_PAGE) == !!page);
        assert(page_size <= NCU_PAGE_OPTIONS_ENCODED_SIZE);
        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, kind);
        if (page)
                ncu_wire_put_encoded(&args, page, page_size);
        k = report_output(r, NCU_SERVE_EXPORT, &args, done, userdata, ret_why);
        ncu_wire_done(&args);
        return k;
}

int manager_report_source_view(ManagerReport *r, uint32_t range, uint32_t action, ManagerReportOutputDone done,
                void *userdata, const char **ret_why)
{
        NcuWire args;
        int k;

        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, range);
        ncu_wire_put_u32(&args, action);
        k = report_output(r, NCU_SERVE_GET_SOURCE_VIEW, &args, done, userdata, ret_why);
        ncu_wire_done(&args);
        return k;
}

/* Whether a diff reads report id's descriptor now: two readers of one descriptor would read each other's
 * bytes (a duplicate shares its offset). */
static bool report_being_read(const ManagerReports *rs, uint64_t id)
{
        for (const ReportOutput *o = rs->outputs; o; o = o->next)
                if (o->server && (o->current_id == id || o->baseline_id == id))
                        return true;
        return false;
}

static void on_diff_gone(NcuReportServer *s, int error, const char *message, void *userdata)
{
        /* The call got the error first, which ended the output. */
}

static void on_diff_loaded(NcuReportServer *s, int error, const char *message, void *userdata)
{
        ReportOutput *o = userdata;
        int k;

        if (error < 0) {
                output_fail(o, error, message);
                return;
        }
        if (lseek(o->baseline_fd, (off_t) o->baseline_start, SEEK_SET) < 0) {
                output_fail(o, -EINVAL, "the baseline cannot be read again (not a regular file)");
                return;
        }
        k = ncu_report_server_call(o->server, NCU_SERVE_DIFF, o->args, o->args_size, 64,
                        (const int[]){ o->baseline_fd, o->fd }, 2, on_output_reply, o);
        if (k < 0)
                output_fail(o, k, "cannot start the diff");
}

int manager_report_diff(ManagerReport *r, ManagerReport *baseline, const void *args, size_t size,
                ManagerReportOutputDone done, void *userdata, const char **ret_why)
{
        Manager *m = r->rs->manager;
        NcuReportServerOptions opts;
        uint64_t limit, worker_memory;
        ReportOutput *o;
        int k;

        assert(r->loaded && baseline->loaded && done && ret_why);
        assert(streq(r->owner, baseline->owner));
        if (report_being_read(r->rs, r->id) || report_being_read(r->rs, baseline->id)) {
                *ret_why = "one diff of a report at a time; the report is being read";
                return -E2BIG;
        }
        if (r->start < 0 || baseline->start < 0) {
                *ret_why = "a diff reads both reports again, which a pipe cannot be";
                return -EINVAL;
        }
        k = check_worker_caps(m, r->uid, ret_why);
        if (k < 0)
                return k;
        /* Its worker holds both models. */
        worker_memory = r->memory + baseline->memory;
        k = output_limit(m, r->uid, worker_memory, worker_memory, &limit, ret_why);
        if (k < 0)
                return k;
        k = output_new(r->rs, r->owner, r->uid, limit, done, userdata, &o);
        if (k < 0)
                return k;
        o->worker_memory = worker_memory;
        o->current_id = r->id;
        o->baseline_id = baseline->id;
        o->baseline_start = baseline->start;
        o->baseline_fd = fcntl(baseline->fd, F_DUPFD_CLOEXEC, 3);
        if (size > 0) {
                o->args = malloc(size);
                if (o->args)
                        memcpy(o->args, args, size);
        }
        o->args_size = size;
        if (o->baseline_fd < 0 || (size > 0 && !o->args) || lseek(r->fd, (off_t) r->start, SEEK_SET) < 0) {
                o->done = NULL;
                output_free(o);
                return -ENOMEM;
        }
        opts = (NcuReportServerOptions){
                .worker_path = worker_path(),
                .memory = worker_memory,
                .timeout_usec = m->config.report_timeout_usec,
        };
        k = ncu_report_server_start(m->event, &opts, r->fd, on_diff_loaded, on_diff_gone, o, &o->server);
        if (k < 0) {
                o->done = NULL;
                output_free(o);
                return k;
        }
        touch(r);
        touch(baseline);
        return 0;
}
