/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the export's inputs from outside: strings in labels (units, cgroup paths, profile names
 * from users' rc files, process names). The first byte is skipped (it once picked the cgroup parser, now
 * procwatch's, fuzzed by fuzz-proc-parse); the rest is split at NUL bytes into unit, profile and comm. Labels must
 * come out as valid UTF-8 with every line a comment or a sample: anything else aborts. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "string-util.h"
#include "prometheus-metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Strings {
        char *unit, *profile, *comm;
} Strings;

static int lookup(pid_t pid, void *userdata, PrometheusMetricsOwner *ret)
{
        Strings *s = userdata;

        *ret = (PrometheusMetricsOwner){ .unit = s->unit, .profile = s->profile, .comm = s->comm };
        return 0;
}

static void check_exposition(const char *text, size_t size)
{
        if (!utf8_is_valid_n(text, size))
                abort();
        for (const char *line = text; line < text + size;) {
                const char *eol = memchr(line, '\n', (size_t) (text + size - line));
                const char *close;

                if (!eol)
                        abort(); /* every line ends */
                if (line[0] != '#') {
                        /* name{labels} value: the last '}' of the line ends the labels, a value follows. */
                        close = memrchr(line, '}', (size_t) (eol - line));
                        if (close && (close + 2 > eol || close[1] != ' '))
                                abort();
                }
                line = eol + 1;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;

        {
                _cleanup_(drm_usage_freep) DrmUsage *u = drm_usage_new();
                _cleanup_(prometheus_metrics_freep) PrometheusMetrics *x = prometheus_metrics_new();
                _cleanup_(drm_fdinfo_freep) DrmFdinfo *f = NULL;
                static const char fdinfo[] = "drm-driver: i915\ndrm-client-id: 1\ndrm-engine-render: 5 ns\n"
                                             "drm-total-system0: 4 KiB\n";
                char *copy = malloc(size), *p, *end;
                char *parts[3] = { NULL, NULL, NULL };
                Strings s;
                char *text = NULL;
                size_t text_size = 0;

                if (!u || !x || !copy)
                        abort();
                memcpy(copy, data + 1, size - 1);
                copy[size - 1] = '\0';
                p = copy;
                end = copy + size - 1;
                for (unsigned i = 0; i < 3; i++) {
                        parts[i] = p;
                        p += strlen(p);
                        if (p < end)
                                p++;
                }
                s = (Strings){ .unit = parts[0], .profile = parts[1], .comm = parts[2] };

                if (drm_fdinfo_parse(fdinfo, sizeof fdinfo - 1, 0, &f) < 0 ||
                                drm_usage_update(u,
                                                &(DrmUsageRead){ .fdinfo = f, .pid = 7, .fd = 3, .timestamp_usec = 1 },
                                                1) < 0) {
                        free(copy);
                        return 0;
                }
                for (PrometheusMetricsFlags flags = 0; flags <= PROMETHEUS_METRICS_PROCESS_LABELS;
                                flags += PROMETHEUS_METRICS_PROCESS_LABELS) {
                        PrometheusMetricsInput in = {
                                .version = parts[2], .drm = u, .lookup = lookup, .userdata = &s, .flags = flags
                        };

                        if (prometheus_metrics_render(x, &in, &text, &text_size) >= 0) {
                                check_exposition(text, text_size);
                                free(text);
                        }
                }
                free(copy);
        }
        return 0;
}
