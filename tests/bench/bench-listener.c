/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor bench-daemon compares the daemon with: a bare proc-connector listener that receives every
 * event (no socket filter, one datagram per system call, blocking) and parses it, and does nothing else:
 * no /proc, no bus, no event loop. Needs root (CAP_NET_ADMIN).
 *
 *   bench-listener        prints "ready" once subscribed, then on SIGTERM the events it parsed. */

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-util.h"
#include "proc-connector.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
        stop = 1;
}

int main(void)
{
        _cleanup_close_ int fd = -EBADF;
        struct sigaction sa = { .sa_handler = on_term }; /* no SA_RESTART: recv() returns EINTR */
        _Alignas(8) uint8_t buf[4096];
        unsigned long long n_datagrams = 0, n_events = 0;
        int flags, r;

        r = proc_connector_open(8 * 1024 * 1024, &fd);
        if (r < 0) {
                fprintf(stderr, "Cannot open the proc connector: %s\n", strerror(-r));
                return r == -EPERM ? 77 : 1;
        }
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
                return 1;
        if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
                return 1;

        printf("ready\n");
        fflush(stdout);

        while (!stop) {
                ProcEvent ev[16];
                ssize_t n = recv(fd, buf, sizeof(buf), 0);

                if (n < 0) {
                        if (errno == EINTR || errno == ENOBUFS)
                                continue;
                        perror("recv");
                        return 1;
                }
                n_datagrams++;
                n_events += (unsigned long long) proc_connector_parse(buf, (size_t) n, ev, ELEMENTSOF(ev));
        }

        printf("%llu datagrams, %llu process events\n", n_datagrams, n_events);
        return 0;
}
