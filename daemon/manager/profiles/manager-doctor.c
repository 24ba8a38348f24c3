/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "manager-doctor.h"
#include "manager-profiles.h"
#include "rc-config-slots.h"
#include "seen-names.h"
#include "strtable.h"
#include "strv.h"

static const char *const scope_names[_MANAGER_DOCTOR_SCOPE_MAX] = {
        [MANAGER_DOCTOR_USER] = "user",
        [MANAGER_DOCTOR_SYSTEM] = "system",
        [MANAGER_DOCTOR_ALL_USERS] = "all-users",
};

const char *manager_doctor_scope_to_string(ManagerDoctorScope s)
{
        return s >= 0 && s < _MANAGER_DOCTOR_SCOPE_MAX ? scope_names[s] : NULL;
}

ManagerDoctorScope manager_doctor_scope_from_string(const char *s)
{
        assert(s);
        for (size_t i = 0; i < ELEMENTSOF(scope_names); i++)
                if (streq(scope_names[i], s))
                        return (ManagerDoctorScope) i;
        return _MANAGER_DOCTOR_SCOPE_INVALID;
}

void manager_doctor_report_done(ManagerDoctorReport *r)
{
        assert(r);
        for (size_t i = 0; i < r->n_findings; i++) {
                free(r->findings[i].message);
                free(r->findings[i].fix);
        }
        free(r->findings);
        for (size_t i = 0; i < r->n_configs; i++)
                rc_config_unref(r->configs[i]);
        free(r->configs);
        *r = (ManagerDoctorReport){ 0 };
}

/* A running process the caller may see, by the names rules test. */
typedef struct LiveProcess {
        uid_t uid;
        char *procname, *comm;
        char *key; /* "uid\x1fprocname\x1fcomm": its index in DoctorProcesses.live */
        pid_t pid;
        bool named; /* a remembered name stands for it already */
} LiveProcess;

/* The processes one run of the doctor may speak of, with the strings they point to. */
typedef struct DoctorProcesses {
        RcDoctorProcess *items;
        uid_t *uids; /* parallel to items */
        size_t n_items, allocated_items, allocated_uids;
        char **strings; /* owned copies, which items point to */
        size_t n_strings, allocated_strings;
        StrTable live; /* LiveProcess.key -> index in lives: one per uid and names */
        LiveProcess *lives;
        size_t n_lives, allocated_lives;
} DoctorProcesses;

static void doctor_processes_done(DoctorProcesses *d)
{
        free(d->items);
        free(d->uids);
        for (size_t i = 0; i < d->n_strings; i++)
                free(d->strings[i]);
        free(d->strings);
        strtable_done(&d->live);
        for (size_t i = 0; i < d->n_lives; i++) {
                free(d->lives[i].procname);
                free(d->lives[i].comm);
                free(d->lives[i].key);
        }
        free(d->lives);
        *d = (DoctorProcesses){ 0 };
}

static int keep_string(DoctorProcesses *d, const char *s, const char **ret)
{
        char *copy;

        *ret = NULL;
        if (!s)
                return 0;
        if (GREEDY_REALLOC(d->strings, d->allocated_strings, d->n_strings + 1) < 0)
                return -ENOMEM;
        copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        d->strings[d->n_strings++] = copy;
        *ret = copy;
        return 0;
}

/* last_seen_usec: when a process that is not running (pid 0) was last seen; a running one is named by its
 * pid instead. */
static int add_process(DoctorProcesses *d, uid_t uid, const char *procname, const char *comm, const char *cmdline,
                const char *flatpak_id, pid_t pid, uint64_t last_seen_usec)
{
        RcDoctorProcess p = { .pid = pid, .last_seen_usec = last_seen_usec };
        int r;

        if (GREEDY_REALLOC(d->items, d->allocated_items, d->n_items + 1) < 0 ||
                        GREEDY_REALLOC(d->uids, d->allocated_uids, d->n_items + 1) < 0)
                return -ENOMEM;
        if ((r = keep_string(d, procname, &p.procname)) < 0 || (r = keep_string(d, comm, &p.comm)) < 0 ||
                        (r = keep_string(d, cmdline, &p.cmdline)) < 0 ||
                        (r = keep_string(d, flatpak_id, &p.flatpak_id)) < 0)
                return r;
        d->uids[d->n_items] = uid;
        d->items[d->n_items++] = p;
        return 0;
}

static char *live_key(uid_t uid, const char *procname, const char *comm)
{
        char *k;

        if (asprintf(&k, "%u%c%s%c%s", (unsigned) uid, 0x1f, strempty(procname), 0x1f, strempty(comm)) < 0)
                return NULL;
        return k;
}

/* The names a running process presents to rules, computed as the resolver computes them. */
static int live_process_init(const Process *p, LiveProcess *ret)
{
        RcProcessFacts facts = { .exe = p->exe, .comm = p->comm, .root_fd = -1 };
        _cleanup_(rc_match_facts_done) RcMatchFacts mf = { .exe_dir_fd = -EBADF };
        LiveProcess l = { .uid = p->uid, .pid = p->id.pid };
        int r;

        r = rc_match_facts_init(&mf, &facts);
        if (r < 0)
                return r;
        if ((mf.procname && !(l.procname = strdup(mf.procname))) || (mf.has_comm && !(l.comm = strdup(mf.comm))) ||
                        !(l.key = live_key(l.uid, l.procname, l.comm))) {
                free(l.procname);
                free(l.comm);
                return -ENOMEM;
        }
        *ret = l;
        return 0;
}

static int collect_live(Manager *m, uid_t caller, DoctorProcesses *d)
{
        Process *p;
        int r;

        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);) {
                LiveProcess *l;
                bool is_new;

                if (!manager_may_see(caller, p->uid))
                        continue;
                if (GREEDY_REALLOC(d->lives, d->allocated_lives, d->n_lives + 1) < 0)
                        return -ENOMEM;
                l = &d->lives[d->n_lives];
                r = live_process_init(p, l);
                if (r < 0)
                        return r;
                r = strtable_put(&d->live, l->key, &is_new);
                if (r < 0 || !is_new) { /* another process of the same names: one is enough to name */
                        free(l->procname);
                        free(l->comm);
                        free(l->key);
                        if (r < 0)
                                return r;
                        continue;
                }
                d->n_lives++;
        }
        return 0;
}

typedef struct RememberedContext {
        DoctorProcesses *processes;
        uid_t caller;
} RememberedContext;

static int add_remembered(const SeenName *n, void *userdata)
{
        RememberedContext *ctx = userdata;
        DoctorProcesses *d = ctx->processes;
        _cleanup_free_ char *key = NULL;
        pid_t pid = 0;
        int id;

        if (!manager_may_see(ctx->caller, n->uid))
                return 0;
        key = live_key(n->uid, n->procname, n->comm);
        if (!key)
                return -ENOMEM;
        id = strtable_get(&d->live, key);
        if (id >= 0) {
                pid = d->lives[id].pid;
                d->lives[id].named = true;
        }
        return add_process(d, n->uid, n->procname, n->comm, n->cmdline, n->flatpak_id, pid, n->last_seen_usec);
}

/* Running processes first named by what was remembered of them (which has their argv[0] and Flatpak id),
 * then those the memory does not hold (remembering is off, or it was full). */
static int collect_processes(Manager *m, uid_t caller, DoctorProcesses *d)
{
        RememberedContext ctx = { .processes = d, .caller = caller };
        int r;

        r = collect_live(m, caller, d);
        if (r < 0)
                return r;
        r = seen_names_foreach(m->profiles->seen_names, caller == 0 ? UID_INVALID : caller, add_remembered, &ctx);
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_lives; i++) {
                const LiveProcess *l = &d->lives[i];

                if (l->named)
                        continue;
                r = add_process(d, l->uid, l->procname, l->comm, NULL, NULL, l->pid, 0);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The processes of d that uid owns (UID_INVALID: all), in a new array borrowing d's strings. */
static int processes_of(const DoctorProcesses *d, uid_t uid, RcDoctorProcess **ret, size_t *ret_n)
{
        _cleanup_free_ RcDoctorProcess *a = calloc(MAX(d->n_items, 1u), sizeof(RcDoctorProcess));
        size_t n = 0;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_items; i++)
                if (uid == UID_INVALID || d->uids[i] == uid)
                        a[n++] = d->items[i];
        *ret = TAKE_PTR(a);
        *ret_n = n;
        return 0;
}

static bool report_has(const ManagerDoctorReport *r, const RcFinding *f)
{
        for (size_t i = 0; i < r->n_findings; i++) {
                const RcFinding *g = &r->findings[i];
                if (g->kind == f->kind && g->line == f->line && g->column == f->column && streq_ptr(g->path, f->path) &&
                                streq_ptr(g->message, f->message))
                        return true;
        }
        return false;
}

/* Runs the doctor on c and moves its findings into the report, which keeps c alive for their paths. */
static int run_one(ManagerDoctorReport *report, RcConfig *c, const RcDoctorOptions *options)
{
        _cleanup_(rc_findings_done) RcFindings found = { 0 };
        int r;

        r = rc_doctor_run(c, options, &found);
        if (r < 0)
                return r;
        if (GREEDY_REALLOC(report->configs, report->allocated_configs, report->n_configs + 1) < 0)
                return -ENOMEM;
        report->configs[report->n_configs++] = rc_config_ref(c);
        report->n_dropped += found.n_dropped;
        report->incomplete = report->incomplete || found.incomplete;
        for (size_t i = 0; i < found.n_items; i++) {
                RcFinding *f = &found.items[i];

                /* ALL_USERS runs several configurations: a finding in a file they share is said once. */
                if (report_has(report, f))
                        continue;
                if (report->n_findings >= RC_FINDINGS_MAX) {
                        report->n_dropped++;
                        continue;
                }
                if (GREEDY_REALLOC(report->findings, report->allocated_findings, report->n_findings + 1) < 0)
                        return -ENOMEM;
                report->findings[report->n_findings++] = *f;
                *f = (RcFinding){ 0 };
        }
        return 0;
}

static int run_with_processes(
                ManagerDoctorReport *report, RcConfig *c, const DoctorProcesses *d, uid_t uid, RcDoctorOptions *options)
{
        _cleanup_free_ RcDoctorProcess *processes = NULL;
        int r;

        r = processes_of(d, uid, &processes, &options->n_processes);
        if (r < 0)
                return r;
        options->processes = processes;
        return run_one(report, c, options);
}

static int doctor_all_users(Manager *m, const UserCreds *caller, const DoctorProcesses *d, ManagerDoctorReport *report)
{
        _cleanup_(rc_config_unrefp) RcConfig *system = NULL;
        _cleanup_strv_free_ char **homes = NULL;
        int r;

        r = manager_get_config_for_caller(m, NULL, caller, &system);
        if (r < 0)
                return r;
        r = run_with_processes(report, system, d, UID_INVALID, &(RcDoctorOptions){ .system_files = true });
        if (r < 0)
                return r;

        /* Every home of the host the daemon read for some process (slots of containers are not ours to
         * edit), once. */
        for (size_t i = 0; i < m->profiles->n_configs; i++) {
                const ConfigSlot *s = &m->profiles->configs[i];

                if (!s->config || !s->home || !config_slot_is_host(m, s) || strv_contains(homes, s->home))
                        continue;
                r = strv_extend(&homes, s->home);
                if (r < 0)
                        return r;
                r = run_with_processes(report, s->config, d, s->uid,
                                &(RcDoctorOptions){ .user_files = true, .home_option = s->home });
                if (r < 0)
                        return r;
        }
        return 0;
}

int manager_doctor(Manager *m, const UserCreds *caller, ManagerDoctorScope scope, const char *home,
                ManagerDoctorReport *ret)
{
        _cleanup_(manager_doctor_report_done) ManagerDoctorReport report = { 0 };
        _cleanup_(doctor_processes_done) DoctorProcesses processes = { 0 };
        _cleanup_(rc_config_unrefp) RcConfig *config = NULL;
        int r;

        assert(m);
        assert(caller);
        assert(ret);
        assert(scope >= 0 && scope < _MANAGER_DOCTOR_SCOPE_MAX);

        if (scope == MANAGER_DOCTOR_ALL_USERS && caller->uid != 0)
                return -EPERM;
        if (scope != MANAGER_DOCTOR_USER)
                home = NULL;

        r = collect_processes(m, caller->uid, &processes);
        if (r < 0)
                return r;

        if (scope == MANAGER_DOCTOR_ALL_USERS)
                r = doctor_all_users(m, caller, &processes, &report);
        else {
                r = manager_get_config_for_caller(m, home, caller, &config);
                if (r < 0)
                        return r;
                r = run_with_processes(&report, config, &processes, UID_INVALID,
                                &(RcDoctorOptions){ .user_files = home != NULL, .system_files = true });
        }
        if (r < 0)
                return r;

        *ret = report;
        report = (ManagerDoctorReport){ 0 };
        return 0;
}
