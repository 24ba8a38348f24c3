/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.freedesktop.LogControl1 on /org/freedesktop/LogControl1, as systemd's daemons have it, so that
 * "systemctl service-log-level nvprofiled debug" works. Writes are authorised like Reload. */

#include "bus-common.h"
#include "bus-polkit.h"
#include "log.h"

static int property_get_log_level(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", log_level_to_string(log_get_max_level()));
}

static int property_get_log_target(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", log_target_to_string(log_get_target()));
}

static int property_get_syslog_identifier(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", log_get_ident());
}

/* Whether value is one LogLevel or LogTarget may take: *ret_value is what it sets. */
static int parse_log_value(const char *property, const char *value, int *ret_value, sd_bus_error *error)
{
        if (streq(property, "LogLevel")) {
                int level = log_level_from_string(value);
                if (level < 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Unknown log level.");
                *ret_value = level;
        } else if (streq(property, "LogTarget")) {
                LogTarget target = log_target_from_string(value);
                /* "auto" depends on how we were started, not on the caller: not settable. */
                if (target < 0 || target == LOG_TARGET_AUTO)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "Unknown log target: console, journal or null.");
                *ret_value = (int) target;
        } else
                return sd_bus_error_setf(error, SD_BUS_ERROR_PROPERTY_READ_ONLY, "Property is read-only.");
        return 0;
}

/* Applies a new value of LogLevel or LogTarget; value is the variant's content. */
static int set_log_property(BusContext *c, const char *property, const char *value, sd_bus_error *error)
{
        int v = 0, r;

        r = parse_log_value(property, value, &v, error);
        if (r < 0)
                return r;
        if (streq(property, "LogLevel"))
                log_set_max_level(v);
        else
                log_set_target((LogTarget) v);

        log_info("%s set to %s.", property, value);
        (void) sd_bus_emit_properties_changed(c->bus, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, property, NULL);
        return 0;
}

/* Reached only by callers the bus has checked for privilege (the filter below takes the others). */
static int property_set_log(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *value, void *userdata, sd_bus_error *error)
{
        const char *s;
        int r;

        r = sd_bus_message_read(value, "s", &s);
        if (r < 0)
                return r;
        return set_log_property(userdata, property, s, error);
}

/* Properties.Set(s interface, s property, v value), once authorised. */
static int apply_set_request(BusContext *c, sd_bus_message *m, sd_bus_error *error)
{
        const char *interface, *property, *value;
        int r;

        r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ss", &interface, &property);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "v", "s", &value);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The value must be a string.");
        r = set_log_property(c, property, value, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

int bus_log_control_filter(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const char *interface, *property, *value;
        int r;

        if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Set"))
                return 0;
        r = sd_bus_message_read(m, "ss", &interface, &property);
        if (r < 0 || !streq(interface, LOG_CONTROL_INTERFACE) ||
                        !(streq(property, "LogLevel") || streq(property, "LogTarget"))) {
                /* Not ours to decide: sd-bus answers it (read-only, unknown). */
                (void) sd_bus_message_rewind(m, true);
                return 0;
        }
        /* A value that cannot be set is refused at once: polkit is asked only about one that can (a short
         * name), so that a request waiting for its answer holds little. */
        r = sd_bus_message_read(m, "v", "s", &value);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The value must be a string.");
        r = parse_log_value(property, value, &(int){ 0 }, error);
        if (r < 0)
                return r;
        /* sd-bus would refuse every unprivileged caller itself; polkit decides instead. */
        return bus_authorize(c, m, POLKIT_ACTION_RELOAD, apply_set_request, error);
}

const sd_bus_vtable bus_log_control_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_WRITABLE_PROPERTY("LogLevel", "s", property_get_log_level, property_set_log, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_WRITABLE_PROPERTY("LogTarget", "s", property_get_log_target, property_set_log, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SyslogIdentifier", "s", property_get_syslog_identifier, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};
