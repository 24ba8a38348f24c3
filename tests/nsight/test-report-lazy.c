/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lazy loads (NCU_REPORT_LAZY_METRICS): for every corpus report, from a regular file (entries read again
 * when decoded), a pipe, a zstd stream and memory (entries kept), the model before any decode holds no
 * metric, and after decoding every action (in reverse order) it equals the eager load's, metric by metric
 * and instance by instance. A file changed after the load is refused (-ESTALE) rather than misread, a
 * corrupt metric is an error of its action's decode (given again by every later call), and the actions
 * decoded before stay whole. A lazy load of a regular file leaves the sources' binaries (cubins) and CUDA
 * sources in the file until ncu_source_binary() and ncu_source_files() ask, under the same rule. */

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "fd-util.h"
#include "report-builder.h"
#include "report-container.h"
#include "report-test-util.h"
#include "report.h"
#include "test-util.h"

typedef enum Source {
        SOURCE_FILE, /* a regular file: entries read again */
        SOURCE_PIPE,
        SOURCE_ZSTD, /* a .ncu-repz in a memfd */
        SOURCE_MEMORY,
        _SOURCE_MAX,
} Source;

static const char *const source_names[_SOURCE_MAX] = { "file", "pipe", "zstd", "memory" };

static char *read_report(const char *name, gsize *size)
{
        g_autofree char *path = report_corpus_path(name);
        char *data = NULL;

        g_assert_true(g_file_get_contents(path, &data, size, NULL));
        return data;
}

typedef struct PipeWriter {
        int fd;
        const char *data;
        size_t size;
} PipeWriter;

static void *pipe_write(void *p)
{
        PipeWriter *w = p;
        size_t done = 0;

        while (done < w->size) {
                ssize_t k = write(w->fd, w->data + done, w->size - done);
                g_assert_cmpint(k, >, 0);
                done += (size_t) k;
        }
        close(w->fd);
        return NULL;
}

static NcuReport *load_lazy(const char *name, Source source)
{
        g_autofree char *path = report_corpus_path(name);
        gsize size;
        g_autofree char *data = read_report(name, &size);
        NcuReport *r = NULL;
        NcuReportError err = { 0 };
        int k = -EINVAL;

        switch (source) {
        case SOURCE_FILE: {
                _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
                g_assert_cmpint(fd, >=, 0);
                k = ncu_report_load_fd_flags(fd, NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
                break;
        }
        case SOURCE_PIPE: {
                int p[2];
                pthread_t t;
                PipeWriter w;

                g_assert_cmpint(pipe2(p, O_CLOEXEC), ==, 0);
                w = (PipeWriter){ .fd = p[1], .data = data, .size = size };
                g_assert_cmpint(pthread_create(&t, NULL, pipe_write, &w), ==, 0);
                k = ncu_report_load_fd_flags(p[0], NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
                g_assert_cmpint(pthread_join(t, NULL), ==, 0);
                close(p[0]);
                break;
        }
        case SOURCE_ZSTD: {
                size_t bound = ZSTD_compressBound(size);
                g_autofree uint8_t *z = g_malloc(bound);
                size_t n = ZSTD_compress(z, bound, data, size, 3);
                _cleanup_close_ int fd = memfd_create("report.ncu-repz", MFD_CLOEXEC);

                g_assert_false(ZSTD_isError(n));
                g_assert_cmpint(fd, >=, 0);
                g_assert_cmpint(write(fd, z, n), ==, (ssize_t) n);
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                k = ncu_report_load_fd_flags(fd, NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
                break;
        }
        case SOURCE_MEMORY:
                k = ncu_report_load_buffer_flags(data, size, NULL, NCU_REPORT_LAZY_METRICS, &r, &err);
                break;
        case _SOURCE_MAX:
                g_assert_not_reached();
        }
        if (k < 0)
                g_error("%s (%s): offset %" G_GUINT64_FORMAT ": %s", name, source_names[source], err.offset,
                                err.message);
        /* Only a regular file is read again; the descriptor closed above stays open in the report. */
        g_assert_true(r->reread == (source == SOURCE_FILE));
        return r;
}

static void assert_value_equal(const NcuValue *a, const NcuValue *b)
{
        g_assert_cmpint(a->kind, ==, b->kind);
        if (a->kind == NCU_VALUE_STRING)
                g_assert_cmpstr(a->s, ==, b->s);
        else
                g_assert_cmpmem(a, sizeof(NcuValue), b, sizeof(NcuValue));
}

static void assert_metrics_equal(const NcuAction *x, const NcuAction *y)
{
        g_assert_cmpuint(x->n_metrics, ==, y->n_metrics);
        g_assert_cmpuint(x->n_unique_metrics, ==, y->n_unique_metrics);
        for (size_t j = 0; j < x->n_metrics; j++) {
                const NcuMetric *m = &x->metrics[j], *n = &y->metrics[j];

                g_assert_cmpstr(m->name, ==, n->name);
                g_assert_cmpuint(m->name_id, ==, n->name_id);
                g_assert_cmpint(m->kind, ==, n->kind);
                g_assert_cmpint(m->has_value, ==, n->has_value);
                g_assert_cmpuint(m->category, ==, n->category);
                g_assert_cmpint(m->has_correlation_ids, ==, n->has_correlation_ids);
                assert_value_equal(&m->value, &n->value);
                g_assert_cmpuint(m->n_instances, ==, n->n_instances);
                for (size_t i = 0; i < m->n_instances; i++) {
                        assert_value_equal(&m->instances[i].value, &n->instances[i].value);
                        assert_value_equal(&m->instances[i].correlation_id, &n->instances[i].correlation_id);
                }
        }
        for (size_t j = 0; j < x->n_unique_metrics; j++) {
                g_assert_cmpstr(x->metrics_by_name[j]->name, ==, y->metrics_by_name[j]->name);
                /* The first of a name in file order, in both. */
                g_assert_cmpint(x->metrics_by_name[j] - x->metrics, ==, y->metrics_by_name[j] - y->metrics);
        }
        g_assert_cmpstr(x->device_name, ==, y->device_name);
        g_assert_cmpint(x->device_index, ==, y->device_index);
}

/* The sources of a lazy load hold what the eager load's do; a lazy load of a regular file leaves the
 * binaries (the file's bytes at binary_offset) and the CUDA sources in the file until asked. */
static void assert_sources_equal(NcuReport *r, const NcuReport *eager, const uint8_t *data, size_t size)
{
        size_t binaries = 0, files = 0;

        g_assert_cmpuint(r->n_sources, ==, eager->n_sources);
        for (size_t i = 0; i < r->n_sources; i++) {
                const NcuSource *s = &r->sources[i], *e = &eager->sources[i];
                const uint8_t *binary = NULL;
                size_t memory;

                g_assert_cmpuint(s->binary_size, ==, e->binary_size);
                g_assert_cmpuint(s->binary_offset, ==, e->binary_offset);
                g_assert_cmpuint(s->n_functions, ==, e->n_functions);
                /* The CUDA sources too (--import-source: panjd123's report holds 1 MB of them). */
                g_assert_cmpuint(s->n_files, ==, r->reread ? 0 : e->n_files);
                g_assert_cmpint(ncu_source_files(r, s, NULL), ==, 0);
                g_assert_cmpint(s->n_files_parts, ==, 0);
                g_assert_cmpuint(s->n_files, ==, e->n_files);
                for (size_t j = 0; j < s->n_files; j++) {
                        g_assert_cmpstr(s->files[j].file_name, ==, e->files[j].file_name);
                        g_assert_cmpstr(s->files[j].content, ==, e->files[j].content);
                        files += strlen(s->files[j].content ? s->files[j].content : "");
                }
                if (e->binary_size == 0) {
                        g_assert_null(s->binary);
                        continue;
                }
                g_assert_cmpuint(e->binary_offset + e->binary_size, <=, size);
                g_assert_cmpmem(e->binary, e->binary_size, data + e->binary_offset, e->binary_size);
                g_assert_true((s->binary == NULL) == r->reread);
                memory = r->memory;
                g_assert_cmpint(ncu_source_binary(r, s, &binary, NULL), ==, 0);
                g_assert_cmpmem(binary, s->binary_size, e->binary, e->binary_size);
                g_assert_cmpuint(r->memory, ==, memory + (r->reread ? s->binary_size : 0));
                binaries += s->binary_size;
        }
        if (r->reread && binaries + files > 0)
                g_test_message("binaries of %zu bytes, sources of %zu, left in the file", binaries, files);
}

static void test_equal(gconstpointer p)
{
        const char *name = p;
        _cleanup_(ncu_report_freep) NcuReport *eager = report_corpus_load(name);
        gsize size;
        g_autofree char *data = read_report(name, &size);

        for (Source s = 0; s < _SOURCE_MAX; s++) {
                _cleanup_(ncu_report_freep) NcuReport *r = load_lazy(name, s);
                size_t n_metrics = 0;

                g_assert_cmpuint(r->n_actions, ==, eager->n_actions);
                g_assert_cmpuint(r->n_ranges, ==, eager->n_ranges);
                for (size_t i = 0; i < r->n_actions; i++) {
                        const NcuAction *a = r->actions[i], *e = eager->actions[i];

                        g_assert_false(a->metrics_decoded);
                        g_assert_cmpuint(a->n_metrics, ==, 0);
                        g_assert_null(ncu_action_metric_by_name(a, "gpu__time_duration.sum"));
                        g_assert_cmpint(a->device_index, ==, -1);
                        /* What a lazy load does not put off is there. */
                        g_assert_cmpstr(a->function_name, ==, e->function_name);
                        g_assert_cmpstr(a->mangled_name, ==, e->mangled_name);
                        g_assert_cmpuint(a->grid_size.x, ==, e->grid_size.x);
                        g_assert_cmpuint(a->block_size.x, ==, e->block_size.x);
                        g_assert_cmpuint(a->n_rule_results, ==, e->n_rule_results);
                        g_assert_cmpuint(a->n_sections, ==, e->n_sections);
                        g_assert_true((a->source == NULL) == (e->source == NULL));
                        g_assert_cmpuint(a->n_metrics_framed, ==, e->n_metrics);
                        n_metrics += e->n_metrics;
                }
                g_assert_cmpuint(n_metrics, >, 0);
                g_assert_cmpuint(r->memory, <, eager->memory);

                for (size_t i = r->n_actions; i-- > 0;) {
                        NcuReportError err;
                        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[i], &err), ==, 0);
                        g_assert_true(r->actions[i]->metrics_decoded);
                        g_assert_null(r->actions[i]->entry); /* kept entries are freed once decoded */
                }
                g_assert_cmpint(ncu_report_decode_metrics(r, NULL), ==, 0);
                for (size_t i = 0; i < r->n_actions; i++)
                        assert_metrics_equal(r->actions[i], eager->actions[i]);
                assert_sources_equal(r, eager, (const uint8_t *) data, size);
                g_assert_cmpuint(r->peak_memory, >=, r->memory);
                g_test_message("%s from a %s: %zu actions equal", name, source_names[s], r->n_actions);
        }
}

static void assert_stale(NcuReport *r, size_t action)
{
        NcuReportError err;

        for (int attempt = 0; attempt < 2; attempt++) {
                g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[action], &err), ==, -ESTALE);
                g_assert_cmpuint(err.offset, ==, r->actions[action]->offset);
                g_assert_nonnull(strstr(err.message, "changed since it was loaded"));
                g_assert_false(r->actions[action]->metrics_decoded);
                g_assert_cmpuint(r->actions[action]->n_metrics, ==, 0);
        }
        g_assert_cmpint(ncu_report_decode_metrics(r, &err), ==, -ESTALE);
}

/* The extrap report (6 results) copied to a file, loaded lazily, its first action decoded; then the file
 * changes. */
static NcuReport *load_copy(const char *path, const char *data, size_t size)
{
        _cleanup_close_ int fd = -EBADF;
        NcuReport *r = NULL;
        NcuReportError err;

        g_assert_true(g_file_set_contents(path, data, (gssize) size, NULL));
        fd = open(path, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(ncu_report_load_fd_flags(fd, NULL, NCU_REPORT_LAZY_METRICS, &r, &err), ==, 0);
        g_assert_true(r->reread);
        g_assert_cmpuint(r->n_actions, ==, 6);
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[0], &err), ==, 0);
        return r;
}

static void test_stale(void)
{
        g_autofree char *dir = g_dir_make_tmp("report-lazy-XXXXXX", NULL);
        g_autofree char *path = g_build_filename(dir, "copy.ncu-rep", NULL);
        gsize size;
        g_autofree char *data = read_report(REPORT_EXTRAP, &size);
        _cleanup_(ncu_report_freep) NcuReport *eager = report_corpus_load(REPORT_EXTRAP);

        /* Grown by a byte: the size tells. */
        {
                _cleanup_(ncu_report_freep) NcuReport *r = load_copy(path, data, size);
                _cleanup_close_ int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

                const uint8_t *binary = NULL;
                NcuReportError err;

                g_assert_cmpint(write(fd, "", 1), ==, 1);
                assert_stale(r, 1);
                /* A binary left in the file is not read from it either. */
                g_assert_cmpuint(r->n_sources, >, 0);
                g_assert_cmpuint(r->sources[0].binary_size, >, 0);
                g_assert_cmpint(ncu_source_binary(r, &r->sources[0], &binary, &err), ==, -ESTALE);
                g_assert_null(binary);
                g_assert_cmpuint(err.offset, ==, r->sources[0].binary_offset);
                g_assert_nonnull(strstr(err.message, "changed since it was loaded"));
                /* Decoded before the change: still whole. */
                assert_metrics_equal(r->actions[0], eager->actions[0]);
        }

        /* Action 1's entry rewritten in place, the same size: the modification time tells (rewritten until
         * the clock has moved on, since file times are coarse). */
        {
                _cleanup_(ncu_report_freep) NcuReport *r = load_copy(path, data, size);
                _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
                const NcuAction *a = r->actions[1];
                struct stat st;
                int tries = 0;

                do {
                        g_usleep(1000);
                        g_assert_cmpint(pwrite(fd, data + a->offset, 16, (off_t) a->offset), ==, 16);
                        g_assert_cmpint(fstat(fd, &st), ==, 0);
                        g_assert_cmpint(++tries, <, 2000);
                } while (st.st_mtim.tv_sec == r->reread_identity.mtime_sec &&
                                st.st_mtim.tv_nsec == r->reread_identity.mtime_nsec);
                assert_stale(r, 1);
                assert_metrics_equal(r->actions[0], eager->actions[0]);
        }

        /* Unchanged, the same copy decodes whole, even renamed, its mode changed and its name removed: those
         * leave the bytes alone. */
        {
                _cleanup_(ncu_report_freep) NcuReport *r = load_copy(path, data, size);
                g_autofree char *moved = g_build_filename(dir, "moved.ncu-rep", NULL);

                g_usleep(5000);
                g_assert_cmpint(rename(path, moved), ==, 0);
                g_assert_cmpint(chmod(moved, 0400), ==, 0);
                g_assert_cmpint(unlink(moved), ==, 0);
                g_assert_cmpint(ncu_report_decode_metrics(r, NULL), ==, 0);
                for (size_t i = 0; i < r->n_actions; i++)
                        assert_metrics_equal(r->actions[i], eager->actions[i]);
        }
        g_assert_cmpint(rmdir(dir), ==, 0);
}

/* The first metric of the last entry with metrics: its NameId's key turned from a varint into a fixed32,
 * which keeps the entry's framing (the load checks that) and breaks the metric (the decode checks that).
 * Returns the entry's offset. */
static uint64_t break_last_metrics(uint8_t *data, size_t size)
{
        g_autofree uint64_t *blocks = NULL, *entries = NULL;
        size_t n_blocks, n_entries, pos = 0;
        const uint8_t *e;
        uint32_t len;

        g_assert_cmpint(report_block_offsets(data, size, &blocks, &n_blocks, &entries, &n_entries), ==, 0);
        g_assert_cmpuint(n_entries, >, 0);
        /* The last entry is a ProfileResult in this report. */
        memcpy(&len, data + entries[n_entries - 1], 4);
        e = data + entries[n_entries - 1] + 4;
        for (;;) {
                NcuWireField f = { 0 };

                g_assert_cmpint(ncu_wire_next(e, len, &pos, &f), ==, 0);
                if (f.number != 13)
                        continue;
                g_assert_cmpuint(f.data[0], ==, 1 << 3 | NCU_WIRE_VARINT);
                ((uint8_t *) f.data)[0] = 1 << 3 | NCU_WIRE_FIXED32;
                return entries[n_entries - 1] + 4;
        }
}

static void test_corrupt_metric(void)
{
        gsize size;
        g_autofree uint8_t *data = (uint8_t *) read_report(REPORT_EXTRAP, &size);
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        NcuReport *none = NULL;
        NcuReportError err, again;
        uint64_t offset = break_last_metrics(data, size);
        size_t broken;

        /* Eager: the load fails. */
        g_assert_cmpint(ncu_report_load_buffer(data, size, NULL, &none, &err), ==, -EBADMSG);
        g_assert_null(none);
        g_assert_nonnull(strstr(err.message, "the metrics of a ProfileResult are not valid messages"));

        /* Lazy: the load succeeds, the decode of that action fails the same way, every time. */
        g_assert_cmpuint(err.offset, ==, offset);
        g_assert_cmpint(ncu_report_load_buffer_flags(data, size, NULL, NCU_REPORT_LAZY_METRICS, &r, &again), ==, 0);
        broken = r->n_actions - 1;
        g_assert_cmpuint(r->actions[broken]->offset, ==, offset);
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[broken], &again), ==, -EBADMSG);
        g_assert_cmpstr(again.message, ==, err.message);
        g_assert_cmpuint(again.offset, ==, err.offset);
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[broken], &again), ==, -EBADMSG);
        g_assert_cmpstr(again.message, ==, err.message);
        g_assert_false(r->actions[broken]->metrics_decoded);
        g_assert_cmpuint(r->actions[broken]->n_metrics, ==, 0);
        g_assert_null(ncu_action_metric_by_name(r->actions[broken], "gpu__time_duration.sum"));
        /* The others decode. */
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[0], NULL), ==, 0);
        g_assert_nonnull(ncu_action_metric_by_name(r->actions[0], "gpu__time_duration.sum"));
        g_assert_cmpint(ncu_report_decode_metrics(r, &again), ==, -EBADMSG);
        g_assert_cmpstr(again.message, ==, err.message);
}

/* A limit on the model applies to decodes after the load too. */
static void test_memory_limit(void)
{
        _cleanup_(ncu_report_freep) NcuReport *eager = report_corpus_load(REPORT_SOBEL);
        g_autofree char *path = report_corpus_path(REPORT_SOBEL);
        _cleanup_(ncu_report_freep) NcuReport *r = NULL;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        NcuReportLimits limits;
        NcuReportError err;

        g_assert_cmpint(fd, >=, 0);
        ncu_report_limits_default(&limits);
        limits.max_memory = (eager->memory + 1024) / 2; /* above what the lazy load holds, below the whole */
        g_assert_cmpint(ncu_report_load_fd_flags(fd, &limits, NCU_REPORT_LAZY_METRICS, &r, &err), ==, 0);
        g_assert_cmpuint(r->memory, <=, limits.max_memory);
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[0], &err), ==, -E2BIG);
        g_assert_nonnull(strstr(err.message, "exceed its limit"));
        g_assert_cmpuint(r->memory, <=, eager->memory);
        g_assert_cmpint(ncu_action_decode_metrics(r, r->actions[0], &err), ==, -E2BIG);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *t = g_strconcat("/report-lazy/equal/", report_corpus_names[i], NULL);
                g_test_add_data_func(t, report_corpus_names[i], test_equal);
        }
        g_test_add_func("/report-lazy/stale", test_stale);
        g_test_add_func("/report-lazy/corrupt-metric", test_corrupt_metric);
        g_test_add_func("/report-lazy/memory-limit", test_memory_limit);
        return g_test_run();
}
