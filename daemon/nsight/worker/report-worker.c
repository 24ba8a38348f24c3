/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "report-worker.h"

/* What the worker may do once confined: read its report, allocate, talk over the channel it was given
 * (descriptors come and go with its messages: recvmsg, sendmsg), write into the memfds requests carry,
 * exit. Reading a report needs fstat, lseek and pread (report-container.c sizes a regular file, a diff
 * reads its baseline from the start); json-c and glibc's malloc need brk/mmap/mremap/munmap/madvise/
 * mprotect; glibc's qsort sizes its buffer with sysinfo. No open, no socket, no connect, no exec, no
 * kill. */
static const int allowed_syscalls[] = {
        SCMP_SYS(read),
        SCMP_SYS(write),
        SCMP_SYS(close),
        SCMP_SYS(fstat),
        SCMP_SYS(newfstatat),
        SCMP_SYS(lseek),
        SCMP_SYS(pread64),
        SCMP_SYS(sendto),
        SCMP_SYS(sendmsg),
        SCMP_SYS(recvmsg),
        SCMP_SYS(recvfrom),
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

/* The saved uid stays the daemon's when the daemon is not root (its service user): the daemon may then
 * signal the worker (kill() checks the target's real or saved uid), which nothing else running as uid may,
 * nor trace it (ptrace checks all three). The filter keeps the worker from switching to it. Root is never
 * kept. */
static int drop_ids(uid_t uid, gid_t gid)
{
        bool root = geteuid() == 0;
        uid_t keeper = getuid() != 0 ? getuid() : uid;

        if (setgroups(0, NULL) < 0 && (root || errno != EPERM))
                return -errno;
        if (setresgid(gid, gid, gid) < 0 && (root || errno != EPERM))
                return -errno;
        if (setresuid(uid, uid, keeper) < 0 && (root || errno != EPERM))
                return -errno;
        /* Whatever happened above, root must be gone, the saved ids included. */
        {
                uid_t ru, eu, su;
                gid_t rg, eg, sg;

                if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
                        return -errno;
                if (ru == 0 || eu == 0 || su == 0 || rg == 0 || eg == 0 || sg == 0)
                        return uid == 0 ? -EINVAL : -EPERM;
        }
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
        /* A worker gets its report after it is confined (a spare, report-protocol.h): it makes that
         * descriptor blocking, and holds itself to the report's reservation with RLIMIT_AS (its own
         * only: pid 0) before it reads a byte. Nothing else of fcntl or prlimit: F_SETFL never makes a
         * description it shares with its caller non-blocking (the caller's flags it keeps pass). */
        r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, F_GETFL));
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 2, SCMP_A1(SCMP_CMP_EQ, F_SETFL),
                                SCMP_A2(SCMP_CMP_MASKED_EQ, O_NONBLOCK, 0));
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A0(SCMP_CMP_EQ, 0));
        if (r < 0) {
                seccomp_release(ctx);
                return r;
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
