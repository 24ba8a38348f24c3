/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Talking to nvprofiled: connecting, calling, and saying clearly why a call failed. */

#include <stdarg.h>
#include <unistd.h>

#include "bus-address.h"
#include "client.h"
#include "log.h"
#include "strv.h"
#include "string-util.h"

const char *bus_description(EscapePool *pool)
{
        _cleanup_free_ char *s = NULL;

        assert(pool);

        if (!arg.bus_address)
                return arg.session ? "the session bus" : "the system bus";
        /* The prefix is plain ASCII, so escaping the whole escapes just the address. */
        if (asprintf(&s, "the bus at %s", arg.bus_address) < 0)
                return "the bus given with --bus=";
        return esc(pool, s);
}

int client_connect(sd_bus **ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        int r;

        assert(ret);

        if (arg.bus_address)
                r = bus_open_address(arg.bus_address, ret);
        else if (arg.session)
                r = sd_bus_open_user(ret);
        else
                r = sd_bus_open_system(ret);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to %s", bus_description(&e));
        return 0;
}

/* Errors that mean nobody owns our name: the bus has no such name and could not start it (dbus-daemon's
 * and systemd's activation errors included, whose texts would only confuse). */
static bool error_means_not_running(const sd_bus_error *error)
{
        if (!sd_bus_error_is_set(error))
                return false;
        return sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
                        startswith(error->name, "org.freedesktop.DBus.Error.Spawn.") ||
                        startswith(error->name, "org.freedesktop.systemd1.");
}

void log_bus_call_error(const char *method, const sd_bus_error *error, int r)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        assert(method);

        if (error_means_not_running(error))
                log_error("nvprofiled is not running on %s.", bus_description(&e));
        else if (sd_bus_error_has_name(error, SD_BUS_ERROR_NO_REPLY))
                log_error("nvprofiled did not answer %s on %s.", method, bus_description(&e));
        else if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED))
                log_error("%s: access denied: %s", method,
                                error->message ? esc(&e, error->message) : "this needs root");
        else if (sd_bus_error_is_set(error))
                log_error("%s failed: %s", method, esc(&e, error->message ? error->message : error->name));
        else
                log_error_errno(r, "%s failed", method);
}

/* A request that let polkit ask the user (an edit of the system's files) was refused without asking: no
 * authentication agent to ask through, or polkit said no. Root is never refused, so that is the way out;
 * an agent is the other. */
static bool polkit_refused(sd_bus_message *m, const sd_bus_error *error)
{
        return sd_bus_message_get_allow_interactive_authorization(m) > 0 && geteuid() != 0 &&
                        sd_bus_error_has_names(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED);
}

int client_send(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        assert(bus);
        assert(m);

        r = sd_bus_call(bus, m, 0, &error, ret_reply);
        if (r < 0) {
                log_bus_call_error(sd_bus_message_get_member(m), &error, r);
                if (polkit_refused(m, &error))
                        log_info("Run it as root (sudo nvprofilectl ...), or with a polkit authentication agent "
                                 "running (a desktop session's, or pkttyagent) so that polkit can ask for a "
                                 "password.");
                return r;
        }
        return 0;
}

int client_call_interfacev(sd_bus *bus, const char *interface, const char *method, sd_bus_message **ret_reply,
                const char *types, va_list ap)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        assert(bus);
        assert(method);

        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, interface, method);
        if (r < 0)
                return log_error_errno(r, "Failed to create the %s call", method);
        if (types) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        return log_error_errno(r, "Failed to append the arguments of %s", method);
        }
        return client_send(bus, m, ret_reply);
}

int client_call(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...)
{
        va_list ap;
        int r;

        va_start(ap, types);
        r = client_call_interfacev(bus, BUS_MANAGER_INTERFACE, method, ret_reply, types, ap);
        va_end(ap);
        return r;
}

static int read_basic_json(sd_bus_message *m, char type, struct json_object **ret)
{
        union {
                const char *s;
                int64_t x;
                uint64_t t;
                uint32_t u;
                int32_t i;
                double d;
                int b;
        } v;
        int r;

        r = sd_bus_message_read_basic(m, type, &v);
        if (r < 0)
                return r;
        switch (type) {
        case 's':
                *ret = json_object_new_string(v.s);
                break;
        case 'x':
                *ret = json_object_new_int64(v.x);
                break;
        case 't':
                *ret = json_object_new_uint64(v.t);
                break;
        case 'u':
                *ret = json_object_new_int64(v.u);
                break;
        case 'i':
                *ret = json_object_new_int64(v.i);
                break;
        case 'd':
                *ret = json_object_new_double(v.d);
                break;
        case 'b':
                *ret = json_object_new_boolean(v.b);
                break;
        default:
                assert_not_reached();
        }
        return *ret ? 0 : -ENOMEM;
}

static int read_strv_json(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_strv_free_ char **l = NULL;
        int r;

        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        *ret = json_object_new_array();
        if (!*ret)
                return -ENOMEM;
        STRV_FOREACH(s, l)
                json_object_array_add(*ret, json_object_new_string(*s));
        return 0;
}

/* The contents of a variant already entered. */
static int read_contents_json(sd_bus_message *m, const char *contents, struct json_object **ret)
{
        if (strlen(contents) == 1 && strchr("sxtuidb", contents[0]))
                return read_basic_json(m, contents[0], ret);
        if (streq(contents, "as"))
                return read_strv_json(m, ret);
        /* A type this client does not know yet: leave it out rather than fail. */
        *ret = NULL;
        return sd_bus_message_skip(m, contents);
}

int read_variant_json(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *v = NULL;
        const char *contents;
        char type;
        int r;

        assert(m);
        assert(ret);

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        if (r == 0 || type != 'v')
                return -EBADMSG;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        r = read_contents_json(m, contents, &v);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        return 0;
}

int client_read_struct_array(sd_bus_message *m, const char *contents,
                int (*read_fields)(sd_bus_message *m, void *userdata), void *userdata)
{
        char element[256]; /* D-Bus signatures are at most 255 bytes */
        int r;

        assert(m);
        assert(contents);
        assert(read_fields);

        if (snprintf(element, sizeof(element), "(%s)", contents) >= (int) sizeof(element))
                return -EINVAL;
        r = sd_bus_message_enter_container(m, 'a', element);
        if (r < 0)
                return r;
        for (;;) {
                r = sd_bus_message_enter_container(m, 'r', contents);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = read_fields(m, userdata);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(m);
}

int client_list(const char *method, const char *home,
                int (*read_list)(sd_bus_message *reply, struct json_object *list, void *userdata), void *userdata,
                struct json_object **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = NULL;
        int r;

        assert(method);
        assert(read_list);
        assert(ret);

        list = json_object_new_array();
        if (!list)
                return log_oom();

        r = client_connect(&bus);
        if (r < 0)
                return r;
        if (home)
                r = client_call(bus, method, &reply, "s", home);
        else
                r = client_call(bus, method, &reply, NULL);
        if (r < 0)
                return r;
        r = read_list(reply, list, userdata);
        if (r < 0)
                return log_error_errno(r, "Failed to read the daemon's reply");

        *ret = TAKE_PTR(list);
        return 0;
}
