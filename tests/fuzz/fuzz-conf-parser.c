/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the daemon's configuration file parser. */

#include <stddef.h>
#include <stdint.h>

#include "nvprofiled-conf.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        ManagerConfig c;
        char **messages = NULL;

        manager_config_init(&c);
        (void) manager_config_parse(&c, (const char *) data, size, &messages);
        strv_free(messages);
        manager_config_done(&c);
        return 0;
}
