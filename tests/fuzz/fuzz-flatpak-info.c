/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for a process's /.flatpak-info, which the sandboxed application's user writes whatever they
 * like into (a root of their own): the whole input is the file. What comes out must be a valid application
 * id, and a fault must name a line of the input. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flatpak-info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *app = NULL;
        unsigned line = 0, lines = 1;
        int r;

        r = flatpak_info_parse((const char *) data, size, &app, &line);
        if (r >= 0) {
                if (!flatpak_app_id_valid(app) || !memmem(data, size, app, strlen(app)))
                        abort();
                free(app);
                return 0;
        }
        if (app)
                abort();
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        if (r == -EBADMSG && line > lines)
                abort();
        return 0;
}
