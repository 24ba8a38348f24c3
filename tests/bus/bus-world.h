/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "test-world.h"

/* The bus service's test world: the one test world (tests/lib/test-world.h: a private dbus-daemon
 * configured like the system bus, with room for a polkit stand-in, nvprofiled on it with a --root tree)
 * and helpers to act as an unprivileged user the test creates. Needs root. */

typedef TestWorld BusWorld;

void world_setup(BusWorld *w);
void world_teardown(BusWorld *w);

/* Starts nvprofiled with the configuration text and extra arguments (NULL-terminated, may be NULL) and
 * waits for its bus name. */
void world_start_daemon(BusWorld *w, const char *config, const char *const *args);
/* Runs another nvprofiled on the same bus to its end; returns its exit status and its log. */
int world_run_daemon(BusWorld *w, const char *config, char **ret_log);
void world_stop_daemon(BusWorld *w);
/* The daemon's log so far. */
char *world_daemon_log(BusWorld *w);

/* python3-dbusmock's polkitd template as org.freedesktop.PolicyKit1; it refuses everything until told
 * otherwise. */
void world_start_polkit(BusWorld *w);
void world_polkit_set_allowed(BusWorld *w, const char *const *actions);

/* Writes a file under the daemon's root, creating directories. */
void world_write(BusWorld *w, const char *rel, const char *content);

/* Starts a copy of /bin/sleep named name as uid (0: root), waits until the daemon tracks it (its object
 * exists) unless wait_object is false. */
GPid world_spawn(BusWorld *w, const char *name, uid_t uid, bool wait_object);
void world_kill(GPid pid);

/* The object path of a tracked process as root sees it in ListProcesses ("/" if none), or NULL. */
char *world_object_of(BusWorld *w, pid_t pid);

/* An unprivileged user for this test binary, created with useradd (and removed by world_remove_user). */
uid_t world_test_user(const char *name);
void world_remove_user(const char *name);

/* Runs fn on a fresh bus connection in a child that has become uid; returns fn's return value (the
 * child's exit status). fn must return 0..125. */
typedef int (*WorldCallFunc)(sd_bus *bus, void *userdata);
int world_call_as(BusWorld *w, uid_t uid, WorldCallFunc fn, void *userdata);
/* The same in two steps: the child runs meanwhile; world_call_as_wait() returns fn's return value. */
pid_t world_call_as_start(BusWorld *w, uid_t uid, WorldCallFunc fn, void *userdata);
int world_call_as_wait(pid_t pid);

/* Outcome codes for WorldCallFunc's of a method call: */
enum {
        CALL_OK = 0,
        CALL_ACCESS_DENIED = 10,
        CALL_NO_SUCH_PROCESS = 11,
        CALL_UNKNOWN_OBJECT = 12,
        CALL_INVALID_ARGS = 13,
        CALL_INTERACTIVE_REQUIRED = 14,
        CALL_LIMITS_EXCEEDED = 15,
        CALL_OTHER_ERROR = 20,
};
int world_outcome(int r, const sd_bus_error *error);

/* Waits up to timeout_ms, checking cond every 20 ms. A bounded wait for an event, not a timing test. */
#define WORLD_WAIT_FOR(cond, timeout_ms)                                                 \
        G_STMT_START                                                                     \
        {                                                                                \
                gint64 _deadline = g_get_monotonic_time() + (gint64) (timeout_ms) *1000; \
                while (!(cond) && g_get_monotonic_time() < _deadline)                    \
                        g_usleep(20 * 1000);                                             \
        }                                                                                \
        G_STMT_END

#define WORLD_WAIT_MS 20000
