/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled-report-worker: serves one Nsight Compute report to the daemon, confined (report-worker.h,
 * report-serve.h). Run by nvprofiled, ahead of time as a spare or for a LoadReport (and each Diff), as
 *     nvprofiled-report-worker serve
 * with the daemon's channel on fd 3 (report-protocol.h). It confines itself first, then waits for its
 * report: the daemon's NCU_SERVE_LOAD frame carries the report's descriptor and the bytes reserved for
 * it, which its address-space limit (release builds) and its reader's limits keep it within
 * (report-limits.h), both set before it reads a byte. Not meant to be run by hand. Exit status 0: the
 * daemon closed the channel; 1: the report could not be read (the daemon was told why); 2: the sandbox
 * could not be set up (nothing was read), the channel broke, or a usage error. */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "macro.h"
#include "report-limits.h"
#include "report-protocol.h"
#include "report-serve.h"
#include "report-worker.h"

#if defined(__SANITIZE_ADDRESS__)
#define WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORKER_ASAN 1
#endif
#endif

#ifdef WORKER_ASAN
/* Sanitizer builds (tests) only: AddressSanitizer keeps freed memory in a quarantine of 256 MiB by
 * default, which would make a worker's footprint that instead of its model's. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
        return "quarantine_size_mb=16";
}
#endif

/* The daemon's first frame: the report's descriptor and its reservation. */
static int receive_load(int *ret_fd, uint64_t *ret_memory)
{
        uint8_t *payload = NULL;
        int fds[NCU_SERVE_FDS_MAX];
        NcuFrameHeader h;
        uint64_t memory = 0;
        int r;

        r = ncu_frame_receive(NCU_SERVE_SOCKET_FD, sizeof(memory), &h, &payload, fds);
        if (r <= 0)
                return r < 0 ? r : -ECONNRESET;
        if (h.code == NCU_SERVE_LOAD && h.size == sizeof(memory))
                memcpy(&memory, payload, sizeof(memory));
        free(payload);
        for (size_t i = 1; i < NCU_SERVE_FDS_MAX; i++)
                if (fds[i] >= 0)
                        (void) close(fds[i]);
        if (h.code != NCU_SERVE_LOAD || memory == 0 || fds[0] < 0) {
                if (fds[0] >= 0)
                        (void) close(fds[0]);
                return -EBADMSG;
        }
        *ret_fd = fds[0];
        *ret_memory = memory;
        return 0;
}

int main(int argc, char *argv[])
{
        NcuReportLimits limits;
        const struct passwd *pw;
        uint64_t memory;
        uid_t uid = 65534;
        gid_t gid = 65534;
        int report_fd, flags, r;

        if (argc != 2 || !streq(argv[1], "serve")) {
                fprintf(stderr, "Usage: %s serve 3<> CHANNEL\n", argv[0]);
                return 2;
        }
        /* The user name is resolved before the filter: afterwards nothing can be opened. */
        pw = getpwnam(NCU_REPORT_WORKER_USER);
        if (pw) {
                uid = pw->pw_uid;
                gid = pw->pw_gid;
        }
        r = ncu_worker_sandbox(uid, gid);
        if (r < 0) {
                fprintf(stderr, "%s: cannot confine itself: %s\n", argv[0], strerror(-r));
                return 2;
        }
        /* Confined: from here on only the filter's system calls, and no write to stderr. */
        if (receive_load(&report_fd, &memory) < 0)
                _exit(2);
#ifndef WORKER_ASAN
        /* The kernel holds the worker to its reservation. Not under AddressSanitizer, which reserves
         * terabytes of address space for its shadow at start: the reader's own limits hold it there. */
        {
                struct rlimit as = { memory + NCU_WORKER_ADDRESS_SPACE_BASE, memory + NCU_WORKER_ADDRESS_SPACE_BASE };
                if (prlimit(0, RLIMIT_AS, &as, NULL) < 0)
                        _exit(2);
        }
#endif
        /* The caller's descriptor may be non-blocking (a pipe): the reader wants blocking reads. */
        flags = fcntl(report_fd, F_GETFL);
        if (flags >= 0 && (flags & O_NONBLOCK))
                (void) fcntl(report_fd, F_SETFL, flags & ~O_NONBLOCK);
        ncu_report_limits_for_memory(memory, &limits);
        r = ncu_worker_serve(report_fd, NCU_SERVE_SOCKET_FD, &limits);
        /* _exit: nothing at exit may need a system call the filter forbids. */
        _exit(r == 0 ? 0 : IN_SET(r, -EBADMSG, -EPROTONOSUPPORT, -E2BIG, -ENOMEM, -EIO, -EINVAL, -EISDIR) ? 1 : 2);
}
