/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report-json.h"
#include "report-worker.h"

/* What the worker may do once confined: read its input, allocate, write its output, exit. Reading a
 * report needs fstat and lseek (report-container.c sizes a regular file); json-c and glibc's malloc need
 * brk/mmap/mremap/munmap/madvise/mprotect; glibc's qsort sizes its buffer with sysinfo. No open, no
 * socket, no exec, no kill. */
static const int allowed_syscalls[] = {
        SCMP_SYS(read),
        SCMP_SYS(write),
        SCMP_SYS(close),
        SCMP_SYS(fstat),
        SCMP_SYS(newfstatat),
        SCMP_SYS(lseek),
        SCMP_SYS(brk),
        SCMP_SYS(mmap),
        SCMP_SYS(munmap),
        SCMP_SYS(mremap),
        SCMP_SYS(madvise),
        SCMP_SYS(mprotect),
        SCMP_SYS(exit),
        SCMP_SYS(exit_group),
        SCMP_SYS(rt_sigreturn),
        SCMP_SYS(futex),
        SCMP_SYS(getrandom),
        SCMP_SYS(clock_gettime),
        SCMP_SYS(sysinfo),
};

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZER_BUILD 1
#endif
#endif

/* What the sanitizers' runtime calls on its own in ASan/UBSan builds (tests only): its allocator asks
 * for the signal stack, its reports for the thread and process ids. Never in a release build. */
#ifdef SANITIZER_BUILD
static const int sanitizer_syscalls[] = {
        SCMP_SYS(sigaltstack),
        SCMP_SYS(getpid),
        SCMP_SYS(gettid),
        SCMP_SYS(sched_yield),
        SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(rt_sigaction),
};
#endif

static int drop_ids(uid_t uid, gid_t gid)
{
        bool root = geteuid() == 0;

        if (setgroups(0, NULL) < 0 && (root || errno != EPERM))
                return -errno;
        if (setresgid(gid, gid, gid) < 0 && (root || errno != EPERM))
                return -errno;
        if (setresuid(uid, uid, uid) < 0 && (root || errno != EPERM))
                return -errno;
        /* Whatever happened above, root must be gone. */
        if (getuid() == 0 || geteuid() == 0 || getgid() == 0 || getegid() == 0)
                return uid == 0 ? -EINVAL : -EPERM;
        return 0;
}

static int drop_capabilities(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

        /* Ambient capabilities survive execve for an unprivileged uid: clear them, then the rest. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        return 0;
}

static int load_filter(void)
{
        scmp_filter_ctx ctx;
        int r;

        ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
        if (!ctx)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(allowed_syscalls); i++) {
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed_syscalls[i], 0);
                if (r < 0) {
                        seccomp_release(ctx);
                        return r;
                }
        }
#ifdef SANITIZER_BUILD
        for (size_t i = 0; i < ELEMENTSOF(sanitizer_syscalls); i++) {
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sanitizer_syscalls[i], 0);
                if (r < 0) {
                        seccomp_release(ctx);
                        return r;
                }
        }
#endif
        r = seccomp_load(ctx);
        seccomp_release(ctx);
        return r;
}

int ncu_worker_sandbox(uid_t uid, gid_t gid)
{
        int r;

        r = drop_ids(uid, gid);
        if (r < 0)
                return r;
        r = drop_capabilities();
        if (r < 0)
                return r;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        return load_filter();
}

static int write_all(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

static int write_document(int out_fd, struct json_object *doc)
{
        size_t n;
        const char *text = json_object_to_json_string_length(
                        doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);

        if (!text)
                return -ENOMEM;
        return write_all(out_fd, text, n);
}

static int write_error_document(int out_fd, int error, const NcuReportError *err)
{
        struct json_object *doc = json_object_new_object(), *e = json_object_new_object();
        int r;

        if (!doc || !e) {
                json_object_put(doc);
                json_object_put(e);
                return -ENOMEM;
        }
        json_object_object_add(e, "errno", json_object_new_int(-error));
        json_object_object_add(e, "offset", json_object_new_uint64(err->offset));
        json_object_object_add(e, "message", json_object_new_string(err->message));
        json_object_object_add(doc, "error", e);
        r = write_document(out_fd, doc);
        json_object_put(doc);
        return r < 0 ? r : 1;
}

static int error_out_of_memory(int out_fd)
{
        NcuReportError err = { .offset = 0 };

        (void) strcpy(err.message, "out of memory");
        return write_error_document(out_fd, -ENOMEM, &err);
}

/* A part of the stream (report-document.h): the object as one line. */
static int write_line(int out_fd, struct json_object *o)
{
        size_t n;
        const char *text = json_object_to_json_string_length(
                        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        int r;

        if (!text)
                return -ENOMEM;
        r = write_all(out_fd, text, n);
        return r < 0 ? r : write_all(out_fd, "\n", 1);
}

static int write_stream(int out_fd, const NcuReport *report, NcuJsonMetricHook hook)
{
        struct json_object *o = NULL;
        int r;

        r = ncu_report_header_to_json(report, 0, &o);
        if (r < 0)
                return r;
        r = write_line(out_fd, o);
        json_object_put(o);
        if (r < 0)
                return r;
        o = json_object_new_array();
        for (size_t i = 0; o && i < report->n_ranges; i++)
                if (json_object_array_add(o, json_object_new_uint64(report->ranges[i].n_actions)) < 0)
                        r = -ENOMEM;
        r = !o ? -ENOMEM : r < 0 ? r : write_line(out_fd, o);
        json_object_put(o);
        /* One action's tree at a time. */
        for (size_t i = 0; r >= 0 && i < report->n_ranges; i++)
                for (size_t j = 0; r >= 0 && j < report->ranges[i].n_actions; j++) {
                        r = ncu_action_to_json_with(report->ranges[i].actions[j], 0, hook, NULL, &o);
                        if (r >= 0)
                                r = write_line(out_fd, o);
                        json_object_put(o);
                        o = NULL;
                }
        return r;
}

int ncu_worker_run(int in_fd, int out_fd, NcuJsonMetricHook hook)
{
        NcuReport *report = NULL;
        NcuReportError err;
        int r;

        r = ncu_report_load_fd(in_fd, NULL, &report, &err);
        if (r < 0)
                return write_error_document(out_fd, r, &err);
        r = write_stream(out_fd, report, hook);
        ncu_report_free(report);
        /* Once lines went out, an error document could not be told from them: the daemon sees the exit. */
        return r;
}

int ncu_worker_run_output(const int *in_fds, size_t n_in, int out_fd,
                int (*write_out)(NcuReport *const *reports, FILE *f, void *userdata), void *userdata)
{
        NcuReport *reports[NCU_WORKER_INPUTS_MAX] = { NULL };
        NcuReportError err;
        char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r = 0;

        assert(n_in >= 1 && n_in <= NCU_WORKER_INPUTS_MAX);
        for (size_t i = 0; i < n_in && r >= 0; i++) {
                /* The daemon keeps the caller's descriptor and hands it again for each output: read it
                 * from its start (a pipe cannot be, and says so). */
                if (lseek(in_fds[i], 0, SEEK_SET) < 0) {
                        err = (NcuReportError){ .offset = 0 };
                        (void) strcpy(err.message, "the report cannot be read again (not a regular file)");
                        r = -EINVAL;
                        break;
                }
                r = ncu_report_load_fd(in_fds[i], NULL, &reports[i], &err);
        }
        if (r < 0) {
                for (size_t i = 0; i < n_in; i++)
                        ncu_report_free(reports[i]);
                return write_error_document(out_fd, r, &err);
        }
        /* The whole output is made in memory first: a failure halfway writes an error, never half a file. */
        f = open_memstream(&buf, &size);
        r = f ? write_out(reports, f, userdata) : -ENOMEM;
        if (f && fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        for (size_t i = 0; i < n_in; i++)
                ncu_report_free(reports[i]);
        if (r >= 0) {
                int k = write_all(out_fd, buf, size);
                r = k < 0 ? k : r;
        } else
                r = error_out_of_memory(out_fd);
        free(buf);
        return r;
}
