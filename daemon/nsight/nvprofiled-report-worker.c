/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled-report-worker: serves one Nsight Compute report to the daemon, confined (report-worker.h,
 * report-serve.h). Run by nvprofiled for each LoadReport (and each Diff) as
 *     nvprofiled-report-worker serve MEMORY
 * with the report on fd 0 and the daemon's channel on fd 3 (report-protocol.h); MEMORY is the bytes
 * reserved for it, which its reader's limits keep it within (report-limits.h; the daemon also sets
 * RLIMIT_AS). Not meant to be run by hand. Exit status 0: the daemon closed the channel; 1: the report
 * could not be read (the daemon was told why); 2: the sandbox could not be set up (nothing was read), the
 * channel broke, or a usage error. */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parse-util.h"
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

int main(int argc, char *argv[])
{
        NcuReportLimits limits;
        const struct passwd *pw;
        uint64_t memory;
        uid_t uid = 65534;
        gid_t gid = 65534;
        int r;

        if (argc != 3 || !streq(argv[1], "serve") || safe_atou64(argv[2], &memory) < 0 || memory == 0) {
                fprintf(stderr, "Usage: %s serve MEMORY < REPORT 3<> CHANNEL\n", argv[0]);
                return 2;
        }
        ncu_report_limits_for_memory(memory, &limits);
        /* The caller's descriptor may be non-blocking (a pipe): the reader wants blocking reads, and
         * fcntl is not allowed later. */
        {
                int flags = fcntl(STDIN_FILENO, F_GETFL);
                if (flags >= 0 && (flags & O_NONBLOCK))
                        (void) fcntl(STDIN_FILENO, F_SETFL, flags & ~O_NONBLOCK);
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
        r = ncu_worker_serve(STDIN_FILENO, NCU_SERVE_SOCKET_FD, &limits);
        /* _exit: nothing at exit may need a system call the filter forbids. */
        _exit(r == 0 ? 0 : IN_SET(r, -EBADMSG, -EPROTONOSUPPORT, -E2BIG, -ENOMEM, -EIO, -EINVAL, -EISDIR) ? 1 : 2);
}
