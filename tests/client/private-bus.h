/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "test-bus-daemon.h"

/* The open bus of the tests (tests/lib/test-bus-daemon.h, TEST_BUS_OPEN) for nvprofilectl against
 * stand-ins: any user may connect, own names and call methods (nvprofilectl under test may run as nobody). */
typedef struct PrivateBus {
        GPid pid;
        char *dir, *address;
} PrivateBus;

/* Starts it and waits until a client gets through; false if dbus-daemon is not installed
 * (TEST_BUS_UNAVAILABLE says so). */
bool private_bus_start(PrivateBus *b);
void private_bus_stop(PrivateBus *b);

/* Runs $NVPROFILECTL_BIN --bus=<b's address> ARGS... (NULL-terminated) to its end, calling
 * serve(userdata) between reads of its output (it answers a stand-in's calls and waits a little), as a
 * child that dies with the test. Returns the exit status; the output in *ret_out and, if ret_err is not
 * NULL, *ret_err (stderr is logged either way). Fails the test if it does not end within 10 s. */
int private_bus_run_ctl(const PrivateBus *b, void (*serve)(void *userdata), void *userdata, char **ret_out,
                char **ret_err, const char *first, ...) G_GNUC_NULL_TERMINATED;
