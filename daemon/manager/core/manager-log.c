/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "log.h"
#include "manager-log.h"

static int on_flush(sd_event_source *s, uint64_t usec, void *userdata)
{
        uint64_t next = log_user_flush();

        if (next == UINT64_MAX)
                return sd_event_source_set_enabled(s, SD_EVENT_OFF);
        (void) sd_event_source_set_time(s, next);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* A window dropped its first message: its summary is due at when. */
static void on_suppressed(uint64_t when, void *userdata)
{
        Manager *m = userdata;
        uint64_t armed;
        int enabled = SD_EVENT_OFF;
        int r;

        if (!m->log_flush_timer) {
                r = sd_event_add_time(m->event, &m->log_flush_timer, CLOCK_MONOTONIC, when, 0, on_flush, m);
                if (r < 0)
                        /* The summary then comes with the uid's next message after the window. */
                        log_debug_errno(r, "Cannot arm the timer of suppressed messages' summaries");
                return;
        }
        (void) sd_event_source_get_enabled(m->log_flush_timer, &enabled);
        if (enabled != SD_EVENT_OFF && sd_event_source_get_time(m->log_flush_timer, &armed) >= 0 && armed <= when)
                return;
        (void) sd_event_source_set_time(m->log_flush_timer, when);
        (void) sd_event_source_set_enabled(m->log_flush_timer, SD_EVENT_ONESHOT);
}

int manager_log_start(Manager *m)
{
        assert(m);

        log_set_user_ratelimit(m->config.user_log_interval_usec, m->config.user_log_burst,
                        m->config.all_users_log_burst, on_suppressed, m);
        return 0;
}

void manager_log_stop(Manager *m)
{
        assert(m);

        log_set_user_ratelimit(0, 0, 0, NULL, NULL);
        m->log_flush_timer = sd_event_source_disable_unref(m->log_flush_timer);
}
