/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "usage-history.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void usage_history_done(UsageHistory *h)
{
        assert(h);
        free(h->times);
        free(h->values);
        *h = USAGE_HISTORY_INIT;
}

static size_t slot(const UsageHistory *h, size_t i)
{
        return (h->first + i) % h->capacity;
}

size_t usage_history_size(const UsageHistory *h)
{
        assert(h);
        return h->n;
}

void usage_history_get(const UsageHistory *h, size_t i, uint64_t *ret_usec, double *ret_value)
{
        assert(h);
        assert(i < h->n);
        if (ret_usec)
                *ret_usec = h->times[slot(h, i)];
        if (ret_value)
                *ret_value = h->values[slot(h, i)];
}

static int grow(UsageHistory *h)
{
        size_t capacity = h->capacity == 0 ? 64 : h->capacity * 2;
        if (capacity > USAGE_HISTORY_MAX_SAMPLES)
                capacity = USAGE_HISTORY_MAX_SAMPLES;
        if (capacity <= h->capacity)
                return 0; /* full: the caller overwrites the oldest */

        uint64_t *times = malloc(capacity * sizeof(uint64_t));
        double *values = malloc(capacity * sizeof(double));
        if (!times || !values) {
                free(times);
                free(values);
                return -ENOMEM;
        }
        for (size_t i = 0; i < h->n; i++) {
                times[i] = h->times[slot(h, i)];
                values[i] = h->values[slot(h, i)];
        }
        free(h->times);
        free(h->values);
        h->times = times;
        h->values = values;
        h->capacity = capacity;
        h->first = 0;
        return 0;
}

int usage_history_push(UsageHistory *h, uint64_t now_usec, double value)
{
        assert(h);

        if (h->n > 0 && now_usec < h->times[slot(h, h->n - 1)])
                return 0;

        /* Forget what fell out of the longest window. */
        while (h->n > 0 && now_usec - h->times[h->first] > USAGE_HISTORY_KEEP_USEC) {
                h->first = (h->first + 1) % h->capacity;
                h->n--;
        }

        if (h->n == h->capacity) {
                int r = grow(h);
                if (r < 0)
                        return r;
        }
        if (h->n == h->capacity) {
                /* At the sample bound: the oldest goes. */
                h->first = (h->first + 1) % h->capacity;
                h->n--;
        }

        size_t s = slot(h, h->n);
        h->times[s] = now_usec;
        h->values[s] = value;
        h->n++;
        return 0;
}

int usage_history_break(UsageHistory *h, uint64_t now_usec)
{
        assert(h);
        if (h->n == 0 || h->values[slot(h, h->n - 1)] < 0)
                return 0;
        return usage_history_push(h, now_usec, -1);
}

bool usage_history_stats(
                const UsageHistory *h, uint64_t now_usec, uint64_t window_usec, double *ret_current, double *ret_peak)
{
        assert(h);

        bool found = false;
        double current = -1, peak = -1;
        uint64_t since = now_usec > window_usec ? now_usec - window_usec : 0;
        for (size_t i = h->n; i > 0; i--) {
                uint64_t t;
                double v;
                usage_history_get(h, i - 1, &t, &v);
                if (t < since)
                        break;
                if (t > now_usec || v < 0)
                        continue;
                if (!found)
                        current = v;
                found = true;
                if (v > peak)
                        peak = v;
        }
        if (ret_current)
                *ret_current = current;
        if (ret_peak)
                *ret_peak = peak;
        return found;
}

void usage_history_columns(const UsageHistory *h, uint64_t now_usec, uint64_t window_usec, double *ret, size_t n)
{
        assert(h);
        assert(ret || n == 0);
        assert(window_usec > 0);

        for (size_t c = 0; c < n; c++)
                ret[c] = -1;
        if (n == 0)
                return;

        uint64_t since = now_usec > window_usec ? now_usec - window_usec : 0;
        for (size_t i = 0; i < h->n; i++) {
                uint64_t t;
                double v;
                usage_history_get(h, i, &t, &v);
                if (t < since || t > now_usec || v < 0)
                        continue;
                size_t c = (size_t) ((double) (t - since) / (double) window_usec * (double) n);
                if (c >= n)
                        c = n - 1;
                if (v > ret[c])
                        ret[c] = v;
        }
}

void usage_history_blocks(const double *columns, size_t n, double max, char *buf)
{
        /* U+2581 LOWER ONE EIGHTH BLOCK .. U+2588 FULL BLOCK: E2 96 81..88 */
        assert(columns || n == 0);
        assert(buf);

        if (max <= 0)
                for (size_t c = 0; c < n; c++)
                        if (columns[c] > max)
                                max = columns[c];

        char *p = buf;
        for (size_t c = 0; c < n; c++) {
                double v = columns[c];
                if (v < 0) {
                        *p++ = ' ';
                        continue;
                }
                unsigned level = max > 0 ? (unsigned) (v / max * 7.0 + 0.5) : 0;
                if (level > 7)
                        level = 7;
                *p++ = (char) 0xE2;
                *p++ = (char) 0x96;
                *p++ = (char) (0x81 + level);
        }
        *p = '\0';
}
