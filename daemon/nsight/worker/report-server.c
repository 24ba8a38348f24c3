/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "report-server.h"
#include "report-worker.h"

/* What the load's frame holds: the model's size and the load's peak. */
#define LOADED_PAYLOAD_SIZE (2 * sizeof(uint64_t))
#define ERROR_PAYLOAD_MAX (NCU_SERVE_MESSAGE_MAX + sizeof(uint32_t) + 1)
#define MESSAGE_MAX 320
/* How long a worker whose channel ended may take to exit before it is killed. */
#define EXIT_GRACE_USEC (1000 * 1000)

typedef enum ServerState {
        SERVER_SPARE, /* confined, waiting for a report */
        SERVER_LOADING,
        SERVER_READY,
        SERVER_GONE,
} ServerState;

typedef struct ServerCall ServerCall;
struct ServerCall {
        uint32_t op;
        uint8_t *payload; /* the reply's limit (u64), then the arguments */
        size_t size;
        size_t max_reply;
        int fds[NCU_SERVE_FDS_MAX];
        size_t n_fds;
        NcuReportServerReply reply;
        void *userdata;
        ServerCall *next;
};

struct NcuReportServer {
        sd_event *event;
        sd_event_source *io, *deadline;
        sd_event_source *exit_source, *exit_timer; /* after the channel ended: the worker's exit */
        bool ending; /* the channel ended: calls wait for the verdict */
        int pidfd;
        pid_t pid;
        int sock;
        ServerState state;
        uint64_t timeout_usec;
        NcuReportServerLoaded loaded;
        NcuReportServerGone gone;
        void *userdata;

        ServerCall *calls, *last; /* the first is in flight once sent */
        size_t n_calls;
        bool sent;
        /* The request being written: header and payload; its descriptors go with the first byte. */
        uint8_t *out;
        size_t out_size, out_done;

        /* Callbacks may free the server: while it dispatches, that only marks it, and the dispatch frees it
         * on its way out. */
        unsigned dispatching;
        bool free_requested;

        /* The frame being read. */
        NcuFrameHeader in_header;
        size_t in_header_got;
        uint8_t *in;
        size_t in_got;
};

static void dispatch_begin(NcuReportServer *s)
{
        s->dispatching++;
}

static void dispatch_end(NcuReportServer *s)
{
        assert(s->dispatching > 0);
        if (--s->dispatching == 0 && s->free_requested) {
                sd_event_unref(s->event);
                free(s);
        }
}

static ServerCall *call_free(ServerCall *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_fds; i++)
                safe_close(c->fds[i]);
        free(c->payload);
        return mfree(c);
}

static int on_orphan_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
        pid_t pid = (pid_t) (intptr_t) userdata, p;

        do
                p = waitpid(pid, NULL, WNOHANG);
        while (p < 0 && errno == EINTR);
        /* A pidfd is readable once the process exits, which for one with threads (a sanitizer's) can be a
         * moment before it can be reaped: then the source stays, level-triggered, until it can. */
        if (p == 0)
                return 0;
        /* The loop holds the only reference: giving it up frees the source (and closes the pidfd). */
        (void) sd_event_source_set_enabled(source, SD_EVENT_OFF);
        (void) sd_event_source_set_floating(source, false);
        return 0;
}

/* Kills the worker and reaps it: at once when it is gone already, else when its pidfd says it is (a
 * source the loop owns), never with the loop held: a worker the kill did not reach (another uid, without
 * the saved uid of drop_ids()) must not stop the daemon. */
static void reap(NcuReportServer *s)
{
        sd_event_source *source = NULL;
        int pidfd;

        if (s->pid <= 0)
                return;
        (void) kill(s->pid, SIGKILL);
        if (waitpid(s->pid, NULL, WNOHANG) == 0) {
                pidfd = (int) syscall(SYS_pidfd_open, s->pid, 0);
                if (pidfd < 0 ||
                                sd_event_add_io(s->event, &source, pidfd, EPOLLIN, on_orphan_exit,
                                                (void *) (intptr_t) s->pid) < 0 ||
                                sd_event_source_set_io_fd_own(source, true) < 0 ||
                                sd_event_source_set_floating(source, true) < 0) {
                        if (source)
                                (void) sd_event_source_disable_unref(source);
                        else
                                safe_close(pidfd);
                        /* No other way to know when it is gone: wait (it was killed, which takes an instant). */
                        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
                                ;
                } else
                        sd_event_source_unref(source);
        }
        s->pid = 0;
}

/* The worker is done for: stop listening, kill it, and answer whatever waits. */
static void stop(NcuReportServer *s)
{
        s->io = sd_event_source_disable_unref(s->io);
        s->deadline = sd_event_source_disable_unref(s->deadline);
        s->exit_source = sd_event_source_disable_unref(s->exit_source);
        s->exit_timer = sd_event_source_disable_unref(s->exit_timer);
        s->pidfd = safe_close(s->pidfd);
        /* The channel first: a worker waiting on it ends by itself, whatever a kill can do. */
        s->sock = safe_close(s->sock);
        reap(s);
        s->out = mfree(s->out);
        s->in = mfree(s->in);
        s->state = SERVER_GONE;
}

/* Detaches every call and answers each with error. */
static void fail_calls(NcuReportServer *s, int error, const char *message)
{
        ServerCall *c = TAKE_PTR(s->calls);

        s->last = NULL;
        s->n_calls = 0;
        s->sent = false;
        while (c) {
                ServerCall *next = c->next;

                c->reply(error, NULL, 0, message, c->userdata);
                call_free(c);
                c = next;
        }
}

/* Ends the worker with error: the load's callback, or the calls' and then gone. */
static void fail(NcuReportServer *s, int error, const char *message)
{
        ServerState state = s->state;

        if (state == SERVER_GONE)
                return;
        stop(s);
        fail_calls(s, error, message);
        /* (A freed server has neither callback.) */
        if (state == SERVER_LOADING && s->loaded)
                s->loaded(s, error, message, s->userdata);
        else if (state == SERVER_READY && s->gone)
                s->gone(s, error, message, s->userdata);
}

static void fail_protocol(NcuReportServer *s, const char *why)
{
        char message[MESSAGE_MAX];

        snprintf(message, sizeof(message), "the report worker %s", why);
        fail(s, -ECHILD, message);
}

static void fail_status(NcuReportServer *s, int status)
{
        char message[MESSAGE_MAX];

        if (WIFSIGNALED(status))
                snprintf(message, sizeof(message),
                                "the report worker was killed by signal %d (a crash, its memory limit, or its "
                                "confinement stopped it)",
                                WTERMSIG(status));
        else
                snprintf(message, sizeof(message), "the report worker exited with status %d", WEXITSTATUS(status));
        fail(s, -ECHILD, message);
}

/* Reaps the worker if it ended: 1 with its status, 0 while it runs. */
static int try_reap(NcuReportServer *s, int *ret_status)
{
        pid_t p;

        do
                p = waitpid(s->pid, ret_status, WNOHANG);
        while (p < 0 && errno == EINTR);
        if (p < 0)
                return -errno;
        if (p == 0)
                return 0;
        s->pid = 0;
        return 1;
}

static int on_worker_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
        NcuReportServer *s = userdata;
        int status = 0;

        dispatch_begin(s);
        if (try_reap(s, &status) > 0)
                fail_status(s, status);
        dispatch_end(s);
        return 0;
}

static int on_exit_grace(sd_event_source *source, uint64_t usec, void *userdata)
{
        NcuReportServer *s = userdata;
        int status = 0;

        dispatch_begin(s);
        /* Still running without its channel: it is ended here. */
        if (try_reap(s, &status) > 0)
                fail_status(s, status);
        else
                fail(s, -ECHILD, "the report worker closed its channel");
        dispatch_end(s);
        return 0;
}

/* The channel ended. A worker that crashed or exited is reaped as soon as it is gone (its pidfd says
 * when), to say how it ended; one that closed its channel and goes on is killed after a moment, never
 * waited for with the loop held. */
static void channel_ended(NcuReportServer *s)
{
        int status = 0, r;

        s->ending = true;
        s->io = sd_event_source_disable_unref(s->io);
        if (s->deadline)
                (void) sd_event_source_set_enabled(s->deadline, SD_EVENT_OFF);
        r = try_reap(s, &status);
        if (r > 0) {
                fail_status(s, status);
                return;
        }
        if (r == 0) {
                s->pidfd = (int) syscall(SYS_pidfd_open, s->pid, 0);
                if (s->pidfd >= 0 &&
                                sd_event_add_io(s->event, &s->exit_source, s->pidfd, EPOLLIN, on_worker_exit, s) >= 0 &&
                                sd_event_add_time_relative(s->event, &s->exit_timer, CLOCK_MONOTONIC, EXIT_GRACE_USEC,
                                                0, on_exit_grace, s) >= 0)
                        return;
        }
        fail(s, -ECHILD, "the report worker closed its channel");
}

static int arm_deadline(NcuReportServer *s)
{
        int r;

        r = sd_event_source_set_time_relative(s->deadline, s->timeout_usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(s->deadline, SD_EVENT_ONESHOT);
}

static int set_events(NcuReportServer *s)
{
        return sd_event_source_set_io_events(s->io, EPOLLIN | (s->out ? EPOLLOUT : 0));
}

/* Writes what it can of the request; its descriptors go with the first bytes. */
static int flush(NcuReportServer *s)
{
        ServerCall *c = s->calls;

        while (s->out && s->out_done < s->out_size) {
                union {
                        struct cmsghdr cmsg;
                        uint8_t buf[CMSG_SPACE(sizeof(int) * NCU_SERVE_FDS_MAX)];
                } control = { .buf = { 0 } };
                struct iovec iov = { .iov_base = s->out + s->out_done, .iov_len = s->out_size - s->out_done };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
                ssize_t k;

                if (s->out_done == 0 && c->n_fds > 0) {
                        struct cmsghdr *cm;

                        msg.msg_control = &control;
                        msg.msg_controllen = CMSG_SPACE(sizeof(int) * c->n_fds);
                        cm = CMSG_FIRSTHDR(&msg);
                        cm->cmsg_level = SOL_SOCKET;
                        cm->cmsg_type = SCM_RIGHTS;
                        cm->cmsg_len = CMSG_LEN(sizeof(int) * c->n_fds);
                        memcpy(CMSG_DATA(cm), c->fds, sizeof(int) * c->n_fds);
                }
                k = sendmsg(s->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                break;
                        return -errno;
                }
                s->out_done += (size_t) k;
        }
        if (s->out && s->out_done == s->out_size)
                s->out = mfree(s->out);
        return set_events(s);
}

/* Sends the first call, when there is one and none is in flight. */
static int send_next(NcuReportServer *s)
{
        ServerCall *c = s->calls;
        NcuFrameHeader h;
        int r;

        if (s->state != SERVER_READY || s->ending || !c || s->sent)
                return 0;
        h = (NcuFrameHeader){ .code = c->op, .size = (uint32_t) c->size };
        s->out = malloc(sizeof(h) + c->size);
        if (!s->out)
                return -ENOMEM;
        memcpy(s->out, &h, sizeof(h));
        memcpy(s->out + sizeof(h), c->payload, c->size);
        s->out_size = sizeof(h) + c->size;
        s->out_done = 0;
        s->sent = true;
        r = arm_deadline(s);
        if (r < 0)
                return r;
        return flush(s);
}

/* The error a worker may answer with; anything else breaks the protocol. */
static bool error_allowed(const NcuReportServer *s, uint32_t code)
{
        if (s->state == SERVER_SPARE)
                return false;
        if (s->state == SERVER_LOADING)
                return IN_SET((int) code, EBADMSG, EPROTONOSUPPORT, E2BIG, ENOMEM, EIO, EINVAL, EISDIR);
        return IN_SET((int) code, EINVAL, ENOENT, E2BIG, ENOMEM, EDOM, EBADMSG, EPROTONOSUPPORT, EIO, EISDIR, ESTALE,
                        EOPNOTSUPP);
}

/* The most a frame with this header may carry now. */
static size_t payload_max(const NcuReportServer *s, uint32_t code)
{
        if (code != 0)
                return ERROR_PAYLOAD_MAX;
        if (s->state == SERVER_LOADING)
                return LOADED_PAYLOAD_SIZE;
        return s->calls ? s->calls->max_reply : 0;
}

static int read_message(const uint8_t *p, size_t n, char message[static MESSAGE_MAX])
{
        NcuWireReader r;
        const char *text;
        int k;

        ncu_wire_reader_init(&r, p, n);
        k = ncu_wire_get_string(&r, &text);
        if (k < 0 || r.left != 0)
                return -EBADMSG;
        snprintf(message, MESSAGE_MAX, "%s", text);
        return 0;
}

/* A whole frame arrived. Returns 0, or 1 when reading must stop (the worker is gone, or the server was
 * freed by a callback). */
static int handle_frame(NcuReportServer *s)
{
        _cleanup_free_ uint8_t *payload = TAKE_PTR(s->in);
        NcuFrameHeader h = s->in_header;
        char message[MESSAGE_MAX] = "";
        ServerCall *c;

        s->in_header_got = s->in_got = 0;
        if (s->state == SERVER_SPARE) {
                fail_protocol(s, "spoke before it was given a report");
                return 1;
        }
        if (h.code != 0 && read_message(payload, h.size, message) < 0) {
                fail_protocol(s, "returned a malformed error");
                return 1;
        }
        if (s->state == SERVER_LOADING) {
                if (h.code != 0) {
                        /* It exits after saying why; no need to wait for that. */
                        fail(s, -(int) h.code, message);
                        return 1;
                }
                if (h.size != LOADED_PAYLOAD_SIZE) {
                        fail_protocol(s, "returned a malformed answer");
                        return 1;
                }
                s->state = SERVER_READY;
                (void) sd_event_source_set_enabled(s->deadline, SD_EVENT_OFF);
                if (s->loaded)
                        s->loaded(s, 0, NULL, s->userdata);
                /* Calls queued meanwhile (or by the callback) go now. */
                if (s->free_requested || s->state == SERVER_GONE)
                        return 1;
                if (send_next(s) < 0) {
                        fail(s, -ENOMEM, "out of memory");
                        return 1;
                }
                return 0;
        }
        if (!s->sent) {
                fail_protocol(s, "answered a call nobody made");
                return 1;
        }
        c = s->calls;
        s->calls = c->next;
        if (!s->calls)
                s->last = NULL;
        s->n_calls--;
        s->sent = false;
        (void) sd_event_source_set_enabled(s->deadline, SD_EVENT_OFF);
        if (h.code != 0)
                c->reply(-(int) h.code, NULL, 0, message, c->userdata);
        else
                c->reply(0, payload, h.size, NULL, c->userdata);
        call_free(c);
        if (s->free_requested || s->state == SERVER_GONE)
                return 1;
        if (send_next(s) < 0) {
                fail(s, -ENOMEM, "out of memory");
                return 1;
        }
        return 0;
}

/* Reads what is there; returns 1 when reading must stop. */
static int receive(NcuReportServer *s)
{
        for (;;) {
                uint8_t *p;
                size_t want;
                ssize_t k;

                if (s->in_header_got < sizeof(s->in_header)) {
                        p = (uint8_t *) &s->in_header + s->in_header_got;
                        want = sizeof(s->in_header) - s->in_header_got;
                } else {
                        p = s->in + s->in_got;
                        want = s->in_header.size - s->in_got;
                }
                k = want > 0 ? read(s->sock, p, want) : 0;
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        channel_ended(s);
                        return 1;
                }
                if (k == 0 && want > 0) {
                        channel_ended(s);
                        return 1;
                }
                if (s->in_header_got < sizeof(s->in_header)) {
                        s->in_header_got += (size_t) k;
                        if (s->in_header_got < sizeof(s->in_header))
                                continue;
                        if (s->in_header.code != 0 && !error_allowed(s, s->in_header.code)) {
                                fail_protocol(s, "answered with an error it cannot give");
                                return 1;
                        }
                        if (s->in_header.size > payload_max(s, s->in_header.code)) {
                                fail_protocol(s, "answered with more than it was allowed");
                                return 1;
                        }
                        s->in = malloc(MAX(s->in_header.size, 1u));
                        if (!s->in) {
                                fail(s, -ENOMEM, "out of memory");
                                return 1;
                        }
                } else
                        s->in_got += (size_t) k;
                if (s->in_got == s->in_header.size && handle_frame(s) > 0)
                        return 1;
        }
}

static int on_io(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
        NcuReportServer *s = userdata;

        dispatch_begin(s);
        if (revents & EPOLLOUT && flush(s) < 0)
                channel_ended(s);
        else if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                (void) receive(s);
        dispatch_end(s);
        return 0;
}

static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata)
{
        NcuReportServer *s = userdata;

        dispatch_begin(s);
        fail(s, -ETIMEDOUT,
                        s->state == SERVER_LOADING ? "the report worker did not finish reading the report in time"
                                                   : "the report worker did not answer in time");
        dispatch_end(s);
        return 0;
}

static _Noreturn void exec_worker(const char *worker_path, int sock)
{
        char *argv[] = { (char *) NCU_REPORT_WORKER_NAME, (char *) "serve", NULL };
        char *const envp[] = { NULL };
        struct rlimit core = { 0, 0 };
        sigset_t all;
        int null_fd;

        (void) setrlimit(RLIMIT_CORE, &core);
        /* fd 0 and 1 nothing, fd 2 kept (the daemon's journal stream: the worker writes there only when
         * it cannot confine itself, before it has a report), fd 3 the channel. Its address-space limit
         * comes with its report (the worker sets it before reading). */
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (sock == STDIN_FILENO || sock == STDOUT_FILENO) {
                sock = fcntl(sock, F_DUPFD, 10);
                if (sock < 0)
                        _exit(2);
        }
        if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
                        dup2(sock, NCU_SERVE_SOCKET_FD) < 0)
                _exit(2);
        if (close_range(NCU_SERVE_SOCKET_FD + 1, ~0U, 0) < 0)
                for (int fd = NCU_SERVE_SOCKET_FD + 1; fd < 1024; fd++)
                        (void) close(fd);
        sigfillset(&all);
        (void) sigprocmask(SIG_UNBLOCK, &all, NULL);
        execve(worker_path, argv, envp);
        _exit(2);
}

int ncu_report_server_spawn(sd_event *e, const char *worker_path, NcuReportServer **ret)
{
        _cleanup_(ncu_report_server_freep) NcuReportServer *s = NULL;
        int pair[2], r;

        assert(e && worker_path && ret);
        s = calloc(1, sizeof(NcuReportServer));
        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(e);
        s->sock = -EBADF;
        s->pidfd = -EBADF;
        s->state = SERVER_SPARE;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
                return -errno;
        s->sock = pair[0];
        s->pid = fork();
        if (s->pid < 0) {
                r = -errno;
                s->pid = 0;
                safe_close(pair[1]);
                return r;
        }
        if (s->pid == 0)
                exec_worker(worker_path, pair[1]);
        safe_close(pair[1]);

        if (fcntl(s->sock, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        /* A spare says nothing: anything it sends, or its channel's end, ends it. */
        r = sd_event_add_io(e, &s->io, s->sock, EPOLLIN, on_io, s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

bool ncu_report_server_is_spare(const NcuReportServer *s)
{
        return s && s->state == SERVER_SPARE && !s->ending && !s->free_requested;
}

int ncu_report_server_load(NcuReportServer *s, const NcuReportServerOptions *o, int report_fd,
                NcuReportServerLoaded loaded, NcuReportServerGone gone, void *userdata)
{
        int r;

        assert(s && o && report_fd >= 0 && o->memory > 0);
        if (!ncu_report_server_is_spare(s))
                return -ECHILD;
        /* The request fits an empty socket buffer: it goes at once, the descriptor with it. */
        r = ncu_frame_send(s->sock, NCU_SERVE_LOAD, &o->memory, sizeof(o->memory), &report_fd, 1);
        if (r < 0)
                return r;
        r = sd_event_add_time_relative(s->event, &s->deadline, CLOCK_MONOTONIC, o->timeout_usec, 0, on_deadline, s);
        if (r < 0)
                return r;
        s->timeout_usec = o->timeout_usec;
        s->loaded = loaded;
        s->gone = gone;
        s->userdata = userdata;
        s->state = SERVER_LOADING;
        return 0;
}

int ncu_report_server_start(sd_event *e, const NcuReportServerOptions *o, int report_fd, NcuReportServerLoaded loaded,
                NcuReportServerGone gone, void *userdata, NcuReportServer **ret)
{
        _cleanup_(ncu_report_server_freep) NcuReportServer *s = NULL;
        int r;

        assert(e && o && o->worker_path && report_fd >= 0 && ret);
        r = ncu_report_server_spawn(e, o->worker_path, &s);
        if (r < 0)
                return r;
        r = ncu_report_server_load(s, o, report_fd, loaded, gone, userdata);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int ncu_report_server_call(NcuReportServer *s, NcuServeOp op, const void *args, size_t size, size_t max_reply,
                const int *fds, size_t n_fds, NcuReportServerReply reply, void *userdata)
{
        ServerCall *c;
        uint64_t limit = MIN(max_reply, NCU_SERVE_REPLY_MAX);
        int r;

        assert(s && reply && n_fds <= NCU_SERVE_FDS_MAX && (args || size == 0));
        if (s->state == SERVER_GONE || s->free_requested)
                return -ESHUTDOWN;
        if (size > NCU_SERVE_REQUEST_MAX - sizeof(uint64_t))
                return -E2BIG;
        c = calloc(1, sizeof(ServerCall));
        if (!c)
                return -ENOMEM;
        c->op = op;
        c->max_reply = (size_t) limit;
        c->reply = reply;
        c->userdata = userdata;
        c->size = sizeof(uint64_t) + size;
        c->payload = malloc(c->size);
        if (!c->payload) {
                call_free(c);
                return -ENOMEM;
        }
        memcpy(c->payload, &limit, sizeof(limit));
        if (size > 0)
                memcpy(c->payload + sizeof(limit), args, size);
        for (size_t i = 0; i < n_fds; i++) {
                c->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
                if (c->fds[i] < 0) {
                        r = -errno;
                        call_free(c);
                        return r;
                }
                c->n_fds++;
        }
        if (s->last)
                s->last->next = c;
        else
                s->calls = c;
        s->last = c;
        s->n_calls++;
        r = send_next(s);
        if (r < 0 && !(s->sent && s->calls == c)) {
                /* Not sent: take it back. (One in flight whose sending failed is answered when the
                 * channel's end is seen.) */
                ServerCall **p = &s->calls;

                while (*p != c)
                        p = &(*p)->next;
                *p = NULL;
                s->last = NULL;
                for (ServerCall *x = s->calls; x; x = x->next)
                        s->last = x;
                s->n_calls--;
                call_free(c);
                return r;
        }
        return 0;
}

size_t ncu_report_server_n_calls(const NcuReportServer *s)
{
        assert(s);
        return s->n_calls;
}

pid_t ncu_report_server_pid(const NcuReportServer *s)
{
        assert(s);
        return s->pid;
}

NcuReportServer *ncu_report_server_free(NcuReportServer *s)
{
        if (!s || s->free_requested)
                return NULL;
        s->free_requested = true;
        s->loaded = NULL;
        s->gone = NULL;
        stop(s);
        fail_calls(s, -ECANCELED, "the report was closed");
        if (s->dispatching > 0)
                return NULL; /* freed when its dispatch ends */
        sd_event_unref(s->event);
        return mfree(s);
}
