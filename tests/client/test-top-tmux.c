/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl top against a stand-in of the daemon's Usage interface (names and signatures of
 * dbus/io.github.nvprofiled.NvProfiled1.xml) on a private bus: in a real terminal (tmux: what a person
 * sees, a sort key, a resize, q, each device's sensors and history line), and --once as text and JSON;
 * then against the real daemon over fixture trees (an amdgpu card with hwmon files among them). The stand-in announces
 * a sample on the WatchUsage descriptor every 100 ms, as the daemon does after each sample. */

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bus-names.h"
#include "json-schema-check.h"
#include "private-bus.h"
#include "top-pane.h"
#include "itest.h"
#include "test-util.h"
#include "usage-fixture.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_object, json_object_put)

#define WAIT_USEC (30 * G_USEC_PER_SEC) /* a bound for slow (sanitizer) builds on a busy machine, not a timing */
#define NASTY "\x1b]0;PWNED\x07\x1b[31m"
/* 73 of the 74 columns of a history line 100 columns wide. */
#define HISTORY_BLANKS "                                                                         "

typedef struct StandIn {
        PrivateBus bus;
        sd_bus *conn;
        bool has_watch;
        int watch_write; /* the write end of the last WatchUsage pipe */
        unsigned n_watch, n_list_devices, n_list_processes;
        uint64_t watch_interval;
        gint64 last_tick;
        char *dir;
} StandIn;

static int method_list_devices(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *s = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        s->n_list_devices++;
        g_assert_cmpint(sd_bus_message_new_method_return(m, &reply), >=, 0);
        g_assert_cmpint(sd_bus_message_append(reply, "a(sssssuuassua(sddu)a(sa{st})t)", 2,
                                        /* an i915 through fdinfo */
                                        "0000:00:02.0", "drm-fdinfo", "i915", "0000:00:02.0", "", 0x8086, 0x46a6, 2,
                                        "card0", "renderD128", "active", 3, 2, "render", 62.5, -1.0, 2, "video", 0.0,
                                        0.0, 1, 1, "system0", 2, "resident", UINT64_C(12582912), "total",
                                        UINT64_C(16777216), UINT64_C(0),
                                        /* an NVIDIA GPU through NVML, with a hostile name */
                                        "0000:01:00.0", "nvml", "nvidia", "0000:01:00.0", "RTX" NASTY, 0x10de, 0x2684,
                                        0, "active", 1, 1, "gpu", 10.0, 0.0, 1, 1, "fb", 1, "resident",
                                        UINT64_C(536870912), UINT64_C(0)),
                        >=, 0);
        return sd_bus_send(NULL, reply, NULL);
}

static int method_list_processes(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *s = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        s->n_list_processes++;
        g_assert_cmpint(sd_bus_message_new_method_return(m, &reply), >=, 0);
        g_assert_cmpint(sd_bus_message_append(reply, "a(outusasa(sst)a(sssd)a(ssst)ssssss)", 3,
                                        /* glxgears: the busiest, with a profile, in a user session */
                                        BUS_PROCESS_PREFIX "/4242_1", (uint32_t) 4242, UINT64_C(1), (uint32_t) 0,
                                        "glxgears", 1, "Game Profile", 1, "0000:00:02.0", "drm-fdinfo", UINT64_C(7), 2,
                                        "0000:00:02.0", "drm-fdinfo", "render", 62.5, "0000:00:02.0", "drm-fdinfo",
                                        "video", 0.0, 1, "0000:00:02.0", "drm-fdinfo", "system0", UINT64_C(8388608),
                                        "session-2.scope", "user-0.slice", "", "", "", "",
                                        /* blender on the NVIDIA GPU: the most memory, no profile, a Flatpak */
                                        BUS_PROCESS_PREFIX "/4343_1", (uint32_t) 4343, UINT64_C(1), (uint32_t) 0,
                                        "blender", 0, 1, "0000:01:00.0", "nvml", UINT64_C(4343), 1, "0000:01:00.0",
                                        "nvml", "gpu", 10.0, 1, "0000:01:00.0", "nvml", "fb", UINT64_C(536870912),
                                        "app-flatpak-org.blender.Blender-7.scope", "app.slice", "", "", "flatpak",
                                        "org.blender.Blender",
                                        /* a process whose name, profile and unit would take over a terminal */
                                        "/", (uint32_t) 4444, UINT64_C(1), (uint32_t) 0, "evil" NASTY, 1, "Prof" NASTY,
                                        1, "0000:00:02.0", "drm-fdinfo", UINT64_C(9), 0, 1, "0000:00:02.0",
                                        "drm-fdinfo", "system0", UINT64_C(4096), "u" NASTY ".service", "system.slice",
                                        "", "", "", ""),
                        >=, 0);
        return sd_bus_send(NULL, reply, NULL);
}

/* The i915's sensors, one label hostile; the NVIDIA GPU's as NVML gives them (no labels). A stand-in without
 * WatchUsage is an older daemon: it has no ListGpuSensors either. */
static int method_list_sensors(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *s = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        if (!s->has_watch)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method ListGpuSensors");
        g_assert_cmpint(sd_bus_message_new_method_return(m, &reply), >=, 0);
        g_assert_cmpint(sd_bus_message_append(reply, "a(ssa(sssd))", 2, "0000:00:02.0", "drm-fdinfo", 4, "temperature",
                                        "edge" NASTY, "celsius", 45.0, "power", "PPT", "watt", 12.5, "power_limit",
                                        "PPT", "watt", 35.0, "fan", "", "rpm", 1250.0, "0000:01:00.0", "nvml", 6,
                                        "temperature", "", "celsius", -1.5, "power", "", "watt", 118.5, "power_limit",
                                        "", "watt", 200.0, "clock_graphics", "", "megahertz", 2475.0, "clock_memory",
                                        "", "megahertz", 10501.0, "fan", "", "percent", 40.0),
                        >=, 0);
        return sd_bus_send(NULL, reply, NULL);
}

static int method_watch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *s = userdata;
        int p[2];
        int r;

        if (!s->has_watch)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method WatchUsage");
        s->n_watch++;
        g_assert_cmpint(sd_bus_message_read(m, "t", &s->watch_interval), >=, 0);
        g_assert_cmpint(pipe2(p, O_CLOEXEC | O_NONBLOCK), ==, 0);
        if (s->watch_write >= 0)
                close(s->watch_write);
        s->watch_write = p[1];
        r = sd_bus_reply_method_return(m, "h", p[0]);
        close(p[0]);
        return r;
}

static const sd_bus_vtable usage_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ListGpuDevices", "", "a(sssssuuassua(sddu)a(sa{st})t)", method_list_devices,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListGpuSensors", "", "a(ssa(sssd))", method_list_sensors, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ListGpuProcessesAttributed", "", "a(outusasa(sst)a(sssd)a(ssst)ssssss)", method_list_processes,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("WatchUsage", "t", "h", method_watch, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static bool stand_in_start(StandIn *s, bool has_watch)
{
        *s = (StandIn){ .has_watch = has_watch, .watch_write = -1 };
        if (!private_bus_start(&s->bus)) {
                g_test_skip(TEST_BUS_UNAVAILABLE);
                return false;
        }
        g_assert_cmpint(sd_bus_new(&s->conn), >=, 0);
        g_assert_cmpint(sd_bus_set_address(s->conn, s->bus.address), >=, 0);
        g_assert_cmpint(sd_bus_set_bus_client(s->conn, true), >=, 0);
        g_assert_cmpint(sd_bus_start(s->conn), >=, 0);
        g_assert_cmpint(sd_bus_add_object_vtable(s->conn, NULL, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, usage_vtable, s),
                        >=, 0);
        g_assert_cmpint(sd_bus_request_name(s->conn, BUS_NAME, 0), >=, 0);
        s->dir = test_mkdtemp();
        return true;
}

static void stand_in_stop(StandIn *s)
{
        if (s->watch_write >= 0)
                close(s->watch_write);
        sd_bus_flush_close_unref(s->conn);
        private_bus_stop(&s->bus);
        g_free(s->dir);
}

/* Answers calls for usec, announcing a sample every 100 ms on the watch descriptor. */
static void pump(StandIn *s, gint64 usec)
{
        gint64 deadline = g_get_monotonic_time() + usec;

        do {
                while (sd_bus_process(s->conn, NULL) > 0)
                        ;
                if (s->watch_write >= 0 && g_get_monotonic_time() - s->last_tick >= 100000) {
                        (void) write(s->watch_write, "s", 1);
                        s->last_tick = g_get_monotonic_time();
                }
                (void) sd_bus_wait(s->conn, 10000);
        } while (g_get_monotonic_time() < deadline);
}

static void serve_stand_in(void *userdata)
{
        pump(userdata, 0);
}

/* nvprofilectl --bus=... ARGS... to its end while the stand-in answers: the exit status. */
#define run_ctl(s, ret_out, ...) private_bus_run_ctl(&(s)->bus, serve_stand_in, (s), (ret_out), NULL, __VA_ARGS__)

static void assert_no_raw_controls(const char *s)
{
        g_assert_null(strchr(s, '\x1b'));
        g_assert_null(strchr(s, '\x07'));
}

static void test_once_json(void)
{
        g_autoptr(json_object) doc = NULL;
        g_autofree char *out = NULL;
        struct json_object *devices, *processes, *p0, *e0;
        StandIn s;

        if (!stand_in_start(&s, true))
                return;
        g_assert_cmpint(run_ctl(&s, &out, "--json=short", "top", "--once", "--interval=0.25", NULL), ==, 0);
        assert_json_valid(out);
        doc = json_tokener_parse(out);
        g_assert_nonnull(doc);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(doc, "schema")), ==, "io.github.nvprofiled.top");
        /* It asked the daemon to sample at its interval, and read after samples were announced. */
        g_assert_cmpuint(s.n_watch, ==, 1);
        g_assert_cmpuint(s.watch_interval, ==, 250000);
        g_assert_cmpuint(s.n_list_devices, ==, 1);
        g_assert_cmpuint(s.n_list_processes, ==, 1);

        devices = json_object_object_get(doc, "devices");
        g_assert_cmpuint(json_object_array_length(devices), ==, 2);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(devices, 0), "device")),
                        ==, "0000:00:02.0");
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(devices, 1), "name")),
                        ==, "RTX" NASTY); /* exact in JSON */
        e0 = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(devices, 0), "engines"), 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(e0, "name")), ==, "render");
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(e0, "busy_percent")), ==, 62.5);
        /* The daemon's -1 and "" (not known, not there) are null: the frequency, the i915's name. */
        g_assert_true(json_object_object_get_ex(e0, "freq_percent", NULL));
        g_assert_null(json_object_object_get(e0, "freq_percent"));
        g_assert_true(json_object_object_get_ex(json_object_array_get_idx(devices, 0), "name", NULL));
        g_assert_null(json_object_object_get(json_object_array_get_idx(devices, 0), "name"));
        g_assert_cmpint(json_object_get_int64(json_object_object_get(
                                        json_object_object_get(
                                                        json_object_array_get_idx(
                                                                        json_object_object_get(
                                                                                        json_object_array_get_idx(
                                                                                                        devices, 0),
                                                                                        "regions"),
                                                                        0),
                                                        "bytes"),
                                        "resident")),
                        ==, 12582912);

        /* Each device's sensors, exact: a hostile label as sent, NVML's "" null, a value below zero kept. */
        e0 = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(devices, 0), "sensors"), 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(e0, "label")), ==, "edge" NASTY);
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(e0, "value")), ==, 45.0);
        e0 = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(devices, 1), "sensors"), 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(e0, "unit")), ==, "celsius");
        g_assert_true(json_object_object_get_ex(e0, "label", NULL) && !json_object_object_get(e0, "label"));
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(e0, "value")), ==, -1.5);

        processes = json_object_object_get(doc, "processes");
        g_assert_cmpuint(json_object_array_length(processes), ==, 3);
        p0 = json_object_array_get_idx(processes, 0);
        g_assert_cmpint(json_object_get_int64(json_object_object_get(p0, "pid")), ==, 4242);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(p0, "comm")), ==, "glxgears");
        g_assert_cmpstr(json_object_get_string(json_object_array_get_idx(json_object_object_get(p0, "profiles"), 0)),
                        ==, "Game Profile");
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(processes, 2), "comm")),
                        ==, "evil" NASTY);
        /* What each runs as, exact. */
        g_assert_cmpstr(json_object_get_string(json_object_object_get(p0, "unit")), ==, "session-2.scope");
        g_assert_cmpstr(json_object_get_string(json_object_object_get(p0, "slice")), ==, "user-0.slice");
        g_assert_true(json_object_object_get_ex(p0, "app", NULL));
        g_assert_null(json_object_object_get(p0, "app"));
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(processes, 1), "app")),
                        ==, "org.blender.Blender");
        g_assert_cmpstr(json_object_get_string(
                                        json_object_object_get(json_object_array_get_idx(processes, 1), "app_kind")),
                        ==, "flatpak");
        g_assert_cmpstr(json_object_get_string(json_object_object_get(json_object_array_get_idx(processes, 2), "unit")),
                        ==, "u" NASTY ".service");
        stand_in_stop(&s);
}

static void test_once_text(void)
{
        g_autofree char *out = NULL, *gl = NULL, *bl = NULL, *bar = NULL, *evil = NULL;
        StandIn s;

        if (!stand_in_start(&s, true))
                return;
        g_setenv("COLUMNS", "100", TRUE);
        g_assert_cmpint(run_ctl(&s, &out, "top", "--once", "--interval=0.1", "--sort=memory", NULL), ==, 0);
        g_unsetenv("COLUMNS");
        g_test_message("%s", out);
        assert_no_raw_controls(out);
        g_assert_nonnull(strstr(out, "nvprofilectl top  2 devices  3 processes  every 0.1s  sort: memory\n"));
        g_assert_nonnull(strstr(out, "0000:00:02.0  i915  drm-fdinfo  active  3 clients  system0 12.0 MiB"));
        g_assert_nonnull(strstr(out, "0000:01:00.0  nvidia  RTX\\x1b]0;PWNED\\a\\x1b[31m  nvml"));
        /* Sensors on one line, escaped; the history line (one reading: one column, at its end). */
        g_assert_nonnull(strstr(
                        out, "\n  sensors    edge\\x1b]0;PWNED\\a\\x1b[31m 45°C  PPT 12.5/35 W  fan 1250 rpm\n"));
        g_assert_nonnull(strstr(out, "\n  sensors    -2°C  118.5/200 W  gfx 2475 MHz  mem 10501 MHz  fan 40%\n"));
        g_assert_nonnull(strstr(out, "\n  history    [" HISTORY_BLANKS "▅] max  62.5%\n"));
        g_assert_nonnull(strstr(out, "\n  history    [" HISTORY_BLANKS "▂] max  10.0%\n"));
        bar = line_with(out, "  render ");
        g_assert_nonnull(bar);
        /* 100 columns: a 78-column bar, 62.5 % of it filled. */
        g_assert_cmpuint(strlen(bar), ==, 100);
        g_assert_true(g_str_has_suffix(bar, "]  62.5%"));
        g_assert_nonnull(strstr(bar,
                        "["
                        "||||||||||||||||||||||||||||||||||||||||||||||||| "));
        g_assert_null(strstr(bar, "|||||||||||||||||||||||||||||||||||||||||||||||||| "));
        gl = line_with(out, "glxgears");
        g_assert_nonnull(gl);
        g_assert_nonnull(strstr(gl, "4242 root     0000:00:02.0   62.5 render      8.0 MiB Game Profile"));
        bl = line_with(out, "blender");
        g_assert_nonnull(strstr(bl, "4343 root     0000:01:00.0   10.0 gpu       512.0 MiB -"));
        /* By memory: blender, glxgears, then the 4 KiB one. */
        g_assert_true(strstr(out, "blender") < strstr(out, "glxgears"));
        evil = line_with(out, "4444");
        /* 100 columns: PROFILE 12, APPLICATION 18 (the Flatpak id, else the unit), COMMAND 11 columns, cut with '~'. */
        g_assert_nonnull(strstr(gl, "Game Profile session-2.scope    glxgears"));
        g_assert_nonnull(strstr(bl, "-            org.blender.Blend~ blender"));
        g_assert_nonnull(strstr(evil, "Prof\\x1b]0;~ u\\x1b]0;PWNED\\a\\x~ evil\\x1b]0~"));
        stand_in_stop(&s);
}

static void die_with_parent(gpointer userdata)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
}

/* --json without --once: one document per announced sample, until SIGTERM, which ends it with status 0. */
static void test_json_stream(void)
{
        g_autofree char *bus_arg = NULL;
        g_autoptr(GError) error = NULL;
        GString *out = g_string_new(NULL);
        gint64 deadline;
        unsigned lines = 0;
        int out_fd, status;
        StandIn s;
        GPid pid;

        if (!stand_in_start(&s, true))
                return;
        bus_arg = g_strdup_printf("--bus=%s", s.bus.address);
        {
                const char *argv[] = { ctl_bin(), bus_arg, "--json=short", "top", "--interval=0.1", NULL };

                g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, die_with_parent, NULL,
                                &pid, NULL, &out_fd, NULL, &error);
                g_assert_no_error(error);
        }
        g_assert_cmpint(fcntl(out_fd, F_SETFL, O_NONBLOCK), ==, 0);
        for (deadline = g_get_monotonic_time() + WAIT_USEC; lines < 3;) {
                char buf[4096];
                ssize_t n;

                pump(&s, 20000);
                while ((n = read(out_fd, buf, sizeof buf)) > 0)
                        g_string_append_len(out, buf, n);
                lines = 0;
                for (const char *p = out->str; (p = strchr(p, '\n')); p++)
                        lines++;
                if (g_get_monotonic_time() >= deadline)
                        g_error("top --json printed %u documents: %s", lines, out->str);
        }
        /* Each line a whole document; the daemon was asked once to watch, and read again per sample. */
        {
                g_auto(GStrv) docs = g_strsplit(out->str, "\n", -1);

                for (unsigned i = 0; i < 3; i++) {
                        g_autoptr(json_object) doc = json_tokener_parse(docs[i]);

                        assert_json_valid(docs[i]);
                        g_assert_nonnull(doc);
                        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "processes")), ==, 3);
                }
        }
        g_assert_cmpuint(s.n_watch, ==, 1);
        g_assert_cmpuint(s.n_list_processes, >=, 3);

        kill(pid, SIGTERM);
        for (deadline = g_get_monotonic_time() + WAIT_USEC; waitpid(pid, &status, WNOHANG) != pid;) {
                pump(&s, 20000);
                if (g_get_monotonic_time() >= deadline)
                        g_error("top --json did not end on SIGTERM");
        }
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_spawn_close_pid(pid);
        close(out_fd);
        g_string_free(out, TRUE);
        stand_in_stop(&s);
}

/* A daemon without WatchUsage (and without ListGpuSensors: an older one) is read at top's own interval. */
static void test_once_without_watch(void)
{
        g_autofree char *out = NULL;
        StandIn s;

        if (!stand_in_start(&s, false))
                return;
        g_assert_cmpint(run_ctl(&s, &out, "top", "--once", NULL), ==, 0);
        g_assert_nonnull(strstr(out, "glxgears"));
        g_assert_null(strstr(out, "  sensors "));
        g_assert_cmpuint(s.n_list_processes, ==, 1);
        stand_in_stop(&s);
}

static void test_needs_terminal(void)
{
        g_autofree char *out = NULL;
        StandIn s;

        if (!stand_in_start(&s, true))
                return;
        /* stdout is a pipe here. */
        g_assert_cmpint(run_ctl(&s, &out, "top", NULL), ==, 2);
        g_assert_cmpuint(s.n_watch, ==, 0);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&s, &out, "status", "--once", NULL), ==, 2);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&s, &out, "top", "--sort=bogus", NULL), ==, 2);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&s, &out, "top", "--once", "--group=pid", NULL), ==, 2);
        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&s, &out, "status", "--group=user", NULL), ==, 2);
        g_assert_cmpuint(s.n_watch, ==, 0);
        stand_in_stop(&s);
}

static void serve_pump(void *userdata, gint64 usec)
{
        pump(userdata, usec);
}

static void test_tmux(void)
{
        g_autofree char *pane = NULL, *title = NULL, *bar = NULL;
        StandIn s;
        Pane p;

        if (!have_tmux() || !stand_in_start(&s, true))
                return;
        pane_start(&p, s.dir, s.bus.address, "--interval=0.2", serve_pump, &s);

        /* What a person sees: the devices with a bar per engine, the processes with their profile. */
        pane = wait_pane(&p, "glxgears");
        g_test_message("%s", pane);
        g_assert_nonnull(strstr(
                        pane, "2 devices  3 processes  every 0.2s  sort: gpu  (gmpcr: sort, au: group, q: quit)"));
        g_assert_nonnull(strstr(pane, "0000:00:02.0  i915  drm-fdinfo  active  3 clients"));
        g_assert_nonnull(strstr(pane, "4242 root     0000:00:02.0   62.5 render      8.0 MiB Game Profile"));
        g_assert_nonnull(strstr(pane, "PID USER     DEVICE"));
        bar = line_with(pane, "  render ");
        g_assert_nonnull(bar);
        g_assert_nonnull(strstr(bar, "[|||||||||||||||||||||||||||||||||||||||||||||||||"));
        g_assert_cmpuint(strlen(g_strchomp(bar)), ==, 100);
        /* By GPU: glxgears (62.5) above blender (10.0). */
        g_assert_true(strstr(pane, "glxgears") < strstr(pane, "blender"));
        /* Names that carry terminal controls are shown escaped, and took nothing over. */
        g_assert_nonnull(strstr(pane, "evil\\x1b]0~"));
        g_assert_nonnull(strstr(pane, "u\\x1b]0;PWNED"));
        title = tmux(&p, "display-message", "-p", "-t", "top", "#{pane_title}", NULL);
        g_assert_null(strstr(title, "PWNED"));
        /* It watches, at its interval. */
        g_assert_cmpuint(s.n_watch, ==, 1);
        g_assert_cmpuint(s.watch_interval, ==, 200000);
        g_clear_pointer(&pane, g_free);

        /* Sensors under each device, and the busiest engine's history growing from the right, a column per
         * 60/74 s. */
        pane = wait_pane_all(&p, (const char *const[]){ "  history    [", "▅▅▅] max  62.5%", "▂▂▂] max  10.0%", NULL });
        g_test_message("%s", pane);
        g_assert_nonnull(strstr(pane, "  sensors    edge\\x1b]0;PWNED\\a\\x1b[31m 45°C  PPT 12.5/35 W  fan 1250 rpm"));
        g_assert_nonnull(strstr(pane, "  sensors    -2°C  118.5/200 W  gfx 2475 MHz  mem 10501 MHz  fan 40%"));
        g_assert_true(strstr(pane, "  sensors    edge") < strstr(pane, "  history ") &&
                        strstr(pane, "  history ") < strstr(pane, "  render "));
        g_clear_pointer(&pane, g_free);

        /* A sort key: by memory, blender (512 MiB) comes first. */
        g_free(tmux(&p, "send-keys", "-t", "top", "m", NULL));
        pane = wait_pane(&p, "sort: memory");
        g_assert_true(strstr(pane, "blender") < strstr(pane, "glxgears"));
        g_clear_pointer(&pane, g_free);

        /* A narrower window: bars shrink to the width, the table drops USER and ENGINE. */
        g_free(tmux(&p, "resize-window", "-t", "top", "-x", "60", "-y", "20", NULL));
        pane = wait_pane(&p, "PID DEVICE");
        g_test_message("%s", pane);
        g_clear_pointer(&bar, g_free);
        bar = line_with(pane, "  render ");
        g_assert_cmpuint(strlen(g_strchomp(bar)), ==, 60);
        g_assert_true(g_str_has_suffix(bar, "]  62.5%"));
        g_assert_null(strstr(pane, "USER"));
        g_clear_pointer(&bar, g_free);
        bar = line_with(pane, "Game");
        g_assert_nonnull(bar);
        g_assert_true(strstr(pane, "blender") < strstr(pane, "glxgears"));

        pane_quit(&p);
        pane_stop(&p);
        stand_in_stop(&s);
}

/* The pid of top in the pane: the child of the pane's shell. */
static pid_t pane_top_pid(Pane *p)
{
        g_autofree char *shell = tmux(p, "display-message", "-p", "-t", "top", "#{pane_pid}", NULL);
        g_autofree char *children_path = NULL, *children = NULL;

        children_path = g_strdup_printf("/proc/%d/task/%d/children", atoi(shell), atoi(shell));
        g_assert_true(g_file_get_contents(children_path, &children, NULL, NULL));
        g_assert_cmpint(atoi(children), >, 0);
        return atoi(children);
}

/* Whether sig is pending for pid (for the process or its thread): it arrived and waits, blocked. */
static bool signal_pending(pid_t pid, int sig)
{
        g_autofree char *path = g_strdup_printf("/proc/%d/status", pid), *status = NULL;
        g_auto(GStrv) lines = NULL;
        bool pending = false;

        if (!g_file_get_contents(path, &status, NULL, NULL))
                return false;
        lines = g_strsplit(status, "\n", -1);
        for (char **l = lines; *l; l++)
                if (g_str_has_prefix(*l, "SigPnd:") || g_str_has_prefix(*l, "ShdPnd:"))
                        pending |= (g_ascii_strtoull(strchr(*l, ':') + 1, NULL, 16) >> (sig - 1)) & 1;
        return pending;
}

/* Lets top start a read (one announced sample) and keeps the reply back: returns once its call waits on
 * the stand-in's connection, unanswered. */
static void hold_next_call(StandIn *s)
{
        struct pollfd pfd = { .fd = sd_bus_get_fd(s->conn), .events = POLLIN };

        g_assert_cmpint(write(s->watch_write, "s", 1), ==, 1);
        g_assert_cmpint(poll(&pfd, 1, (int) (WAIT_USEC / 1000)), ==, 1);
}

/* Waits until sig is pending for top, blocked while its call waits; fails when top ended instead. */
static void assert_signal_waits(Pane *p, pid_t pid, int sig)
{
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC; !signal_pending(pid, sig); g_usleep(10000)) {
                g_autofree char *status = NULL;

                if (g_file_get_contents(p->status_file, &status, NULL, NULL))
                        g_error("top ended on signal %d during a call: %s", sig, status);
                if (g_get_monotonic_time() >= deadline)
                        g_error("signal %d never reached top", sig);
        }
}

/* A signal that arrives while top waits for the daemon's reply (a resize: SIGWINCH; SIGTERM) is handled
 * once the reply is in, not taken as a failure of the call ("Interrupted system call"). Deterministic:
 * the stand-in holds the reply back until the signal is known to be pending. */
static void test_tmux_signal_in_call(void)
{
        g_autofree char *pane = NULL, *status = NULL;
        StandIn s;
        Pane p;
        pid_t pid;

        if (!have_tmux() || !stand_in_start(&s, true))
                return;
        pane_start(&p, s.dir, s.bus.address, "--interval=0.2", serve_pump, &s);
        pane = wait_pane(&p, "glxgears");
        g_clear_pointer(&pane, g_free);
        pid = pane_top_pid(&p);

        /* A resize during the call: afterwards top goes on, drawn at the new width. */
        hold_next_call(&s);
        g_free(tmux(&p, "resize-window", "-t", "top", "-x", "60", "-y", "20", NULL));
        assert_signal_waits(&p, pid, SIGWINCH);
        pane = wait_pane(&p, "PID DEVICE");
        g_assert_null(strstr(pane, "Interrupted"));
        g_clear_pointer(&pane, g_free);

        /* SIGTERM during the call: top ends as on q, with status 0 and the terminal restored. */
        hold_next_call(&s);
        g_assert_cmpint(kill(pid, SIGTERM), ==, 0);
        assert_signal_waits(&p, pid, SIGTERM);
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC;; pump(&s, 50000)) {
                if (g_file_get_contents(p.status_file, &status, NULL, NULL) && strstr(status, "\n"))
                        break;
                g_clear_pointer(&status, g_free);
                if (g_get_monotonic_time() >= deadline)
                        g_error("top did not end on SIGTERM");
        }
        g_assert_cmpstr(status, ==, "exit status 0\n");
        pane = tmux(&p, "capture-pane", "-p", "-t", "top", NULL);
        g_assert_null(strstr(pane, "top stopped"));

        pane_stop(&p);
        stand_in_stop(&s);
}

/* Its fdinfo (tests/drm/usage-fixture.h); its fd 3 is a link to /dev/null, a DRM node for DrmMajor=1. */
#define GAME_FDINFO                                                                                 \
        "fdinfo 4242 3 keys drm-driver=i915 drm-pdev=0000:00:02.0 drm-client-id=11 "                \
        "drm-engine-render=%" G_GUINT64_FORMAT "_ns drm-engine-copy=0_ns drm-total-system0=64_MiB " \
        "drm-resident-system0=48_MiB\n"

static void game_fixture(ITest *t, const char *script)
{
        g_autofree char *error = NULL;

        if (usage_fixture_apply(script, t->proc, NULL, "/nonexistent", 0, &error) < 0)
                g_error("fixture: %s", error);
}

/* The real daemon over a fixture /proc: a game in a service with its profile, whose render counter
 * advances by half of each interval, so the daemon's own sampling and math fill half the bar. */
typedef struct Game {
        ITest *t;
        uint64_t render_ns;
        gint64 last_usec;
} Game;

static void game_render(void *userdata, gint64 usec)
{
        Game *g = userdata;
        gint64 now = g_get_monotonic_time();

        if (g->last_usec > 0) {
                g_autofree char *fdinfo = NULL;

                g->render_ns += (uint64_t) (now - g->last_usec) * 1000 / 2;
                fdinfo = g_strdup_printf(GAME_FDINFO, g->render_ns);
                game_fixture(g->t, fdinfo);
        }
        g->last_usec = now;
        g_usleep((gulong) usec);
}

/* The fixture moves only when the test applies a step. */
static void game_render_none(void *userdata, gint64 usec)
{
        g_usleep((gulong) usec);
}

static const char rules[] = "{ \"profiles\": [ { \"name\": \"Game Profile\", \"settings\": [ { \"key\": "
                            "\"GLSharpenValue\", \"value\": 50 } ] } ],\n"
                            "  \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": \"Game Profile\" } ] }\n";

static void test_tmux_daemon(void)
{
        g_autofree char *pane = NULL, *bar = NULL, *row = NULL;
        Game g = { 0 };
        ITest t;
        Pane p;

        if (!have_tmux())
                return;
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, "etc/nvidia/nvidia-application-profiles-rc", rules);
        g.t = &t;
        itest_fixture_process(&t, 4242, 1000, getuid(), "glxgears", "/usr/bin/glxgears", NULL);
        {
                g_autofree char *first = g_strdup_printf(GAME_FDINFO, (guint64) 0);
                g_autofree char *dir = g_strdup_printf("%s/4242", t.proc);

                test_symlink("/dev/null", dir, "fd/3");
                game_fixture(&t, first);
                test_write_file(dir, "cgroup", "0::/system.slice/glxgears.service\n");
        }
        itest_start_daemon(&t, "[Usage]\nDrmMajor=1\nNVML=no\n");

        pane_start(&p, t.dir, t.bus_address, "--interval=0.2", game_render, &g);
        pane = wait_pane_all(&p,
                        (const char *const[]){
                                        "Game Profile", "0000:00:02.0  i915  drm-fdinfo", "system0 48.0 MiB", NULL });
        g_test_message("%s", pane);
        g_assert_nonnull(strstr(pane, "0000:00:02.0  i915  drm-fdinfo"));
        g_assert_nonnull(strstr(pane, "system0 48.0 MiB"));
        row = line_with(pane, "glxgears");
        g_assert_nonnull(strstr(row, "4242 "));
        g_assert_nonnull(strstr(row, "0000:00:02.0"));
        g_assert_nonnull(strstr(row, "48.0 MiB Game Profile"));
        g_clear_pointer(&pane, g_free);

        /* The bar: about half of its 78 columns once the daemon has two samples. */
        pane = wait_pane(&p, "|||||||||||||||||||||||||||||");
        bar = line_with(pane, "  render ");
        g_test_message("%s", pane);
        g_assert_cmpuint(strlen(g_strchomp(bar)), ==, 100);
        g_assert_null(strstr(bar, "||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||"));

        pane_quit(&p);
        pane_stop(&p);
        itest_stop_daemon(&t, NULL);
        itest_teardown(&t);
}

/* Grouped rows on the real daemon: two processes of one Flatpak app in two scopes, a service of another
 * user and an nspawn machine's payload, with scripted counters and the fixture clock, so every figure is
 * fixed once step 2 is read. */
static const char groups_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n" USAGE_FIXTURE_HWMON_AMDGPU
                "fd 300 5 /dev/full\n"
                "fd 301 5 /dev/full\n"
                "fd 302 5 /dev/full\n"
                "fd 303 5 /dev/full\n"
                "cgroup 300 /user.slice/user-0.slice/user@0.service/app.slice/app-flatpak-org.blender.Blender-81.scope\n"
                "cgroup 301 /user.slice/user-0.slice/user@0.service/app.slice/app-flatpak-org.blender.Blender-82.scope\n"
                "cgroup 302 /system.slice/ollama.service\n"
                "cgroup 303 /machine.slice/machine-fedora\\x2d40.scope/payload\n"
                "step 1\n"
                "fdinfo 300 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=61 drm-engine-gfx=0_ns drm-resident-vram=1_KiB\n"
                "fdinfo 301 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=62 drm-engine-gfx=0_ns drm-resident-vram=2_KiB\n"
                "fdinfo 302 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=63 drm-engine-gfx=0_ns drm-resident-vram=8_KiB\n"
                "fdinfo 303 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=64 drm-engine-gfx=0_ns drm-resident-vram=16_KiB\n"
                "clock 1000000\n"
                "step 2\n"
                "fdinfo 300 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=61 drm-engine-gfx=250000000_ns drm-resident-vram=1_KiB\n"
                "fdinfo 301 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=62 drm-engine-gfx=125000000_ns drm-resident-vram=2_KiB\n"
                "fdinfo 302 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=63 drm-engine-gfx=500000000_ns drm-resident-vram=8_KiB\n"
                "fdinfo 303 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=64 drm-engine-gfx=0_ns drm-resident-vram=16_KiB\n"
                "clock 2000000\n";

typedef struct DaemonGroup {
        char *key;
        uint32_t processes;
        double busy; /* the busiest engine's */
        uint64_t bytes;
} DaemonGroup;

/* The daemon's ListGpuGroups(by), as the test's own call reads it; returns how many groups. */
static size_t daemon_groups(sd_bus *bus, const char *by, DaemonGroup groups[static 8])
{
        sd_bus_message *reply = NULL;
        const char *key, *device, *source, *what;
        size_t n = 0;
        uint32_t processes;
        uint64_t bytes;
        double busy;

        g_assert_cmpint(sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "ListGpuGroups", NULL,
                                        &reply, "s", by),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sua(sssd)a(ssst))"), >=, 0);
        while (sd_bus_message_enter_container(reply, 'r', "sua(sssd)a(ssst)") > 0) {
                DaemonGroup *g = &groups[n++];

                g_assert_cmpuint(n, <=, 8);
                g_assert_cmpint(sd_bus_message_read(reply, "su", &key, &processes), >=, 0);
                *g = (DaemonGroup){ .key = g_strdup(key), .processes = processes, .busy = -1 };
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssd)"), >=, 0);
                while (sd_bus_message_read(reply, "(sssd)", &device, &source, &what, &busy) > 0) {
                        g_assert_cmpstr(device, ==, "0000:03:00.0"); /* one device: one row per group */
                        g->busy = MAX(g->busy, busy);
                }
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(ssst)"), >=, 0);
                while (sd_bus_message_read(reply, "(ssst)", &device, &source, &what, &bytes) > 0)
                        g->bytes += bytes;
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        sd_bus_message_unref(reply);
        return n;
}

static void daemon_groups_free(DaemonGroup *groups, size_t n)
{
        for (size_t i = 0; i < n; i++)
                g_free(groups[i].key);
}

/* The pane's row of label (as top escapes it: a unit's "\\x2d" shows doubled): "LABEL  PROCS 0000:03:00.0
 * GPU% gfx  MEMORY", the figures the daemon's. */
static void assert_group_row(const char *pane, const char *label, const DaemonGroup *g)
{
        g_auto(GStrv) parts = g_strsplit(label, "\\", -1);
        g_autofree char *escaped = g_strjoinv("\\\\", parts);
        g_autofree char *row = NULL, *figures = NULL, *start = g_strdup_printf("%s ", escaped);

        g_assert_cmpuint(g->bytes, <, 1024 * 1024); /* shown in KiB */
        figures = g_strdup_printf(
                        " %u 0000:03:00.0  %5.1f gfx     %7.1f KiB", g->processes, g->busy, (double) g->bytes / 1024);
        row = line_with(pane, start);
        if (!row || !g_str_has_prefix(row, start) || !strstr(row, figures))
                g_error("no row \"%s...%s\" for the daemon's group %s in:\n%s", start, figures, g->key, pane);
}

/* Presses key; returns the pane once its header says "by BY" and the table's heading starts with column. */
static char *press_group(Pane *p, const char *key, const char *by, const char *column)
{
        g_autofree char *says = g_strdup_printf("4 processes  every 0.2s  sort: gpu  by %s  (gmpcr", by);
        g_autofree char *heading = NULL;
        char *pane;

        g_free(tmux(p, "send-keys", "-t", "top", key, NULL));
        pane = wait_pane(p, says);
        g_test_message("%s", pane);
        heading = line_with(pane, " PROCS DEVICE ");
        g_assert_nonnull(heading);
        g_assert_true(g_str_has_prefix(heading, column));
        return pane;
}

static void test_tmux_daemon_groups(void)
{
        g_autofree char *pane = NULL, *error = NULL;
        DaemonGroup groups[8];
        size_t n;
        ITest t;
        Pane p;

        if (!have_tmux())
                return;
        itest_setup(&t);
        itest_use_fixture_proc(&t);
        t.sys = g_build_filename(t.dir, "sys", NULL);
        g_assert_cmpint(g_mkdir_with_parents(t.sys, 0755), ==, 0);
        itest_fixture_process(&t, 300, 3000, getuid(), "blender", "/app/bin/blender", NULL);
        itest_fixture_process(&t, 301, 3001, getuid(), "blender", "/app/bin/blender", NULL);
        itest_fixture_process(&t, 302, 3002, 65534, "ollama", "/usr/bin/ollama", NULL);
        itest_fixture_process(&t, 303, 3003, getuid(), "python3", "/usr/bin/python3", NULL);
        for (unsigned step = 0; step <= 1; step++)
                if (usage_fixture_apply(groups_script, t.proc, t.sys, "/nonexistent", step, &error) < 0)
                        g_error("fixture: %s", error);
        itest_start_daemon(&t, "[Usage]\nDrmMajor=1\nAccelMajor=4095\nNVML=no\nPCIIDs=" PCI_IDS_FIXTURE "\n");

        pane_start(&p, t.dir, t.bus_address, "--interval=0.2", game_render_none, NULL);
        /* The card's product name (pci.ids), its hwmon sensors, its history line (a frame may come before
         * the sample that read them). */
        pane = wait_pane_all(&p,
                        (const char *const[]){ "python3",
                                        "0000:03:00.0  amdgpu  Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]  drm-fdinfo",
                                        "\n  sensors    edge 45°C  junction 52°C  PPT 120.0/255 W  sclk 2100 MHz  mclk "
                                        "1000 MHz  fan 1250 rpm\n",
                                        "\n  history    [", NULL });
        g_clear_pointer(&pane, g_free);
        if (usage_fixture_apply(groups_script, t.proc, t.sys, "/nonexistent", 2, &error) < 0)
                g_error("fixture: %s", error);
        pane = wait_pane(&p, " 25.0 gfx");
        g_clear_pointer(&pane, g_free);

        /* a: a row per application, the daemon's totals; the header says so. */
        pane = press_group(&p, "a", "application", "APPLICATION ");
        n = daemon_groups(t.bus, "application", groups);
        g_assert_cmpuint(n, ==, getuid() == 0 ? 3 : 2);
        for (size_t i = 0; i < n; i++)
                assert_group_row(pane, groups[i].key, &groups[i]);
        /* What those figures are: the Flatpak's two scopes are one application of 25 % + 12.5 %. */
        g_assert_cmpstr(groups[0].key, ==, "machine-fedora\\x2d40.scope");
        g_assert_cmpstr(groups[n - 1].key, ==, "org.blender.Blender");
        g_assert_cmpuint(groups[n - 1].processes, ==, 2);
        g_assert_cmpfloat(groups[n - 1].busy, ==, 37.5);
        g_assert_cmpuint(groups[n - 1].bytes, ==, 3072);
        /* By GPU: ollama (50 %) above the Flatpak above the idle machine. */
        g_assert_true(strstr(pane, "ollama.service ") < strstr(pane, "org.blender.Blender "));
        g_assert_true(strstr(pane, "org.blender.Blender ") < strstr(pane, "machine-fedora"));
        g_assert_null(strstr(pane, "PID"));
        daemon_groups_free(groups, n);
        g_clear_pointer(&pane, g_free);

        /* u: a row per user, by name. */
        pane = press_group(&p, "u", "user", "USER ");
        n = daemon_groups(t.bus, "user", groups);
        for (size_t i = 0; i < n; i++) {
                g_autofree char *uid_key = g_strdup_printf("%u", (unsigned) getuid());
                struct passwd *pw = getpwuid((uid_t) atoi(groups[i].key));

                assert_group_row(pane, pw ? pw->pw_name : groups[i].key, &groups[i]);
                if (g_str_equal(groups[i].key, uid_key)) {
                        g_assert_cmpuint(groups[i].processes, ==, 3);
                        g_assert_cmpuint(groups[i].bytes, ==, 19456);
                }
        }
        daemon_groups_free(groups, n);
        g_clear_pointer(&pane, g_free);

        /* u again: processes, as before. */
        g_free(tmux(&p, "send-keys", "-t", "top", "u", NULL));
        pane = wait_pane(&p, "PID USER     DEVICE");
        g_assert_null(strstr(pane, " by "));
        g_assert_nonnull(strstr(pane, "python3"));

        pane_quit(&p);
        pane_stop(&p);
        itest_stop_daemon(&t, NULL);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        /* The stand-in writes to watch descriptors whose reader may have quit. */
        (void) signal(SIGPIPE, SIG_IGN);
        g_test_add_func("/top/once-json", test_once_json);
        g_test_add_func("/top/once-text", test_once_text);
        g_test_add_func("/top/once-without-watch", test_once_without_watch);
        g_test_add_func("/top/json-stream", test_json_stream);
        g_test_add_func("/top/needs-terminal", test_needs_terminal);
        g_test_add_func("/top/tmux", test_tmux);
        g_test_add_func("/top/tmux-daemon", test_tmux_daemon);
        g_test_add_func("/top/tmux-daemon-groups", test_tmux_daemon_groups);
        g_test_add_func("/top/tmux-signal-in-call", test_tmux_signal_in_call);
        return g_test_run();
}
