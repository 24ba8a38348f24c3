/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fleet export's cost at the model's bound: 4,096 DRM clients (DRM_USAGE_CLIENTS_MAX), 4 engines and
 * 2 regions each, in 200 units, rendered as the daemon does every ExportIntervalSec=, side by side with
 * what one sampling round of the same clients costs past the reads (parsing every fdinfo, generated in
 * memory in place of the reads, and drm_usage_update()), which the daemon does at every sample anyway, as
 * a ratio in one run; and the atomic write of the result (new file, fsync, rename). CPU time of this
 * process (CLOCK_PROCESS_CPUTIME_ID), the median of the rounds. Prints figures, asserts nothing. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "prometheus-metrics.h"

#define N_CLIENTS DRM_USAGE_CLIENTS_MAX
#define N_UNITS 200
#define ROUNDS 21

static uint64_t cpu_usec(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static uint64_t wall_usec(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int lookup(pid_t pid, void *userdata, PrometheusMetricsOwner *ret)
{
        static char units[N_UNITS][32];

        if (!units[0][0])
                for (int i = 0; i < N_UNITS; i++)
                        snprintf(units[i], sizeof units[i], "worker-%d.service", i);
        *ret = (PrometheusMetricsOwner){ .unit = units[pid % N_UNITS], .profile = pid % 3 ? "Compute Profile" : "" };
        return 0;
}

/* Parses every client's fdinfo for one round. */
static void parse_round(DrmFdinfo **f, unsigned round)
{
        for (unsigned i = 0; i < N_CLIENTS; i++) {
                char text[512];
                int len;

                drm_fdinfo_free(f[i]);
                len = snprintf(text, sizeof text,
                                "drm-driver: amdgpu\ndrm-pdev: 0000:%02x:00.0\ndrm-client-id: %u\n"
                                "drm-engine-gfx: %" PRIu64 " ns\ndrm-engine-compute: %" PRIu64 " ns\n"
                                "drm-engine-dec: 0 ns\ndrm-engine-enc: 0 ns\ndrm-engine-capacity-compute: 2\n"
                                "drm-total-vram: %u KiB\ndrm-resident-vram: %u KiB\ndrm-total-gtt: 2048 KiB\n",
                                3 + i % 4, i, (uint64_t) round * 1000000 + i, (uint64_t) round * 500000, 1024 + i,
                                512 + i);
                if (drm_fdinfo_parse(text, (size_t) len, DRM_FDINFO_PARSE_NO_EXTRAS, &f[i]) < 0)
                        abort();
        }
}

int main(int argc, char *argv[])
{
        _cleanup_(drm_usage_freep) DrmUsage *u = drm_usage_new();
        _cleanup_(prometheus_metrics_freep) PrometheusMetrics *x = prometheus_metrics_new();
        DrmFdinfo **f = calloc(N_CLIENTS, sizeof(DrmFdinfo *));
        DrmUsageRead *reads = calloc(N_CLIENTS, sizeof(DrmUsageRead));
        uint64_t sample[ROUNDS], render[ROUNDS], write_cpu[ROUNDS], write_wall[ROUNDS];
        char dir[] = "/tmp/bench-export-XXXXXX", path[64];
        size_t size = 0;

        if (!u || !x || !f || !reads || !mkdtemp(dir))
                return 1;
        snprintf(path, sizeof path, "%s/nvprofiled.prom", dir);

        for (unsigned round = 0; round < ROUNDS; round++) {
                PrometheusMetricsInput in = { .version = "bench", .drm = u, .lookup = lookup };
                _cleanup_free_ char *text = NULL;
                uint64_t t0, w0;

                t0 = cpu_usec();
                parse_round(f, round);
                for (unsigned i = 0; i < N_CLIENTS; i++)
                        reads[i] = (DrmUsageRead){ .fdinfo = f[i],
                                .pid = (pid_t) (1000 + i),
                                .uid = (uid_t) (i % 4), /* four users: each share full */
                                .fd = 5,
                                .timestamp_usec = (uint64_t) (round + 1) * 1000000 };
                if (drm_usage_update(u, reads, N_CLIENTS) < 0)
                        return 1;
                sample[round] = cpu_usec() - t0;

                t0 = cpu_usec();
                if (prometheus_metrics_render(x, &in, &text, &size) < 0)
                        return 1;
                render[round] = cpu_usec() - t0;

                t0 = cpu_usec();
                w0 = wall_usec();
                if (prometheus_metrics_write_file(path, text, size, 0640, (gid_t) -1) < 0)
                        return 1;
                write_cpu[round] = cpu_usec() - t0;
                write_wall[round] = wall_usec() - w0;
        }

        printf("export of %u clients (4 engines, 2 regions each) in %u units, median of %u rounds:\n", N_CLIENTS,
                        N_UNITS, ROUNDS);
        printf("  a sampling round past the reads (parse, update; the reference): %8" PRIu64 " us CPU\n",
                        bench_median_u64(sample, ROUNDS));
        printf("  prometheus_metrics_render:                                            %8" PRIu64
               " us CPU  (%.2fx the round)\n",
                        bench_median_u64(render, ROUNDS),
                        (double) bench_median_u64(render, ROUNDS) / (double) bench_median_u64(sample, ROUNDS));
        printf("  prometheus_metrics_write_file (%zu bytes, fsync, rename):             %8" PRIu64 " us CPU, %" PRIu64
               " us wall\n",
                        size, bench_median_u64(write_cpu, ROUNDS), bench_median_u64(write_wall, ROUNDS));

        for (unsigned i = 0; i < N_CLIENTS; i++)
                drm_fdinfo_free(f[i]);
        free(f);
        free(reads);
        (void) unlink(path);
        (void) rmdir(dir);
        return 0;
}
