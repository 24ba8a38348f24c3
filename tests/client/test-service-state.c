/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* client/service-state.c: which state each failure means, for the app (GDBus: a remote error's name, or
 * GIO's errno) and nvprofilectl (sd-bus: the error's name, or -errno) alike, and that every state has its
 * words, its next step and no D-Bus name in either. */

#include <errno.h>
#include <string.h>

#include "service-state.h"
#include "test-util.h"

/* dbus-daemon's refusal by its policy, with pids and command lines. */
#define REJECTED                                                                                          \
        "Rejected send message, 2 matched rules; type=\"method_call\", sender=\":1.7\" (uid=1000 pid=42 " \
        "comm=\"nvprofiled-gtk\") interface=\"io.github.nvprofiled.NvProfiled1.Usage\" member=\"WatchUsage\""

static void test_from_error(void)
{
        static const struct {
                const char *name, *message;
                int error;
                ServiceState expected;
        } cases[] = {
                /* Nobody owns the name, and the bus cannot start it. */
                { "org.freedesktop.DBus.Error.ServiceUnknown",
                                "The name io.github.nvprofiled.NvProfiled1 was not provided by any .service files", 0,
                                SERVICE_NOT_RUNNING },
                { "org.freedesktop.DBus.Error.NameHasNoOwner", NULL, -ENXIO, SERVICE_NOT_RUNNING },
                { "org.freedesktop.DBus.Error.Spawn.ChildExited", "exited with status 1", 0, SERVICE_NOT_RUNNING },
                { "org.freedesktop.systemd1.NoSuchUnit", "Unit nvprofiled.service not found.", 0, SERVICE_NOT_RUNNING },
                /* The bus's refusal is the denied state; the daemon's own refusal of one request is not. */
                { "org.freedesktop.DBus.Error.AccessDenied", REJECTED, -EACCES, SERVICE_DENIED },
                { "org.freedesktop.DBus.Error.AccessDenied", "An AppArmor policy prevents this sender", 0,
                                SERVICE_DENIED },
                { "org.freedesktop.DBus.Error.AccessDenied", "Not your process.", -EACCES, _SERVICE_STATE_INVALID },
                { "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", "polkit said no", 0,
                                _SERVICE_STATE_INVALID },
                { "org.freedesktop.DBus.Error.Disconnected", NULL, 0, SERVICE_UNREACHABLE },
                /* The daemon's own failures carry their own words. */
                { "org.freedesktop.DBus.Error.UnknownObject", "Unknown object", 0, _SERVICE_STATE_INVALID },
                { "io.github.nvprofiled.NvProfiled1.Error.InvalidReport", "bad", 0, _SERVICE_STATE_INVALID },
                { "org.freedesktop.DBus.Error.Timeout", NULL, -ETIMEDOUT, _SERVICE_STATE_INVALID },
                /* No name: a local failure to connect. */
                { NULL, NULL, -ENOENT, SERVICE_UNREACHABLE },
                { NULL, NULL, -ECONNREFUSED, SERVICE_UNREACHABLE },
                { NULL, NULL, -ECONNRESET, SERVICE_UNREACHABLE },
                { NULL, NULL, -ENOMEDIUM, SERVICE_UNREACHABLE },
                { NULL, NULL, -EACCES, SERVICE_DENIED },
                { NULL, NULL, -ENOMEM, _SERVICE_STATE_INVALID },
                { NULL, NULL, 0, _SERVICE_STATE_INVALID },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                ServiceState s = service_state_from_error(cases[i].name, cases[i].message, cases[i].error);

                if (s != cases[i].expected)
                        g_error("%s (%s, %d): %s, expected %s", cases[i].name, cases[i].message, cases[i].error,
                                        service_state_to_string(s), service_state_to_string(cases[i].expected));
        }
}

static void test_from_source(void)
{
        g_assert_cmpint(service_state_from_source("ready"), ==, SERVICE_RUNNING);
        g_assert_cmpint(service_state_from_source("unavailable"), ==, SERVICE_SOURCE_UNAVAILABLE);
        g_assert_cmpint(service_state_from_source("idle"), ==, SERVICE_RUNNING);
        g_assert_cmpint(service_state_from_source("disabled"), ==, SERVICE_RUNNING);
        /* A state this client does not know is not "ready". */
        g_assert_cmpint(service_state_from_source("degraded"), ==, SERVICE_SOURCE_UNAVAILABLE);
}

/* Each state has a name, words and a next step (but running), none of which names D-Bus or says "No GPU"
 * for a failure. */
static void test_words(void)
{
        for (ServiceState s = 0; s < _SERVICE_STATE_MAX; s++) {
                const char *title = service_state_title(s), *next = service_state_next_step(s);

                g_assert_nonnull(service_state_to_string(s));
                g_assert_nonnull(title);
                g_assert_nonnull(next);
                g_assert_true(s == SERVICE_RUNNING || *next);
                for (const char *const *bad = (const char *const[]){ "org.freedesktop", "io.github", "Error", NULL };
                                *bad; bad++) {
                        g_assert_null(strstr(title, *bad));
                        g_assert_null(strstr(next, *bad));
                }
                if (service_state_is_failure(s))
                        g_assert_null(strcasestr(title, "no gpu"));
        }
        g_assert_true(service_state_is_failure(SERVICE_NOT_RUNNING));
        g_assert_true(service_state_is_failure(SERVICE_STOPPED));
        g_assert_false(service_state_is_failure(SERVICE_NO_GPU));
        g_assert_false(service_state_is_failure(SERVICE_SOURCE_UNAVAILABLE));
        g_assert_null(service_state_title(_SERVICE_STATE_INVALID));
        g_assert_null(service_state_to_string(_SERVICE_STATE_MAX));
        g_assert_cmpstr(service_state_to_string(SERVICE_NOT_RUNNING), ==, "not-running");
        g_assert_cmpstr(service_state_title(SERVICE_NOT_RUNNING), ==, "nvprofiled is not running");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/service-state/from-error", test_from_error);
        g_test_add_func("/service-state/from-source", test_from_source);
        g_test_add_func("/service-state/words", test_words);
        return g_test_run();
}
