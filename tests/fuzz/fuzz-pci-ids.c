/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the PCI ID database parser (daemon/drm/pci-ids.c). The first four bytes are the vendor
 * and device looked up (big-endian, so that inputs can reach a match), the rest is a pci.ids file, which is
 * also searched for ffff:ffff (listed under no real vendor: it walks everything up to the class list). A name
 * found must be valid UTF-8 without control characters and a part of the input; a fault must name a line
 * of it. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pci-ids.h"
#include "string-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, uint16_t vendor, uint16_t device)
{
        char *name = NULL;
        unsigned line = 0, lines = 1;
        int r;

        r = pci_ids_find((const char *) data, size, vendor, device, &name, &line);
        if (r > 0) {
                size_t len = strlen(name);

                if (len == 0 || len > PCI_IDS_LINE_MAX || !utf8_is_valid_n(name, len) || !memmem(data, size, name, len))
                        abort();
                for (size_t i = 0; i < len; i++)
                        if ((unsigned char) name[i] < 0x20 || name[i] == 0x7f)
                                abort();
                free(name);
                return;
        }
        if (name)
                abort();
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        if (r == -EBADMSG && (line == 0 || line > lines))
                abort();
        if (r == 0 && line != 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 4)
                return 0;
        check(data + 4, size - 4, (uint16_t) (data[0] << 8 | data[1]), (uint16_t) (data[2] << 8 | data[3]));
        check(data + 4, size - 4, 0xffff, 0xffff);
        return 0;
}
