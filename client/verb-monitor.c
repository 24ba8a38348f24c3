/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "monitor": streams what changes, one line (or one JSON object) per event, until interrupted.
 *
 * The daemon sends ProcessChanged and the process objects' InterfacesRemoved to subscribers only
 * (Subscribe), about the processes they may see (their own, or all for root); nothing about a process
 * is broadcast. Each ProcessChanged is printed from the signal's own payload, and details come from
 * GetProcess, which returns what the daemon already resolved: ExplainProcess would make the daemon
 * re-read /proc for every signal and every monitor. A daemon without GetProcess gets no detail calls at
 * all; one without Subscribe (older, which broadcast) is only pinged. */

#include <inttypes.h>
#include <signal.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "client.h"
#include "intmap.h"
#include "log.h"
#include "parse-util.h"
#include "string-util.h"

/* Names remembered to say which process went away; a monitor runs for days, so they are bounded. */
#define MONITOR_COMMS_MAX 4096u

typedef struct Monitor {
        sd_bus *bus;
        uid_t uid;
        bool have_get_process; /* cleared when the daemon says it has no GetProcess */
        IntMap comms; /* pid -> comm (allocated), of processes seen in ProcessChanged */
} Monitor;

static void monitor_done(Monitor *m)
{
        for (size_t i = 0;;) {
                uint64_t pid;
                void *comm;

                if (!intmap_next(&m->comms, &i, &pid, &comm))
                        break;
                free(comm);
        }
        intmap_done(&m->comms);
}

static void remember_comm(Monitor *m, uint32_t pid, const char *comm)
{
        _cleanup_free_ char *copy = NULL;

        if (pid == 0 || !comm || !*comm)
                return;
        free(intmap_remove(&m->comms, pid)); /* a reused pid */
        if (intmap_size(&m->comms) >= MONITOR_COMMS_MAX)
                return;
        copy = strdup(comm);
        if (!copy || intmap_put(&m->comms, pid, copy) < 0)
                return; /* only the name is lost */
        TAKE_PTR(copy);
}

static void emit(struct json_object *o, const char *text)
{
        if (arg.json != JSON_OFF)
                (void) json_print_document("monitor", NULL, o);
        else
                printf("%s\n", text);
        fflush(stdout);
}

static bool may_see(const Monitor *m, uint32_t uid)
{
        /* The daemon decides; asking only where it would answer keeps the daemon's work per signal to
         * the callers the process concerns. */
        return m->uid == 0 || m->uid == uid;
}

/* The resolution the daemon holds for pid, or NULL (*ret) when there is none to show. */
static int get_process(Monitor *m, uint32_t pid, uint64_t start_time, struct json_object **ret)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        *ret = NULL;
        r = sd_bus_call_method(m->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "GetProcess", &error, &reply,
                        "ut", pid, start_time);
        if (r < 0) {
                if (sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_INTERFACE))
                        m->have_get_process = false;
                /* Otherwise the process is gone, or not ours to see: the payload is all there is. */
                return 0;
        }
        return resolution_read(reply, ret);
}

/* "Profile A, Profile B" of the matched rules, escaped, or NULL when none matched. */
static char *matched_profiles(struct json_object *res)
{
        struct json_object *rules = json_object_object_get(res, "rules");
        _cleanup_free_ char *joined = NULL;
        size_t n = json_object_is_type(rules, json_type_array) ? json_object_array_length(rules) : 0, size = 1;

        for (size_t i = 0; i < n; i++)
                size += strlen(json_object_get_string(
                                        json_object_object_get(json_object_array_get_idx(rules, i), "profile"))) +
                                2;
        joined = calloc(size, 1);
        if (!joined)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                struct json_object *rule = json_object_array_get_idx(rules, i);

                if (!json_object_get_boolean(json_object_object_get(rule, "matched")))
                        continue;
                if (*joined)
                        strcat(joined, ", ");
                strcat(joined, json_object_get_string(json_object_object_get(rule, "profile")));
        }
        return *joined ? terminal_escape(joined) : NULL;
}

static int on_process_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error)
{
        Monitor *m = userdata;
        _cleanup_(json_object_putp) struct json_object *o = NULL, *res = NULL;
        _cleanup_free_ char *text = NULL, *profiles = NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *object, *comm = NULL;
        uint32_t pid, uid;
        uint64_t start_time;
        int r;

        r = sd_bus_message_read(message, "outu", &object, &pid, &start_time, &uid);
        if (r < 0)
                return 0; /* not the signal we know */

        /* A reply we cannot read was logged; the payload is still worth its line. */
        if (m->have_get_process && may_see(m, uid))
                (void) get_process(m, pid, start_time, &res);
        if (res) {
                const char *commname = json_object_get_string(
                                json_object_object_get(json_object_object_get(res, "facts"), "commname"));

                if (commname && *commname)
                        comm = commname;
        }
        remember_comm(m, pid, comm);

        o = json_object_new_object();
        if (!o)
                return log_oom();
        json_object_object_add(o, "event", json_object_new_string("process-changed"));
        json_object_object_add(o, "pid", json_object_new_int64(pid));
        json_object_object_add(o, "start_time", json_object_new_uint64(start_time));
        json_object_object_add(o, "uid", json_object_new_int64(uid));
        json_object_object_add(o, "comm", comm ? json_object_new_string(comm) : NULL);
        /* Not the caller's to see, or an older daemon: not known. Replaced below when known. */
        json_object_object_add(o, "resolution", NULL);

        if (res) {
                struct json_object *settings = json_object_object_get(res, "settings");

                profiles = matched_profiles(res);
                r = asprintf(&text, "process %" PRIu32 " (%s): %s; %zu settings (%s)", pid, esc(&e, comm),
                                profiles ? profiles : "no rule matches",
                                json_object_is_type(settings, json_type_array) ? json_object_array_length(settings) : 0,
                                esc(&e, json_object_get_string(json_object_object_get(res, "state"))));
                json_object_object_add(o, "resolution", TAKE_PTR(res));
        } else if (comm)
                r = asprintf(&text, "process %" PRIu32 " (%s, uid %" PRIu32 "): result changed", pid, esc(&e, comm),
                                uid);
        else
                r = asprintf(&text, "process %" PRIu32 " (uid %" PRIu32 "): result changed", pid, uid);
        if (r < 0)
                return log_oom();

        emit(o, text);
        return 0;
}

/* pid and start time out of BUS_PROCESS_PREFIX/<pid>_<start time>. */
static int parse_process_path(const char *path, uint32_t *ret_pid, uint64_t *ret_start_time)
{
        _cleanup_free_ char *pid = NULL;
        const char *name, *sep;

        if (!startswith(path, BUS_PROCESS_PREFIX "/"))
                return -EINVAL;
        name = path + strlen(BUS_PROCESS_PREFIX "/");
        sep = strchr(name, '_');
        if (!sep)
                return -EINVAL;
        pid = strndup(name, (size_t) (sep - name));
        if (!pid)
                return -ENOMEM;
        if (safe_atou32(pid, ret_pid) < 0 || safe_atou64(sep + 1, ret_start_time) < 0)
                return -EINVAL;
        return 0;
}

static int on_interfaces_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error)
{
        Monitor *m = userdata;
        _cleanup_(json_object_putp) struct json_object *o = NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *text = NULL, *comm = NULL;
        const char *path;
        uint32_t pid;
        uint64_t start_time;
        int r;

        r = sd_bus_message_read(message, "o", &path);
        if (r < 0)
                return 0;

        o = json_object_new_object();
        if (!o)
                return log_oom();
        json_object_object_add(o, "event", json_object_new_string("process-removed"));
        json_object_object_add(o, "object", json_object_new_string(path));

        if (parse_process_path(path, &pid, &start_time) < 0) {
                /* Not a process object this client knows how to name. */
                json_object_object_add(o, "pid", NULL);
                json_object_object_add(o, "start_time", NULL);
                json_object_object_add(o, "comm", NULL);
                r = asprintf(&text, "gone: %s", esc(&e, path));
        } else {
                comm = intmap_remove(&m->comms, pid);
                json_object_object_add(o, "pid", json_object_new_int64(pid));
                json_object_object_add(o, "start_time", json_object_new_uint64(start_time));
                json_object_object_add(o, "comm", comm ? json_object_new_string(comm) : NULL);
                if (comm)
                        r = asprintf(&text, "process %" PRIu32 " (%s): gone", pid, esc(&e, comm));
                else
                        r = asprintf(&text, "process %" PRIu32 ": gone", pid);
        }
        if (r < 0)
                return log_oom();

        emit(o, text);
        return 0;
}

static int on_reloaded(sd_bus_message *message, void *userdata, sd_bus_error *ret_error)
{
        _cleanup_(json_object_putp) struct json_object *o = NULL;
        uint64_t generation = 0;
        char text[64];

        (void) sd_bus_message_read(message, "t", &generation);
        o = json_object_new_object();
        if (!o)
                return log_oom();
        json_object_object_add(o, "event", json_object_new_string("reloaded"));
        json_object_object_add(o, "generation", json_object_new_uint64(generation));
        snprintf(text, sizeof(text), "configuration reloaded (generation %" PRIu64 ")", generation);
        emit(o, text);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error)
{
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (streq(name, BUS_NAME) && !*new_owner) {
                log_error("nvprofiled went away.");
                sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(message)), EXIT_FAILURE);
        }
        return 0;
}

static int subscribe(Monitor *m)
{
        int r;

        r = sd_bus_match_signal(m->bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged",
                        on_process_changed, m);
        if (r < 0)
                return r;
        r = sd_bus_match_signal(
                        m->bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reloaded", on_reloaded, m);
        if (r < 0)
                return r;
        r = sd_bus_match_signal(m->bus, NULL, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                        "InterfacesRemoved", on_interfaces_removed, m);
        if (r < 0)
                return r;
        return sd_bus_add_match(m->bus, NULL,
                        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                        "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" BUS_NAME "'",
                        on_name_owner_changed, m);
}

/* Asks the daemon for the signals about our processes; fails now, clearly, if there is nobody to monitor
 * (and starts the daemon if the bus can). */
static int subscribe_daemon(sd_bus *bus)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *method = "Subscribe";
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, method, &error, NULL, NULL);
        if (r < 0 && sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                method = "Ping";
                sd_bus_error_free(&error);
                r = sd_bus_call_method(
                                bus, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.Peer", method, &error, NULL, NULL);
        }
        if (r < 0) {
                log_bus_call_error(method, &error, r);
                return r;
        }
        return 0;
}

int verb_monitor(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(monitor_done) Monitor m = { .uid = geteuid(), .have_get_process = true };
        sigset_t mask;
        int r;

        assert(argc == 1);

        r = client_connect(&bus);
        if (r < 0)
                return r;
        m.bus = bus;

        r = sd_event_default(&event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop");
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        /* No handler: the loop ends with status 0. */
        r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGINT");
        r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGTERM");
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop");

        /* Subscribed before the first question, so nothing between the two is missed. */
        r = subscribe(&m);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to nvprofiled's signals");
        r = subscribe_daemon(bus);
        if (r < 0)
                return r;

        if (arg.json == JSON_OFF)
                log_info("Monitoring nvprofiled; Ctrl-C to stop.");
        return sd_event_loop(event);
}
