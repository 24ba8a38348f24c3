/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "log.h"
#include "remembered-names.h"
#include "string-util.h"

/* The loop's wall clock: names are dated for people, and across restarts. */
static uint64_t now_realtime(const Manager *m)
{
        uint64_t now = 0;

        (void) sd_event_now(m->event, CLOCK_REALTIME, &now);
        return now;
}

void remembered_names_limits(const ManagerConfig *c, SeenNamesLimits *ret)
{
        assert(c);
        assert(ret);
        *ret = (SeenNamesLimits){
                .per_user_max = c->names_per_user_max,
                .per_user_bytes_max = (size_t) MIN(c->name_bytes_per_user_max, (uint64_t) SIZE_MAX),
                .total_max = c->names_max,
        };
}

static uint64_t cutoff(const Manager *m)
{
        uint64_t now = now_realtime(m);

        return now > m->config.remember_names_usec ? now - m->config.remember_names_usec : 0;
}

int remembered_names_save(Manager *m)
{
        int r;

        assert(m);
        if (m->state_dir_fd < 0 || m->config.remember_names_usec == 0 || !seen_names_dirty(m->profiles->seen_names))
                return 0;
        r = seen_names_save(m->profiles->seen_names, m->state_dir_fd, REMEMBERED_NAMES_FILE);
        if (r < 0)
                return log_warning_errno(r, "Cannot save the names of processes seen in the state directory");
        return 0;
}

static int on_save(sd_event_source *s, uint64_t usec, void *userdata)
{
        (void) remembered_names_save(userdata);
        return 0;
}

/* A save REMEMBERED_NAMES_SAVE_DELAY_USEC after the first change since the last one: a burst of new
 * processes costs one write. */
static void schedule_save(Manager *m)
{
        uint64_t now = 0;
        int r;

        if (m->state_dir_fd < 0)
                return;
        if (m->profiles->names_save_timer) {
                int enabled = SD_EVENT_OFF;

                (void) sd_event_source_get_enabled(m->profiles->names_save_timer, &enabled);
                if (enabled != SD_EVENT_OFF)
                        return;
        }
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (!m->profiles->names_save_timer)
                r = sd_event_add_time(m->event, &m->profiles->names_save_timer, CLOCK_MONOTONIC,
                                now + REMEMBERED_NAMES_SAVE_DELAY_USEC, 1000000, on_save, m);
        else {
                r = sd_event_source_set_time(m->profiles->names_save_timer, now + REMEMBERED_NAMES_SAVE_DELAY_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->profiles->names_save_timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_debug_errno(r, "Cannot schedule saving the names of processes seen");
}

static void forget_old(Manager *m)
{
        if (seen_names_forget_older(m->profiles->seen_names, cutoff(m)) > 0)
                schedule_save(m);
}

static int on_forget(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        int r;

        forget_old(m);
        r = sd_event_source_set_time(s, usec + REMEMBERED_NAMES_FORGET_INTERVAL_USEC);
        if (r < 0)
                log_debug_errno(r, "Cannot schedule forgetting old names of processes");
        return 0;
}

/* Nothing remembered: nothing kept, in memory or on disk. */
static void forget_all(Manager *m)
{
        seen_names_clear(m->profiles->seen_names);
        seen_names_mark_saved(m->profiles->seen_names);
        if (m->state_dir_fd >= 0 && unlinkat(m->state_dir_fd, REMEMBERED_NAMES_FILE, 0) < 0 && errno != ENOENT)
                log_warning_errno(errno, "Cannot remove %s from the state directory", REMEMBERED_NAMES_FILE);
}

int remembered_names_start(Manager *m)
{
        uint64_t now = 0;
        int r;

        assert(m);

        if (m->config.remember_names_usec == 0) {
                forget_all(m);
                return 0;
        }
        if (m->state_dir_fd >= 0) {
                r = seen_names_load(m->profiles->seen_names, m->state_dir_fd, REMEMBERED_NAMES_FILE, now_realtime(m),
                                m->config.remember_names_usec);
                if (r == -ENOMEM)
                        return r;
        }

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        r = sd_event_add_time(m->event, &m->profiles->names_forget_timer, CLOCK_MONOTONIC,
                        now + REMEMBERED_NAMES_FORGET_INTERVAL_USEC, 60 * 1000000, on_forget, m);
        if (r < 0)
                return log_warning_errno(r, "Cannot schedule forgetting old names of processes");
        return sd_event_source_set_enabled(m->profiles->names_forget_timer, SD_EVENT_ON);
}

void remembered_names_stop(Manager *m)
{
        assert(m);

        (void) remembered_names_save(m);
        m->profiles->names_save_timer = sd_event_source_disable_unref(m->profiles->names_save_timer);
        m->profiles->names_forget_timer = sd_event_source_disable_unref(m->profiles->names_forget_timer);
}

void remembered_names_config_changed(Manager *m)
{
        SeenNamesLimits limits;

        assert(m);

        remembered_names_limits(&m->config, &limits);
        seen_names_set_limits(m->profiles->seen_names, &limits);
        if (m->config.remember_names_usec == 0) {
                forget_all(m);
                return;
        }
        forget_old(m);
        if (seen_names_dirty(m->profiles->seen_names))
                schedule_save(m);
}

void remembered_names_note(Manager *m, const Process *p, const ProcFacts *f)
{
        _cleanup_(rc_match_facts_done) RcMatchFacts mf = { .exe_dir_fd = -EBADF };
        const RcProcessFacts rf = {
                .exe = f->exe,
                .comm = f->comm,
                .argv = f->argv,
                .root_fd = -EBADF,
        };
        const char *flatpak_id = NULL;
        int r;

        assert(m);
        assert(p);
        assert(f);

        if (m->config.remember_names_usec == 0)
                return;
        /* The features exactly as a rule sees them: one place computes them. */
        r = rc_match_facts_init(&mf, &rf);
        if (r < 0) {
                log_oom();
                return;
        }
        if ((f->have & PROC_FACTS_CGROUP) && streq_ptr(f->cgroup.app_kind, "flatpak"))
                flatpak_id = f->cgroup.app;

        r = seen_names_note(m->profiles->seen_names, p->uid, mf.procname, mf.has_comm ? mf.comm : NULL,
                        isempty(mf.cmdline) ? NULL : mf.cmdline, flatpak_id, now_realtime(m));
        if (r == -EINVAL) {
                /* A name no rule could be about to the doctor (control characters, too long): not kept. */
                log_user_debug(p->uid, "Not remembering the names of %i: not valid names.", (int) p->id.pid);
                return;
        }
        if (r < 0) {
                log_oom();
                return;
        }
        if (seen_names_dirty(m->profiles->seen_names))
                schedule_save(m);
}
