/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "bus-common.h"

/* The Usage interface on the root object and ProcessUsage on process objects (bus.c's table). */
extern const sd_bus_vtable bus_usage_vtable[];
extern const sd_bus_vtable bus_process_usage_vtable[];

/* PropertiesChanged for SampleInterval, Watchers and Sources (a watch came or went). */
void bus_usage_changed(BusContext *c);
