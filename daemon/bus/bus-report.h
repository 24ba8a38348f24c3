/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "bus-common.h"

/* Nsight Compute reports on the bus: Manager.LoadReport and the Report objects (bus-report.c). */

extern const sd_bus_vtable bus_report_vtable[];

/* The watch on callers leaving the bus, whose reports go with them (the Report objects are in bus.c's
 * table). */
int bus_report_watch_owners(BusContext *c);
/* A worker's reply (report-protocol.h's wire encoding) appended to m by the D-Bus signature of its values:
 * -EBADMSG when the bytes do not hold exactly such values (or values D-Bus cannot carry). */
int bus_report_copy_reply(sd_bus_message *m, const char *signature, const void *data, size_t size);

int bus_method_load_report(sd_bus_message *m, void *userdata, sd_bus_error *error);
int bus_report_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error);
int bus_report_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error);
/* Every report goes (at shutdown): workers killed, waiting callers answered with an error. */
void bus_reports_free(BusContext *c);
