/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "client.h"
#include "log.h"

int main(int argc, char *argv[])
{
        log_setup("nvprofilectl", LOG_TARGET_CONSOLE);
        return client_run(argc, argv);
}
