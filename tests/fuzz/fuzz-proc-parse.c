/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for what the kernel hands us: /proc/<pid>/stat, status, maps, environ and cgroup texts,
 * and proc connector datagrams. The first byte picks the parser; the rest is its input. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proc-cgroup.h"
#include "proc-connector.h"
#include "proc-parse.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text;
        uint64_t start;
        pid_t ppid;
        uid_t uid;
        char **l = NULL;
        bool truncated;

        if (size < 1)
                return 0;
        text = (const char *) data + 1;
        size--;

        switch (data[0] % 6) {
        case 0:
                (void) proc_parse_stat(text, size, &start, &ppid);
                break;
        case 1:
                (void) proc_parse_status_uid(text, size, &uid);
                break;
        case 2:
                if (proc_parse_maps(text, size, 64, &l, &truncated) >= 0)
                        strv_free(l);
                break;
        case 3:
                if (proc_parse_environ(text, size, 16, &l) >= 0)
                        strv_free(l);
                break;
        case 4: {
                /* Netlink data is aligned in real life: give the parser an aligned copy. */
                static _Alignas(8) uint8_t buf[65536];
                ProcEvent ev[64];
                size_t n = size < sizeof(buf) ? size : sizeof(buf);
                memcpy(buf, text, n);
                (void) proc_connector_parse(buf, n, ev, 64);
                break;
        }
        case 5: {
                ProcCgroup c;
                if (proc_cgroup_parse(text, size, &c) >= 0)
                        proc_cgroup_done(&c);
                break;
        }
        }
        return 0;
}
