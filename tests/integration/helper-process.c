/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A process for the integration tests to watch. Prints "ready" once the requested action is done, then
 * waits until killed (or for SECONDS, default 60).
 *
 *   helper-process [--rename NAME] [--dlopen LIB] [--open FILE] [--delay-ms N] [--seconds N] */

#include <dlfcn.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                { "rename", required_argument, NULL, 'r' },
                { "dlopen", required_argument, NULL, 'd' },
                { "open", required_argument, NULL, 'o' },
                { "delay-ms", required_argument, NULL, 'w' },
                { "seconds", required_argument, NULL, 's' },
                { 0 },
        };
        const char *rename_to = NULL, *lib = NULL, *file = NULL;
        long delay_ms = 0, seconds = 60;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'r':
                        rename_to = optarg;
                        break;
                case 'd':
                        lib = optarg;
                        break;
                case 'o':
                        file = optarg;
                        break;
                case 'w':
                        delay_ms = strtol(optarg, NULL, 10);
                        break;
                case 's':
                        seconds = strtol(optarg, NULL, 10);
                        break;
                default:
                        return 2;
                }

        if (delay_ms > 0) {
                struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000 };
                nanosleep(&ts, NULL);
        }
        if (rename_to && prctl(PR_SET_NAME, rename_to, 0, 0, 0) < 0) {
                perror("prctl");
                return 1;
        }
        if (lib && !dlopen(lib, RTLD_NOW)) {
                fprintf(stderr, "dlopen: %s\n", dlerror());
                return 1;
        }
        if (file && open(file, O_RDONLY | O_CLOEXEC) < 0) {
                perror("open");
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        sleep((unsigned) seconds);
        return 0;
}
