/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stand-ins for nvprofiled-report-worker that misbehave, one per FAKE_MODE, for the tests of the daemon's
 * side (test-report-worker, test-report-bus): a parser bug that crashes, a worker that hangs, one that
 * answers with an error no worker gives, one that floods a reply, one that answers what nobody asked, one
 * that closes its channel and goes on, one that claims a larger export than it may write, one whose reply
 * does not hold the values of its method, one that keeps a writable mapping of an export, one that
 * loads and then never answers. Each ignores its
 * arguments; the channel is fd 3 (report-protocol.h). Those that answer take their report first: they may
 * have been started ahead of time as a spare. */

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report-protocol.h"

/* Waits for a request; returns its op and its first descriptor (or -1). */
static uint32_t wait_request(int *ret_fd)
{
        uint8_t *payload = NULL;
        int fds[NCU_SERVE_FDS_MAX];
        NcuFrameHeader h;

        if (ncu_frame_receive(NCU_SERVE_SOCKET_FD, NCU_SERVE_REQUEST_MAX, &h, &payload, fds) <= 0)
                _exit(0);
        free(payload);
        *ret_fd = fds[0];
        return h.code;
}

/* Takes its report (the daemon's first frame) and says it loaded. */
static void send_loaded(void)
{
        uint64_t v[2] = { 1, 1 };
        int fd = -1;

        if (wait_request(&fd) != NCU_SERVE_LOAD)
                _exit(2);
        if (ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, v, sizeof(v), NULL, 0) < 0)
                _exit(2);
}

int main(void)
{
        static char block[65536];
        int fd = -1;

        switch (FAKE_MODE) {
        case 0: /* crash, as a parser bug would (past a sanitizer's handler, which would exit instead) */
                signal(SIGSEGV, SIG_DFL);
                raise(SIGSEGV);
                break;
        case 1: /* hang */
                pause();
                break;
        case 2: /* an error no worker gives */
                (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 9999, "x", 1, NULL, 0);
                pause();
                break;
        case 3: { /* flood: a reply that announces more than the call allows, and keeps writing */
                NcuFrameHeader h = { .code = 0, .size = 0x7fffffff };

                send_loaded();
                (void) wait_request(&fd);
                if (write(NCU_SERVE_SOCKET_FD, &h, sizeof(h)) < 0)
                        return 1;
                memset(block, 'x', sizeof(block));
                for (;;)
                        if (write(NCU_SERVE_SOCKET_FD, block, sizeof(block)) < 0)
                                return 1;
        }
        case 4: /* an answer nobody asked for: after the answer to the first call, a second one */
                send_loaded();
                (void) wait_request(&fd);
                (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, NULL, 0, NULL, 0);
                (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, NULL, 0, NULL, 0);
                pause();
                break;
        case 5: /* closes its channel and goes on */
                send_loaded();
                close(NCU_SERVE_SOCKET_FD);
                for (;;)
                        pause();
        case 6: { /* an export larger than its memfd could hold */
                uint64_t written = (uint64_t) 1 << 40;

                send_loaded();
                for (;;) {
                        (void) wait_request(&fd);
                        (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, &written, sizeof(written), NULL, 0);
                }
        }
        case 7: /* a reply that holds no values of its method's signature */
                send_loaded();
                for (;;) {
                        (void) wait_request(&fd);
                        (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, "\xff\xff\xff\x7f", 4, NULL, 0);
                }
        case 9: /* reads its report, then never answers */
                send_loaded();
                for (;;)
                        pause();
        case 8: { /* keeps a writable mapping of its export, to change it after the caller got it */
                uint64_t written = 1;
                char *p;

                send_loaded();
                (void) wait_request(&fd);
                p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                if (p == MAP_FAILED)
                        return 1;
                p[0] = 'x';
                (void) ncu_frame_send(NCU_SERVE_SOCKET_FD, 0, &written, sizeof(written), NULL, 0);
                for (;;)
                        pause();
        }
        }
        return 3;
}
