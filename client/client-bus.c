/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Talking to nvprofiled: connecting, calling, and saying clearly why a call failed. */

#include <stdarg.h>
#include <unistd.h>

#include "bus-address.h"
#include "client.h"
#include "log.h"
#include "service-state.h"
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
        if (r < 0) {
                ServiceState s = service_state_from_error(NULL, NULL, r);

                if (s < 0)
                        return log_error_errno(r, "Failed to connect to %s", bus_description(&e));
                log_error_errno(r, "%s: failed to connect to %s", service_state_title(s), bus_description(&e));
                log_info("%s.", service_state_next_step(s));
                return r;
        }
        return 0;
}

bool log_service_state_error(const sd_bus_error *error, int r)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        ServiceState s;

        s = sd_bus_error_is_set(error) ? service_state_from_error(error->name, error->message, r)
                                       : service_state_from_error(NULL, NULL, r);
        if (s < 0)
                return false;
        /* The bus's own text (a policy's refusal names pids and command lines) is for the debug log only. */
        if (sd_bus_error_is_set(error))
                log_debug("%s: %s", esc(&e, error->name), esc(&e, strna(error->message)));
        log_error("%s on %s.", service_state_title(s), bus_description(&e));
        log_info("%s.", service_state_next_step(s));
        return true;
}

/* What the user asked for, in words, for each method of the daemon's interfaces (the XML contract): errors
 * say "Could not <this>: <why>", never the method's name. */
static const struct {
        const char *method;
        const char *request;
} bus_requests[] = {
        { "ActionsByNvtx", "find the report's actions by NVTX range" },
        { "AddProfile", "add the profile" },
        { "AddRule", "add the rule" },
        { "Close", "close the report" },
        { "CountMatchedProcesses", "count the processes a rule matched" },
        { "Diff", "compare the reports" },
        { "Doctor", "examine the rc files" },
        { "EvaluateExpression", "evaluate the metric expression" },
        { "Explain", "explain the process" },
        { "ExplainProcess", "explain the process" },
        { "ExplainProcessByPidfd", "explain the process" },
        { "ExportDetails", "export the report's details page" },
        { "ExportJson", "export the report as JSON" },
        { "ExportPage", "export the report page" },
        { "ExportPageEncoded", "export the report page" },
        { "ExportRaw", "export the report's raw page" },
        { "GetAll", "read the daemon's state" },
        { "GetDetails", "read the kernel's details" },
        { "GetInfo", "read the report" },
        { "GetMetric", "read the metric" },
        { "GetMetricNames", "list the report's metrics" },
        { "GetMetrics", "list the section's metrics" },
        { "GetProcess", "read the process's settings" },
        { "GetRuleResults", "read the report's rule results" },
        { "GetRuleResultsFull", "read the report's rule results" },
        { "GetSection", "read the section" },
        { "GetSourceFiles", "read the report's source files" },
        { "GetSourceView", "read the kernel's source view" },
        { "GetSummary", "summarise the report" },
        { "ListActions", "list the report's actions" },
        { "ListErrors", "list the rc files' errors" },
        { "ListFolders", "list the section folders" },
        { "ListGpuClients", "list the GPU clients" },
        { "ListGpuDevices", "list the GPUs" },
        { "ListGpuGroups", "group the GPU usage" },
        { "ListGpuProcesses", "list the processes using a GPU" },
        { "ListGpuProcessesAttributed", "list the processes using a GPU" },
        { "ListGpuSensors", "read the GPUs' sensors" },
        { "ListProcesses", "list the processes" },
        { "ListProfiles", "list the profiles" },
        { "ListRules", "list the rules" },
        { "ListSections", "list the sections" },
        { "ListSets", "list the section sets" },
        { "LoadReport", "open the report" },
        { "MoveRule", "move the rule" },
        { "PreviewEdit", "preview the edit" },
        { "ReadSystemFile", "read the system's rc file" },
        { "Reload", "reload the configuration" },
        { "RemoveProfile", "remove the profile" },
        { "RemoveRule", "remove the rule" },
        { "Resolve", "resolve the described process" },
        { "RevertEdit", "undo the edit" },
        { "Subscribe", "watch the daemon's changes" },
        { "Unsubscribe", "stop watching the daemon's changes" },
        { "UpdateProfile", "change the profile" },
        { "UpdateRule", "change the rule" },
        { "WatchUsage", "watch the GPU usage" },
};

const char *bus_request_words(const char *method)
{
        assert(method);

        for (size_t i = 0; i < ELEMENTSOF(bus_requests); i++)
                if (streq(bus_requests[i].method, method))
                        return bus_requests[i].request;
        return NULL;
}

/* Why, in words, for errors whose message is the bus's, not the daemon's: the bus's texts name methods
 * and interfaces. NULL: the daemon's own message says it. */
static const char *error_words(const sd_bus_error *error)
{
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT))
                return "nvprofiled did not answer in time";
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_DISCONNECTED))
                return "the connection to nvprofiled was lost";
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_INTERFACE,
                            SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_PROPERTY))
                return "the running nvprofiled does not offer this (an older version?)";
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_NO_MEMORY))
                return "nvprofiled is out of memory";
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_LIMITS_EXCEEDED))
                return "over a limit of the bus";
        return NULL;
}

void log_bus_request_error(const char *request, const sd_bus_error *error, int r)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *words;

        assert(request);

        /* Not running, denied by the bus, unreachable: the state's words (service-state.h), whatever the
         * request (dbus-daemon's and systemd's texts would only confuse). */
        if (log_service_state_error(error, r))
                return;
        if (!sd_bus_error_is_set(error)) {
                log_error_errno(r, "Could not %s", request);
                return;
        }
        words = error_words(error);
        if (words)
                log_error("Could not %s: %s.", request, words);
        else if (sd_bus_error_has_names(
                                 error, SD_BUS_ERROR_ACCESS_DENIED, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
                log_error("Could not %s: permission denied: %s", request,
                                error->message ? esc(&e, error->message) : "this needs root");
        else if (error->message)
                log_error("Could not %s: %s", request, esc(&e, error->message));
        else
                /* An error the daemon gave no text for: its name is no answer for a person. */
                log_error("Could not %s: nvprofiled gave no reason.", request);
}

void log_bus_call_error(const char *method, const sd_bus_error *error, int r)
{
        const char *request;

        assert(method);

        request = bus_request_words(method);
        log_bus_request_error(request ? request : "complete the request", error, r);
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

int client_send_request(sd_bus *bus, sd_bus_message *m, const char *request, sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        assert(bus);
        assert(m);

        r = sd_bus_call(bus, m, 0, &error, ret_reply);
        if (r < 0) {
                if (request)
                        log_bus_request_error(request, &error, r);
                else
                        log_bus_call_error(sd_bus_message_get_member(m), &error, r);
                if (polkit_refused(m, &error))
                        log_info("Run it as root (sudo nvprofilectl ...), or with a polkit authentication agent "
                                 "running (a desktop session's, or pkttyagent) so that polkit can ask for a "
                                 "password.");
                return r;
        }
        return 0;
}

int client_send(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply)
{
        return client_send_request(bus, m, NULL, ret_reply);
}

static int client_call_requestv(sd_bus *bus, const char *interface, const char *method, const char *request,
                sd_bus_message **ret_reply, const char *types, va_list ap)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        const char *words;
        int r;

        assert(bus);
        assert(method);

        words = request ? request : bus_request_words(method);
        if (!words)
                words = "complete the request";
        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, interface, method);
        if (r < 0)
                return log_error_errno(r, "Could not %s", words);
        if (types) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        return log_error_errno(r, "Could not %s", words);
        }
        return client_send_request(bus, m, request, ret_reply);
}

int client_call_interfacev(sd_bus *bus, const char *interface, const char *method, sd_bus_message **ret_reply,
                const char *types, va_list ap)
{
        return client_call_requestv(bus, interface, method, NULL, ret_reply, types, ap);
}

int client_call(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...)
{
        va_list ap;
        int r;

        va_start(ap, types);
        r = client_call_requestv(bus, BUS_MANAGER_INTERFACE, method, NULL, ret_reply, types, ap);
        va_end(ap);
        return r;
}

int client_call_request(sd_bus *bus, const char *method, const char *request, sd_bus_message **ret_reply,
                const char *types, ...)
{
        va_list ap;
        int r;

        assert(request);

        va_start(ap, types);
        r = client_call_requestv(bus, BUS_MANAGER_INTERFACE, method, request, ret_reply, types, ap);
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
