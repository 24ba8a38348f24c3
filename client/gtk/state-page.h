/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How the app shows the service's state (service-state.h), in its words and with its next step: a
 * whole-window AdwStatusPage in place of the views where the daemon cannot be used (not running, not
 * reachable, denied, starting), and a banner-like row above the views for what goes beside them (stopped:
 * the figures are stale; no GPU; a usage source unavailable, with the daemon's message). libadwaita 1.2
 * has no AdwBanner (1.3): the row is a GtkRevealer. Never a D-Bus name or the bus's text: those go to
 * the log. */

#include <gtk/gtk.h>

#include "service-state.h"

typedef struct StateView StateView;

/* Wraps views (the page stack) with the banner above it and the status page beside it; returns the
 * widget to put where views was. */
StateView *state_view_new(GtkWidget *views, GtkWidget **ret_widget);
void state_view_free(StateView *v);
/* Shows s: the status page for a failure state (service_state_is_failure()), otherwise the views with
 * the banner for anything but SERVICE_RUNNING. SERVICE_STOPPED keeps the views, marked stale (dimmed and
 * insensitive, "stale" style class) until another state. detail: more words (the daemon's message about
 * a source), plain text, or NULL. */
void state_view_show(StateView *v, ServiceState s, const char *detail);
ServiceState state_view_get(StateView *v);
/* The page shown works without the daemon (Reports, read in-process): any state is then the banner above
 * it, and it stays sensitive. */
void state_view_set_works_alone(StateView *v, bool works_alone);
