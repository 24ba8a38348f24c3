/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "status" (one GetAll, so what it shows of the daemon is one consistent state, and the matched processes
 * the caller may see, which no property can say; then the usage sources, with the words of
 * service-state.h for the state they put the service in), "reload", "version". */

#include <inttypes.h>
#include <stddef.h>
#include <unistd.h>

#include "bus-signatures.h"
#include "client.h"
#include "log.h"
#include "service-state.h"

typedef struct Status {
        const char *version, *driver_version, *process_watch_mode, *process_access;
        int process_watch_degraded;
        uint32_t tracked, matched;
        uint64_t generation;
        struct json_object *rc_files;
        struct json_object *section_folders; /* sections_read_folders() */
        struct json_object *sources; /* Usage.Sources as {name, state, message}; NULL: not known */
        ServiceState state;
} Status;

static int read_rc_files(sd_bus_message *m, struct json_object *files)
{
        const char *path, *state;
        uint32_t errors, warnings;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a(" BUS_RC_FILE_FIELDS ")");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "(" BUS_RC_FILE_FIELDS ")");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(" BUS_RC_FILE_FIELDS ")", &path, &state, &errors, &warnings)) > 0) {
                struct json_object *f = json_object_new_object();

                json_object_object_add(f, "path", json_object_new_string(path));
                json_object_object_add(f, "state", json_object_new_string(state));
                json_object_object_add(f, "errors", json_object_new_int64(errors));
                json_object_object_add(f, "warnings", json_object_new_int64(warnings));
                json_object_array_add(files, f);
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* The basic-typed properties status shows, and where in Status each goes. */
static const struct {
        const char *name;
        const char *type;
        size_t offset;
} status_properties[] = {
        { "Version", "s", offsetof(Status, version) },
        { "DriverVersion", "s", offsetof(Status, driver_version) },
        { "ProcessWatchMode", "s", offsetof(Status, process_watch_mode) },
        { "ProcessWatchDegraded", "b", offsetof(Status, process_watch_degraded) },
        { "ProcessAccess", "s", offsetof(Status, process_access) },
        { "TrackedProcesses", "u", offsetof(Status, tracked) },
        { "ConfigGeneration", "t", offsetof(Status, generation) },
};

/* Reads the variant of the property name into s, or skips it. */
static int read_status_property(sd_bus_message *m, const char *name, Status *s)
{
        if (streq(name, "RcFiles"))
                return read_rc_files(m, s->rc_files);
        for (size_t i = 0; i < ELEMENTSOF(status_properties); i++)
                if (streq(name, status_properties[i].name))
                        return sd_bus_message_read(
                                        m, "v", status_properties[i].type, (uint8_t *) s + status_properties[i].offset);
        return sd_bus_message_skip(m, "v");
}

/* The properties status shows, out of GetAll's a{sv}; others (counters, newer properties) are skipped.
 * The strings point into m. */
static int read_status(sd_bus_message *m, Status *s)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        for (;;) {
                const char *name;

                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;

                r = read_status_property(m, name, s);
                if (r < 0)
                        return r;

                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(m);
}

/* Usage.Sources (an older daemon has no Usage interface: the sources are not known, nothing fails). */
static int read_sources(sd_bus *bus, Status *s)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *sources = NULL;
        const char *name, *state, *message;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.Properties", "Get", &error, &reply,
                        "ss", BUS_USAGE_INTERFACE, "Sources");
        if (r < 0) {
                if (log_service_state_error(&error, r))
                        return r;
                log_debug_errno(r, "No usage sources: %s", strna(error.message));
                return 0;
        }
        sources = json_object_new_array();
        if (!sources)
                return log_oom();
        r = sd_bus_message_enter_container(reply, 'v', "a(sss)");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &name, &state, &message)) > 0) {
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "name", json_object_new_string(name));
                json_object_object_add(o, "state", json_object_new_string(state));
                json_object_object_add(o, "message", json_object_new_string(message));
                json_object_array_add(sources, o);
                if (service_state_from_source(state) == SERVICE_SOURCE_UNAVAILABLE)
                        s->state = SERVICE_SOURCE_UNAVAILABLE;
        }
        if (r < 0)
                return log_error_errno(r, "Failed to read the usage sources");
        s->sources = TAKE_PTR(sources);
        return 0;
}

static const char *source_field(struct json_object *source, const char *key)
{
        return json_object_get_string(json_object_object_get(source, key));
}

static void print_sources_text(const Status *s, EscapePool *e)
{
        size_t n = s->sources ? json_object_array_length(s->sources) : 0;

        printf("         State: %s\n", service_state_title(s->state));
        for (size_t i = 0; i < n; i++) {
                struct json_object *source = json_object_array_get_idx(s->sources, i);
                const char *message = source_field(source, "message");

                /* The daemon's message (a library's load error, say) is shown as it gave it, escaped. */
                printf("%s%s: %s%s%s\n", i == 0 ? " Usage sources: " : "                ",
                                esc(e, source_field(source, "name")), esc(e, source_field(source, "state")),
                                *message ? ": " : "", esc(e, message));
        }
        if (s->state != SERVICE_RUNNING)
                printf("                %s.\n", service_state_next_step(s->state));
}

static int print_status_json(const Status *s)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();

        json_object_object_add(o, "version", json_object_new_string(s->version));
        json_object_object_add(
                        o, "driver_version", *s->driver_version ? json_object_new_string(s->driver_version) : NULL);
        json_object_object_add(o, "process_watch_mode", json_object_new_string(s->process_watch_mode));
        json_object_object_add(o, "process_watch_degraded", json_object_new_boolean(s->process_watch_degraded));
        /* An older daemon has no self-test: null. */
        json_object_object_add(
                        o, "process_access", *s->process_access ? json_object_new_string(s->process_access) : NULL);
        json_object_object_add(o, "tracked_processes", json_object_new_int64(s->tracked));
        json_object_object_add(o, "matched_processes", json_object_new_int64(s->matched));
        json_object_object_add(o, "config_generation", json_object_new_uint64(s->generation));
        json_object_object_add(o, "rc_files", json_object_get(s->rc_files));
        json_object_object_add(o, "section_folders", json_object_get(s->section_folders));
        json_object_object_add(o, "state", json_object_new_string(service_state_to_string(s->state)));
        json_object_object_add(o, "sources", json_object_get(s->sources));
        return json_print_document("status", NULL, o);
}

static void print_status_text(const Status *s)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        size_t n_files = json_object_array_length(s->rc_files);

        printf("        Daemon: nvprofiled %s\n", esc(&e, s->version));
        printf("        Driver: %s\n",
                        *s->driver_version ? esc(&e, s->driver_version)
                                           : "(no NVIDIA driver found: shipped profiles not read)");
        printf(" Process watch: %s%s\n", esc(&e, s->process_watch_mode),
                        s->process_watch_degraded
                                        ? " (degraded: processes are seen late, short-lived ones may be missed)"
                                        : "");
        /* Only a failed self-test is worth a line: it is why nobody's per-user rc files apply. */
        if (streq(s->process_access, "denied"))
                printf(" Process access: DENIED: other users' processes cannot be read, so their per-user rc files "
                       "and __GL_* variables are not seen (see the journal, nvprofiled(8))\n");
        printf("     Processes: %" PRIu32 " tracked, %" PRIu32 "%s matched by a rule\n", s->tracked, s->matched,
                        geteuid() == 0 ? "" : " of yours");
        printf(" Configuration: generation %" PRIu64 "\n", s->generation);
        printf("      rc files: %zu\n", n_files);
        for (size_t i = 0; i < n_files; i++) {
                struct json_object *f = json_object_array_get_idx(s->rc_files, i);
                int64_t errors = json_object_get_int64(json_object_object_get(f, "errors"));

                printf("                %-8s %s", esc(&e, json_object_get_string(json_object_object_get(f, "state"))),
                                esc(&e, json_object_get_string(json_object_object_get(f, "path"))));
                if (errors > 0)
                        printf("  (%" PRIi64 " error%s)", errors, errors == 1 ? "" : "s");
                printf("\n");
        }
        sections_print_folders(stdout, &e, s->section_folders, "      Sections: ", "                ");
        print_sources_text(s, &e);
}

int verb_status(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL, *matched = NULL;
        _cleanup_(json_object_putp) struct json_object *files = NULL, *folders = NULL, *sources = NULL;
        Status s = { .version = "",
                .driver_version = "",
                .process_watch_mode = "",
                .process_access = "",
                .state = SERVICE_RUNNING };
        int r;

        assert(argc == 1);

        files = json_object_new_array();
        if (!files)
                return log_oom();
        s.rc_files = files;

        r = client_connect(&bus);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(
                        bus, &m, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.Properties", "GetAll");
        if (r < 0)
                return log_error_errno(r, "Could not read the daemon's state");
        r = sd_bus_message_append(m, "s", BUS_MANAGER_INTERFACE);
        if (r < 0)
                return log_error_errno(r, "Could not read the daemon's state");
        r = client_send(bus, m, &reply);
        if (r < 0)
                return r;
        r = read_status(reply, &s);
        if (r < 0)
                return log_error_errno(r, "Failed to read the daemon's properties");
        r = client_call(bus, "CountMatchedProcesses", &matched, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_read(matched, "u", &s.matched);
        if (r < 0)
                return log_error_errno(r, "Failed to read the number of matched processes");
        /* Where Nsight Compute sections are looked for, and whether anything is there. */
        r = sections_read_folders(bus, &folders);
        if (r < 0)
                return r;
        s.section_folders = folders;
        r = read_sources(bus, &s);
        if (r < 0)
                return r;
        sources = s.sources;

        if (arg.json != JSON_OFF)
                return print_status_json(&s);
        print_status_text(&s);
        return 0;
}

int verb_reload(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        assert(argc == 1);

        r = client_connect(&bus);
        if (r < 0)
                return r;
        return client_call(bus, "Reload", NULL, NULL);
}

int verb_version(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *daemon = NULL;

        assert(argc == 1);

        /* The client's version always; the daemon's when it answers. Without a daemon this is no failure:
         * "(not running)" is the answer. */
        if (client_connect(&bus) >= 0)
                (void) sd_bus_get_property_string(
                                bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Version", &error, &daemon);

        if (arg.json != JSON_OFF) {
                _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();

                json_object_object_add(o, "client", json_object_new_string(PACKAGE_VERSION));
                json_object_object_add(o, "daemon", daemon ? json_object_new_string(daemon) : NULL);
                return json_print_document("version", NULL, o);
        }
        printf("nvprofilectl %s\n", PACKAGE_VERSION);
        printf("nvprofiled %s\n", daemon ? esc(&e, daemon) : "(not running)");
        return 0;
}
