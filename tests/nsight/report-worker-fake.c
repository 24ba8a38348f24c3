/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stand-ins for nvprofiled-report-worker that misbehave, one per FAKE_MODE, for test-report-worker: a
 * parser bug that crashes, a worker that hangs, one that writes garbage, one that floods its output. */

#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
        static char block[65536];

        switch (FAKE_MODE) {
        case 0: /* crash, as a parser bug would (past a sanitizer's handler, which would exit instead) */
                signal(SIGSEGV, SIG_DFL);
                raise(SIGSEGV);
                break;
        case 1: /* hang */
                pause();
                break;
        case 2: /* garbage */
                (void) !write(STDOUT_FILENO, "{\"schema\": not json", 19);
                return 0;
        case 3: /* flood */
                memset(block, ' ', sizeof(block));
                for (;;)
                        if (write(STDOUT_FILENO, block, sizeof(block)) < 0)
                                return 1;
        }
        return 3;
}
