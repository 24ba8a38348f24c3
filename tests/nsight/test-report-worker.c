/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The confined report worker and the daemon's side of it (NcuReportJob) on a real sd-event loop: every
 * corpus report comes back from the worker as the same document the reader makes in-process; a report
 * the reader refuses comes back as its error with the byte offset; a worker that crashes, hangs, writes
 * garbage or floods is an error for the caller and the loop (the daemon) goes on with the next job; and
 * the sandbox itself: as root the worker becomes "nobody", and opening any file kills it. */

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-document.h"
#include "report-job.h"
#include "report-json-attrs.h"
#include "report-test-util.h"
#include "report-worker.h"
#include "test-util.h"

typedef struct JobResult {
        bool done;
        int error;
        char *message;
        NcuReportDocument *doc;
} JobResult;

static void on_done(NcuReportJob *job, int error, NcuReportDocument *doc, const char *message, void *userdata)
{
        JobResult *res = userdata;

        res->done = true;
        res->error = error;
        res->message = g_strdup(message);
        res->doc = doc;
}

static JobResult run_job(const char *worker, int fd, uint64_t timeout_usec, size_t max_output)
{
        const NcuReportJobLimits limits = { .timeout_usec = timeout_usec, .max_output = max_output };
        _cleanup_(ncu_report_job_freep) NcuReportJob *job = NULL;
        sd_event *e = NULL;
        JobResult res = { 0 };

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        g_assert_cmpint(ncu_report_job_start(e, worker, fd, &limits, on_done, &res, &job), ==, 0);
        while (!res.done)
                g_assert_cmpint(sd_event_run(e, UINT64_MAX), >=, 0);
        job = ncu_report_job_free(job);
        sd_event_unref(e);
        return res;
}

static void job_result_done(JobResult *r)
{
        g_free(r->message);
        ncu_report_document_free(r->doc);
}

/* The whole document a document assembles, as text. */
static char *document_text(const NcuReportDocument *d)
{
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        g_assert_nonnull(f);
        g_assert_cmpint(ncu_report_document_write(d, f), ==, 0);
        g_assert_cmpint(fclose(f), ==, 0);
        return text;
}

static const char *worker_path(void)
{
        const char *p = g_getenv("NVPROFILED_REPORT_WORKER");
        g_assert_nonnull(p);
        return p;
}

static void test_corpus(void)
{
        for (size_t i = 0; i < REPORT_CORPUS_N; i++) {
                g_autofree char *path = report_corpus_path(report_corpus_names[i]);
                _cleanup_(ncu_report_freep) NcuReport *r = report_corpus_load(report_corpus_names[i]);
                g_autoptr(json_object) local = NULL;
                JobResult res;
                int fd;

                fd = open(path, O_RDONLY | O_CLOEXEC);
                g_assert_cmpint(fd, >=, 0);
                res = run_job(worker_path(), fd, 30 * G_USEC_PER_SEC, 64 * 1024 * 1024);
                close(fd);
                if (res.error < 0)
                        g_error("%s: %s", report_corpus_names[i], res.message);
                g_assert_cmpint(ncu_report_to_json_attrs(r, 0, &local), ==, 0);
                /* Assembled from the worker's lines, byte for byte what json-c writes of the whole. */
                {
                        g_autofree char *text = document_text(res.doc);
                        g_assert_cmpstr(text, ==,
                                        json_object_to_json_string_ext(local,
                                                        JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
                }
                /* Each action, parsed from its line when asked, and what is kept of it. */
                for (size_t j = 0; j < r->n_actions; j++) {
                        const NcuDocumentAction *info = ncu_report_document_action_info(res.doc, 0, j);
                        struct json_object *a = ncu_report_document_action(res.doc, 0, j);

                        g_assert_nonnull(a);
                        g_assert_true(ncu_report_document_action(res.doc, 0, j) == a); /* kept for the next call */
                        g_assert_cmpuint(
                                        json_object_array_length(json_get(a, "metrics")), ==, r->actions[j]->n_metrics);
                        g_assert_cmpstr(info->name, ==, r->actions[j]->function_name);
                        g_assert_cmpuint(info->grid[0], ==, r->actions[j]->grid_size.x);
                        g_assert_true((info->nvtx != NULL) == (r->actions[j]->nvtx != NULL));
                }
                g_assert_null(ncu_report_document_action(res.doc, 0, r->n_actions));
                g_assert_null(ncu_report_document_action(res.doc, 1, 0));
                g_assert_cmpuint(
                                ncu_report_document_memory(res.doc), <, 17 * strlen(json_object_to_json_string(local)));
                job_result_done(&res);
        }
}

static void test_invalid_report(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "bad", NULL);
        JobResult res;
        int fd;

        test_write_file_n(dir, "bad", "NVR\0\x09\0\0\0abc", 11);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        res = run_job(worker_path(), fd, 30 * G_USEC_PER_SEC, 1024 * 1024);
        close(fd);
        g_assert_cmpint(res.error, ==, -EBADMSG);
        g_assert_null(res.doc);
        g_assert_cmpstr(res.message, ==, "byte 8: truncated FileHeader: it claims 9 bytes, 3 remain");
        job_result_done(&res);
}

static void test_misbehaving_workers(void)
{
        g_autofree char *path = report_corpus_path(REPORT_ARMLETH);
        struct {
                const char *env;
                int error;
                const char *message;
        } cases[] = {
                { "NVPROFILED_FAKE_WORKER_CRASH", -ECHILD, "killed by signal 11" },
                { "NVPROFILED_FAKE_WORKER_HANG", -ETIMEDOUT, "did not finish in time" },
                { "NVPROFILED_FAKE_WORKER_GARBAGE", -ECHILD, "malformed output" },
                { "NVPROFILED_FAKE_WORKER_FLOOD", -E2BIG, "larger than the limit" },
        };
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                JobResult res = run_job(g_getenv(cases[i].env), fd, G_USEC_PER_SEC / 2, 1024 * 1024);

                g_test_message("%s: %s", cases[i].env, res.message);
                g_assert_cmpint(res.error, ==, cases[i].error);
                g_assert_nonnull(strstr(res.message, cases[i].message));
                g_assert_null(res.doc);
                job_result_done(&res);
        }
        /* The caller's next report is served as if nothing happened. */
        {
                JobResult res;
                g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
                res = run_job(worker_path(), fd, 30 * G_USEC_PER_SEC, 64 * 1024 * 1024);
                g_assert_cmpint(res.error, ==, 0);
                g_assert_nonnull(res.doc);
                job_result_done(&res);
        }
        close(fd);
}

/* The real worker's model for the biggest corpus report does not fit a small output limit. */
static void test_output_limit(void)
{
        g_autofree char *path = report_corpus_path(REPORT_SOBEL);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        JobResult res = run_job(worker_path(), fd, 30 * G_USEC_PER_SEC, 100000);

        close(fd);
        g_assert_cmpint(res.error, ==, -E2BIG);
        job_result_done(&res);
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

typedef struct OutputResult {
        bool done;
        int error;
        char *message;
        GString *bytes;
} OutputResult;

static void on_output_done(NcuReportJob *job, int error, int fd, const char *message, void *userdata)
{
        OutputResult *res = userdata;
        char chunk[65536];
        ssize_t k;

        res->done = true;
        res->error = error;
        res->message = g_strdup(message);
        if (error < 0)
                return;
        /* Sealed: nobody can change what the caller reads. */
        g_assert_cmpint(fcntl(fd, F_GET_SEALS) & F_SEAL_WRITE, ==, F_SEAL_WRITE);
        g_assert_cmpint(write(fd, "x", 1), <, 0);
        res->bytes = g_string_new(NULL);
        while ((k = read(fd, chunk, sizeof(chunk))) > 0)
                g_string_append_len(res->bytes, chunk, k);
        g_assert_cmpint(k, ==, 0);
}

static OutputResult run_output_job(char *const *args, const int *fds, size_t n_fds)
{
        const NcuReportJobLimits limits = { .timeout_usec = 30 * G_USEC_PER_SEC, .max_output = 64 * 1024 * 1024 };
        _cleanup_(ncu_report_job_freep) NcuReportJob *job = NULL;
        OutputResult res = { 0 };
        sd_event *e = NULL;

        g_assert_cmpint(sd_event_new(&e), >=, 0);
        g_assert_cmpint(ncu_report_job_start_output(
                                        e, worker_path(), args, fds, n_fds, &limits, on_output_done, &res, &job),
                        ==, 0);
        while (!res.done)
                g_assert_cmpint(sd_event_run(e, UINT64_MAX), >=, 0);
        job = ncu_report_job_free(job);
        sd_event_unref(e);
        return res;
}

/* The worker's output mode: ncu's CSV bytes from a descriptor read again from its start (wherever its
 * offset is); a pipe cannot be, and says so; a diff reads the baseline from the second descriptor. */
static void test_outputs(void)
{
        static const char *const name = "armleth_report_ncu2024.2.1";
        g_autofree char *path = report_corpus_path(name);
        g_autofree char *expected_path = NULL, *expected = NULL;
        OutputResult res;
        int fd, pipefd[2];
        gsize n;

        expected_path = test_corpus_path("reports/expected/armleth_report_ncu2024.2.1.raw.csv");
        g_assert_true(g_file_get_contents(expected_path, &expected, &n, NULL));
        fd = open(path, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(lseek(fd, 1000, SEEK_SET), ==, 1000);
        res = run_output_job((char *const[]){ (char *) "raw", NULL }, &fd, 1);
        g_assert_cmpint(res.error, ==, 0);
        g_assert_cmpuint(res.bytes->len, ==, n);
        g_assert_true(memcmp(res.bytes->str, expected, n) == 0);
        g_string_free(res.bytes, true);
        g_free(res.message);

        /* A diff of the report with itself: one pair, nothing changed. */
        res = run_output_job((char *const[]){ (char *) "diff", NULL }, (const int[]){ fd, fd }, 2);
        g_assert_cmpint(res.error, ==, 0);
        {
                g_autoptr(json_object) doc = json_tokener_parse(res.bytes->str);
                struct json_object *pairs = json_object_object_get(doc, "pairs"), *sections, *metrics, *m;
                g_assert_cmpuint(json_object_array_length(pairs), ==, 1);
                sections = json_object_object_get(json_object_array_get_idx(pairs, 0), "sections");
                g_assert_cmpuint(json_object_array_length(sections), >, 0);
                metrics = json_object_object_get(json_object_array_get_idx(sections, 0), "metrics");
                m = json_object_array_get_idx(metrics, 0);
                g_assert_nonnull(m);
                g_assert_true(json_object_equal(
                                json_object_object_get(m, "baseline"), json_object_object_get(m, "current")));
        }
        g_string_free(res.bytes, true);
        g_free(res.message);
        /* A spec that pairs nothing: the caller's mistake (EDOM), with the reason. */
        res = run_output_job((char *const[]){ (char *) "diff", (char *) "nothing", NULL }, (const int[]){ fd, fd }, 2);
        g_assert_cmpint(res.error, ==, -EDOM);
        g_assert_nonnull(strstr(res.message, "no kernel of that name"));
        g_free(res.message);
        close(fd);

        g_assert_cmpint(pipe2(pipefd, O_CLOEXEC), ==, 0);
        close(pipefd[1]);
        res = run_output_job((char *const[]){ (char *) "details", NULL }, &pipefd[0], 1);
        g_assert_cmpint(res.error, ==, -EINVAL);
        g_assert_nonnull(strstr(res.message, "cannot be read again"));
        g_free(res.message);
        close(pipefd[0]);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/report-worker/corpus", test_corpus);
        g_test_add_func("/report-worker/invalid-report", test_invalid_report);
        g_test_add_func("/report-worker/misbehaving-workers", test_misbehaving_workers);
        g_test_add_func("/report-worker/output-limit", test_output_limit);
        g_test_add_func("/report-worker/sandbox", test_sandbox);
        g_test_add_func("/report-worker/outputs", test_outputs);
        return g_test_run();
}
