/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The confined worker that serves a report and the daemon's side of it (NcuReportServer) on a real
 * sd-event loop: every corpus report is loaded by the worker and answers as the in-process reader does
 * (its export is byte for byte the document of the whole tree); a report the reader refuses comes back as
 * its error with the byte offset; its metrics and rule results are the report JSON's, call by call; the memory reserved
 * for a worker holds it (a string-table bomb is refused, an export past its memfd's size is refused); a worker that
 * crashes, hangs, lies, floods, answers what nobody asked or closes its channel costs only its own report, and the loop
 * goes on; and the sandbox itself: as root the worker becomes "nobody", and opening any file kills it. */

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-answers-oracle.h"
#include "report-builder.h"
#include "report-json-attrs.h"
#include "report-limits.h"
#include "report-page-encoding.h"
#include "report-page-options.h"
#include "report-server.h"
#include "report-summary.h"
#include "report-test-util.h"
#include "report-worker.h"
#include "test-util.h"

typedef struct Outcome {
        bool done;
        int error;
        char *message;
        GByteArray *reply;
} Outcome;

static void outcome_done(Outcome *o)
{
        g_free(o->message);
        if (o->reply)
                g_byte_array_unref(o->reply);
        *o = (Outcome){ 0 };
}

static pid_t loaded_pid; /* the worker's, when it said it loaded */

static void on_loaded(NcuReportServer *s, int error, const char *message, void *userdata)
{
        Outcome *o = userdata;

        loaded_pid = ncu_report_server_pid(s);
        o->done = true;
        o->error = error;
        o->message = g_strdup(message);
}

static Outcome gone;

static void on_gone(NcuReportServer *s, int error, const char *message, void *userdata)
{
        gone.done = true;
        gone.error = error;
        gone.message = g_strdup(message);
}

static void on_reply(int error, const void *data, size_t size, const char *message, void *userdata)
{
        Outcome *o = userdata;

        o->done = true;
        o->error = error;
        o->message = g_strdup(message);
        if (error >= 0)
                o->reply = g_byte_array_append(g_byte_array_new(), data, (guint) size);
}

static void run_until(sd_event *e, const Outcome *o)
{
        while (!o->done)
                g_assert_cmpint(sd_event_run(e, UINT64_MAX), >=, 0);
}

static const char *worker_path(void)
{
        const char *p = g_getenv("NVPROFILED_REPORT_WORKER");
        g_assert_nonnull(p);
        return p;
}

/* The loop runs until pid is gone (killed workers are reaped when their pidfd says so, not with the loop
 * held): no process left behind. */
static void run_until_gone(sd_event *e, pid_t pid)
{
        for (int i = 0; kill(pid, 0) == 0; i++) {
                g_assert_cmpint(i, <, 6000); /* a bound for a loaded machine, not a timing */
                g_assert_cmpint(sd_event_run(e, 10 * 1000), >=, 0);
        }
}

/* Starts a server on fd and runs the loop until it loaded (or not). */
static NcuReportServer *start(
                sd_event *e, const char *worker, int fd, uint64_t memory, uint64_t timeout_usec, Outcome *loaded)
{
        const NcuReportServerOptions o = { .worker_path = worker, .memory = memory, .timeout_usec = timeout_usec };
        NcuReportServer *s = NULL;

        *loaded = (Outcome){ 0 };
        g_assert_cmpint(ncu_report_server_start(e, &o, fd, on_loaded, on_gone, loaded, &s), ==, 0);
        run_until(e, loaded);
        return s;
}

static Outcome call(sd_event *e, NcuReportServer *s, NcuServeOp op, const NcuWire *args, const int *fds, size_t n_fds)
{
        Outcome o = { 0 };

        g_assert_cmpint(ncu_report_server_call(s, op, args ? args->data : NULL, args ? args->size : 0, 1024 * 1024, fds,
                                        n_fds, on_reply, &o),
                        ==, 0);
        run_until(e, &o);
        return o;
}

/* A memfd as the manager makes one for an output: sized to limit, sealed against growing. */
static int output_memfd(uint64_t limit)
{
        int fd = memfd_create("test-output", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(ftruncate(fd, (off_t) limit), ==, 0);
        g_assert_cmpint(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW), ==, 0);
        return fd;
}

/* An export into a memfd of limit bytes: the error, and the bytes when it worked. */
static int export(sd_event *e, NcuReportServer *s, NcuServeExport kind, uint64_t limit, GByteArray **ret)
{
        NcuWire args;
        NcuWireReader in;
        uint64_t written;
        Outcome o;
        int fd = output_memfd(limit), r;

        ncu_wire_init(&args, 16);
        ncu_wire_put_u32(&args, kind);
        o = call(e, s, NCU_SERVE_EXPORT, &args, &fd, 1);
        ncu_wire_done(&args);
        r = o.error;
        if (r >= 0) {
                GByteArray *bytes = g_byte_array_new();

                ncu_wire_reader_init(&in, o.reply->data, o.reply->len);
                g_assert_cmpint(ncu_wire_get_u64(&in, &written), ==, 0);
                g_assert_cmpuint(in.left, ==, 0);
                g_byte_array_set_size(bytes, (guint) written);
                g_assert_cmpint(pread(fd, bytes->data, written, 0), ==, (ssize_t) written);
                *ret = bytes;
        } else
                g_test_message("export: %s", o.message);
        outcome_done(&o);
        close(fd);
        return r;
}

static char *json_text(const NcuReport *r)
{
        g_autoptr(json_object) doc = NULL;

        g_assert_cmpint(ncu_report_to_json_attrs(r, 0, &doc), ==, 0);
        return g_strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

typedef struct CallContext {
        sd_event *e;
        NcuReportServer *s;
} CallContext;

/* A call that must succeed, for report-answers-oracle.h. */
static GByteArray *call_ok(void *userdata, NcuServeOp op, const NcuWire *args)
{
        CallContext *c = userdata;
        Outcome o = call(c->e, c->s, op, args, NULL, 0);
        GByteArray *reply;

        g_assert_cmpint(o.error, ==, 0);
        reply = g_byte_array_ref(o.reply);
        outcome_done(&o);
        return reply;
}

/* Every corpus report: loaded by the worker within what its file reserves; its info and actions as the
 * reader's; its JSON export byte for byte json-c's text of the whole tree (made one action at a time). */
static void test_corpus(void)
{
        sd_event *e = NULL;

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *path = report_corpus_path(report_corpus_names[i]);
                _cleanup_(ncu_report_freep) NcuReport *local = report_corpus_load(report_corpus_names[i]);
                g_autofree char *expected = json_text(local);
                g_autoptr(GByteArray) bytes = NULL;
                NcuReportServer *s;
                Outcome loaded, o;
                NcuWireReader in;
                NcuWire args;
                uint32_t n;
                int fd = open(path, O_RDONLY | O_CLOEXEC);

                g_assert_cmpint(fd, >=, 0);
                s = start(e, worker_path(), fd, ncu_report_memory_for_fd(fd, NCU_REPORT_MEMORY_CEILING_DEFAULT),
                                30 * G_USEC_PER_SEC, &loaded);
                close(fd);
                g_test_message("%s: %s", report_corpus_names[i], strempty(loaded.message));
                g_assert_cmpint(loaded.error, ==, 0);

                o = call(e, s, NCU_SERVE_GET_INFO, NULL, NULL, 0);
                g_assert_cmpint(o.error, ==, 0);
                ncu_wire_reader_init(&in, o.reply->data, o.reply->len);
                {
                        const char *version;
                        uint32_t format, ranges;
                        uint64_t size;

                        g_assert_cmpint(ncu_wire_get_string(&in, &version), ==, 0);
                        g_assert_cmpint(ncu_wire_get_u32(&in, &format), ==, 0);
                        g_assert_cmpint(ncu_wire_get_u32(&in, &ranges), ==, 0);
                        g_assert_cmpint(ncu_wire_get_u64(&in, &size), ==, 0);
                        g_assert_cmpuint(format, ==, local->version);
                        g_assert_cmpuint(ranges, ==, local->n_ranges);
                        g_assert_cmpuint(size, ==, local->size);
                }
                outcome_done(&o);

                ncu_wire_init(&args, 16);
                ncu_wire_put_u32(&args, 0);
                o = call(e, s, NCU_SERVE_LIST_ACTIONS, &args, NULL, 0);
                ncu_wire_done(&args);
                g_assert_cmpint(o.error, ==, 0);
                ncu_wire_reader_init(&in, o.reply->data, o.reply->len);
                g_assert_cmpint(ncu_wire_get_count(&in, 1, &n), ==, 0);
                g_assert_cmpuint(n, ==, local->ranges[0].n_actions);
                outcome_done(&o);

                /* The summary's rows are the in-process reader's. */
                o = call(e, s, NCU_SERVE_GET_SUMMARY, NULL, NULL, 0);
                g_assert_cmpint(o.error, ==, 0);
                {
                        NcuSummaryRow *rows = NULL;
                        size_t n_rows = 0;

                        g_assert_cmpint(ncu_report_summary(local, &rows, &n_rows), ==, 0);
                        ncu_wire_reader_init(&in, o.reply->data, o.reply->len);
                        g_assert_cmpint(ncu_wire_get_count(&in, 1, &n), ==, 0);
                        g_assert_cmpuint(n, ==, n_rows);
                        for (size_t j = 0; j < n_rows; j++) {
                                uint32_t range, action, index, n_findings;
                                const char *name, *type, *title;
                                uint64_t u;
                                double d;

                                g_assert_cmpint(ncu_wire_get_u32(&in, &range), ==, 0);
                                g_assert_cmpint(ncu_wire_get_u32(&in, &action), ==, 0);
                                g_assert_cmpint(ncu_wire_get_u32(&in, &index), ==, 0);
                                g_assert_cmpuint(index, ==, rows[j].index);
                                g_assert_cmpint(ncu_wire_get_string(&in, &name), ==, 0);
                                g_assert_cmpstr(name, ==, strempty(rows[j].name));
                                for (size_t k = 0; k < 6; k++)
                                        g_assert_cmpint(ncu_wire_get_u64(&in, &u), ==, 0);
                                g_assert_cmpint(ncu_wire_get_double(&in, &d), ==, 0);
                                g_assert_cmpint(ncu_wire_get_count(&in, 1, &n_findings), ==, 0);
                                g_assert_cmpuint(n_findings, ==, rows[j].n_findings);
                                for (size_t k = 0; k < n_findings; k++) {
                                        g_assert_cmpint(ncu_wire_get_string(&in, &type), ==, 0);
                                        g_assert_cmpint(ncu_wire_get_string(&in, &title), ==, 0);
                                        g_assert_cmpstr(title, ==, strempty(rows[j].findings[k].title));
                                        g_assert_cmpint(ncu_wire_get_double(&in, &d), ==, 0);
                                }
                        }
                        g_assert_cmpuint(in.left, ==, 0);
                        ncu_summary_free(rows, n_rows);
                }
                outcome_done(&o);

                g_assert_cmpint(export(e, s, NCU_SERVE_EXPORT_JSON, 256 * 1024 * 1024, &bytes), ==, 0);
                g_assert_cmpuint(bytes->len, ==, strlen(expected));
                g_assert_true(memcmp(bytes->data, expected, bytes->len) == 0);
                /* The metrics and rule results of the first and the last action, one call each. */
                {
                        g_autoptr(json_object) doc = json_tokener_parse(expected);
                        CallContext ctx = { .e = e, .s = s };
                        size_t last = local->ranges[0].n_actions - 1;

                        g_assert_nonnull(doc);
                        report_check_metrics(call_ok, &ctx, 0, doc);
                        report_check_rule_results(call_ok, &ctx, 0, doc);
                        if (last > 0) {
                                report_check_metrics(call_ok, &ctx, (uint32_t) last, doc);
                                report_check_rule_results(call_ok, &ctx, (uint32_t) last, doc);
                        }
                }
                ncu_report_server_free(s);
        }
        sd_event_unref(e);
}

/* Calls the worker refuses: a range or action that does not exist (EINVAL), a metric that does not
 * (ENOENT), a reply larger than the call allows (E2BIG): each the caller's error, and the worker serves on. */
static void test_call_errors(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded, o;
        NcuWire args;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        s = start(e, worker_path(), fd, 128 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);
        close(fd);

        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, 7);
        o = call(e, s, NCU_SERVE_LIST_ACTIONS, &args, NULL, 0);
        ncu_wire_done(&args);
        g_assert_cmpint(o.error, ==, -EINVAL);
        g_assert_cmpstr(o.message, ==, "No range 7");
        outcome_done(&o);

        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, 0);
        ncu_wire_put_u32(&args, 0);
        ncu_wire_put_string(&args, "no__such.metric");
        o = call(e, s, NCU_SERVE_GET_METRIC, &args, NULL, 0);
        ncu_wire_done(&args);
        g_assert_cmpint(o.error, ==, -ENOENT);
        outcome_done(&o);

        /* Metric names do not fit in 16 bytes. */
        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, 0);
        ncu_wire_put_u32(&args, 0);
        g_assert_cmpint(ncu_report_server_call(
                                        s, NCU_SERVE_GET_METRIC_NAMES, args.data, args.size, 16, NULL, 0, on_reply, &o),
                        ==, 0);
        ncu_wire_done(&args);
        run_until(e, &o);
        g_assert_cmpint(o.error, ==, -E2BIG);
        outcome_done(&o);

        /* Still serving. */
        o = call(e, s, NCU_SERVE_GET_INFO, NULL, NULL, 0);
        g_assert_cmpint(o.error, ==, 0);
        outcome_done(&o);
        ncu_report_server_free(s);
        sd_event_unref(e);
}

/* A page's options come from the client as it encoded them (the daemon passes them on): encoding 1 of
 * NCU_PAGE_OPTIONS_ENCODED_SIZE bytes makes the page; another encoding number, bytes missing or left
 * over, a value out of range or a combination ncu refuses is the caller's error (EINVAL, InvalidArgs on
 * the bus), and the worker serves on. */
static void test_page_options_encoded(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        const NcuPageOptions csv = { .page = NCU_PAGE_RAW, .csv = true },
                             refused = { .page = NCU_PAGE_SESSION, .units = NCU_PRINT_UNITS_BASE };
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        s = start(e, worker_path(), fd, 128 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);
        close(fd);
        for (size_t i = 0; i < 6; i++) {
                NcuWire encoded, args;
                Outcome o;
                int out = output_memfd(64 * 1024 * 1024);

                ncu_wire_init(&encoded, 64);
                ncu_wire_put_page_options(&encoded, i == 5 ? &refused : &csv);
                g_assert_cmpint(ncu_wire_finish(&encoded), ==, 0);
                g_assert_cmpuint(encoded.size, ==, NCU_PAGE_OPTIONS_ENCODED_SIZE);
                if (i == 1)
                        encoded.data[0] = NCU_PAGE_OPTIONS_ENCODING + 1; /* a later encoding */
                if (i == 2)
                        encoded.size--; /* cut short */
                if (i == 3)
                        ncu_wire_put_u8(&encoded, 0); /* a byte left over */
                if (i == 4)
                        encoded.data[4] = _NCU_PAGE_MAX; /* no such page */
                ncu_wire_init(&args, 64);
                ncu_wire_put_u32(&args, NCU_SERVE_EXPORT_PAGE);
                ncu_wire_put_encoded(&args, encoded.data, encoded.size);
                o = call(e, s, NCU_SERVE_EXPORT, &args, &out, 1);
                g_test_message("%zu: %d %s", i, o.error, strempty(o.message));
                g_assert_cmpint(o.error, ==, i == 0 ? 0 : -EINVAL);
                if (i > 0 && i < 5)
                        g_assert_cmpstr(o.message, ==, "The page options are not in encoding 1 of ExportPageEncoded");
                outcome_done(&o);
                ncu_wire_done(&args);
                ncu_wire_done(&encoded);
                close(out);
        }
        ncu_report_server_free(s);
        sd_event_unref(e);
}

static void test_invalid_report(void)
{
        /* The magic, then a FileHeader of 4 bytes that are no protobuf message. */
        static const char garbage[] = "NVR\0\x04\x00\x00\x00\xff\xff\xff\xff";
        sd_event *e = NULL;
        Outcome loaded;
        NcuReportServer *s;
        int fd = memfd_create("garbage", MFD_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        g_assert_cmpint(write(fd, garbage, sizeof(garbage) - 1), ==, (ssize_t) sizeof(garbage) - 1);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        s = start(e, worker_path(), fd, 64 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_test_message("%s", loaded.message);
        g_assert_cmpint(loaded.error, ==, -EBADMSG);
        g_assert_true(g_str_has_prefix(loaded.message, "byte "));
        outcome_done(&loaded);
        ncu_report_server_free(s);
        close(fd);
        sd_event_unref(e);
}

/* A report through a pipe whose reading end is non-blocking, as a caller may hand it: the worker, confined
 * before it gets the descriptor, makes it blocking (the one fcntl its filter allows) and reads it whole. */
static void test_nonblocking_pipe(void)
{
        g_autofree char *path = report_corpus_path(report_corpus_names[0]), *data = NULL;
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded;
        int p[2], status;
        gsize size;
        pid_t writer;

        g_assert_true(g_file_get_contents(path, &data, &size, NULL));
        g_assert_cmpint(pipe2(p, O_CLOEXEC), ==, 0);
        g_assert_cmpint(fcntl(p[0], F_SETFL, O_NONBLOCK), ==, 0);
        writer = fork();
        g_assert_cmpint(writer, >=, 0);
        if (writer == 0) {
                close(p[0]);
                _exit(write(p[1], data, size) == (ssize_t) size ? 0 : 1);
        }
        close(p[1]);
        g_assert_cmpint(sd_event_new(&e), >=, 0);
        s = start(e, worker_path(), p[0], NCU_REPORT_MEMORY_CEILING_DEFAULT, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);
        /* The description is shared: the caller's end is blocking now too. */
        g_assert_cmpint(fcntl(p[0], F_GETFL) & O_NONBLOCK, ==, 0);
        outcome_done(&loaded);
        ncu_report_server_free(s);
        g_assert_cmpint(waitpid(writer, &status, 0), ==, writer);
        g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(p[0]);
        sd_event_unref(e);
}

/* Issue 17 item 3: a .ncu-repz of kilobytes that claims gigabytes of strings. The worker gets what its
 * file reserves and its reader refuses the rest (E2BIG), long before the worker grows: the peak it
 * reports stays within the reservation. */
static void test_string_bomb(void)
{
        ReportBuffer b = { 0 };
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded;
        uint64_t memory;
        int fd = memfd_create("bomb.ncu-repz", MFD_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        report_build_string_bomb(&b, 4096, 256 * 1024); /* 1 GiB of strings */
        g_test_message("bomb: %zu bytes", b.size);
        g_assert_cmpuint(b.size, <, 1024 * 1024);
        g_assert_cmpint(write(fd, b.data, b.size), ==, (ssize_t) b.size);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        memory = ncu_report_memory_for_fd(fd, NCU_REPORT_MEMORY_CEILING_DEFAULT);
        g_test_message("reserved: %" G_GUINT64_FORMAT " bytes", memory);
        g_assert_cmpuint(memory, <, 128 * 1024 * 1024);
        s = start(e, worker_path(), fd, memory, 60 * G_USEC_PER_SEC, &loaded);
        g_test_message("%s", loaded.message);
        g_assert_cmpint(loaded.error, ==, -E2BIG);
        outcome_done(&loaded);
        ncu_report_server_free(s);
        /* The same through the in-process reader (nvprofilectl --local, Python): the same limits. */
        {
                NcuReport *r = NULL;
                NcuReportError err;

                g_assert_cmpint(ncu_report_load_buffer(b.data, b.size, NULL, &r, &err), ==, -E2BIG);
                g_assert_null(r);
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                g_assert_cmpint(ncu_report_load_fd(fd, NULL, &r, &err), ==, -E2BIG);
        }
        report_buffer_done(&b);
        close(fd);
        sd_event_unref(e);
}

static void test_misbehaving_workers(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        struct {
                const char *env;
                bool loads; /* the failure comes after the load */
                bool answers; /* ...after it answered the first call */
                int error;
                const char *message;
        } cases[] = {
                { "NVPROFILED_FAKE_WORKER_CRASH", false, false, -ECHILD, "killed by signal 11" },
                { "NVPROFILED_FAKE_WORKER_HANG", false, false, -ETIMEDOUT,
                                "did not finish reading the report in time" },
                { "NVPROFILED_FAKE_WORKER_GARBAGE", false, false, -ECHILD, "an error it cannot give" },
                { "NVPROFILED_FAKE_WORKER_FLOOD", true, false, -ECHILD, "more than it was allowed" },
                { "NVPROFILED_FAKE_WORKER_UNASKED", true, true, -ECHILD, "answered a call nobody made" },
                { "NVPROFILED_FAKE_WORKER_CLOSE", true, false, -ECHILD, "closed its channel" },
        };
        sd_event *e = NULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(sd_event_new(&e), >=, 0);
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                NcuReportServer *s;
                Outcome loaded, o = { 0 };
                pid_t pid;

                gone = (Outcome){ 0 };
                s = start(e, g_getenv(cases[i].env), fd, 64 * 1024 * 1024, G_USEC_PER_SEC / 2, &loaded);
                g_test_message("%s: %s", cases[i].env, strempty(loaded.message));
                if (!cases[i].loads) {
                        g_assert_cmpint(loaded.error, ==, cases[i].error);
                        g_assert_nonnull(strstr(loaded.message, cases[i].message));
                        g_assert_cmpint(ncu_report_server_pid(s), ==, 0); /* killed and reaped */
                        outcome_done(&loaded);
                        ncu_report_server_free(s);
                        continue;
                }
                g_assert_cmpint(loaded.error, ==, 0);
                pid = loaded_pid;
                g_assert_cmpint(pid, >, 0);
                /* A worker that breaks the protocol on its own may do so before any call. */
                if (!gone.done) {
                        g_assert_cmpint(ncu_report_server_call(
                                                        s, NCU_SERVE_GET_INFO, NULL, 0, 4096, NULL, 0, on_reply, &o),
                                        ==, 0);
                        run_until(e, &o);
                        g_test_message("%s: call: %s", cases[i].env, strempty(o.message));
                        if (cases[i].answers)
                                g_assert_cmpint(o.error, ==, 0);
                        else {
                                g_assert_cmpint(o.error, ==, cases[i].error);
                                g_assert_nonnull(strstr(o.message, cases[i].message));
                        }
                        outcome_done(&o);
                }
                run_until(e, &gone);
                g_assert_nonnull(strstr(gone.message, cases[i].message));
                g_assert_cmpint(gone.error, ==, cases[i].error);
                /* No process left behind. */
                g_assert_cmpint(ncu_report_server_pid(s), ==, 0);
                run_until_gone(e, pid);
                g_assert_cmpint(ncu_report_server_call(s, NCU_SERVE_GET_INFO, NULL, 0, 4096, NULL, 0, on_reply, &o), ==,
                                -ESHUTDOWN);
                outcome_done(&o);
                outcome_done(&gone);
                ncu_report_server_free(s);
        }
        /* The caller's next report is served as if nothing happened. */
        {
                NcuReportServer *s;
                Outcome loaded;

                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                s = start(e, worker_path(), fd, 128 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
                g_assert_cmpint(loaded.error, ==, 0);
                ncu_report_server_free(s);
        }
        close(fd);
        sd_event_unref(e);
}

/* Freeing a server with calls waiting answers them (-ECANCELED) and kills the worker. */
static void test_free_with_calls(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded, o1 = { 0 }, o2 = { 0 };
        pid_t pid;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        s = start(e, worker_path(), fd, 128 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);
        pid = ncu_report_server_pid(s);
        g_assert_cmpint(ncu_report_server_call(s, NCU_SERVE_GET_INFO, NULL, 0, 4096, NULL, 0, on_reply, &o1), ==, 0);
        g_assert_cmpint(ncu_report_server_call(s, NCU_SERVE_GET_INFO, NULL, 0, 4096, NULL, 0, on_reply, &o2), ==, 0);
        g_assert_cmpuint(ncu_report_server_n_calls(s), ==, 2);
        ncu_report_server_free(s);
        g_assert_true(o1.done && o2.done);
        g_assert_cmpint(o1.error, ==, -ECANCELED);
        g_assert_cmpint(o2.error, ==, -ECANCELED);
        run_until_gone(e, pid);
        outcome_done(&o1);
        outcome_done(&o2);
        close(fd);
        sd_event_unref(e);
}

static char *status_field(const char *status, const char *key)
{
        g_autofree char *k = g_strconcat("\n", key, ":\t", NULL);
        const char *p = strstr(status, k), *end;

        g_assert_nonnull(p);
        p += strlen(k);
        end = strchr(p, '\n');
        return g_strndup(p, end ? (size_t) (end - p) : strlen(p));
}

/* The sandbox as the kernel sees it, read from /proc while the confined child waits on a pipe; then the
 * child tries to open a file and the filter kills it. */
static void test_sandbox(void)
{
        const struct passwd *pw = getpwnam(NCU_REPORT_WORKER_USER);
        uid_t uid = pw ? pw->pw_uid : 65534;
        gid_t gid = pw ? pw->pw_gid : 65534;
        int ready[2], go[2], status;
        g_autofree char *proc = NULL, *text = NULL;
        char c;
        pid_t pid;

        g_assert_cmpint(pipe2(ready, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(go, O_CLOEXEC), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                if (ncu_worker_sandbox(uid, gid) < 0)
                        _exit(2);
                if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
                        _exit(3);
                _exit(open("/etc/hostname", O_RDONLY | O_CLOEXEC) >= 0 ? 4 : 5);
        }
        g_assert_cmpint(read(ready[0], &c, 1), ==, 1);
        proc = g_strdup_printf("/proc/%d/status", (int) pid);
        g_assert_true(g_file_get_contents(proc, &text, NULL, NULL));
        {
                g_autofree char *uids = status_field(text, "Uid"), *gids = status_field(text, "Gid");
                g_autofree char *groups = status_field(text, "Groups"), *eff = status_field(text, "CapEff");
                g_autofree char *prm = status_field(text, "CapPrm"), *amb = status_field(text, "CapAmb");
                g_autofree char *nnp = status_field(text, "NoNewPrivs"), *sec = status_field(text, "Seccomp");
                g_autofree char *want_uids = NULL, *want_gids = NULL;

                if (getuid() == 0) {
                        want_uids = g_strdup_printf("%u\t%u\t%u\t%u", uid, uid, uid, uid);
                        want_gids = g_strdup_printf("%u\t%u\t%u\t%u", gid, gid, gid, gid);
                        g_assert_cmpstr(uids, ==, want_uids);
                        g_assert_cmpstr(gids, ==, want_gids);
                        g_assert_cmpstr(g_strstrip(groups), ==, "");
                } else
                        g_test_message("not root: ids kept (%s)", uids);
                g_assert_false(g_str_has_prefix(uids, "0\t"));
                g_assert_cmpstr(eff, ==, "0000000000000000");
                g_assert_cmpstr(prm, ==, "0000000000000000");
                g_assert_cmpstr(amb, ==, "0000000000000000");
                g_assert_cmpstr(nnp, ==, "1");
                g_assert_cmpstr(sec, ==, "2"); /* filter mode */
        }
        g_assert_cmpint(write(go[1], "g", 1), ==, 1);
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFSIGNALED(status));
        g_assert_cmpint(WTERMSIG(status), ==, SIGSYS);
        close(ready[0]);
        close(ready[1]);
        close(go[0]);
        close(go[1]);
}

/* The worker under its address-space limit (release builds): /proc says so. */
static void test_address_space_limit(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        g_autofree char *limits_path = NULL, *limits = NULL;
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        s = start(e, worker_path(), fd, 48 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);
        limits_path = g_strdup_printf("/proc/%d/limits", (int) ncu_report_server_pid(s));
        g_assert_true(g_file_get_contents(limits_path, &limits, NULL, NULL));
#if defined(__SANITIZE_ADDRESS__)
        g_test_message("AddressSanitizer: no RLIMIT_AS (its shadow reserves terabytes)");
        g_assert_nonnull(strstr(limits, "Max address space         unlimited"));
#else
        /* 48 MiB reserved plus 64 MiB for the program itself. */
        g_assert_nonnull(strstr(limits, "Max address space         117440512            117440512"));
#endif
        g_assert_nonnull(strstr(limits, "Max core file size        0                    0"));
        ncu_report_server_free(s);
        close(fd);
        sd_event_unref(e);
}

/* Exports and diffs into memfds: ncu's CSV bytes; a memfd too small for the output refuses it (E2BIG:
 * the seal against growing); a diff of the report with itself from the baseline's descriptor; a spec that
 * pairs nothing is the caller's mistake (EDOM). */
static void test_outputs(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        g_autofree char *expected_path = NULL, *expected = NULL;
        g_autoptr(GByteArray) bytes = NULL;
        sd_event *e = NULL;
        NcuReportServer *s;
        Outcome loaded, o;
        NcuWire args;
        gsize n;
        int fd, baseline, out;

        expected_path = test_corpus_path("reports/expected/armleth_report_ncu2024.2.1.raw.csv");
        g_assert_true(g_file_get_contents(expected_path, &expected, &n, NULL));
        g_assert_cmpint(sd_event_new(&e), >=, 0);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        s = start(e, worker_path(), fd, 256 * 1024 * 1024, 30 * G_USEC_PER_SEC, &loaded);
        g_assert_cmpint(loaded.error, ==, 0);

        g_assert_cmpint(export(e, s, NCU_SERVE_EXPORT_RAW, 64 * 1024 * 1024, &bytes), ==, 0);
        g_assert_cmpuint(bytes->len, ==, n);
        g_assert_true(memcmp(bytes->data, expected, n) == 0);
        g_clear_pointer(&bytes, g_byte_array_unref);
        g_assert_cmpint(export(e, s, NCU_SERVE_EXPORT_RAW, 1000, &bytes), ==, -E2BIG);

        /* A diff of the report with itself: one pair, nothing changed. */
        baseline = open(path, O_RDONLY | O_CLOEXEC);
        out = output_memfd(64 * 1024 * 1024);
        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, 0); /* no specs */
        o = call(e, s, NCU_SERVE_DIFF, &args, (const int[]){ baseline, out }, 2);
        ncu_wire_done(&args);
        g_assert_cmpint(o.error, ==, 0);
        {
                g_autofree char *text = NULL;
                g_autoptr(json_object) doc = NULL;
                struct json_object *pairs, *sections, *metrics, *m;
                NcuWireReader in;
                uint64_t written;

                ncu_wire_reader_init(&in, o.reply->data, o.reply->len);
                g_assert_cmpint(ncu_wire_get_u64(&in, &written), ==, 0);
                text = g_malloc0(written + 1);
                g_assert_cmpint(pread(out, text, written, 0), ==, (ssize_t) written);
                doc = json_tokener_parse(text);
                pairs = json_object_object_get(doc, "pairs");
                g_assert_cmpuint(json_object_array_length(pairs), ==, 1);
                sections = json_object_object_get(json_object_array_get_idx(pairs, 0), "sections");
                g_assert_cmpuint(json_object_array_length(sections), >, 0);
                metrics = json_object_object_get(json_object_array_get_idx(sections, 0), "metrics");
                m = json_object_array_get_idx(metrics, 0);
                g_assert_nonnull(m);
                g_assert_true(json_object_equal(
                                json_object_object_get(m, "baseline"), json_object_object_get(m, "current")));
        }
        outcome_done(&o);
        close(out);
        /* A spec that pairs nothing: the caller's mistake (EDOM), with the reason. */
        g_assert_cmpint(lseek(baseline, 0, SEEK_SET), ==, 0);
        out = output_memfd(64 * 1024 * 1024);
        ncu_wire_init(&args, 64);
        ncu_wire_put_u32(&args, 1);
        ncu_wire_put_string(&args, "nothing");
        o = call(e, s, NCU_SERVE_DIFF, &args, (const int[]){ baseline, out }, 2);
        ncu_wire_done(&args);
        g_assert_cmpint(o.error, ==, -EDOM);
        g_assert_nonnull(strstr(o.message, "no kernel of that name"));
        outcome_done(&o);
        close(out);
        close(baseline);
        ncu_report_server_free(s);
        close(fd);
        sd_event_unref(e);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report-worker/corpus", test_corpus);
        g_test_add_func("/report-worker/call-errors", test_call_errors);
        g_test_add_func("/report-worker/page-options-encoded", test_page_options_encoded);
        g_test_add_func("/report-worker/invalid-report", test_invalid_report);
        g_test_add_func("/report-worker/nonblocking-pipe", test_nonblocking_pipe);
        g_test_add_func("/report-worker/string-bomb", test_string_bomb);
        g_test_add_func("/report-worker/misbehaving-workers", test_misbehaving_workers);
        g_test_add_func("/report-worker/free-with-calls", test_free_with_calls);
        g_test_add_func("/report-worker/sandbox", test_sandbox);
        g_test_add_func("/report-worker/address-space-limit", test_address_space_limit);
        g_test_add_func("/report-worker/outputs", test_outputs);
        return g_test_run();
}
