/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The recent past of one figure (an engine's busy percent, a region's bytes, an application's use), as
 * the client saw it: the app's graphs and sparklines and the history line of `nvprofilectl top` keep
 * their samples here, so that both show the same windows the same way. Samples come only while the
 * client watches (nothing is sampled while the window is hidden), so gaps are real and stay gaps. */

/* The windows a user can choose, and the longest one, which bounds what is kept. */
#define USAGE_HISTORY_WINDOW_1MIN_USEC (UINT64_C(60) * UINT64_C(1000000))
#define USAGE_HISTORY_WINDOW_5MIN_USEC (UINT64_C(5) * USAGE_HISTORY_WINDOW_1MIN_USEC)
#define USAGE_HISTORY_WINDOW_10MIN_USEC (UINT64_C(10) * USAGE_HISTORY_WINDOW_1MIN_USEC)
#define USAGE_HISTORY_KEEP_USEC USAGE_HISTORY_WINDOW_10MIN_USEC
/* At most one sample per 100 ms is kept for 10 minutes: a bound on memory whatever the sample rate. */
#define USAGE_HISTORY_MAX_SAMPLES ((size_t) 6000)

typedef struct UsageHistory {
        uint64_t *times; /* CLOCK_MONOTONIC microseconds, ascending */
        double *values; /* < 0: not known at that time (drawn as a gap) */
        size_t capacity, first, n;
} UsageHistory;

#define USAGE_HISTORY_INIT ((UsageHistory){ .capacity = 0 })

void usage_history_done(UsageHistory *h);

/* Appends a sample taken at now_usec (not earlier than the last one: an earlier one is dropped, as the
 * clock it came from went back) and forgets samples older than USAGE_HISTORY_KEEP_USEC. -ENOMEM. */
int usage_history_push(UsageHistory *h, uint64_t now_usec, double value);

/* Marks a gap (the watch ended, the daemon went away): the line does not join across it. */
int usage_history_break(UsageHistory *h, uint64_t now_usec);

size_t usage_history_size(const UsageHistory *h);
/* Sample i, oldest first (i < usage_history_size()). */
void usage_history_get(const UsageHistory *h, size_t i, uint64_t *ret_usec, double *ret_value);

/* The latest known value and the peak over [now - window, now]; false when no known sample is in the
 * window. */
bool usage_history_stats(
                const UsageHistory *h, uint64_t now_usec, uint64_t window_usec, double *ret_current, double *ret_peak);

/* The window [now - window, now] in n equal columns, oldest first: each the highest known value of the
 * samples in it (so a short spike stays visible at any width), or a negative value where there is none. */
void usage_history_columns(const UsageHistory *h, uint64_t now_usec, uint64_t window_usec, double *ret, size_t n);

/* For a terminal: n columns as block characters (" " where not known, U+2581..U+2588 for 0..max) into
 * buf (at least 3 * n + 1 bytes, UTF-8, NUL-terminated). max <= 0: the columns' own peak. */
void usage_history_blocks(const double *columns, size_t n, double max, char *buf);
