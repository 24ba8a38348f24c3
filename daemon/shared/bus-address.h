/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

/* Connects to the bus at a D-Bus address ("unix:path=..."), as a bus client (Hello and a unique name),
 * for the daemon's --bus=ADDRESS and nvprofilectl's --bus=ADDRESS alike: private buses in tests and
 * demos. */
int bus_open_address(const char *address, sd_bus **ret);
