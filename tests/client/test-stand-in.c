/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl against a stand-in daemon on a private bus.
 *
 * monitor: subscribes (Subscribe; a daemon without it is pinged) and prints one line per ProcessChanged
 * (sent to it alone, as the daemon does) from the signal itself, details only through GetProcess and only
 * for processes the caller may see, never ExplainProcess (which makes the daemon read /proc for every
 * signal and every monitor); a daemon without GetProcess is asked once; removals name the PID (and
 * comm). status: one GetAll, no Get of the Manager's, and CountMatchedProcesses; the usage sources, and
 * a refusal by the bus's policy in the words of service-state.h, none of the bus's. errors: no ":0:0". Every verb's
 * text output escapes what the daemon sends; JSON keeps it exact. */

#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-signatures.h"
#include "json-schema-check.h"
#include "private-bus.h"
#include "test-other-user.h"
#include "test-util.h"

#define WAIT_USEC (10 * G_USEC_PER_SEC)
#define RESOLUTION_TYPE BUS_RESOLUTION_SIGNATURE

typedef struct FakeDaemon {
        sd_bus *bus;
        bool has_get_process; /* a daemon of today; without it, an older one without Subscribe either */
        const char *comm; /* the commname GetProcess reports */
        unsigned n_get_process, n_explain, n_get, n_get_all, n_subscribe, n_count_matched;
        unsigned n_get_sources;
        bool deny; /* answer every call as dbus-daemon does when its policy refuses it */
        char *subscriber; /* the unique name that called Subscribe */
        GArray *get_process_pids;
} FakeDaemon;

/* What a hostile process or rc file could put in front of root's terminal. */
#define NASTY "\x1b]0;PWNED\x07\x1b[31m"

static int reply_resolution(FakeDaemon *d, sd_bus_message *m)
{
        return sd_bus_reply_method_return(m, RESOLUTION_TYPE, "enabled", 1, "commname", "s", d->comm, 1,
                        "/etc/nvidia/nvidia-application-profiles-rc", (uint32_t) 3, (uint32_t) 5, "fake", "Prof", 1, 0,
                        0);
}

static int method_get_process(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        FakeDaemon *d = userdata;
        uint32_t pid;
        uint64_t start_time;

        d->n_get_process++;
        if (!d->has_get_process)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method GetProcess");
        g_assert_cmpint(sd_bus_message_read(m, "ut", &pid, &start_time), >=, 0);
        g_array_append_val(d->get_process_pids, pid);
        return reply_resolution(d, m);
}

static int method_explain_process(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        FakeDaemon *d = userdata;
        uint32_t pid;

        d->n_explain++;
        /* Refusals, as the daemon and the bus word them: with a message, and with none. */
        g_assert_cmpint(sd_bus_message_read(m, "u", &pid), >=, 0);
        if (pid == 666)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Not your process.");
        if (pid == 667)
                return sd_bus_error_set(error, "io.github.nvprofiled.Error.Mystery", NULL);
        /* Every string of the resolution is hostile. */
        return sd_bus_reply_method_return(m, RESOLUTION_TYPE, "enabled", 4, "procname", "s", "/tmp/exe" NASTY,
                        "commname", "s", "comm" NASTY, "cmdline", "s", "cmd" NASTY, "home", "s", "/home/u" NASTY, 1,
                        "/home/u/.nv/rc" NASTY, (uint32_t) 3, (uint32_t) 5, "pattern" NASTY, "Prof" NASTY, 1, 1,
                        "key" NASTY, "s", "value" NASTY, "Prof" NASTY, "/home/u/.nv/rc" NASTY, (uint32_t) 4,
                        (uint32_t) 9, "__GL_KEY" NASTY, "env" NASTY, 1, "s", "old" NASTY, "Old" NASTY, "/etc/rc" NASTY,
                        (uint32_t) 1, (uint32_t) 2, 1, "note" NASTY);
}

static int method_list_errors(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        /* About the configuration (no file, no position), about a whole file, and at a position. */
        return sd_bus_reply_method_return(m, "a(sssuus)", 3, "", "loaded", "note", (uint32_t) 0, (uint32_t) 0,
                        "configuration-wide", "/etc/f" NASTY, "broken", "error", (uint32_t) 0, (uint32_t) 0,
                        "whole file " NASTY, "/etc/g", "stale", "error", (uint32_t) 3, (uint32_t) 4, "positioned");
}

static int method_list_processes(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        /* The second is another user's, no rule matched: its executable is not shown (""), only with --all. */
        return sd_bus_reply_method_return(m, "a(" BUS_PROCESS_ENTRY_FIELDS ")", 2, "/", (uint32_t) 100, (uint64_t) 7,
                        (uint32_t) 0, "comm" NASTY, "/usr/bin/exe" NASTY, 1, "Prof" NASTY, (uint32_t) 2, "/",
                        (uint32_t) 101, (uint64_t) 8, (uint32_t) 1000, "other", "", 0, (uint32_t) 0);
}

static int method_list_rules(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "a(suusss)", 1, "/etc/rc" NASTY, (uint32_t) 1, (uint32_t) 2,
                        "pattern" NASTY, "Prof" NASTY, "");
}

static int method_list_profiles(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "a(ssuua(sv))", 1, "Prof" NASTY, "/etc/rc" NASTY, (uint32_t) 1,
                        (uint32_t) 2, 1, "key" NASTY, "s", "value" NASTY);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        FakeDaemon *d = userdata;

        d->n_subscribe++;
        if (!d->has_get_process)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method Subscribe");
        g_free(d->subscriber);
        d->subscriber = g_strdup(sd_bus_message_get_sender(m));
        return sd_bus_reply_method_return(m, NULL);
}

static int method_count_matched(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        FakeDaemon *d = userdata;

        d->n_count_matched++;
        return sd_bus_reply_method_return(m, "u", (uint32_t) 3);
}

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        if (g_str_equal(property, "Version"))
                return sd_bus_message_append(reply, "s", "0.9" NASTY);
        if (g_str_equal(property, "DriverVersion"))
                return sd_bus_message_append(reply, "s", "570.1");
        if (g_str_equal(property, "ProcessWatchMode"))
                return sd_bus_message_append(reply, "s", "proc-connector");
        if (g_str_equal(property, "TrackedProcesses"))
                return sd_bus_message_append(reply, "u", (uint32_t) 12);
        if (g_str_equal(property, "ProcessEvents") || g_str_equal(property, "ConfigGeneration"))
                return sd_bus_message_append(reply, "t", (uint64_t) 7);
        g_assert_cmpstr(property, ==, "RcFiles");
        return sd_bus_message_append(
                        reply, "a(" BUS_RC_FILE_FIELDS ")", 1, "/etc/rc" NASTY, "broken", (uint32_t) 2, (uint32_t) 0);
}

/* Counts the property calls, which sd-bus answers itself. */
static int count_calls(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        FakeDaemon *d = userdata;

        if (d->deny && sd_bus_message_is_method_call(m, NULL, NULL) > 0) {
                /* dbus-daemon's words, with the caller's pid and command line: never to be shown. */
                g_assert_cmpint(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_ACCESS_DENIED,
                                                "Rejected send message, 2 matched rules; type=\"method_call\", "
                                                "sender=\":1.7\" (uid=1000 pid=4242 comm=\"nvprofilectl\") "
                                                "interface=\"%s\" member=\"%s\" error name=\"(unset)\" "
                                                "requested_reply=\"0\" destination=\"%s\" (uid=0 pid=1 comm=\"\")",
                                                sd_bus_message_get_interface(m), sd_bus_message_get_member(m),
                                                BUS_NAME),
                                >=, 0);
                return 1;
        }
        if (sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "Get")) {
                const char *interface = NULL;

                (void) sd_bus_message_read(m, "s", &interface);
                (void) sd_bus_message_rewind(m, true);
                if (g_strcmp0(interface, BUS_USAGE_INTERFACE) == 0)
                        d->n_get_sources++;
                else
                        d->n_get++;
        }
        if (sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", "GetAll"))
                d->n_get_all++;
        return 0;
}

/* Usage.Sources: one ready, one not, with a message of the daemon's that a terminal would act on. */
static int get_sources(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        return sd_bus_message_append(reply, "a(sss)", 2, "drm-fdinfo", "ready", "1 device", "nvml", "unavailable",
                        "libnvidia-ml.so.1: cannot open shared object file" NASTY);
}

/* Doctor: one finding with a fix, and one about a whole file without one, every string hostile. */
static int method_doctor(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "a(ssuuss)ub", 2, "near-miss", "/home/u/.nv/rc" NASTY, (uint32_t) 4,
                        (uint32_t) 16, "procname \"niri\" missed " NASTY,
                        "nvprofilectl rules set 0123456789ab --procname=" NASTY, "installed-file", "/etc/x" NASTY,
                        (uint32_t) 0, (uint32_t) 0, "installed " NASTY, "", (uint32_t) 0, 0);
}

static const sd_bus_vtable usage_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Sources", "a(sss)", get_sources, 0, 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        /* Callable by other users, as the real daemon's methods are (sd-bus' default is owner and root only). */
        SD_BUS_METHOD("GetProcess", "ut", RESOLUTION_TYPE, method_get_process, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ExplainProcess", "ut", RESOLUTION_TYPE, method_explain_process, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListErrors", "", "a(sssuus)", method_list_errors, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Doctor", "ss", "a(ssuuss)ub", method_doctor, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListProcesses", "", "a(" BUS_PROCESS_ENTRY_FIELDS ")", method_list_processes,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListRules", "s", "a(suusss)", method_list_rules, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListProfiles", "s", "a(ssuua(sv))", method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Subscribe", "", "", method_subscribe, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("CountMatchedProcesses", "", "u", method_count_matched, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Version", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DriverVersion", "s", get_property, 0, 0),
        SD_BUS_PROPERTY("ProcessWatchMode", "s", get_property, 0, 0),
        SD_BUS_PROPERTY("TrackedProcesses", "u", get_property, 0, 0),
        SD_BUS_PROPERTY("ProcessEvents", "t", get_property, 0, 0),
        SD_BUS_PROPERTY("ConfigGeneration", "t", get_property, 0, 0),
        SD_BUS_PROPERTY("RcFiles", "a(" BUS_RC_FILE_FIELDS ")", get_property, 0, 0),
        SD_BUS_SIGNAL("ProcessChanged", "outu", 0),
        SD_BUS_SIGNAL("Reloaded", "t", 0),
        SD_BUS_VTABLE_END,
};

/* Where the stand-in looks for Nsight Compute sections: nowhere that exists. */
static int method_list_folders(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "a(sbsus)", 2, "/usr/lib/nsight" NASTY, true, "missing", (uint32_t) 0, "",
                        "/opt/sections", false, "unreadable", (uint32_t) 0, "Permission denied" NASTY);
}

/* ...so no section at all. */
static int method_list_sections(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "a(" BUS_SECTION_FIELDS ")a(ss)", 0, 0);
}

static const sd_bus_vtable sections_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ListFolders", "", "a(sbsus)", method_list_folders, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListSections", "", "a(" BUS_SECTION_FIELDS ")a(ss)", method_list_sections,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

/* A dry run of an edit of the system's files: the diff the daemon would write, with a line from a file
 * that holds what a terminal acts on. */
#define SYSTEM_DIFF                                                \
        "--- a/etc/nvidia/nvidia-application-profiles-rc.d/50-x\n" \
        "+++ b/etc/nvidia/nvidia-application-profiles-rc.d/50-x\n" \
        "@@ -1,2 +1,2 @@\n"                                        \
        " # " NASTY "\n"                                           \
        "-{ \"rules\": [] }\n"                                     \
        "\\ No newline at end of file\n"                           \
        "+{ \"rules\": [{ \"pattern\": \"niri\", \"profile\": \"P\" }] }\n"

static int method_add_rule(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "ssa(uussss)", "0123456789ab", SYSTEM_DIFF, 0);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static const sd_bus_vtable profiles_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("AddRule", "sissa(ss)t", "ssa(uussss)", method_add_rule, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

typedef struct Fixture {
        PrivateBus bus;
        FakeDaemon daemon;
        GPid monitor;
        int monitor_out;
        GString *seen;
} Fixture;

static void drop_to_nobody(gpointer userdata)
{
        struct passwd *pw = getpwnam("nobody");

        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (!pw || setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                _exit(127);
}

static void die_with_parent(gpointer userdata)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static uint32_t nobody_uid(void)
{
        struct passwd *pw = getpwnam("nobody");

        g_assert_nonnull(pw);
        return (uint32_t) pw->pw_uid;
}

/* Handles the stand-in's calls and collects the monitor's output until needle shows (true) or time
 * runs out. */
static bool wait_for_output(Fixture *f, const char *needle, gint64 usec)
{
        gint64 deadline = g_get_monotonic_time() + usec;

        for (;;) {
                char buf[4096];
                ssize_t n;

                while (sd_bus_process(f->daemon.bus, NULL) > 0)
                        ;
                while ((n = read(f->monitor_out, buf, sizeof(buf))) > 0)
                        g_string_append_len(f->seen, buf, n);
                if (strstr(f->seen->str, needle))
                        return true;
                if (g_get_monotonic_time() >= deadline)
                        return false;
                (void) sd_bus_wait(f->daemon.bus, 20000);
        }
}

static const char *ctl_bin(void)
{
        const char *bin = g_getenv("NVPROFILECTL_BIN");

        if (!bin)
                g_error("NVPROFILECTL_BIN is not set; run this test through meson");
        return bin;
}

/* The private bus and the stand-in daemon on it. */
static bool stand_in_start(Fixture *f, bool has_get_process)
{
        *f = (Fixture){ .monitor_out = -1, .seen = g_string_new(NULL) };
        if (!private_bus_start(&f->bus)) {
                g_string_free(f->seen, TRUE);
                g_test_skip(TEST_BUS_UNAVAILABLE);
                return false;
        }

        f->daemon = (FakeDaemon){
                .has_get_process = has_get_process,
                .comm = "fakecomm",
                .get_process_pids = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
        };
        g_assert_cmpint(sd_bus_new(&f->daemon.bus), >=, 0);
        g_assert_cmpint(sd_bus_set_address(f->daemon.bus, f->bus.address), >=, 0);
        g_assert_cmpint(sd_bus_set_bus_client(f->daemon.bus, true), >=, 0);
        g_assert_cmpint(sd_bus_start(f->daemon.bus), >=, 0);
        g_assert_cmpint(sd_bus_add_filter(f->daemon.bus, NULL, count_calls, &f->daemon), >=, 0);
        g_assert_cmpint(sd_bus_add_object_vtable(f->daemon.bus, NULL, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        manager_vtable, &f->daemon),
                        >=, 0);
        g_assert_cmpint(sd_bus_add_object_vtable(f->daemon.bus, NULL, BUS_ROOT_PATH, BUS_SECTIONS_INTERFACE,
                                        sections_vtable, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_add_object_vtable(f->daemon.bus, NULL, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE,
                                        profiles_vtable, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_add_object_vtable(
                                        f->daemon.bus, NULL, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, usage_vtable, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_request_name(f->daemon.bus, BUS_NAME, 0), >=, 0);
        return true;
}

/* Starts "nvprofilectl monitor" and waits until it is subscribed. */
static void monitor_start(Fixture *f, bool as_nobody, bool json)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *bus_arg = g_strdup_printf("--bus=%s", f->bus.address), *copy = NULL;
        g_auto(GStrv) envp = NULL;
        const char *argv[5];
        size_t k = 0;
        uint64_t generation = 0;

        argv[k++] = ctl_bin();
        argv[k++] = bus_arg;
        if (json)
                argv[k++] = "--json=short";
        argv[k++] = "monitor";
        argv[k] = NULL;
        if (as_nobody) {
                copy = test_copy_for_other_users(f->bus.dir, argv[0]);
                argv[0] = copy;
                envp = test_environ_for_other_users(f->bus.dir);
        }
        g_spawn_async_with_pipes(NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                        as_nobody ? drop_to_nobody : die_with_parent, NULL, &f->monitor, NULL, &f->monitor_out, NULL,
                        &error);
        g_assert_no_error(error);
        g_assert_cmpint(fcntl(f->monitor_out, F_SETFL, O_NONBLOCK), ==, 0);

        /* The monitor is subscribed once it reports a reload; until then, announce another. */
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC;;) {
                g_assert_cmpint(sd_bus_emit_signal(f->daemon.bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reloaded", "t",
                                                ++generation),
                                >=, 0);
                if (wait_for_output(f, json ? "\"event\":\"reloaded\"" : "configuration reloaded", 100000))
                        break;
                if (g_get_monotonic_time() >= deadline)
                        g_error("the monitor did not report a reload; it said: %s", f->seen->str);
        }
}

static bool fixture_setup(Fixture *f, bool has_get_process, bool as_nobody, bool json)
{
        if (as_nobody && geteuid() != 0) {
                g_test_skip("dropping to nobody needs root");
                return false;
        }
        if (!stand_in_start(f, has_get_process))
                return false;
        monitor_start(f, as_nobody, json);
        return true;
}

static void fixture_teardown(Fixture *f)
{
        if (f->monitor > 0) {
                int status;

                kill(f->monitor, SIGTERM);
                g_assert_cmpint(waitpid(f->monitor, &status, 0), ==, f->monitor);
                g_spawn_close_pid(f->monitor);
                /* Interrupted is how a monitor ends: success. */
                g_assert_true(WIFEXITED(status));
                g_assert_cmpint(WEXITSTATUS(status), ==, 0);
                close(f->monitor_out);
        }
        g_string_free(f->seen, TRUE);
        g_array_free(f->daemon.get_process_pids, TRUE);
        g_free(f->daemon.subscriber);
        sd_bus_flush_close_unref(f->daemon.bus);
        private_bus_stop(&f->bus);
}

static void serve_stand_in(void *userdata)
{
        Fixture *f = userdata;

        while (sd_bus_process(f->daemon.bus, NULL) > 0)
                ;
        (void) sd_bus_wait(f->daemon.bus, 10000);
}

/* nvprofilectl --bus=... ARGS... to its end while the stand-in answers: the exit status. */
#define run_ctl(f, ret_out, ret_err, ...) \
        private_bus_run_ctl(&(f)->bus, serve_stand_in, (f), (ret_out), (ret_err), __VA_ARGS__)

/* No byte a terminal would act on. */
static void assert_no_raw_controls(const char *s)
{
        g_assert_null(strchr(s, '\x1b'));
        g_assert_null(strchr(s, '\x07'));
}

/* A signal about a process: to the subscriber alone, as the daemon sends it; broadcast by an older daemon
 * (without Subscribe). */
static void signal_process(Fixture *f, const char *interface, const char *member, const char *types, ...)
{
        sd_bus_message *m = NULL;
        va_list ap;

        g_assert_true(f->daemon.subscriber || !f->daemon.has_get_process);
        g_assert_cmpint(sd_bus_message_new_signal(f->daemon.bus, &m, BUS_ROOT_PATH, interface, member), >=, 0);
        if (f->daemon.subscriber)
                g_assert_cmpint(sd_bus_message_set_destination(m, f->daemon.subscriber), >=, 0);
        va_start(ap, types);
        g_assert_cmpint(sd_bus_message_appendv(m, types, ap), >=, 0);
        va_end(ap);
        g_assert_cmpint(sd_bus_send(f->daemon.bus, m, NULL), >=, 0);
        sd_bus_message_unref(m);
}

static void emit_process_changed(Fixture *f, uint32_t pid, uint64_t start_time, uint32_t uid)
{
        g_autofree char *object = g_strdup_printf(BUS_PROCESS_PREFIX "/%u_%" G_GUINT64_FORMAT, pid, start_time);

        signal_process(f, BUS_MANAGER_INTERFACE, "ProcessChanged", "outu", object, pid, start_time, uid);
}

static void emit_removed(Fixture *f, uint32_t pid, uint64_t start_time)
{
        g_autofree char *object = g_strdup_printf(BUS_PROCESS_PREFIX "/%u_%" G_GUINT64_FORMAT, pid, start_time);

        signal_process(f, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", "oas", object, 1,
                        BUS_PROCESS_INTERFACE);
}

/* The output line that contains needle. */
static char *line_with(Fixture *f, const char *needle)
{
        g_auto(GStrv) lines = g_strsplit(f->seen->str, "\n", -1);

        for (char **l = lines; *l; l++)
                if (strstr(*l, needle))
                        return g_strdup(*l);
        g_error("no line with %s in: %s", needle, f->seen->str);
}

/* As an unprivileged user: details of its own processes only, and only through GetProcess. */
static void test_own_processes_only(void)
{
        Fixture f;
        uint32_t nobody = nobody_uid();
        g_autofree char *root_line = NULL, *own_line = NULL, *gone_line = NULL;

        if (!fixture_setup(&f, true, true, true))
                return;

        emit_process_changed(&f, 100, 7, 0);
        emit_process_changed(&f, 200, 8, nobody);
        emit_process_changed(&f, 300, 9, nobody);
        emit_removed(&f, 200, 8);
        g_assert_true(wait_for_output(&f, "\"event\":\"process-removed\"", WAIT_USEC));
        assert_json_valid(f.seen->str);

        g_assert_cmpuint(f.daemon.n_subscribe, ==, 1);
        g_assert_cmpuint(f.daemon.n_explain, ==, 0);
        g_assert_cmpuint(f.daemon.n_get_process, ==, 2);
        g_assert_cmpuint(g_array_index(f.daemon.get_process_pids, uint32_t, 0), ==, 200);
        g_assert_cmpuint(g_array_index(f.daemon.get_process_pids, uint32_t, 1), ==, 300);

        /* Every signal is a line, from its payload; details where the caller may see them. */
        root_line = line_with(&f, "\"pid\":100,");
        g_assert_nonnull(strstr(root_line, "\"event\":\"process-changed\""));
        g_assert_nonnull(strstr(root_line, "\"uid\":0"));
        /* Not the caller's to see: not known, null. */
        g_assert_nonnull(strstr(root_line, "\"resolution\":null"));
        own_line = line_with(&f, "\"pid\":200,");
        g_assert_nonnull(strstr(own_line, "\"profile\":\"Prof\""));
        g_assert_nonnull(strstr(own_line, "\"comm\":\"fakecomm\""));
        /* Removals name the process, not only its object. */
        gone_line = line_with(&f, "process-removed");
        g_assert_nonnull(strstr(gone_line, "\"pid\":200,"));
        g_assert_nonnull(strstr(gone_line, "\"comm\":\"fakecomm\""));

        fixture_teardown(&f);
}

static void test_root_sees_all(void)
{
        Fixture f;

        if (geteuid() != 0) {
                g_test_skip("needs root");
                return;
        }
        if (!fixture_setup(&f, true, false, true))
                return;

        emit_process_changed(&f, 100, 7, 0);
        emit_process_changed(&f, 200, 8, nobody_uid());
        g_assert_true(wait_for_output(&f, "\"pid\":200,", WAIT_USEC));
        g_assert_cmpuint(f.daemon.n_get_process, ==, 2);
        g_assert_cmpuint(f.daemon.n_explain, ==, 0);
        fixture_teardown(&f);
}

/* A daemon without GetProcess: asked once, then the payload is all; never ExplainProcess. */
static void test_without_get_process(void)
{
        Fixture f;

        if (!fixture_setup(&f, false, false, true))
                return;

        emit_process_changed(&f, 100, 7, geteuid());
        emit_process_changed(&f, 200, 8, geteuid());
        emit_process_changed(&f, 300, 9, geteuid());
        g_assert_true(wait_for_output(&f, "\"pid\":300,", WAIT_USEC));
        g_assert_cmpuint(f.daemon.n_subscribe, ==, 1); /* refused: it was pinged instead */
        g_assert_cmpuint(f.daemon.n_get_process, ==, 1);
        g_assert_cmpuint(f.daemon.n_explain, ==, 0);
        g_assert_nonnull(strstr(f.seen->str, "\"pid\":100,"));
        g_assert_nonnull(strstr(f.seen->str, "\"pid\":200,"));
        /* An older daemon: no resolution known, null in every line. */
        g_assert_null(strstr(f.seen->str, "\"resolution\":{"));
        g_assert_nonnull(strstr(f.seen->str, "\"resolution\":null"));
        assert_json_valid(f.seen->str);
        fixture_teardown(&f);
}

/* Text: PIDs rather than object paths, and nothing raw from the daemon. */
static void test_text_escaped(void)
{
        Fixture f;
        g_autofree char *changed = NULL, *gone = NULL;

        if (!fixture_setup(&f, true, false, false))
                return;
        f.daemon.comm = "evil\x1b]0;PWNED\x07";

        emit_process_changed(&f, 200, 8, geteuid());
        emit_removed(&f, 200, 8);
        g_assert_true(wait_for_output(&f, "gone", WAIT_USEC));
        g_assert_null(strchr(f.seen->str, '\x1b'));
        g_assert_null(strchr(f.seen->str, '\x07'));
        g_assert_null(strstr(f.seen->str, BUS_PROCESS_PREFIX));

        changed = line_with(&f, "process 200 (");
        g_assert_nonnull(strstr(changed, "(evil\\x1b]0;PWNED\\a): Prof; 0 settings (enabled)"));
        gone = line_with(&f, "gone");
        g_assert_cmpstr(gone, ==, "process 200 (evil\\x1b]0;PWNED\\a): gone");
        fixture_teardown(&f);
}

/* An empty "sections list" says why: which folders were searched and what each gave (escaped), on stderr;
 * the JSON has them too. */
static void test_sections_none(void)
{
        Fixture f;
        g_autofree char *text = NULL, *err = NULL, *json = NULL;
        struct json_object *o, *folders;

        if (!stand_in_start(&f, true))
                return;
        g_assert_cmpint(run_ctl(&f, &text, &err, "sections", "list", NULL), ==, 0);
        assert_no_raw_controls(err);
        g_assert_nonnull(strstr(err, "No sections: the folders searched hold no section file that could be read.\n"));
        g_assert_nonnull(strstr(err,
                        "  /usr/lib/nsight\\x1b]0;PWNED\\a\\x1b[31m (with subfolders): missing\n"
                        "  /opt/sections: unreadable (Permission denied\\x1b]0;PWNED\\a\\x1b[31m)\n"));

        g_assert_cmpint(run_ctl(&f, &json, NULL, "--json=short", "sections", "list", NULL), ==, 0);
        o = json_tokener_parse(json);
        g_assert_nonnull(o);
        folders = json_object_object_get(o, "folders");
        g_assert_cmpuint(json_object_array_length(folders), ==, 2);
        g_assert_cmpstr(json_object_get_string(
                                        json_object_object_get(json_object_array_get_idx(folders, 1), "problem")),
                        ==, "Permission denied" NASTY);
        json_object_put(o);
        fixture_teardown(&f);
}

/* One GetAll, no Get: what status shows is one consistent state, in one round trip. */
static void test_status_one_get_all(void)
{
        Fixture f;
        g_autofree char *text = NULL, *json = NULL;
        struct json_object *o, *file;

        if (!stand_in_start(&f, true))
                return;

        g_assert_cmpint(run_ctl(&f, &text, NULL, "status", NULL), ==, 0);
        g_assert_cmpuint(f.daemon.n_get_all, ==, 1);
        g_assert_cmpuint(f.daemon.n_get, ==, 0);
        assert_no_raw_controls(text);
        g_assert_nonnull(strstr(text, "Daemon: nvprofiled 0.9\\x1b]0;PWNED\\a\\x1b[31m\n"));
        g_assert_cmpuint(f.daemon.n_count_matched, ==, 1);
        g_assert_nonnull(strstr(text,
                        geteuid() == 0 ? "Processes: 12 tracked, 3 matched by a rule\n"
                                       : "Processes: 12 tracked, 3 of yours matched by a rule\n"));
        g_assert_nonnull(strstr(text, "/etc/rc\\x1b]0;PWNED\\a\\x1b[31m  (2 errors)\n"));
        /* Where sections are looked for, and that nothing is there. */
        g_assert_nonnull(strstr(text,
                        "      Sections: /usr/lib/nsight\\x1b]0;PWNED\\a\\x1b[31m (with subfolders): missing\n"
                        "                /opt/sections: unreadable (Permission denied\\x1b]0;PWNED\\a\\x1b[31m)\n"));
        /* The usage sources, the state they make (service-state.h's words) and the daemon's message, escaped. */
        g_assert_cmpuint(f.daemon.n_get_sources, ==, 1);
        g_assert_nonnull(strstr(text,
                        "         State: A GPU usage source is unavailable\n"
                        " Usage sources: drm-fdinfo: ready: 1 device\n"
                        "                nvml: unavailable: libnvidia-ml.so.1: cannot open shared object "
                        "file\\x1b]0;PWNED\\a\\x1b[31m\n"
                        "                The devices it covers are not shown; nvprofiled says why.\n"));

        /* JSON: the exact strings. */
        g_assert_cmpint(run_ctl(&f, &json, NULL, "--json=short", "status", NULL), ==, 0);
        g_assert_cmpuint(f.daemon.n_get_all, ==, 2);
        g_assert_cmpuint(f.daemon.n_get, ==, 0);
        o = json_tokener_parse(json);
        g_assert_nonnull(o);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(o, "version")), ==, "0.9" NASTY);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(o, "driver_version")), ==, "570.1");
        g_assert_cmpint(json_object_get_int(json_object_object_get(o, "tracked_processes")), ==, 12);
        g_assert_cmpint(json_object_get_int(json_object_object_get(o, "matched_processes")), ==, 3);
        g_assert_cmpint(json_object_get_int(json_object_object_get(o, "config_generation")), ==, 7);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(o, "state")), ==, "source-unavailable");
        {
                struct json_object *nvml = json_object_array_get_idx(json_object_object_get(o, "sources"), 1);

                g_assert_cmpstr(json_object_get_string(json_object_object_get(nvml, "name")), ==, "nvml");
                g_assert_cmpstr(json_object_get_string(json_object_object_get(nvml, "state")), ==, "unavailable");
                g_assert_cmpstr(json_object_get_string(json_object_object_get(nvml, "message")), ==,
                                "libnvidia-ml.so.1: cannot open shared object file" NASTY);
        }
        file = json_object_array_get_idx(json_object_object_get(o, "rc_files"), 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(file, "path")), ==, "/etc/rc" NASTY);
        {
                struct json_object *folder = json_object_array_get_idx(json_object_object_get(o, "section_folders"), 0);

                g_assert_cmpstr(json_object_get_string(json_object_object_get(folder, "path")), ==,
                                "/usr/lib/nsight" NASTY);
                g_assert_cmpstr(json_object_get_string(json_object_object_get(folder, "state")), ==, "missing");
                g_assert_true(json_object_get_boolean(json_object_object_get(folder, "recursive")));
        }
        json_object_put(o);
        fixture_teardown(&f);
}

/* A bus whose policy refuses the caller: status and top say so in the state's words and with the next step,
 * never with dbus-daemon's text (pids, command lines) or a D-Bus name. */
static void test_status_denied(void)
{
        Fixture f;

        if (!stand_in_start(&f, true))
                return;
        f.daemon.deny = true;
        for (const char *const *verb = (const char *const[]){ "status", "top", NULL }; *verb; verb++) {
                g_autofree char *out = NULL, *err = NULL;

                if (g_str_equal(*verb, "top"))
                        g_assert_cmpint(run_ctl(&f, &out, &err, "top", "--once", NULL), ==, 1);
                else
                        g_assert_cmpint(run_ctl(&f, &out, &err, *verb, NULL), ==, 1);
                g_test_message("%s: %s", *verb, err);
                g_assert_nonnull(strstr(err, "nvprofilectl: Access to nvprofiled was denied on the bus at "));
                g_assert_nonnull(strstr(err, "ask the administrator (see nvprofiled(8)).\n"));
                for (const char *const *bad = (const char *const[]){ "Rejected", "pid=", "4242", "org.freedesktop",
                                     "io.github", "permission denied", NULL };
                                *bad; bad++)
                        if (strstr(err, *bad))
                                g_error("%s said %s: %s", *verb, *bad, err);
        }
        fixture_teardown(&f);
}

/* A message without a position has none in the output (never ":0:0"); without a file, no file. */
static void test_errors_positions(void)
{
        Fixture f;
        g_autofree char *text = NULL;

        if (!stand_in_start(&f, true))
                return;

        g_assert_cmpint(run_ctl(&f, &text, NULL, "errors", NULL), ==, 1); /* an error is listed */
        assert_no_raw_controls(text);
        g_assert_null(strstr(text, ":0"));
        g_assert_cmpstr(text, ==,
                        "note: configuration-wide\n"
                        "/etc/f\\x1b]0;PWNED\\a\\x1b[31m: error: whole file \\x1b]0;PWNED\\a\\x1b[31m\n"
                        "/etc/g:3:4: error: positioned [last good version in force]\n");
        fixture_teardown(&f);
}

static void test_doctor_escaped(void)
{
        Fixture f;
        g_autofree char *text = NULL, *json = NULL;
        struct json_object *o, *items;

        if (!stand_in_start(&f, true))
                return;

        g_assert_cmpint(run_ctl(&f, &text, NULL, "doctor", NULL), ==, 1); /* a near miss is a problem */
        assert_no_raw_controls(text); /* and no ":0:0" for a whole file */
        g_assert_cmpstr(text, ==,
                        "/home/u/.nv/rc\\x1b]0;PWNED\\a\\x1b[31m:4:16: near-miss: procname \"niri\" missed "
                        "\\x1b]0;PWNED\\a\\x1b[31m\n"
                        "  fix: nvprofilectl rules set 0123456789ab --procname=\\x1b]0;PWNED\\a\\x1b[31m\n"
                        "/etc/x\\x1b]0;PWNED\\a\\x1b[31m: installed-file: installed \\x1b]0;PWNED\\a\\x1b[31m\n"
                        "The daemon stopped comparing rules at its bound of work (thousands of rules, or deeply "
                        "nested patterns): findings may be missing.\n"
                        "\n2 findings. Run a fix with --dry-run first to see what it changes.\n");
        g_assert_cmpint(run_ctl(&f, &json, NULL, "--json=short", "doctor", NULL), ==, 1); /* exact; no fix: null */
        assert_json_valid(json);
        g_assert_nonnull(o = json_tokener_parse(json));
        g_assert_cmpuint(json_object_array_length(items = json_object_object_get(o, "findings")), ==, 2);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(items, 0), "fix")), ==,
                        "nvprofilectl rules set 0123456789ab --procname=" NASTY);
        g_assert_null(json_object_object_get(json_object_array_get_idx(items, 1), "fix"));
        g_assert_false(json_object_get_boolean(json_object_object_get(o, "complete")));
        json_object_put(o);
        fixture_teardown(&f);
}

static void test_explain_escaped(void)
{
        Fixture f;
        g_autofree char *text = NULL, *json = NULL;
        struct json_object *o, *facts;

        if (!stand_in_start(&f, true))
                return;

        g_assert_cmpint(run_ctl(&f, &text, NULL, "explain", "100", NULL), ==, 0);
        assert_no_raw_controls(text);
        for (const char *const *w = (const char *const[]){ "procname: /tmp/exe\\x1b]0;PWNED\\a",
                             "commname: comm\\x1b]0;PWNED\\a", "cmdline: cmd\\x1b]0;PWNED\\a",
                             "HOME: /home/u\\x1b]0;PWNED\\a", "/home/u/.nv/rc\\x1b]0;PWNED\\a\\x1b[31m:3:5",
                             "pattern\\x1b]0;PWNED\\a", "key\\x1b]0;PWNED\\a\\x1b[31m = \"value\\x1b]0;PWNED\\a",
                             "overridden by the environment: __GL_KEY\\x1b]0;PWNED\\a\\x1b[31m=env\\x1b",
                             "shadows \"old\\x1b]0;PWNED\\a\\x1b[31m\" from \"Old\\x1b]0;PWNED\\a\\x1b[31m\"",
                             "  - note\\x1b]0;PWNED\\a", NULL };
                        *w; w++)
                if (!strstr(text, *w))
                        g_error("explain does not say \"%s\": %s", *w, text);

        g_assert_cmpint(run_ctl(&f, &json, NULL, "--json=short", "explain", "100", NULL), ==, 0);
        o = json_tokener_parse(json);
        g_assert_nonnull(o);
        facts = json_object_object_get(o, "facts");
        g_assert_cmpstr(json_object_get_string(json_object_object_get(facts, "commname")), ==, "comm" NASTY);
        json_object_put(o);
        fixture_teardown(&f);
}

static void test_listings_escaped(void)
{
        Fixture f;
        g_autofree char *processes = NULL, *rules = NULL, *profiles = NULL, *json = NULL;
        struct json_object *o;

        if (!stand_in_start(&f, true))
                return;

        g_assert_cmpint(run_ctl(&f, &processes, NULL, "processes", NULL), ==, 0);
        assert_no_raw_controls(processes);
        g_assert_nonnull(strstr(processes, "/usr/bin/exe\\x1b]0;PWNED\\a\\x1b[31m"));
        g_assert_nonnull(strstr(processes, "Prof\\x1b]0;PWNED\\a\\x1b[31m\n"));
        {
                /* A table: the escaped executable sizes its column, so PROFILES starts at one offset. */
                g_autofree char *all = NULL;
                g_assert_cmpint(run_ctl(&f, &all, NULL, "processes", "--all", NULL), ==, 0);
                g_auto(GStrv) lines = g_strsplit(all, "\n", -1);
                g_assert_true(g_regex_match_simple("^PID USER +EXECUTABLE +SETTINGS PROFILES$", lines[0], 0, 0));
                g_assert_true(g_regex_match_simple("^100 \\S+ +/usr/bin/exe\\S+ +2 Prof", lines[1], 0, 0));
                g_assert_true(g_regex_match_simple("^101 \\S+ +other +0 -$", lines[2], 0, 0));
                size_t column = strstr(lines[0], "PROFILES") - lines[0];
                g_assert_cmpuint(strstr(lines[1], "Prof") - lines[1], ==, column);
                g_assert_cmpuint(strlen(lines[2]) - 1, ==, column);
        }

        g_assert_cmpint(run_ctl(&f, &rules, NULL, "rules", NULL), ==, 0);
        assert_no_raw_controls(rules);
        g_assert_nonnull(strstr(rules, "/etc/rc\\x1b]0;PWNED\\a\\x1b[31m:1:2  pattern\\x1b]0;PWNED\\a"));

        g_assert_cmpint(run_ctl(&f, &profiles, NULL, "profiles", NULL), ==, 0);
        assert_no_raw_controls(profiles);
        g_assert_nonnull(strstr(profiles, "key\\x1b]0;PWNED\\a\\x1b[31m = \"value\\x1b]0;PWNED\\a\\x1b[31m\"\n"));

        g_assert_cmpint(run_ctl(&f, &json, NULL, "--json=short", "processes", NULL), ==, 0);
        o = json_tokener_parse(json);
        g_assert_nonnull(o);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(
                                        json_object_array_get_idx(json_object_object_get(o, "processes"), 0), "comm")),
                        ==, "comm" NASTY);
        json_object_put(o);
        fixture_teardown(&f);
}

/* Every --json document of a verb that asks the daemon names its schema and version and is valid against
 * it (client/json-schemas); what the caller may not know is null. */
static void test_json_schemas(void)
{
        static const char *const verbs[][3] = {
                { "status", NULL, NULL },
                { "version", NULL, NULL },
                { "processes", "--all", NULL },
                { "explain", "100", NULL },
                { "rules", NULL, NULL },
                { "profiles", NULL, NULL },
                { "errors", NULL, NULL },
                { "doctor", NULL, NULL },
                { "sections", "list", NULL },
        };
        Fixture f;

        if (!stand_in_start(&f, true))
                return;

        for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++) {
                g_autofree char *json = NULL;
                struct json_object *o;
                int r;

                r = run_ctl(&f, &json, NULL, "--json=pretty", verbs[i][0], verbs[i][1], verbs[i][2], NULL);
                /* errors and sections list report what they list in the status too */
                g_assert_cmpint(r, <=, 1);
                g_test_message("%s %s: %s", verbs[i][0], verbs[i][1] ? verbs[i][1] : "", json);
                assert_json_valid(json);
                o = json_tokener_parse(json);
                g_assert_cmpint(json_object_get_int(json_object_object_get(o, "schema_version")), ==, 1);
                if (g_str_equal(verbs[i][0], "processes")) {
                        struct json_object *other =
                                        json_object_array_get_idx(json_object_object_get(o, "processes"), 1);

                        g_assert_cmpint(json_object_get_int(json_object_object_get(other, "pid")), ==, 101);
                        g_assert_true(json_object_object_get_ex(other, "executable", NULL));
                        g_assert_null(json_object_object_get(other, "executable"));
                }
                json_object_put(o);
        }
        fixture_teardown(&f);
}

/* A failed request says what the user asked for and why in words: never a D-Bus method's or error's name. */
static void test_errors_in_words(void)
{
        static const struct {
                const char *args[3];
                const char *expected;
        } cases[] = {
                { { "explain", "666", NULL },
                                "nvprofilectl: Could not explain process 666: permission denied: Not your process.\n" },
                { { "explain", "667", NULL },
                                "nvprofilectl: Could not explain process 667: nvprofiled gave no reason.\n" },
                /* The stand-in has no Reload: as an older daemon would answer. */
                { { "reload", NULL, NULL },
                                "nvprofilectl: Could not reload the configuration: the running nvprofiled does not offer this (an older "
                                "version?).\n" },
        };
        Fixture f;

        if (!stand_in_start(&f, true))
                return;
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *out = NULL, *err = NULL;

                g_assert_cmpint(run_ctl(&f, &out, &err, cases[i].args[0], cases[i].args[1], cases[i].args[2], NULL), ==,
                                1);
                g_assert_cmpstr(err, ==, cases[i].expected);
                for (const char *const *name = (const char *const[]){ "ExplainProcess", "Reload", "org.freedesktop",
                                     "io.github", NULL };
                                *name; name++)
                        g_assert_null(strstr(err, *name));
        }
        fixture_teardown(&f);
}

/* rules add --system --dry-run prints the daemon's diff as lines; what comes from the file is escaped, line
 * by line; diff's own note on a missing newline is kept as it is. */
static void test_system_dry_run_diff_lines(void)
{
        Fixture f;
        g_autofree char *out = NULL;

        if (!stand_in_start(&f, true))
                return;
        g_assert_cmpint(run_ctl(&f, &out, NULL, "rules", "add", "--system", "--dry-run", "--procname", "niri",
                                        "--profile", "P", NULL),
                        ==, 0);
        assert_no_raw_controls(out);
        g_assert_cmpstr(out, ==,
                        "--- a/etc/nvidia/nvidia-application-profiles-rc.d/50-x\n"
                        "+++ b/etc/nvidia/nvidia-application-profiles-rc.d/50-x\n"
                        "@@ -1,2 +1,2 @@\n"
                        " # \\x1b]0;PWNED\\a\\x1b[31m\n"
                        "-{ \"rules\": [] }\n"
                        "\\ No newline at end of file\n"
                        "+{ \"rules\": [{ \"pattern\": \"niri\", \"profile\": \"P\" }] }\n"
                        "No running process would change its settings.\n");
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&f, &out, NULL, "--json=short", "rules", "add", "--system", "--dry-run", "--procname",
                                        "niri", "--profile", "P", NULL),
                        ==, 0);
        assert_json_valid(out);
        fixture_teardown(&f);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/monitor/own-processes-only", test_own_processes_only);
        g_test_add_func("/monitor/root-sees-all", test_root_sees_all);
        g_test_add_func("/monitor/without-get-process", test_without_get_process);
        g_test_add_func("/monitor/text-escaped", test_text_escaped);
        g_test_add_func("/status/one-get-all", test_status_one_get_all);
        g_test_add_func("/status/denied", test_status_denied);
        g_test_add_func("/sections/none-says-why", test_sections_none);
        g_test_add_func("/errors/positions", test_errors_positions);
        g_test_add_func("/doctor/escaped", test_doctor_escaped);
        g_test_add_func("/explain/escaped", test_explain_escaped);
        g_test_add_func("/listings/escaped", test_listings_escaped);
        g_test_add_func("/json/schemas", test_json_schemas);
        g_test_add_func("/errors/in-words", test_errors_in_words);
        g_test_add_func("/edit/system-dry-run-diff-lines", test_system_dry_run_diff_lines);
        return g_test_run();
}
