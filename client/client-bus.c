/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "client.h"


int client_connect(sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        if (arg.bus_address) {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, arg.bus_address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, true);
                if (r >= 0)
                        r = sd_bus_start(bus);
        } else if (arg.session)
                r = sd_bus_open_user(&bus);
        else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "Cannot connect to %s: %s\n",
                                arg.bus_address               ? arg.bus_address
                                                : arg.session ? "the session bus"
                                                              : "the system bus",
                                strerror(-r));
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static void print_call_error(const char *method, const sd_bus_error *e, int r)
{
        if (sd_bus_error_has_names(e, "org.freedesktop.DBus.Error.ServiceUnknown",
                            "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.NoReply"))
                fprintf(stderr,
                                "nvprofiled is not running (no owner of %s on this bus).\n"
                                "Start it with: systemctl start nvprofiled\n",
                                BUS_NAME);
        else if (sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.AccessDenied"))
                fprintf(stderr, "%s: access denied (%s)\n", method, e->message ? e->message : "this needs root");
        else if (e && e->name)
                fprintf(stderr, "%s failed: %s\n", method, e->message ? e->message : e->name);
        else
                fprintf(stderr, "%s failed: %s\n", method, strerror(-r));
}

int client_call(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, method);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, ret_reply);
        if (r < 0)
                print_call_error(method, &error, r);
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        return r;
}

void json_print(struct json_object *o)
{
        int flags = arg.json == JSON_PRETTY ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                            : JSON_C_TO_STRING_PLAIN;
        puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
}

int read_variant_json(sd_bus_message *m, struct json_object **ret)
{
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;

        switch (contents[0]) {
        case 's': {
                const char *s;
                r = sd_bus_message_read(m, "s", &s);
                *ret = json_object_new_string(s);
                break;
        }
        case 'x': {
                int64_t v;
                r = sd_bus_message_read(m, "x", &v);
                *ret = json_object_new_int64(v);
                break;
        }
        case 't': {
                uint64_t v;
                r = sd_bus_message_read(m, "t", &v);
                *ret = json_object_new_uint64(v);
                break;
        }
        case 'u': {
                uint32_t v;
                r = sd_bus_message_read(m, "u", &v);
                *ret = json_object_new_int64(v);
                break;
        }
        case 'd': {
                double v;
                r = sd_bus_message_read(m, "d", &v);
                *ret = json_object_new_double(v);
                break;
        }
        case 'b': {
                int v;
                r = sd_bus_message_read(m, "b", &v);
                *ret = json_object_new_boolean(v);
                break;
        }
        case 'a': {
                char **l = NULL;
                r = sd_bus_message_read_strv(m, &l);
                *ret = json_object_new_array();
                for (char **s = l; r >= 0 && s && *s; s++)
                        json_object_array_add(*ret, json_object_new_string(*s));
                for (char **s = l; s && *s; s++)
                        free(*s);
                free(l);
                break;
        }
        default:
                r = sd_bus_message_skip(m, contents);
                *ret = NULL;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}
