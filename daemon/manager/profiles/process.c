/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One tracked process: read its facts, resolve, and report when the result changes.
 *
 * When to resolve (../shared/docs/appprofiles.md §5): at exec, procname, cmdline, findfile and the environment are
 * final, but the libraries are not mapped yet and comm can still change. So we resolve at exec, again on
 * every COMM event, and re-read maps and comm a few times during a settle window (default 3 s, steps at
 * 100 ms, 500 ms, 1.5 s and the end) when some rule tests "dso". A process that opens a GPU device node
 * is re-read then too (profiles/gpu-opens.c): that is when the driver reads its profiles. */

#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "process-watch.h"
#include "manager.h"
#include "process.h"
#include "remembered-names.h"
#include "strv.h"

static const uint64_t settle_steps_usec[] = { 100 * 1000, 500 * 1000, 1500 * 1000 };

#define SETTLE_STEPS_MAX (ELEMENTSOF(settle_steps_usec) + 1)

/* One timer for every process's settle re-reads, rather than one event source per process. A process
 * waiting for its i-th re-read is in list i; each list is in order of detected_usec (processes join list
 * 0 as they are seen, and list i+1 as they leave list i), so also in order of due time, and the timer
 * is set for the earliest head. */
typedef struct SettleQueue {
        sd_event_source *timer;
        Process *head[SETTLE_STEPS_MAX], *tail[SETTLE_STEPS_MAX];
} SettleQueue;

static void settle_unlink(Process *p)
{
        SettleQueue *q = p->manager->profiles->settle;

        if (!p->settling)
                return;
        assert(q);
        assert(p->settle_step < SETTLE_STEPS_MAX);
        if (p->settle_prev)
                p->settle_prev->settle_next = p->settle_next;
        else
                q->head[p->settle_step] = p->settle_next;
        if (p->settle_next)
                p->settle_next->settle_prev = p->settle_prev;
        else
                q->tail[p->settle_step] = p->settle_prev;
        p->settle_prev = p->settle_next = NULL;
        p->settling = false;
}

void process_settle_free(Manager *m)
{
        SettleQueue *q = m->profiles->settle;

        if (!q)
                return;
        for (size_t i = 0; i < SETTLE_STEPS_MAX; i++)
                while (q->head[i])
                        settle_unlink(q->head[i]);
        sd_event_source_disable_unref(q->timer);
        m->profiles->settle = mfree(q);
}

Process *process_free(Process *p)
{
        if (!p)
                return NULL;
        settle_unlink(p);
        rc_resolution_free(p->resolution);
        strv_free(p->profiles);
        free(p->comm);
        free(p->exe);
        free(p->home);
        return mfree(p);
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
        const unsigned char *p = data;

        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
        return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* What a client would see change: matched rules, effective settings and their overrides. */
static uint64_t resolution_hash(const RcResolution *r)
{
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        h = fnv(h, &r->state, sizeof(r->state));
        for (size_t i = 0; i < r->n_rules; i++) {
                const RcRuleResult *rr = &r->rules[i];
                if (!rr->matched)
                        continue;
                h = fnv_str(h, rr->ref->rule->location.file->path);
                h = fnv(h, &rr->ref->rule->location.line, sizeof(uint32_t));
                h = fnv_str(h, rr->ref->profile ? rr->ref->profile->name : NULL);
        }
        for (size_t i = 0; i < r->n_settings; i++) {
                const RcEffectiveSetting *s = &r->settings[i];
                _cleanup_free_ char *v = NULL;

                h = fnv_str(h, s->setting->key);
                if (rc_value_format(&s->setting->value, &v) >= 0)
                        h = fnv_str(h, v);
                h = fnv_str(h, s->env_value);
        }
        return h;
}

static int profiles_of(const RcResolution *r, char ***ret)
{
        _cleanup_strv_free_ char **l = NULL;
        int k;

        for (size_t i = 0; i < r->n_rules; i++) {
                const RcRuleRef *ref = r->rules[i].ref;
                const char *name;

                if (!r->rules[i].matched || !ref->profile)
                        continue;
                name = ref->profile->name ? ref->profile->name : "(inline)";
                if (strv_contains(l, name))
                        continue;
                k = strv_extend(&l, name);
                if (k < 0)
                        return k;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static bool pattern_uses(const RcPattern *p, RcFeature feature)
{
        if (p->kind == RC_PATTERN_MATCH)
                return p->feature == feature;
        for (size_t i = 0; i < p->n_sub; i++)
                if (pattern_uses(&p->sub[i], feature))
                        return true;
        return false;
}

ProcFactsFlags process_facts_needed(const RcConfig *c, bool maps)
{
        ProcFactsFlags flags = 0;

        assert(c);

        /* procname and findfile need exe, which is always read (it names the process on the bus); commname
         * takes comm from stat, which identity reads anyway. */
        for (size_t i = 0; i < c->n_rules; i++) {
                const RcRule *rule = c->rules[i].rule;

                if (maps && rule->uses_dso)
                        flags |= PROC_FACTS_MAPS;
                if (!(flags & PROC_FACTS_CMDLINE) && pattern_uses(&rule->pattern, RC_FEATURE_CMDLINE))
                        flags |= PROC_FACTS_CMDLINE;
        }
        return flags;
}

int process_facts_open(Manager *m, pid_t pid, const ProcIdentity *expect, bool zombie_is_gone, uint64_t event_ns,
                ProcFacts *ret, int *ret_dfd)
{
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        int r;

        assert(m);
        assert(ret);
        assert(ret_dfd);

        r = proc_facts_open(m->proc_fd, pid, expect, &f, &dfd);
        if (r < 0)
                return r;
        /* A zombie has no exe and no command line left, so it would read as a kernel thread. */
        if (zombie_is_gone && IN_SET(f.state, 'Z', 'X'))
                return -ESRCH;
        if (!manager_event_may_describe(m, event_ns, f.id.start_time))
                return -ESTALE;
        /* What picks the configuration (file access, $HOME, root) and names the process. */
        r = proc_facts_add(dfd, PROCESS_FACTS_ALWAYS, &m->config.proc_limits, &f);
        if (r < 0)
                return r;
        /* Its root is opened only when it is not the host's (a container): a host process reads the
         * configuration root, and one fstatat() tells which. */
        r = proc_facts_root_differs(dfd, m->host_root_dev, m->host_root_ino);
        if (r < 0)
                return r;
        if (r > 0) {
                /* A Flatpak sandbox is such a root: its application id (its cgroup's scope, then
                 * /.flatpak-info in that root, with its owner's access) is a name the doctor compares
                 * rules with, since a Flatpak's command is rarely what users write. Host processes, the
                 * many, read nothing more. */
                r = proc_facts_add(dfd, PROC_FACTS_ROOT, &m->config.proc_limits, &f);
                if (r < 0)
                        return r;
                /* A process that is gone shows it at the next read; a missing cgroup file (a fixture
                 * tree) only means the application is not known. */
                r = proc_facts_add(dfd, PROC_FACTS_FLATPAK, &m->config.proc_limits, &f);
                if (r < 0 && r != -ESRCH)
                        return r;
        } else
                f.have |= PROC_FACTS_ROOT;
        /* No exe: a kernel thread or a zombie, unless it has a command line. */
        if (!f.exe) {
                r = proc_facts_add(dfd, PROC_FACTS_CMDLINE, &m->config.proc_limits, &f);
                if (r < 0)
                        return r;
        }

        *ret = f;
        f = (ProcFacts){ .root_fd = -EBADF };
        *ret_dfd = TAKE_FD(dfd);
        return 0;
}

/* Resolves f against its configuration; dfd >= 0: first reads through it what that configuration's rules
 * can test and f does not have yet (maps only if maps). */
static int resolve(Manager *m, int dfd, ProcFacts *f, bool maps, RcResolution **ret)
{
        _cleanup_(rc_config_unrefp) RcConfig *config = NULL;
        const char *home;
        int root_fd, r;

        home = strv_env_get(f->env, "HOME");

        /* A process in its own root (a container) reads the configuration inside it. */
        root_fd = manager_root_is_foreign(m, f->root_fd) ? f->root_fd : m->root_fd;

        r = manager_get_config(m, root_fd, home, &f->creds, &config);
        if (r < 0)
                return r;

        if (dfd >= 0) {
                r = proc_facts_add(dfd, process_facts_needed(config, maps), &m->config.proc_limits, f);
                if (r < 0)
                        return r;
        }

        return process_resolve_in(m, f, config, ret);
}

int process_resolve_in(Manager *m, const ProcFacts *f, RcConfig *config, RcResolution **ret)
{
        RcProcessFacts rf = {
                .exe = f->exe,
                .comm = f->comm,
                .argv = f->argv,
                .dsos = f->dsos,
                .environ = f->env,
                /* findfile looks inside the process's root: for host processes that is the configuration
                 * root, so fixture trees behave like the real thing; and with its owner's access. */
                .root_fd = manager_root_is_foreign(m, f->root_fd) ? f->root_fd : m->root_fd,
                .creds = &f->creds,
        };

        return rc_resolve(config, &rf, ret);
}

int process_resolve(Manager *m, const ProcFacts *f, RcResolution **ret)
{
        /* Nothing is read here: f is taken as complete. */
        return resolve(m, -EBADF, (ProcFacts *) f, false, ret);
}

static int process_update(Process *p, const ProcFacts *f, RcResolution *res)
{
        Manager *m = p->manager;
        _cleanup_strv_free_ char **profiles = NULL;
        uint64_t h;
        bool was_matched, changed;
        int r;

        r = profiles_of(res, &profiles);
        if (r < 0) {
                rc_resolution_free(res);
                return r;
        }

        p->fsuid = f->creds.uid;
        h = resolution_hash(res);
        changed = !p->resolution || h != p->result_hash;
        was_matched = p->resolution && p->resolution->n_matched > 0;

        if (f->comm && !streq_ptr(f->comm, p->comm)) {
                free(p->comm);
                p->comm = strdup(f->comm);
        }
        /* Exec, a comm change, a rescan, a settle re-read: every name it presented is one a rule could
         * have been about. */
        remembered_names_note(m, p, f);
        rc_resolution_free(p->resolution);
        p->resolution = res;
        p->result_hash = h;
        strv_free(p->profiles);
        p->profiles = TAKE_PTR(profiles);
        p->n_settings = rc_resolution_is_effective(res) ? (unsigned) res->n_settings : 0;

        if (was_matched != (res->n_matched > 0)) {
                if (res->n_matched > 0)
                        m->profiles->n_matched++;
                else
                        m->profiles->n_matched--;
        }

        if (!changed)
                return 0;

        if (m->config.log_applied && res->n_settings > 0 && rc_resolution_is_effective(res)) {
                char pidf[32], uidf[32];
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_PROFILE_APPLIED, pidf, uidf, NULL };
                _cleanup_free_ char *names = NULL;
                size_t len = 0;

                snprintf(pidf, sizeof(pidf), "NVPROFILED_PID=%i", (int) p->id.pid);
                snprintf(uidf, sizeof(uidf), "NVPROFILED_UID=%u", (unsigned) p->uid);
                STRV_FOREACH(s, p->profiles)
                        len += strlen(*s) + 2;
                names = calloc(1, len + 1);
                if (names)
                        STRV_FOREACH(s, p->profiles) {
                                if (*names)
                                        strcat(names, ", ");
                                strcat(names, *s);
                        }
                /* One line per process a rule matches: the process's owner decides how many, so they count
                 * against that user's share of the log. */
                log_user_struct(p->uid, LOG_INFO, fields, "Profile applied to %s[%i]: %s (%u settings).",
                                strna(p->comm), (int) p->id.pid, strempty(names), p->n_settings);
        }

        if (m->callbacks.process_changed)
                m->callbacks.process_changed(m, p, m->userdata);
        return 1;
}

static int on_settle(sd_event_source *s, uint64_t usec, void *userdata);

/* The i-th re-read after exec: the fixed steps that fall inside the window, then the window's end. */
static bool settle_offset(const Manager *m, unsigned i, uint64_t *ret)
{
        unsigned k = 0;

        for (size_t j = 0; j < ELEMENTSOF(settle_steps_usec) && settle_steps_usec[j] < m->config.settle_usec; j++)
                if (k++ == i) {
                        *ret = settle_steps_usec[j];
                        return true;
                }
        if (k == i && m->config.settle_usec > 0) {
                *ret = m->config.settle_usec;
                return true;
        }
        return false;
}

/* Sets the timer for the earliest re-read due, or turns it off. */
static int settle_arm(Manager *m)
{
        SettleQueue *q = m->profiles->settle;
        uint64_t when = UINT64_MAX, offset;
        int r;

        for (unsigned i = 0; i < SETTLE_STEPS_MAX; i++)
                if (q->head[i] && settle_offset(m, i, &offset))
                        when = MIN(when, q->head[i]->detected_usec + offset);
        if (when == UINT64_MAX)
                return q->timer ? sd_event_source_set_enabled(q->timer, SD_EVENT_OFF) : 0;

        if (!q->timer)
                /* Accuracy 10 ms lets the loop take the re-reads of processes started together at once. */
                return sd_event_add_time(m->event, &q->timer, CLOCK_MONOTONIC, when, 10 * 1000, on_settle, m);
        r = sd_event_source_set_time(q->timer, when);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(q->timer, SD_EVENT_ONESHOT);
}

/* Queues p for its next re-read (p->settle_step), if there is one. */
static void settle_schedule(Process *p)
{
        Manager *m = p->manager;
        unsigned i = p->settle_step;
        uint64_t offset;
        bool was_empty;
        int r;

        assert(!p->settling);
        if (i >= SETTLE_STEPS_MAX || !settle_offset(m, i, &offset))
                return;
        if (!m->profiles->settle) {
                m->profiles->settle = calloc(1, sizeof(SettleQueue));
                if (!m->profiles->settle) {
                        log_oom();
                        return;
                }
        }

        was_empty = !m->profiles->settle->head[i];
        p->settle_prev = m->profiles->settle->tail[i];
        p->settle_next = NULL;
        if (p->settle_prev)
                p->settle_prev->settle_next = p;
        else
                m->profiles->settle->head[i] = p;
        m->profiles->settle->tail[i] = p;
        p->settling = true;

        /* Behind others of its list it is due after them: the timer is already early enough. */
        if (!was_empty)
                return;
        r = settle_arm(m);
        if (r < 0)
                log_user_debug_errno(p->uid, r, "Cannot schedule settle check for %i", (int) p->id.pid);
}

int process_reread(Process *p)
{
        Manager *m = p->manager;
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        _cleanup_close_ int dfd = -EBADF;
        RcResolution *res = NULL;
        int r;

        r = process_facts_open(m, p->id.pid, &p->id, false, MANAGER_NO_EVENT, &f, &dfd);
        if (r < 0)
                return r;
        r = resolve(m, dfd, &f, true, &res);
        if (r < 0)
                return r;
        return process_update(p, &f, res);
}

static int on_settle(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        uint64_t now = 0, offset;
        int r;

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        for (unsigned i = 0; i < SETTLE_STEPS_MAX; i++)
                while (m->profiles->settle->head[i] && settle_offset(m, i, &offset) &&
                                m->profiles->settle->head[i]->detected_usec + offset <= now) {
                        Process *p = m->profiles->settle->head[i];

                        settle_unlink(p);
                        p->settle_step++;
                        r = process_reread(p);
                        /* Gone: the EXIT event (or the next scan) removes it. */
                        if (r == -ESRCH)
                                continue;
                        if (r < 0)
                                log_user_debug_errno(p->uid, r, "Re-reading %i failed", (int) p->id.pid);
                        settle_schedule(p);
                }

        r = settle_arm(m);
        if (r < 0)
                log_debug_errno(r, "Cannot schedule settle checks");
        return 0;
}

/* Whether a process started less than usec ago (its start time is in clock ticks since boot). */
static bool started_within(uint64_t start_time, uint64_t usec)
{
        struct timespec ts;
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t now_usec, start_usec;

        if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
                return false;
        now_usec = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
        start_usec = start_time * 1000000 / (uint64_t) hz;
        return start_usec + usec > now_usec;
}

static int process_new(Manager *m, int dfd, ProcFacts *f, bool settle, Process **ret)
{
        _cleanup_(process_freep) Process *p = NULL;
        RcResolution *res = NULL;
        const char *home;
        int r;

        p = calloc(1, sizeof(Process));
        if (!p)
                return -ENOMEM;
        p->manager = m;
        p->id = f->id;
        p->uid = f->uid;
        p->fsuid = f->creds.uid;
        p->ppid = f->ppid;
        if (f->exe && !(p->exe = strdup(f->exe)))
                return -ENOMEM;
        home = strv_env_get(f->env, "HOME");
        if (home && !(p->home = strdup(home)))
                return -ENOMEM;
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &p->detected_usec);

        /* A process a scan finds may have started a moment ago (the daemon's first scan races the
         * programs started with it): one still loading its libraries gets the settle re-reads too. */
        if (!settle && m->real_proc && started_within(f->id.start_time, m->config.settle_usec))
                settle = true;

        /* Libraries are mapped after exec: when the settle re-reads will look at them, reading them now
         * would only cost. */
        r = resolve(m, dfd, f, !settle || m->config.settle_usec == 0, &res);
        if (r < 0)
                return r;

        r = intmap_put(&m->profiles->processes, (uint64_t) p->id.pid, p);
        if (r < 0) {
                rc_resolution_free(res);
                return r;
        }

        r = process_update(p, f, res);
        if (r < 0) {
                intmap_remove(&m->profiles->processes, (uint64_t) p->id.pid);
                return r;
        }

        /* Libraries load after exec: look again while the process settles, if any rule could care. */
        if (settle && m->config.settle_usec > 0 && p->resolution->depends_on_dsos)
                settle_schedule(p);

        if (ret)
                *ret = p;
        TAKE_PTR(p);
        return 0;
}

int process_new_from_facts(Manager *m, const ProcFacts *f, bool settle, Process **ret)
{
        return process_new(m, -EBADF, (ProcFacts *) f, settle, ret);
}

int process_new_at(Manager *m, int dfd, ProcFacts *f, bool settle, Process **ret)
{
        assert(dfd >= 0);
        return process_new(m, dfd, f, settle, ret);
}

void process_remove(Process *p)
{
        Manager *m;

        if (!p)
                return;
        m = p->manager;
        if (m->callbacks.process_removed)
                m->callbacks.process_removed(m, p, m->userdata);
        if (p->resolution && p->resolution->n_matched > 0)
                m->profiles->n_matched--;
        intmap_remove(&m->profiles->processes, (uint64_t) p->id.pid);
        process_free(p);
}
