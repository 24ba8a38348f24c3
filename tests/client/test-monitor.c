/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "nvprofilectl monitor" against a stand-in daemon on a private bus: one line per ProcessChanged from
 * the signal itself, details only through GetProcess and only for processes the caller may see, never
 * ExplainProcess (which makes the daemon read /proc for every signal and every monitor); a daemon
 * without GetProcess is asked once; removals name the PID (and comm), and text output is escaped. */

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-names.h"
#include "private-bus.h"
#include "test-util.h"

#define WAIT_USEC (10 * G_USEC_PER_SEC)
#define RESOLUTION_TYPE "(sa{sv}a(suussb)a(svssuussa(vssuu))as)"

typedef struct FakeDaemon {
        sd_bus *bus;
        bool has_get_process;
        const char *comm; /* the commname GetProcess reports */
        unsigned n_get_process, n_explain;
        GArray *get_process_pids;
} FakeDaemon;

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

        d->n_explain++;
        return reply_resolution(d, m);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        /* Callable by other users, as the real daemon's methods are (sd-bus' default is owner and root only). */
        SD_BUS_METHOD("GetProcess", "ut", RESOLUTION_TYPE, method_get_process, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ExplainProcess", "ut", RESOLUTION_TYPE, method_explain_process, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("ProcessChanged", "outu", 0),
        SD_BUS_SIGNAL("Reloaded", "t", 0),
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

static bool fixture_setup(Fixture *f, bool has_get_process, bool as_nobody, bool json)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *bus_arg = NULL;
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        const char *argv[5];
        size_t k = 0;
        uint64_t generation = 0;

        if (!bin)
                g_error("NVPROFILECTL_BIN is not set; run this test through meson");
        if (as_nobody && geteuid() != 0) {
                g_test_skip("dropping to nobody needs root");
                return false;
        }
        *f = (Fixture){ .monitor_out = -1 };
        if (!private_bus_start(&f->bus)) {
                g_test_skip("dbus-daemon is not installed");
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
        g_assert_cmpint(sd_bus_add_object_vtable(f->daemon.bus, NULL, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        manager_vtable, &f->daemon),
                        >=, 0);
        g_assert_cmpint(sd_bus_request_name(f->daemon.bus, BUS_NAME, 0), >=, 0);

        bus_arg = g_strdup_printf("--bus=%s", f->bus.address);
        argv[k++] = bin;
        argv[k++] = bus_arg;
        if (json)
                argv[k++] = "--json=short";
        argv[k++] = "monitor";
        argv[k] = NULL;
        g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                        as_nobody ? drop_to_nobody : die_with_parent, NULL, &f->monitor, NULL, &f->monitor_out, NULL,
                        &error);
        g_assert_no_error(error);
        g_assert_cmpint(fcntl(f->monitor_out, F_SETFL, O_NONBLOCK), ==, 0);
        f->seen = g_string_new(NULL);

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
        return true;
}

static void fixture_teardown(Fixture *f)
{
        int status;

        kill(f->monitor, SIGTERM);
        g_assert_cmpint(waitpid(f->monitor, &status, 0), ==, f->monitor);
        g_spawn_close_pid(f->monitor);
        /* Interrupted is how a monitor ends: success. */
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        close(f->monitor_out);
        g_string_free(f->seen, TRUE);
        g_array_free(f->daemon.get_process_pids, TRUE);
        sd_bus_flush_close_unref(f->daemon.bus);
        private_bus_stop(&f->bus);
}

static void emit_process_changed(Fixture *f, uint32_t pid, uint64_t start_time, uint32_t uid)
{
        g_autofree char *object = g_strdup_printf(BUS_PROCESS_PREFIX "/%u_%" G_GUINT64_FORMAT, pid, start_time);

        g_assert_cmpint(sd_bus_emit_signal(f->daemon.bus, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged",
                                        "outu", object, pid, start_time, uid),
                        >=, 0);
}

static void emit_removed(Fixture *f, uint32_t pid, uint64_t start_time)
{
        g_autofree char *object = g_strdup_printf(BUS_PROCESS_PREFIX "/%u_%" G_GUINT64_FORMAT, pid, start_time);

        g_assert_cmpint(sd_bus_emit_signal(f->daemon.bus, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                                        "InterfacesRemoved", "oas", object, 1, BUS_PROCESS_INTERFACE),
                        >=, 0);
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

        g_assert_cmpuint(f.daemon.n_explain, ==, 0);
        g_assert_cmpuint(f.daemon.n_get_process, ==, 2);
        g_assert_cmpuint(g_array_index(f.daemon.get_process_pids, uint32_t, 0), ==, 200);
        g_assert_cmpuint(g_array_index(f.daemon.get_process_pids, uint32_t, 1), ==, 300);

        /* Every signal is a line, from its payload; details where the caller may see them. */
        root_line = line_with(&f, "\"pid\":100,");
        g_assert_nonnull(strstr(root_line, "\"event\":\"process-changed\""));
        g_assert_nonnull(strstr(root_line, "\"uid\":0"));
        g_assert_null(strstr(root_line, "resolution"));
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
        g_assert_cmpuint(f.daemon.n_get_process, ==, 1);
        g_assert_cmpuint(f.daemon.n_explain, ==, 0);
        g_assert_nonnull(strstr(f.seen->str, "\"pid\":100,"));
        g_assert_nonnull(strstr(f.seen->str, "\"pid\":200,"));
        g_assert_null(strstr(f.seen->str, "resolution"));
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

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/monitor/own-processes-only", test_own_processes_only);
        g_test_add_func("/monitor/root-sees-all", test_root_sees_all);
        g_test_add_func("/monitor/without-get-process", test_without_get_process);
        g_test_add_func("/monitor/text-escaped", test_text_escaped);
        return g_test_run();
}
