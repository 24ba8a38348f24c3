/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the daemon's reader of the report worker's replies (bus-report.c's copy into a D-Bus
 * reply by the method's signature, over report-protocol.h's wire encoding): what a process that parsed an
 * untrusted file sends, so itself untrusted. The first byte picks the method's signature; the rest is the
 * reply. A reply is taken whole or refused with -EBADMSG: never a crash, never part of one. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bus-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The Report methods' reply signatures (bus-report.c). */
static const char *const signatures[] = {
        "suut",
        "a(ussss(ttt)(ttt)d)",
        "as",
        "sbva(vv)",
        "a(sssa(sss)a(sd))",
        "a(sssa(isss)a(sd)a(isdts)a(ssttss))",
        "a(ss)",
        "au",
};

/* A bus connected to nothing that answers, enough to build messages on. */
static sd_bus *message_bus(void)
{
        static sd_bus *bus;
        int pair[2];

        if (bus)
                return bus;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0 || sd_bus_new(&bus) < 0)
                abort();
        if (sd_bus_set_fd(bus, pair[0], pair[0]) < 0 ||
                        sd_bus_set_server(bus, 1,
                                        SD_ID128_MAKE(6e, 76, 70, 72, 6f, 66, 69, 6c, 65, 64, 72, 65, 70, 6c, 79, 21)) <
                                        0 ||
                        sd_bus_set_anonymous(bus, 1) < 0 || sd_bus_start(bus) < 0)
                abort();
        return bus;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        sd_bus_message *m = NULL;
        const char *signature;
        int r;

        if (size < 1)
                return 0;
        signature = signatures[data[0] % (sizeof(signatures) / sizeof(signatures[0]))];
        if (sd_bus_message_new_method_call(message_bus(), &m, "a.b", "/a", "a.b", "M") < 0)
                abort();
        r = bus_report_copy_reply(m, signature, data + 1, size - 1);
        if (r < 0 && r != -EBADMSG && r != -ENOMEM)
                abort();
        if (r >= 0) {
                /* What was taken is a whole message of that signature. */
                if (sd_bus_message_seal(m, 1, 0) < 0 || sd_bus_message_rewind(m, true) < 0)
                        abort();
                if (strcmp(sd_bus_message_get_signature(m, true), signature) != 0)
                        abort();
        }
        sd_bus_message_unref(m);
        return 0;
}
