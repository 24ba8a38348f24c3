/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* The states of nvprofiled a user can meet, each with its words and the next step, the same in the app
 * (client/gtk), `nvprofilectl status` and `top`. Plain C, so that both link it: the words are English,
 * marked for the app's catalogue (the app passes them through gettext; nvprofilectl prints them as they
 * are). None of them holds a D-Bus name or the bus's own text: what failed goes to the log. */

typedef enum ServiceState {
        SERVICE_RUNNING,
        SERVICE_NOT_RUNNING, /* nobody owns the name and the bus cannot start it */
        SERVICE_UNREACHABLE, /* no bus to talk over, or the connection to it failed or was lost */
        SERVICE_DENIED, /* the bus's policy (or polkit) refused this user */
        SERVICE_STARTING, /* the bus is starting it, or its name is about to get an owner */
        SERVICE_STOPPED, /* it left the bus while we were connected: stopping or restarting */
        SERVICE_NO_GPU, /* running, and it has found no GPU device */
        SERVICE_SOURCE_UNAVAILABLE, /* running, and one of its usage sources (Usage.Sources) is not */
        _SERVICE_STATE_MAX,
        _SERVICE_STATE_INVALID = -1, /* not about the service: a request's own failure */
} ServiceState;

/* "not-running", "denied", ...: for --json. */
const char *service_state_to_string(ServiceState s);
/* A sentence without a final stop, "nvprofiled is not running". */
const char *service_state_title(ServiceState s);
/* What the user can do, one sentence: "Start it with: sudo systemctl start nvprofiled". */
const char *service_state_next_step(ServiceState s);
/* Whether the state leaves the daemon's figures unusable (a whole-window state in the app, a failure in
 * nvprofilectl), rather than a note beside them. */
bool service_state_is_failure(ServiceState s);

/* The state a failed bus call or connection means: error_name is the D-Bus error's name (NULL when the
 * failure was local), message its text (may be NULL), error a negative errno (0: not known), used when
 * there is no name. _SERVICE_STATE_INVALID when it says nothing of the service (the daemon refused or
 * failed this one request). An AccessDenied is SERVICE_DENIED only when it is the bus's refusal (its
 * policy, AppArmor, SELinux); the daemon's own refusals (polkit, "not your process") carry their own
 * words. */
ServiceState service_state_from_error(const char *error_name, const char *message, int error);

/* The state a usage source's (name, state, message) of Usage.Sources means: SERVICE_RUNNING when it is
 * "ready", "idle" or "disabled", SERVICE_SOURCE_UNAVAILABLE otherwise (it failed) (show the daemon's message beside the
 * words, escaped where it goes to a terminal). */
ServiceState service_state_from_source(const char *state);
