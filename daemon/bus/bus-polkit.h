/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "bus-common.h"

/* Authorisation of state-changing requests, as systemd's daemons do it: root is always allowed; anyone
 * else is asked about, asynchronously, with polkit's CheckAuthorization for the caller's bus name. */

/* Performs the request m once authorised and sends its reply. */
typedef int (*BusAuthorizedAction)(BusContext *c, sd_bus_message *m, sd_bus_error *error);

/* Runs action at once for root and returns what it returned; for others asks polkit about action_id
 * and returns 1: the answer (action's reply, or AccessDenied) is sent when polkit replies, so a method
 * handler returns this value as it is. */
int bus_authorize(BusContext *c, sd_bus_message *m, const char *action_id, BusAuthorizedAction action,
                sd_bus_error *error);

/* Sets up the count of queries waiting for polkit (a new context). */
void bus_polkit_init(BusContext *c);

/* Drops the queries still waiting for polkit (at shutdown): their callers get no answer. */
void bus_polkit_queries_free(BusContext *c);
