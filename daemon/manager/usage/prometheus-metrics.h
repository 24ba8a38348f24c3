/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>
#include <sys/types.h>

#include "drm-usage.h"
#include "macro.h"
#include "nvml.h"

/* The fleet export (../shared/docs/daemon-design.md §7): the usage snapshot (the DRM fdinfo model, the
 * NVML devices and processes, and who each GPU client is) rendered in the Prometheus text exposition
 * format (version 0.0.4) for node_exporter's textfile collector, and written atomically. Its own concern
 * because it is the one place that reads both usage sources (drm/ and nvml/ never include each other);
 * the manager drives it on a timer (daemon/manager/usage/prometheus-textfile.c).
 *
 * - Counters are cumulative, straight from the sources (busy nanoseconds and cycles as the driver counts
 *   them, never our utilisation figures), so Prometheus' rate() computes utilisation over any window.
 * - GPU clients are grouped per systemd unit (or cgroup) and applied profile, never per pid unless
 *   asked (cardinality: a pid is a new series every time a program starts). A series' counter never
 *   goes down while the series exists: the counts of clients that ended are carried in it, so a unit whose
 *   worker processes come and go is not seen as a counter reset. A series without any live client
 *   disappears.
 * - Every label value is escaped as the format requires (backslash, double quote, line feed), invalid
 *   UTF-8 becomes U+FFFD and values are cut to PROMETHEUS_METRICS_LABEL_MAX bytes (at a character boundary),
 *   so no process name, cgroup or rc profile name can break or forge a line. */

#define PROMETHEUS_METRICS_LABEL_MAX 256u

/* Who a GPU client is, for its labels: filled by the caller's lookup; NULL or "" for unknown. The strings
 * only need to live until the next lookup call. */
typedef struct PrometheusMetricsOwner {
        const char *unit; /* the systemd unit, else the cgroup path */
        const char *profile; /* the application profile applied to the process, highest precedence first */
        const char *comm; /* only used with PROMETHEUS_METRICS_PROCESS_LABELS */
} PrometheusMetricsOwner;

/* Returns 0 with *ret filled, or negative when pid is unknown (its labels are then empty). */
typedef int (*PrometheusMetricsLookup)(pid_t pid, void *userdata, PrometheusMetricsOwner *ret);

typedef enum PrometheusMetricsFlags {
        /* Adds pid and comm labels to the per-unit series: one series per process (opt-in). */
        PROMETHEUS_METRICS_PROCESS_LABELS = 1 << 0,
} PrometheusMetricsFlags;

typedef struct PrometheusMetricsInput {
        const char *version; /* nvprofiled_build_info */
        const DrmUsage *drm; /* NULL: no DRM source */
        const NvmlDeviceUsage *const *nvml_devices; /* NULL with 0: no NVML device */
        size_t n_nvml_devices;
        PrometheusMetricsLookup lookup; /* NULL: every client's labels are empty */
        void *userdata;
        PrometheusMetricsFlags flags;
} PrometheusMetricsInput;

/* What carries counters across renders (see above). */
typedef struct PrometheusMetrics PrometheusMetrics;

PrometheusMetrics *prometheus_metrics_new(void);
PrometheusMetrics *prometheus_metrics_free(PrometheusMetrics *x);
DEFINE_TRIVIAL_CLEANUP_FUNC(PrometheusMetrics *, prometheus_metrics_free);

/* Renders one exposition of in (HELP and TYPE for each metric, its series together, sorted). Returns 0
 * with a NUL-terminated text in *ret (and its length in *ret_size), or -ENOMEM. */
int prometheus_metrics_render(PrometheusMetrics *x, const PrometheusMetricsInput *in, char **ret, size_t *ret_size);

/* Replaces path atomically with text: a new file ".<name>.XXXXXXXXXXXXXXXX" in the same directory (which
 * the textfile collector ignores, as it reads only *.prom), created readable by its owner only, given
 * group gid ((gid_t) -1: the creator's) and then mode, whatever the umask, all before a byte is written
 * (anyone watching the directory could open it while it is written: they get no more than the final
 * file would give them), then written, fsync()ed, renamed over path, and the directory fsync()ed; on any
 * failure the temporary file is removed and path is left as it was. Never follows a symbolic link at
 * the temporary name. Returns 0 or a negative errno. */
int prometheus_metrics_write_file(const char *path, const char *text, size_t size, mode_t mode, gid_t gid);

/* The label value as the exposition format needs it (see above), appended to f. */
void prometheus_metrics_put_label_value(FILE *f, const char *s);
