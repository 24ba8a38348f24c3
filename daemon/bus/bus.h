/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "bus-common.h"

typedef enum BusKind {
        BUS_KIND_SYSTEM,
        BUS_KIND_SESSION,
        BUS_KIND_ADDRESS,
        _BUS_KIND_MAX,
} BusKind;

/* Connects, registers the objects and hooks into the manager. Does not take the name yet. */
int bus_context_new(Manager *m, BusKind kind, const char *address, BusContext **ret);
BusContext *bus_context_free(BusContext *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusContext *, bus_context_free);

/* Takes the well-known name; -EEXIST when another instance has it. */
int bus_context_request_name(BusContext *c);

/* Emits Reloaded and the status changes after a reload. */
void bus_context_reloaded(BusContext *c);
