/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* usage-fixture SCRIPT PROC SYS CORPUS STEP: applies one step of a fixture script (usage-fixture.h) to
 * fixture /proc and /sys trees, for nvprofiled --proc= --sys= (the demo, and by hand). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "usage-fixture.h"

int main(int argc, char *argv[])
{
        g_autofree char *script = NULL, *error = NULL;
        g_autoptr(GError) gerror = NULL;

        if (argc != 6) {
                fprintf(stderr, "Usage: %s SCRIPT PROC SYS CORPUS STEP\n", argv[0]);
                return 2;
        }
        if (!g_file_get_contents(argv[1], &script, NULL, &gerror)) {
                fprintf(stderr, "%s\n", gerror->message);
                return 1;
        }
        if (usage_fixture_apply(script, argv[2], argv[3], argv[4], (unsigned) strtoul(argv[5], NULL, 10), &error) < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], error);
                return 1;
        }
        return 0;
}
