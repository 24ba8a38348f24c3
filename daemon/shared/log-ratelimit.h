/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

/* Rate limits on what users make the daemon log.
 *
 * One user's own rule and a loop of short-lived processes make one "Profile applied" line each; without
 * a limit that user alone fills journald's per-unit rate limit, and journald then drops every other
 * message of the service. So each message a user's action causes is counted against that user (the
 * uid it is attributed to), in fixed windows as journald counts: the first message of a uid opens a
 * window of interval_usec, in which at most burst of its messages are logged, and at most total_burst
 * of all users' together (so that many users cannot reach journald's limit either). The rest are only
 * counted; when the window ends, a summary says how many were dropped. Messages nobody's action caused
 * (start-up, the system's files, failures of the daemon's own) are not counted at all.
 *
 * Memory: an entry per uid that caused a message in its current window, at most LOG_RATELIMIT_UIDS_MAX;
 * further uids share one entry, LOG_RATELIMIT_OTHER_UIDS. Times are CLOCK_MONOTONIC microseconds,
 * passed in, so this is tested without a clock. */

#define LOG_RATELIMIT_UIDS_MAX 1024u
#define LOG_RATELIMIT_OTHER_UIDS ((uid_t) -1)

typedef struct LogRatelimitEntry {
        uid_t uid;
        uint64_t window_start_usec;
        unsigned n_logged;
        uint64_t n_suppressed;
} LogRatelimitEntry;

typedef struct LogRatelimit {
        uint64_t interval_usec; /* 0: nothing is limited */
        unsigned burst; /* messages of one uid per window; 0: no limit per uid */
        unsigned total_burst; /* messages of all uids together per window; 0: no limit in total */

        uint64_t total_window_start_usec;
        unsigned total_logged;
        bool total_window_open;

        LogRatelimitEntry *entries;
        size_t n_entries, allocated;
        uint64_t earliest_end_usec; /* no window ends before this: flushing sooner has nothing to do */
} LogRatelimit;

/* What one uid's ended window dropped. */
typedef struct LogRatelimitSummary {
        uid_t uid; /* LOG_RATELIMIT_OTHER_UIDS: the uids beyond LOG_RATELIMIT_UIDS_MAX together */
        uint64_t n_suppressed;
        uint64_t elapsed_usec; /* from the window's start to the flush that reports it */
} LogRatelimitSummary;

typedef void (*LogRatelimitSummaryFunc)(const LogRatelimitSummary *s, void *userdata);

void log_ratelimit_init(LogRatelimit *rl, uint64_t interval_usec, unsigned burst, unsigned total_burst);
void log_ratelimit_done(LogRatelimit *rl);

/* Ends the windows that ended by now: fn gets the summary of each that dropped messages (in the order
 * the windows opened), and the entries go. Cheap when no window ended (a comparison). */
void log_ratelimit_flush(LogRatelimit *rl, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata);

/* The same for every window, ended or not (when the limits change or the daemon stops: a count is never
 * lost). Every uid starts afresh. */
void log_ratelimit_flush_all(LogRatelimit *rl, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata);

/* Whether a message that uid caused at now may be logged: true, counted as logged; or false, counted as
 * suppressed (also when there is no memory for its entry: the limit never fails open). Flushes first
 * (fn as for log_ratelimit_flush()), so that a window that ended is reported and a new one opens.
 * ret_first_suppressed, if given, says whether this was the first message its window dropped: from then
 * on a flush is due (log_ratelimit_next_flush()). */
bool log_ratelimit_allow(LogRatelimit *rl, uid_t uid, uint64_t now, LogRatelimitSummaryFunc fn, void *userdata,
                bool *ret_first_suppressed);

/* When the earliest window that dropped messages ends (when a flush has a summary to give), or
 * UINT64_MAX if none did. */
uint64_t log_ratelimit_next_flush(const LogRatelimit *rl) _pure_;
