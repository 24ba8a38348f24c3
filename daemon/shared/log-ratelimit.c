/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "log-ratelimit.h"

void log_ratelimit_init(LogRatelimit *rl, uint64_t interval_usec, unsigned burst, unsigned total_burst)
{
        assert(rl);

        *rl = (LogRatelimit){
                .interval_usec = interval_usec,
                .burst = burst,
                .total_burst = total_burst,
                .earliest_end_usec = UINT64_MAX,
        };
}

void log_ratelimit_done(LogRatelimit *rl)
{
        if (!rl)
                return;
        free(rl->entries);
        log_ratelimit_init(rl, rl->interval_usec, rl->burst, rl->total_burst);
}

static uint64_t window_end(const LogRatelimit *rl, uint64_t start)
{
        return start > UINT64_MAX - rl->interval_usec ? UINT64_MAX : start + rl->interval_usec;
}

/* all: every window ends now, whenever it would have. */
static void flush(LogRatelimit *rl, uint64_t now, bool all, LogRatelimitSummaryFunc fn, void *userdata)
{
        uint64_t earliest = UINT64_MAX;
        size_t j = 0;

        assert(rl);

        if (!all && now < rl->earliest_end_usec)
                return;
        for (size_t i = 0; i < rl->n_entries; i++) {
                const LogRatelimitEntry *e = &rl->entries[i];
                uint64_t end = window_end(rl, e->window_start_usec);

                if (!all && now < end) {
                        earliest = MIN(earliest, end);
                        rl->entries[j++] = *e;
                        continue;
                }
                if (e->n_suppressed > 0 && fn)
                        fn(&(const LogRatelimitSummary){ .uid = e->uid,
                                           .n_suppressed = e->n_suppressed,
                                           .elapsed_usec = now > e->window_start_usec ? now - e->window_start_usec
                                                                                      : 0 },
                                        userdata);
        }
        rl->n_entries = j;
        rl->earliest_end_usec = earliest;
        if (all)
                rl->total_window_open = false;
}

void log_ratelimit_flush(LogRatelimit *rl, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata)
{
        flush(rl, now, false, fn, userdata);
}

void log_ratelimit_flush_all(LogRatelimit *rl, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata)
{
        flush(rl, now, true, fn, userdata);
}

/* The entry of uid's current window, opened now if it has none; NULL without memory. */
static LogRatelimitEntry *find_or_add(LogRatelimit *rl, uid_t uid, uint64_t now)
{
        LogRatelimitEntry *e;

        for (size_t i = 0; i < rl->n_entries; i++)
                if (rl->entries[i].uid == uid)
                        return &rl->entries[i];
        /* One more than the bound: the shared entry of the uids beyond it. */
        if (uid != LOG_RATELIMIT_OTHER_UIDS && rl->n_entries >= LOG_RATELIMIT_UIDS_MAX)
                return find_or_add(rl, LOG_RATELIMIT_OTHER_UIDS, now);
        if (GREEDY_REALLOC(rl->entries, rl->allocated, rl->n_entries + 1) < 0)
                return NULL;
        e = &rl->entries[rl->n_entries++];
        *e = (LogRatelimitEntry){ .uid = uid, .window_start_usec = now };
        rl->earliest_end_usec = MIN(rl->earliest_end_usec, window_end(rl, now));
        return e;
}

bool log_ratelimit_allow(LogRatelimit *rl, uid_t uid, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata,
                bool *ret_first_suppressed)
{
        LogRatelimitEntry *e;

        assert(rl);

        if (ret_first_suppressed)
                *ret_first_suppressed = false;
        if (rl->interval_usec == 0)
                return true;

        log_ratelimit_flush(rl, now, fn, userdata);

        if (!rl->total_window_open || now >= window_end(rl, rl->total_window_start_usec)) {
                rl->total_window_open = true;
                rl->total_window_start_usec = now;
                rl->total_logged = 0;
        }

        e = find_or_add(rl, uid, now);
        if (!e)
                return false;
        if ((rl->burst == 0 || e->n_logged < rl->burst) &&
                        (rl->total_burst == 0 || rl->total_logged < rl->total_burst)) {
                e->n_logged++;
                rl->total_logged++;
                return true;
        }
        if (ret_first_suppressed)
                *ret_first_suppressed = e->n_suppressed == 0;
        e->n_suppressed++;
        return false;
}

uint64_t log_ratelimit_next_flush(const LogRatelimit *rl)
{
        uint64_t next = UINT64_MAX;

        assert(rl);

        for (size_t i = 0; i < rl->n_entries; i++)
                if (rl->entries[i].n_suppressed > 0)
                        next = MIN(next, window_end(rl, rl->entries[i].window_start_usec));
        return next;
}
