/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading Nsight Compute reports: for every corpus report and for a synthetic report of 10,000 results
 * (the corpus's profile results copied into new blocks after an original report, so they share its
 * string table), the load time (best and median of several loads from an fd, the page cache warm) and
 * memory: the model's own bytes and the most the load held from malloc at once (NcuReport.peak_memory:
 * model, scratch space and the largest record), each also as a multiple of the file's size. Each report
 * is loaded three ways: eager (every metric decoded by the load), lazy (metrics framed, decoded when an
 * action is first read: what the Python module does) and lazy then every action decoded (what an export
 * costs). Prints figures, asserts nothing.
 *
 *   bench-report CORPUS_DIR [N_SYNTHETIC]
 */

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "fd-util.h"
#include "fileio.h"
#include "report-builder.h"
#include "report.h"

#define LOADS 9
#define SYNTHETIC_RESULTS 10000
#define RESULTS_PER_BLOCK 100

static const char *const corpus_names[] = {
        "armleth_report_ncu2024.2.1",
        "extrap_ex-gpu.s10_ncu2020.3.1",
        "nvidia_example_addConstDouble3_ncu2023.3.0",
        "nvidia_example_sobelFloat_ncu2023.3.0",
        "syswea_profile_report_ncu2025.1.1",
};

static int compare_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

typedef enum LoadMode {
        LOAD_EAGER, /* ncu_report_load_fd(): every metric decoded */
        LOAD_LAZY, /* NCU_REPORT_LAZY_METRICS: metrics framed, decoded on first use */
        LOAD_LAZY_THEN_ALL, /* the same, then every action's metrics decoded (what an export reads) */
        _LOAD_MODE_MAX,
} LoadMode;

static const char *const load_mode_names[_LOAD_MODE_MAX] = {
        [LOAD_EAGER] = "eager",
        [LOAD_LAZY] = "lazy",
        [LOAD_LAZY_THEN_ALL] = "lazy+all",
};

static void bench(const char *label, const char *path, LoadMode mode)
{
        uint64_t t[LOADS], size = 0;
        size_t model = 0, peak = 0, results = 0;

        for (int i = 0; i < LOADS; i++) {
                NcuReport *r = NULL;
                NcuReportError err;
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                uint64_t start;

                if (fd < 0) {
                        perror(path);
                        exit(1);
                }
                start = bench_now_ns();
                if (ncu_report_load_fd_flags(fd, NULL, mode == LOAD_EAGER ? 0 : NCU_REPORT_LAZY_METRICS, &r, &err) <
                                                0 ||
                                (mode == LOAD_LAZY_THEN_ALL && ncu_report_decode_metrics(r, &err) < 0)) {
                        fprintf(stderr, "%s: byte %" PRIu64 ": %s\n", path, err.offset, err.message);
                        exit(1);
                }
                t[i] = bench_now_ns() - start;
                size = r->size;
                model = r->memory;
                peak = r->peak_memory;
                results = r->n_actions;
                ncu_report_free(r);
                close(fd);
        }
        qsort(t, LOADS, sizeof(uint64_t), compare_u64);
        printf("%-44s %-8s %6zu %10.1f KiB %9.2f ms %9.2f ms %10.1f KiB %5.2fx %10.1f KiB %5.2fx\n", label,
                        load_mode_names[mode], results, (double) size / 1024, (double) t[0] / 1e6,
                        (double) t[LOADS / 2] / 1e6, (double) model / 1024, (double) model / (double) size,
                        (double) peak / 1024, (double) peak / (double) size);
}

static void bench_modes(const char *label, const char *path)
{
        for (LoadMode m = 0; m < _LOAD_MODE_MAX; m++)
                bench(label, path, m);
}

typedef struct Captured {
        ReportBuffer results[64];
        size_t n;
} Captured;

static int capture(void *userdata, size_t block, NcuEntryKind kind, const uint8_t *data, size_t size, uint64_t offset,
                NcuReportError *err)
{
        Captured *c = userdata;

        if (kind == NCU_ENTRY_PROFILE_RESULT && c->n < ELEMENTSOF(c->results))
                report_buffer_append(&c->results[c->n++], data, size);
        return 0;
}

/* base, then blocks of copies of base's own results until n results in all. */
static int write_synthetic(const char *base_path, size_t n, const char *out_path)
{
        static const NcuContainerCallbacks cb = { .entry = capture };
        _cleanup_free_ char *data = NULL;
        _cleanup_close_ int fd = -EBADF;
        Captured c = { 0 };
        ReportBuffer out = { 0 };
        NcuReportLimits limits;
        NcuInput in;
        size_t size, have;
        int r;

        fd = open(base_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read_full_fd(fd, 1u << 30, &data, &size) < 0)
                return -EIO;
        ncu_report_limits_default(&limits);
        ncu_input_init_buffer(&in, data, size, limits.max_file_size);
        r = ncu_container_read(&in, &limits, &cb, &c, NULL);
        ncu_input_done(&in);
        if (r < 0 || c.n == 0)
                return -EBADMSG;

        report_buffer_append(&out, data, size);
        have = c.n;
        while (have < n) {
                ReportEntry entries[RESULTS_PER_BLOCK];
                size_t k = 0;

                for (; k < RESULTS_PER_BLOCK && have + k < n; k++)
                        entries[k] = (ReportEntry){
                                .kind = NCU_ENTRY_PROFILE_RESULT,
                                .raw = c.results[(have + k) % c.n].data,
                                .raw_size = c.results[(have + k) % c.n].size,
                        };
                report_build_block(&out, NULL, entries, k);
                have += k;
        }
        {
                _cleanup_close_ int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                size_t done = 0;
                if (o < 0)
                        return -errno;
                while (done < out.size) {
                        ssize_t k = write(o, out.data + done, out.size - done);
                        if (k <= 0)
                                return -EIO;
                        done += (size_t) k;
                }
        }
        report_buffer_done(&out);
        for (size_t i = 0; i < c.n; i++)
                report_buffer_done(&c.results[i]);
        return 0;
}

int main(int argc, char *argv[])
{
        char synthetic[] = "/tmp/bench-report-XXXXXX";
        size_t n = SYNTHETIC_RESULTS;
        int fd;

        if (argc < 2) {
                fprintf(stderr, "Usage: %s CORPUS_DIR [N_SYNTHETIC]\n", argv[0]);
                return 2;
        }
        if (argc > 2)
                n = strtoul(argv[2], NULL, 10);
        printf("%-44s %-8s %6s %14s %12s %12s %14s %6s %14s %6s\n", "report", "load", "kernels", "file", "best",
                        "median", "model", "xfile", "peak", "xfile");
        for (size_t i = 0; i < ELEMENTSOF(corpus_names); i++) {
                char *path;
                if (asprintf(&path, "%s/reports/%s.ncu-rep", argv[1], corpus_names[i]) < 0)
                        return 1;
                bench_modes(corpus_names[i], path);
                free(path);
        }
        fd = mkstemp(synthetic);
        if (fd < 0)
                return 1;
        close(fd);
        for (size_t i = 0; i < 2; i++) {
                /* The smallest results (extrap, 2020.3) and the largest (sobelFloat, full set). */
                const char *base = i == 0 ? "extrap_ex-gpu.s10_ncu2020.3.1" : "nvidia_example_sobelFloat_ncu2023.3.0";
                char *path, label[96];
                size_t count = i == 0 ? n : n / 100;

                if (asprintf(&path, "%s/reports/%s.ncu-rep", argv[1], base) < 0)
                        return 1;
                if (write_synthetic(path, count, synthetic) < 0) {
                        fprintf(stderr, "cannot build the synthetic report from %s\n", path);
                        unlink(synthetic);
                        return 1;
                }
                snprintf(label, sizeof(label), "synthetic: %zu x %.20s results", count, base);
                bench_modes(label, synthetic);
                free(path);
        }
        unlink(synthetic);
        return 0;
}
