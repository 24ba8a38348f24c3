/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "itest.h"

/* A daemon's world over fixture /proc and /sys trees (not started yet). */
void usage_bus_setup_trees(ITest *t);

/* A WatchUsage descriptor (the daemon samples every interval_usec while it is open), kept above fd 2. */
int usage_bus_watch(sd_bus *bus, uint64_t interval_usec);

/* Calls a listing method of the Usage interface and enters its array. */
sd_bus_message *usage_bus_call_listing(sd_bus *bus, const char *method, const char *element);

/* The engines (device, source, engine, busy) and memory (device, source, region, bytes) of a process or a
 * group, appended to out as " engine DEVICE/ENGINE=BUSY" and " mem DEVICE/REGION=BYTES". */
void usage_bus_append_engines_memory(sd_bus_message *m, GString *out);

/* What dump gives, as the user u (a child that became it and connected on its own). */
char *usage_bus_dump_as(ITest *t, const ITestUser *u, char *(*dump)(sd_bus *bus));

/* Whether a line of text starts with prefix and contains needle (NULL: any). */
bool usage_bus_has_line(const char *text, const char *prefix, const char *needle);
