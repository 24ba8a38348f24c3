/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* A private dbus-daemon for nvprofilectl's tests: any user may connect, own names and call methods
 * (nvprofilectl under test may run as nobody). */
typedef struct PrivateBus {
        GPid pid;
        char *dir, *address;
} PrivateBus;

/* Starts it and waits until a client gets through; false if dbus-daemon is not installed. */
bool private_bus_start(PrivateBus *b);
void private_bus_stop(PrivateBus *b);
