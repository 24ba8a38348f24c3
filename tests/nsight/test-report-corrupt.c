/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every corpus report cut at every block and entry boundary (and a few bytes either side), and corrupted at
 * random (a fixed seed per report, so a failure reproduces): each load either fails cleanly, with an
 * error inside the file and a message, or succeeds with a consistent model. Each cut or corrupted file is
 * also loaded lazily, from memory (entries kept) and from a memfd (entries read again), and every action
 * decoded: the verdict must be the eager load's. Run under ASan in CI, so a read past a buffer or a leak
 * fails here even when the result looks right. */

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd-util.h"
#include "report-builder.h"
#include "report-test-util.h"
#include "report.h"
#include "test-util.h"

/* Random corruptions per report: 150, fewer for a large report so that each loads about as many bytes as
 * 150 copies of a 400 KB one (a 3.5 MB report still gets 17). */
#define CORRUPTIONS_PER_REPORT 150
#define CORRUPTION_BYTES_PER_REPORT (CORRUPTIONS_PER_REPORT * 400u * 1000u)
#define CORRUPTIONS_MIN 16

static char *read_report(const char *name, gsize *size)
{
        g_autofree char *path = report_corpus_path(name);
        char *data = NULL;

        g_assert_true(g_file_get_contents(path, &data, size, NULL));
        return data;
}

static void assert_clean_error(int r, const NcuReportError *err, size_t size)
{
        g_assert_cmpuint(err->offset, <=, size);
        g_assert_cmpuint(strlen(err->message), >, 0);
        g_assert_true(IN_SET(r, -EBADMSG, -EPROTONOSUPPORT, -E2BIG));
}

/* The model of a successful load is whole: every name resolved, every lookup works. */
static void walk(const NcuReport *r)
{
        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuAction *a = r->actions[i];
                g_assert_true(a->metrics_decoded);
                for (size_t j = 0; j < a->n_metrics; j++) {
                        g_assert_nonnull(a->metrics[j].name);
                        g_assert_nonnull(ncu_action_metric_by_name(a, a->metrics[j].name));
                }
        }
}

/* A lazy load of data, then every action decoded: 0 and a whole model, or a clean error. From a memfd, the
 * entries are read again when decoded; from memory, kept. */
static int try_load_lazy(const uint8_t *data, size_t size, bool from_memfd)
{
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        _cleanup_close_ int fd = -EBADF;
        NcuReportError err;
        int k;

        if (from_memfd) {
                fd = memfd_create("report", MFD_CLOEXEC);
                g_assert_cmpint(fd, >=, 0);
                g_assert_cmpint(write(fd, data, size), ==, (ssize_t) size);
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                k = ncu_report_load_fd_flags(fd, NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
        } else
                k = ncu_report_load_buffer_flags(data, size, NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
        if (k < 0) {
                g_assert_null(r);
                assert_clean_error(k, &err, size);
                return k;
        }
        g_assert_true(r->reread == from_memfd);
        k = ncu_report_decode_metrics(r, &err);
        /* What a load of a file leaves there but the metrics: the CUDA sources, a message to check. */
        for (size_t i = 0; k >= 0 && i < r->n_sources; i++)
                k = ncu_source_files(r, &r->sources[i], &err);
        if (k < 0) {
                assert_clean_error(k, &err, size);
                return k;
        }
        walk(r);
        return 0;
}

/* Loads an exact-size copy (so ASan sees any read past the end); returns the error or 0. The lazy loads
 * must come to the same verdict. */
static int try_load(const uint8_t *data, size_t size, NcuReport **ret, NcuReportError *err)
{
        g_autofree uint8_t *copy = g_memdup2(data, MAX(size, (size_t) 1));
        int r;

        r = ncu_report_load_buffer(copy, size, NULL, ret, err);
        if (r < 0) {
                g_assert_null(*ret);
                assert_clean_error(r, err, size);
        }
        g_assert_cmpint(try_load_lazy(copy, size, false) >= 0, ==, r >= 0);
        g_assert_cmpint(try_load_lazy(copy, size, true) >= 0, ==, r >= 0);
        return r;
}

static void test_truncation(gconstpointer p)
{
        const char *name = p;
        gsize size;
        g_autofree char *data = read_report(name, &size);
        g_autofree uint64_t *blocks = NULL, *entries = NULL;
        size_t n_blocks, n_entries, n_cuts = 0;

        g_assert_cmpint(report_block_offsets((const uint8_t *) data, size, &blocks, &n_blocks, &entries, &n_entries),
                        ==, 0);
        g_assert_cmpuint(n_blocks, >, 0);

        for (size_t i = 0; i < n_blocks + n_entries; i++) {
                uint64_t at = i < n_blocks ? blocks[i] : entries[i - n_blocks];

                for (int delta = -1; delta <= 5; delta++) {
                        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
                        NcuReportError err;
                        int64_t cut = (int64_t) at + delta;
                        int k;

                        if (cut < 0 || (uint64_t) cut >= size)
                                continue;
                        n_cuts++;
                        k = try_load((const uint8_t *) data, (size_t) cut, &r, &err);
                        if (k < 0)
                                continue;
                        /* Only a cut exactly at a block boundary leaves a valid (shorter) container. */
                        g_assert_cmpint(delta, ==, 0);
                        g_assert_true(i < n_blocks);
                        g_assert_cmpuint(r->n_blocks, ==, i);
                        walk(r);
                }
        }
        g_test_message("%s: %zu blocks, %zu entries, %zu cuts", name, n_blocks, n_entries, n_cuts);
}

static void test_corruption(gconstpointer p)
{
        const char *name = p;
        gsize size;
        g_autofree char *data = read_report(name, &size);
        g_autoptr(GRand) rand = g_rand_new_with_seed(g_str_hash(name));
        size_t ok = 0, failed = 0,
               n = CLAMP(CORRUPTION_BYTES_PER_REPORT / size, CORRUPTIONS_MIN, CORRUPTIONS_PER_REPORT);

        for (size_t i = 0; i < n; i++) {
                g_autofree uint8_t *copy = g_memdup2(data, size);
                _cleanup_(ncu_report_freep) NcuReport *r = NULL;
                unsigned n_bytes = (unsigned) g_rand_int_range(rand, 1, 9);
                NcuReportError err;

                for (unsigned j = 0; j < n_bytes; j++) {
                        size_t at = (size_t) g_rand_int_range(rand, 0, (gint32) size);
                        switch (g_rand_int_range(rand, 0, 3)) {
                        case 0: /* a random byte */
                                copy[at] = (uint8_t) g_rand_int(rand);
                                break;
                        case 1: /* a bit */
                                copy[at] ^= (uint8_t) (1u << g_rand_int_range(rand, 0, 8));
                                break;
                        default: /* a size-like value: all ones */
                                copy[at] = 0xff;
                                break;
                        }
                }
                if (try_load(copy, size, &r, &err) < 0)
                        failed++;
                else {
                        walk(r);
                        ok++;
                }
        }
        g_test_message("%s: %zu loaded, %zu refused", name, ok, failed);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *t = g_strconcat("/report-corrupt/truncated/", report_corpus_names[i], NULL);
                g_autofree char *c = g_strconcat("/report-corrupt/random/", report_corpus_names[i], NULL);
                g_test_add_data_func(t, report_corpus_names[i], test_truncation);
                g_test_add_data_func(c, report_corpus_names[i], test_corruption);
        }
        return g_test_run();
}
