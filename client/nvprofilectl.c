/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <getopt.h>

#include "client.h"
#include "log.h"

int main(int argc, char *argv[])
{
        int r;

        log_setup("nvprofilectl", LOG_TARGET_CONSOLE);

        r = parse_argv(argc, argv);
        if (r <= 0) {
                client_options_done(&arg);
                return r == 0 ? EXIT_SUCCESS : r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
        }

        r = dispatch_verb(argc - optind, argv + optind);
        client_options_done(&arg);
        return r;
}
