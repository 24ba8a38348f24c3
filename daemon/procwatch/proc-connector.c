/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "proc-connector.h"

bool have_cap_net_admin(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = { { 0 } };

        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_NET_ADMIN / 32].effective & (1u << (CAP_NET_ADMIN % 32));
}

int proc_connector_open(size_t rcvbuf, int *ret_fd)
{
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_nl sa = {
                .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0, /* let the kernel pick */
        };
        /* nlmsghdr + cn_msg (which ends in a flexible array) + the op, built in an aligned buffer. */
        union {
                struct nlmsghdr nl;
                uint8_t bytes[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
        } req = { .bytes = { 0 } };
        struct cn_msg *cn = NLMSG_DATA(&req.nl);
        enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
        int size;

        assert(ret_fd);

        if (!have_cap_net_admin())
                return -EPERM;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return errno == EPROTONOSUPPORT ? -EPROTONOSUPPORT : -errno;

        size = (int) MIN(rcvbuf, (size_t) INT32_MAX / 2);
        /* FORCE goes past net.core.rmem_max (needs CAP_NET_ADMIN, which we have); fall back quietly. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));

        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        req.nl.nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op));
        req.nl.nlmsg_type = NLMSG_DONE;
        cn->id.idx = CN_IDX_PROC;
        cn->id.val = CN_VAL_PROC;
        cn->len = sizeof(op);
        memcpy(cn->data, &op, sizeof(op));
        if (send(fd, &req, req.nl.nlmsg_len, 0) < 0)
                return -errno;

        *ret_fd = TAKE_FD(fd);
        return 0;
}

int proc_connector_parse(const void *buf, size_t len, ProcEvent *events, size_t max)
{
        size_t n = 0;

        assert(buf || len == 0);
        assert(events || max == 0);

        /* Not NLMSG_OK()/NLMSG_NEXT(): with a size_t length, a last message whose aligned size exceeds
         * what is left makes NLMSG_NEXT() wrap the length around, and the walk runs off the buffer
         * (found by libFuzzer). */
        for (const uint8_t *p = buf, *end = p + len; (size_t) (end - p) >= sizeof(struct nlmsghdr);) {
                const struct nlmsghdr *nl = (const struct nlmsghdr *) p;
                size_t left = (size_t) (end - p), step;
                const struct cn_msg *cn;
                struct proc_event event = { 0 };
                const struct proc_event *ev = &event;
                ProcEvent e;

                if (nl->nlmsg_len < sizeof(struct nlmsghdr) || nl->nlmsg_len > left)
                        break;
                step = NLMSG_ALIGN(nl->nlmsg_len);
                p += MIN(step, left);

                if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
                        continue;
                if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg)))
                        continue;
                cn = NLMSG_DATA(nl);
                if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
                        continue;
                if (cn->len < offsetof(struct proc_event, event_data) ||
                                nl->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + cn->len))
                        continue;
                /* The event sits 36 bytes into the datagram, but holds 64-bit fields: copy it out to an
                 * aligned place rather than read it where it lies. */
                memcpy(&event, cn->data, MIN((size_t) cn->len, sizeof(event)));

                switch (ev->what) {
                case PROC_EVENT_EXEC:
                        if (cn->len < offsetof(struct proc_event, event_data) + sizeof(ev->event_data.exec))
                                continue;
                        /* After exec the thread that called it is the group leader. */
                        e = (ProcEvent){ PROC_EVENT_TYPE_EXEC, ev->event_data.exec.process_tgid };
                        break;
                case PROC_EVENT_COMM:
                        if (cn->len < offsetof(struct proc_event, event_data) + sizeof(ev->event_data.comm))
                                continue;
                        /* /proc/<pid>/comm is the leader's; other threads' names do not matter. */
                        if (ev->event_data.comm.process_pid != ev->event_data.comm.process_tgid)
                                continue;
                        e = (ProcEvent){ PROC_EVENT_TYPE_COMM, ev->event_data.comm.process_tgid };
                        break;
                case PROC_EVENT_EXIT:
                        if (cn->len < offsetof(struct proc_event, event_data) + sizeof(ev->event_data.exit))
                                continue;
                        if (ev->event_data.exit.process_pid != ev->event_data.exit.process_tgid)
                                continue;
                        e = (ProcEvent){ PROC_EVENT_TYPE_EXIT, ev->event_data.exit.process_tgid };
                        break;
                case PROC_EVENT_FORK:
                        if (cn->len < offsetof(struct proc_event, event_data) + sizeof(ev->event_data.fork))
                                continue;
                        /* A new thread is no new process. */
                        if (ev->event_data.fork.child_pid != ev->event_data.fork.child_tgid)
                                continue;
                        e = (ProcEvent){ PROC_EVENT_TYPE_FORK, ev->event_data.fork.child_tgid,
                                .parent = ev->event_data.fork.parent_tgid };
                        break;
                default:
                        /* The kernel's enum: UID, GID, SID, PTRACE, COREDUMP... not used. */
                        continue;
                }

                if (e.pid <= 0 || n >= max)
                        continue;
                e.timestamp_ns = ev->timestamp_ns;
                events[n++] = e;
        }
        return (int) n;
}

/* Where the kernel puts the fields the filter looks at: one netlink message per datagram, the connector
 * header, then the event. */
#define EVENT_OFFSET (NLMSG_HDRLEN + sizeof(struct cn_msg))
#define WHAT_OFFSET (EVENT_OFFSET + offsetof(struct proc_event, what))
#define PID_OFFSET (EVENT_OFFSET + offsetof(struct proc_event, event_data.exit.process_pid))
#define TGID_OFFSET (EVENT_OFFSET + offsetof(struct proc_event, event_data.exit.process_tgid))
#define CHILD_PID_OFFSET (EVENT_OFFSET + offsetof(struct proc_event, event_data.fork.child_pid))
#define CHILD_TGID_OFFSET (EVENT_OFFSET + offsetof(struct proc_event, event_data.fork.child_tgid))

/* The comm event's pid and tgid sit where the exit event's do. */
_Static_assert(offsetof(struct proc_event, event_data.comm.process_pid) ==
                                offsetof(struct proc_event, event_data.exit.process_pid),
                "comm and exit events differ");
_Static_assert(offsetof(struct proc_event, event_data.comm.process_tgid) ==
                                offsetof(struct proc_event, event_data.exit.process_tgid),
                "comm and exit events differ");

static uint32_t kernel_what(ProcEventType t)
{
        switch (t) {
        case PROC_EVENT_TYPE_EXEC:
                return PROC_EVENT_EXEC;
        case PROC_EVENT_TYPE_COMM:
                return PROC_EVENT_COMM;
        case PROC_EVENT_TYPE_EXIT:
                return PROC_EVENT_EXIT;
        case PROC_EVENT_TYPE_FORK:
                return PROC_EVENT_FORK;
        case _PROC_EVENT_TYPE_MAX:
                break;
        }
        assert_not_reached();
}

int proc_connector_set_filter(int fd, unsigned types)
{
        /* load, one test per type, drop, four for the new-process check, four for the leader check,
         * accept, drop */
        struct sock_filter code[1 + _PROC_EVENT_TYPE_MAX + 1 + 4 + 4 + 2];
        struct sock_fprog prog = { .filter = code };
        size_t n = 0, n_types = 0, accept_at, leader_at, fork_at, drop_at;
        bool fork = types & (1u << PROC_EVENT_TYPE_FORK);

        assert(fd >= 0);

        for (ProcEventType t = 0; t < _PROC_EVENT_TYPE_MAX; t++)
                n_types += !!(types & (1u << t));

        /* Layout: load what; one test per type; drop; [FORK only: X = child tgid, A = child pid, a new
         * process?]; [leader check: X = tgid, A = pid, pid == tgid?]; accept; drop. Classic BPF jumps only
         * forward, relative to the next instruction. */
        fork_at = 1 + n_types + 1;
        leader_at = fork_at + (fork ? 4 : 0);
        accept_at = leader_at + 4;
        drop_at = accept_at + 1;

        /* Word loads at absolute offsets convert from network byte order, so compare with what the
         * kernel's host-order value reads as. */
        code[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, WHAT_OFFSET);
        for (ProcEventType t = 0; t < _PROC_EVENT_TYPE_MAX; t++) {
                size_t target;

                if (!(types & (1u << t)))
                        continue;
                /* A new process is its own leader; a renamed or exiting thread is not a process. */
                target = t == PROC_EVENT_TYPE_EXEC ? accept_at : t == PROC_EVENT_TYPE_FORK ? fork_at : leader_at;
                code[n] = (struct sock_filter) BPF_JUMP(
                                BPF_JMP | BPF_JEQ | BPF_K, htonl(kernel_what(t)), (uint8_t) (target - n - 1), 0);
                n++;
        }
        code[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, 0);
        assert(n == fork_at);
        if (fork) {
                code[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, CHILD_TGID_OFFSET);
                code[n++] = (struct sock_filter) BPF_STMT(BPF_MISC | BPF_TAX, 0);
                code[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, CHILD_PID_OFFSET);
                code[n] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, (uint8_t) (accept_at - n - 1),
                                (uint8_t) (drop_at - n - 1));
                n++;
        }
        assert(n == leader_at);
        code[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TGID_OFFSET);
        code[n++] = (struct sock_filter) BPF_STMT(BPF_MISC | BPF_TAX, 0);
        code[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PID_OFFSET);
        code[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1);
        assert(n == accept_at);
        code[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, UINT32_MAX);
        assert(n == drop_at);
        code[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, 0);
        assert(n <= ELEMENTSOF(code));
        prog.len = (unsigned short) n;

        if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
                return -errno;
        return 0;
}

#define RECEIVE_BATCH 64
#define DATAGRAM_MAX 1024 /* a proc event's datagram is under 100 bytes */

int proc_connector_receive(int fd, ProcEvent *events, size_t max)
{
        /* Aligned for nlmsghdr. */
        _Alignas(struct nlmsghdr) uint8_t bufs[RECEIVE_BATCH][DATAGRAM_MAX];
        struct sockaddr_nl from[RECEIVE_BATCH];
        struct iovec iov[RECEIVE_BATCH];
        struct mmsghdr mh[RECEIVE_BATCH];
        size_t stored = 0;
        int n;

        assert(events || max == 0);

        for (size_t i = 0; i < RECEIVE_BATCH; i++) {
                iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = sizeof(bufs[i]) };
                mh[i] = (struct mmsghdr){ .msg_hdr = {
                                                          .msg_name = &from[i],
                                                          .msg_namelen = sizeof(from[i]),
                                                          .msg_iov = &iov[i],
                                                          .msg_iovlen = 1,
                                          } };
        }

        /* No more datagrams than could each store an event: what is left stays queued for the next call. */
        n = recvmmsg(fd, mh, (unsigned) MIN(max, (size_t) RECEIVE_BATCH), MSG_DONTWAIT, NULL);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                return -errno;
        }
        for (int i = 0; i < n; i++) {
                /* Only the kernel may speak on this socket. */
                if (mh[i].msg_hdr.msg_namelen != sizeof(from[i]) || from[i].nl_pid != 0)
                        continue;
                if (mh[i].msg_hdr.msg_flags & MSG_TRUNC)
                        continue;
                stored += (size_t) proc_connector_parse(bufs[i], mh[i].msg_len, events + stored, max - stored);
        }
        return (int) stored;
}

/* Attempts at the proof: one fails only when the receive buffer overflowed between being emptied and the
 * child's event (a storm of some megabytes of events within a fork). */
#define VERIFY_ATTEMPTS 3u
/* Events read per look at most: a connector that reports a whole busy host is still read in bounded time. */
#define VERIFY_EVENTS_MAX (1024u * 1024u)
/* How far the child's FORK timestamp may lie outside the fork() call on our CLOCK_MONOTONIC: a time
 * namespace's offset is seconds at least, and the manager compares events with start times in 10 ms ticks. */
#define VERIFY_CLOCK_SLACK_NS (1000u * 1000u)

typedef struct VerifyState {
        pid_t self;
        pid_t child; /* 0 while emptying the buffer before the fork */
        bool any; /* an event came */
        bool found; /* the child's FORK event came... */
        uint64_t found_ns; /* ...stamped then */
        bool overrun;
} VerifyState;

static uint64_t now_monotonic_ns(void)
{
        struct timespec ts = { 0 };

        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* cannot fail for this clock */
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Reads what is queued, looking for the child's FORK event. */
static int verify_read(int fd, VerifyState *s)
{
        ProcEvent events[64];

        for (size_t total = 0; total < VERIFY_EVENTS_MAX;) {
                uint8_t byte;
                int n = proc_connector_receive(fd, events, ELEMENTSOF(events));

                if (n == -ENOBUFS) {
                        s->overrun = true;
                        continue;
                }
                if (n < 0)
                        return n;
                if (n == 0) {
                        /* Nothing stored: queue empty, or only datagrams that hold no process event. */
                        if (recv(fd, &byte, sizeof(byte), MSG_PEEK | MSG_DONTWAIT) < 0)
                                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
                        continue;
                }
                s->any = true;
                total += (size_t) n;
                for (int i = 0; i < n && s->child > 0; i++)
                        if (events[i].type == PROC_EVENT_TYPE_FORK && events[i].pid == s->child &&
                                        events[i].parent == s->self) {
                                s->found = true;
                                s->found_ns = events[i].timestamp_ns;
                        }
        }
        return 0;
}

int proc_connector_verify(int fd)
{
        VerifyState s = { .self = getpid() };
        int r;

        assert(fd >= 0);

        for (unsigned attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
                uint64_t before, after;
                pid_t child;

                /* Room for the child's event: what is queued goes first. */
                s.child = 0;
                r = verify_read(fd, &s);
                if (r < 0)
                        return r;
                s.overrun = false;

                before = now_monotonic_ns();
                child = fork();
                if (child < 0)
                        return -errno;
                if (child == 0)
                        _exit(EXIT_SUCCESS);
                after = now_monotonic_ns();
                /* It exits at once; a zombie left behind would be a process of ours forever. */
                while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                        ;

                s.child = child;
                r = verify_read(fd, &s);
                if (r < 0)
                        return r;
                if (s.found)
                        return s.found_ns + VERIFY_CLOCK_SLACK_NS >= before &&
                                                        s.found_ns <= after + VERIFY_CLOCK_SLACK_NS
                                        ? 0
                                        : -EDOM;
                if (!s.overrun)
                        break;
        }
        return !s.any ? -ENODATA : s.overrun ? -ENOBUFS : -EXDEV;
}
