/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One definition of each state of the service and its words, for the app and nvprofilectl alike. */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "service-state.h"

/* Marks a message for the app's catalogue (xgettext's glib preset knows N_); the app translates. */
#define N_(s) s

static const struct {
        const char *name, *title, *next_step;
} service_states[_SERVICE_STATE_MAX] = {
        [SERVICE_RUNNING] = { "running", N_("nvprofiled is running"), "" },
        [SERVICE_NOT_RUNNING] = { "not-running", N_("nvprofiled is not running"),
                        N_("Start it with: sudo systemctl start nvprofiled") },
        [SERVICE_UNREACHABLE] = { "unreachable", N_("nvprofiled cannot be reached"),
                        N_("The system's message bus (D-Bus) is not available; check it with: systemctl status "
                           "dbus") },
        [SERVICE_DENIED] = { "denied", N_("Access to nvprofiled was denied"),
                        N_("The system's policy does not let this user talk to nvprofiled; ask the "
                           "administrator (see nvprofiled(8))") },
        [SERVICE_STARTING] = { "starting", N_("nvprofiled is starting"),
                        N_("Its figures appear as soon as it answers") },
        [SERVICE_STOPPED] = { "stopped", N_("nvprofiled stopped"),
                        N_("The figures shown are from before it stopped; they come back when it runs again "
                           "(systemctl status nvprofiled)") },
        [SERVICE_NO_GPU] = { "no-gpu", N_("nvprofiled has found no GPU"),
                        N_("No GPU device has shown up in its usage sources; see why each is unavailable with: "
                           "nvprofilectl status") },
        [SERVICE_SOURCE_UNAVAILABLE] = { "source-unavailable", N_("A GPU usage source is unavailable"),
                        N_("The devices it covers are not shown; nvprofiled says why") },
};

const char *service_state_to_string(ServiceState s)
{
        return s >= 0 && s < _SERVICE_STATE_MAX ? service_states[s].name : NULL;
}

const char *service_state_title(ServiceState s)
{
        return s >= 0 && s < _SERVICE_STATE_MAX ? service_states[s].title : NULL;
}

const char *service_state_next_step(ServiceState s)
{
        return s >= 0 && s < _SERVICE_STATE_MAX ? service_states[s].next_step : NULL;
}

bool service_state_is_failure(ServiceState s)
{
        return s >= 0 && s < _SERVICE_STATE_MAX && s != SERVICE_RUNNING && s != SERVICE_NO_GPU &&
                        s != SERVICE_SOURCE_UNAVAILABLE;
}

static bool has_prefix(const char *s, const char *prefix)
{
        return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool equal(const char *a, const char *b)
{
        return a && b && strcmp(a, b) == 0;
}

/* dbus-daemon's refusals (its policy, or an LSM's it enforces); dbus-broker's say "denied by policy". */
static bool message_is_bus_refusal(const char *message)
{
        return has_prefix(message, "Rejected send message") || has_prefix(message, "Rejected receive message") ||
                        has_prefix(message, "An AppArmor policy prevents") ||
                        has_prefix(message, "An SELinux policy prevents") ||
                        (message && strstr(message, "denied by policy"));
}

ServiceState service_state_from_error(const char *error_name, const char *message, int error)
{
        if (error_name) {
                /* Nobody owns the name and the bus could not start anybody for it (systemd's refusals to
                 * start the unit included). */
                if (equal(error_name, "org.freedesktop.DBus.Error.ServiceUnknown") ||
                                equal(error_name, "org.freedesktop.DBus.Error.NameHasNoOwner") ||
                                has_prefix(error_name, "org.freedesktop.DBus.Error.Spawn.") ||
                                has_prefix(error_name, "org.freedesktop.systemd1."))
                        return SERVICE_NOT_RUNNING;
                if (equal(error_name, "org.freedesktop.DBus.Error.AccessDenied") ||
                                equal(error_name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"))
                        return message_is_bus_refusal(message) ? SERVICE_DENIED : _SERVICE_STATE_INVALID;
                if (equal(error_name, "org.freedesktop.DBus.Error.Disconnected"))
                        return SERVICE_UNREACHABLE;
                return _SERVICE_STATE_INVALID;
        }

        switch (-error) {
        case ENOENT:
        case ECONNREFUSED:
        case ECONNRESET:
        case ENOTCONN:
        case ENOTSOCK:
        case EHOSTUNREACH:
        case ENETUNREACH:
        case EADDRNOTAVAIL:
        case EPIPE:
        case ENOMEDIUM: /* sd-bus: no address to connect to */
                return SERVICE_UNREACHABLE;
        case EACCES:
        case EPERM:
                /* Only a connection is refused without a name: the bus's socket, or its authentication. */
                return SERVICE_DENIED;
        default:
                return _SERVICE_STATE_INVALID;
        }
}

ServiceState service_state_from_source(const char *state)
{
        /* Not loaded while nobody samples, or turned off by the administrator: nothing is wrong. */
        if (equal(state, "ready") || equal(state, "idle") || equal(state, "disabled"))
                return SERVICE_RUNNING;
        return SERVICE_SOURCE_UNAVAILABLE;
}
