/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "report-document.h"
#include "report-job.h"
#include "report-json.h"
#include "report-worker.h"
#include "strv.h"

#define JOB_READ_CHUNK (64u * 1024u)
#define JOB_REAP_INTERVAL_USEC (5 * 1000)
#define JOB_JSON_DEPTH_MAX 32 /* the schema nests 8 deep */
#define JOB_MESSAGE_MAX 256

DEFINE_TRIVIAL_CLEANUP_FUNC(json_tokener *, json_tokener_free);

struct NcuReportJob {
        sd_event *event;
        sd_event_source *io, *deadline, *reap;
        pid_t pid;
        int out_fd;
        char *buf;
        size_t size, allocated;
        NcuReportJobLimits limits;
        NcuReportJobDone done;
        NcuReportJobOutputDone output_done; /* an output job: the bytes, not a model */
        void *userdata;
        int status; /* waitpid status once reaped */
        bool reaped, eof;
};

NcuReportJob *ncu_report_job_free(NcuReportJob *j)
{
        if (!j)
                return NULL;
        sd_event_source_disable_unref(j->io);
        sd_event_source_disable_unref(j->deadline);
        sd_event_source_disable_unref(j->reap);
        if (j->pid > 0 && !j->reaped) {
                (void) kill(j->pid, SIGKILL);
                (void) waitpid(j->pid, NULL, 0);
        }
        safe_close(j->out_fd);
        free(j->buf);
        sd_event_unref(j->event);
        return mfree(j);
}

static void finish_common(NcuReportJob *j, int error, NcuReportDocument *doc, int fd, const char *message)
{
        NcuReportJobDone done = j->done;
        NcuReportJobOutputDone output_done = j->output_done;

        /* Stop everything first: done may free the job. */
        j->io = sd_event_source_disable_unref(j->io);
        j->deadline = sd_event_source_disable_unref(j->deadline);
        j->reap = sd_event_source_disable_unref(j->reap);
        if (!j->reaped && j->pid > 0) {
                (void) kill(j->pid, SIGKILL);
                (void) waitpid(j->pid, &j->status, 0);
                j->reaped = true;
        }
        j->done = NULL;
        j->output_done = NULL;
        if (done)
                done(j, error, doc, message, j->userdata);
        if (output_done)
                output_done(j, error, fd, message, j->userdata);
}

static void finish(NcuReportJob *j, int error, NcuReportDocument *doc, const char *message)
{
        finish_common(j, error, doc, -EBADF, message);
}

int ncu_memfd_new_sealed(const char *name, const void *data, size_t size)
{
        _cleanup_close_ int fd = -EBADF;
        const char *p = data;

        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        while (size > 0) {
                ssize_t k = write(fd, p, size);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += k;
                size -= (size_t) k;
        }
        if (lseek(fd, 0, SEEK_SET) < 0 ||
                        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                return -errno;
        return TAKE_FD(fd);
}

int ncu_memfd_new_sealed_with(const char *name, int (*write_to)(FILE *f, void *userdata), void *userdata)
{
        _cleanup_close_ int fd = -EBADF;
        FILE *f;
        int dup_fd, r;

        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0)
                return -errno;
        f = fdopen(dup_fd, "w");
        if (!f) {
                r = -errno;
                safe_close(dup_fd);
                return r;
        }
        r = write_to(f, userdata);
        if (fclose(f) != 0 && r >= 0)
                r = -errno;
        if (r < 0)
                return r;
        if (lseek(fd, 0, SEEK_SET) < 0 ||
                        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                return -errno;
        return TAKE_FD(fd);
}

static void finish_with_bytes(NcuReportJob *j)
{
        _cleanup_close_ int fd = ncu_memfd_new_sealed("nvprofiled-report-output", j->buf, j->size);

        if (fd < 0)
                finish(j, fd, NULL, "cannot hand the output over");
        else
                finish_common(j, 0, NULL, fd, NULL);
}

static const char *json_string_member(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static void finish_with_output(NcuReportJob *j)
{
        static char message[JOB_MESSAGE_MAX];
        _cleanup_(json_tokener_freep) json_tokener *tok = NULL;
        struct json_object *doc, *err = NULL;
        const char *why = NULL;
        int r;

        if (WIFSIGNALED(j->status)) {
                snprintf(message, sizeof(message),
                                "the report worker was killed by signal %d (a crash, or its confinement stopped it)",
                                WTERMSIG(j->status));
                finish(j, -ECHILD, NULL, message);
                return;
        }
        if (!WIFEXITED(j->status) || !IN_SET(WEXITSTATUS(j->status), 0, 1)) {
                finish(j, -ECHILD, NULL, "the report worker failed before reading the report");
                return;
        }
        if (j->output_done && WEXITSTATUS(j->status) == 0) {
                finish_with_bytes(j);
                return;
        }
        if (WEXITSTATUS(j->status) == 0) {
                NcuReportDocument *d = NULL;

                /* The document takes the buffer, even when it refuses it. */
                r = ncu_report_document_new(TAKE_PTR(j->buf), j->size, &d, &why);
                j->size = j->allocated = 0;
                if (r == -ENOMEM)
                        finish(j, r, NULL, "out of memory");
                else if (r < 0)
                        finish(j, -ECHILD, NULL, why);
                else
                        finish(j, 0, d, NULL);
                return;
        }
        tok = json_tokener_new_ex(JOB_JSON_DEPTH_MAX);
        if (!tok) {
                finish(j, -ENOMEM, NULL, "out of memory");
                return;
        }
        doc = json_tokener_parse_ex(tok, j->buf ? j->buf : "", (int) j->size);
        if (!doc || json_tokener_get_parse_end(tok) != j->size) {
                json_object_put(doc);
                finish(j, -ECHILD, NULL, "the report worker returned malformed output");
                return;
        }
        if (WEXITSTATUS(j->status) == 1 && json_object_object_get_ex(doc, "error", &err)) {
                struct json_object *n = NULL, *off = NULL;
                const char *text = json_string_member(err, "message");
                int e = json_object_object_get_ex(err, "errno", &n) ? json_object_get_int(n) : EBADMSG;

                (void) json_object_object_get_ex(err, "offset", &off);
                /* Only the errors the reader gives; anything else from a worker is a protocol error. */
                if (!IN_SET(e, EBADMSG, EPROTONOSUPPORT, E2BIG, ENOMEM, EIO, EISDIR, EINVAL) &&
                                !(j->output_done && e == EDOM)) /* EDOM: a diff's pairing spec */
                        e = ECHILD;
                snprintf(message, sizeof(message), "byte %" PRIu64 ": %.200s", off ? json_object_get_uint64(off) : 0,
                                text ? text : "invalid report");
                json_object_put(doc);
                finish(j, -e, NULL, message);
                return;
        }
        /* Exit status 1 without an error document. */
        json_object_put(doc);
        finish(j, -ECHILD, NULL, "the report worker returned malformed output");
}

static int try_reap(NcuReportJob *j)
{
        pid_t p = waitpid(j->pid, &j->status, WNOHANG);

        if (p < 0)
                return -errno;
        if (p == 0)
                return 0;
        j->reaped = true;
        return 1;
}

static int on_reap(sd_event_source *s, uint64_t usec, void *userdata)
{
        NcuReportJob *j = userdata;
        int r = try_reap(j);

        if (r < 0) {
                finish(j, -ECHILD, NULL, "the report worker vanished");
                return 0;
        }
        if (r > 0) {
                finish_with_output(j);
                return 0;
        }
        /* Closed its output but still runs: look again shortly; the deadline bounds the wait. */
        return sd_event_source_set_time_relative(s, JOB_REAP_INTERVAL_USEC) < 0
                        ? 0
                        : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        NcuReportJob *j = userdata;

        for (;;) {
                ssize_t k;

                if (GREEDY_REALLOC(j->buf, j->allocated, j->size + JOB_READ_CHUNK) < 0) {
                        finish(j, -ENOMEM, NULL, "out of memory");
                        return 0;
                }
                k = read(fd, j->buf + j->size, JOB_READ_CHUNK);
                if (k < 0) {
                        if (errno == EAGAIN)
                                return 0;
                        if (errno == EINTR)
                                continue;
                        finish(j, -ECHILD, NULL, "cannot read the report worker's output");
                        return 0;
                }
                if (k == 0)
                        break;
                j->size += (size_t) k;
                if (j->size > j->limits.max_output) {
                        finish(j, -E2BIG, NULL,
                                        j->output_done ? "the output is larger than the limit for one report"
                                                       : "the report's model is larger than the limit for one report");
                        return 0;
                }
        }
        j->eof = true;
        j->io = sd_event_source_disable_unref(j->io);
        if (sd_event_add_time_relative(j->event, &j->reap, CLOCK_MONOTONIC, 0, 0, on_reap, j) < 0)
                finish(j, -ENOMEM, NULL, "out of memory");
        return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
        finish(userdata, -ETIMEDOUT, NULL, "the report worker did not finish in time");
        return 0;
}

static _Noreturn void exec_worker(
                const char *worker_path, char *const *args, const int *report_fds, size_t n_report_fds, int out_fd)
{
        char *argv[NCU_REPORT_JOB_ARGS_MAX + 2] = { (char *) NCU_REPORT_WORKER_NAME };
        char *const envp[] = { NULL };
        int second = -EBADF;
        sigset_t all;

        /* fd 0 the report, fd 1 the pipe, fd 2 kept (the daemon's journal stream), fd 3 a second report;
         * nothing else. The second is moved out of the way first: dup2 onto 0/1 may not clobber it. */
        if (n_report_fds > 1) {
                second = fcntl(report_fds[1], F_DUPFD, 10);
                if (second < 0)
                        _exit(2);
        }
        if (dup2(report_fds[0], STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
                _exit(2);
        if (second >= 0 && dup2(second, 3) < 0)
                _exit(2);
        if (close_range(second >= 0 ? 4 : 3, ~0U, 0) < 0)
                for (int fd = second >= 0 ? 4 : 3; fd < 1024; fd++)
                        (void) close(fd);
        for (size_t i = 0; args && args[i] && i < NCU_REPORT_JOB_ARGS_MAX; i++)
                argv[i + 1] = args[i];
        sigfillset(&all);
        (void) sigprocmask(SIG_UNBLOCK, &all, NULL);
        execve(worker_path, argv, envp);
        _exit(2);
}

static int job_start(sd_event *e, const char *worker_path, char *const *args, const int *report_fds,
                size_t n_report_fds, const NcuReportJobLimits *limits, NcuReportJobDone done,
                NcuReportJobOutputDone output_done, void *userdata, NcuReportJob **ret)
{
        _cleanup_(ncu_report_job_freep) NcuReportJob *j = NULL;
        int pipefd[2], r;

        assert(e && worker_path && report_fds && n_report_fds >= 1 && n_report_fds <= 2 && limits && ret);
        assert(!!done != !!output_done);

        j = calloc(1, sizeof(NcuReportJob));
        if (!j)
                return -ENOMEM;
        j->event = sd_event_ref(e);
        j->out_fd = -EBADF;
        j->limits = *limits;
        j->done = done;
        j->output_done = output_done;
        j->userdata = userdata;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        j->out_fd = pipefd[0];
        j->pid = fork();
        if (j->pid < 0) {
                r = -errno;
                safe_close(pipefd[1]);
                return r;
        }
        if (j->pid == 0)
                exec_worker(worker_path, args, report_fds, n_report_fds, pipefd[1]);
        safe_close(pipefd[1]);

        if (fcntl(j->out_fd, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        r = sd_event_add_io(e, &j->io, j->out_fd, EPOLLIN, on_output, j);
        if (r < 0)
                return r;
        r = sd_event_add_time_relative(e, &j->deadline, CLOCK_MONOTONIC, limits->timeout_usec, 0, on_deadline, j);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(j);
        return 0;
}

int ncu_report_job_start(sd_event *e, const char *worker_path, int report_fd, const NcuReportJobLimits *limits,
                NcuReportJobDone done, void *userdata, NcuReportJob **ret)
{
        assert(report_fd >= 0 && done);
        return job_start(e, worker_path, NULL, &report_fd, 1, limits, done, NULL, userdata, ret);
}

int ncu_report_job_start_output(sd_event *e, const char *worker_path, char *const *args, const int *report_fds,
                size_t n_report_fds, const NcuReportJobLimits *limits, NcuReportJobOutputDone done, void *userdata,
                NcuReportJob **ret)
{
        assert(args && args[0] && done);
        if (strv_length(args) > NCU_REPORT_JOB_ARGS_MAX)
                return -E2BIG;
        return job_start(e, worker_path, args, report_fds, n_report_fds, limits, NULL, done, userdata, ret);
}
