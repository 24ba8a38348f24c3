/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU usage through D-Bus: the real daemon on a private bus over fixture /proc and /sys trees built by
 * tests/drm/usage-fixture.c in steps (shared fds across processes, a counter going backwards, capacity 2,
 * xe cycles, msm maxfreq, a client appearing and one vanishing, an fdinfo the daemon gets EACCES on (it
 * runs without CAP_DAC_OVERRIDE, the file has mode 0000), a suspended device)
 * and the fixture NVML library with one device; the figures each step must give are computed by hand
 * below. Privacy: an unprivileged user the test creates sees device totals and its own processes' usage,
 * never another user's. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "usage-bus.h"
#include "usage-fixture.h"

#define WAIT_MS 20000
#define USER_PREFIX "nvpusage"

/* Everything the Usage interface says, as lines a test can search. */
static void append_regions(sd_bus_message *m, GString *out)
{
        const char *name, *key;
        uint64_t v;

        g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "(sa{st})"), >=, 0);
        while (sd_bus_message_enter_container(m, 'r', "sa{st}") > 0) {
                g_assert_cmpint(sd_bus_message_read(m, "s", &name), >=, 0);
                g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "{st}"), >=, 0);
                while (sd_bus_message_read(m, "{st}", &key, &v) > 0)
                        g_string_append_printf(out, " mem %s.%s=%" G_GUINT64_FORMAT, name, key, v);
                g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
        }
        g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
}

/* The end of a device or client entry: regions, clamped figures. */
static void finish_entry(sd_bus_message *m, GString *out)
{
        uint64_t clamped;

        append_regions(m, out);
        g_assert_cmpint(sd_bus_message_read(m, "t", &clamped), >=, 0);
        g_string_append_printf(out, " clamped=%" G_GUINT64_FORMAT "\n", clamped);
        g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
}

static void dump_devices(sd_bus *bus, GString *out)
{
        sd_bus_message *reply = NULL;
        const char *device, *source, *driver, *slot, *name, *state, *e;
        uint32_t vendor, dev, clients, n;
        double busy, freq;

        reply = usage_bus_call_listing(bus, "ListGpuDevices", "(sssssuuassua(sddu)a(sa{st})t)");
        while (sd_bus_message_enter_container(reply, 'r', "sssssuuassua(sddu)a(sa{st})t") > 0) {
                char **nodes = NULL;

                g_assert_cmpint(sd_bus_message_read(reply, "sssssuu", &device, &source, &driver, &slot, &name, &vendor,
                                                &dev),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_read_strv(reply, &nodes), >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "su", &state, &clients), >=, 0);
                {
                        g_autofree char *joined = nodes ? g_strjoinv(",", nodes) : g_strdup("");
                        g_string_append_printf(out,
                                        "device %s %s driver=%s slot=%s name=%s ids=%04x:%04x nodes=%s state=%s clients=%u",
                                        source, device, driver, slot, name, vendor, dev, joined, state, clients);
                }
                g_strfreev(nodes);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sddu)"), >=, 0);
                while (sd_bus_message_read(reply, "(sddu)", &e, &busy, &freq, &n) > 0)
                        g_string_append_printf(out, " engine %s=%.1f/%.1f/%u", e, busy, freq, n);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                finish_entry(reply, out);
        }
        sd_bus_message_unref(reply);
}

static void dump_clients(sd_bus *bus, GString *out)
{
        sd_bus_message *reply = NULL;
        const char *device, *source, *driver, *name, *e;
        uint64_t id, interval, start, ns, cycles, total;
        uint32_t pid, hidden, capacity;
        int32_t fd;
        double busy, freq;
        int stale;

        reply = usage_bus_call_listing(bus, "ListGpuClients", "(sstssa(uti)uta(suddtttb)a(sa{st})t)");
        while (sd_bus_message_enter_container(reply, 'r', "sstssa(uti)uta(suddtttb)a(sa{st})t") > 0) {
                g_assert_cmpint(sd_bus_message_read(reply, "sstss", &device, &source, &id, &driver, &name), >=, 0);
                g_string_append_printf(out, "client %s %s %" G_GUINT64_FORMAT " driver=%s holders=", source, device, id,
                                driver);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(uti)"), >=, 0);
                while (sd_bus_message_read(reply, "(uti)", &pid, &start, &fd) > 0)
                        g_string_append_printf(out, "%u:%i,", pid, fd);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "ut", &hidden, &interval), >=, 0);
                g_string_append_printf(out, " hidden=%u interval=%" G_GUINT64_FORMAT, hidden, interval);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(suddtttb)"), >=, 0);
                while (sd_bus_message_read(reply, "(suddtttb)", &e, &capacity, &busy, &freq, &ns, &cycles, &total,
                                       &stale) > 0)
                        g_string_append_printf(out, " engine %s=%.1f/%.1f cap=%u", e, busy, freq, capacity);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                finish_entry(reply, out);
        }
        sd_bus_message_unref(reply);
}

static void dump_processes(sd_bus *bus, GString *out)
{
        sd_bus_message *reply = NULL;
        const char *object, *comm, *device, *source;
        uint32_t pid, uid;
        uint64_t start, v;

        reply = usage_bus_call_listing(bus, "ListGpuProcesses", "(outusasa(sst)a(sssd)a(ssst))");
        while (sd_bus_message_enter_container(reply, 'r', "outusasa(sst)a(sssd)a(ssst)") > 0) {
                char **profiles = NULL;

                g_assert_cmpint(sd_bus_message_read(reply, "outus", &object, &pid, &start, &uid, &comm), >=, 0);
                g_assert_cmpint(sd_bus_message_read_strv(reply, &profiles), >=, 0);
                g_strfreev(profiles);
                g_string_append_printf(out, "process %u comm=%s object=%s clients=", pid, comm,
                                g_str_equal(object, "/") ? "none" : "yes");
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sst)"), >=, 0);
                while (sd_bus_message_read(reply, "(sst)", &device, &source, &v) > 0)
                        g_string_append_printf(out, "%s/%" G_GUINT64_FORMAT ",", device, v);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                usage_bus_append_engines_memory(reply, out);
                g_string_append_c(out, '\n');
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        sd_bus_message_unref(reply);
}

static char *dump_all(sd_bus *bus)
{
        GString *out = g_string_new(NULL);

        dump_devices(bus, out);
        dump_clients(bus, out);
        dump_processes(bus, out);
        return g_string_free(out, FALSE);
}

static char *line_of(const char *text, const char *prefix)
{
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

        for (guint i = 0; lines[i]; i++)
                if (g_str_has_prefix(lines[i], prefix))
                        return g_strdup(lines[i]);
        return NULL;
}

static bool shows(ITest *t, const char *prefix, const char *needle)
{
        g_autofree char *text = dump_all(t->bus);
        return usage_bus_has_line(text, prefix, needle);
}

#define C11 "client drm-fdinfo 0000:03:00.0 11 "
#define C12 "client drm-fdinfo 0000:03:00.0 12 "
#define C13 "client drm-fdinfo 0000:03:00.0 13 "
#define C21 "client drm-fdinfo 0000:04:00.0 21 "
#define C31 "client drm-fdinfo ae00000.gpu 31 "

/* Nodes stand on real character devices of major 1 (DrmMajor=1 declares them DRM): /dev/full, /dev/zero,
 * /dev/random, /dev/urandom; processes 100 and 102 are the user's, 101, 103 and 104 root's. */
/* ProcessUsage.GpuEngines of a process object: the busy figure of one engine, -2 when absent. */
static double process_engine(ITest *t, const char *path, const char *device, const char *engine)
{
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *d, *src, *e;
        double busy, found = -2;

        g_assert_cmpint(sd_bus_get_property(t->bus, BUS_NAME, path, BUS_PROCESS_USAGE_INTERFACE, "GpuEngines", &error,
                                        &reply, "a(sssd)"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssd)"), >=, 0);
        while (sd_bus_message_read(reply, "(sssd)", &d, &src, &e, &busy) > 0)
                if (g_str_equal(d, device) && g_str_equal(e, engine))
                        found = busy;
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return found;
}

/* The state of a source in the Sources property ("" when absent). */
static const char *source_state(ITest *t, const char *source)
{
        static char state[32];
        sd_bus_message *reply = NULL;
        const char *name, *st, *message;

        state[0] = '\0';
        g_assert_cmpint(sd_bus_get_property(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "Sources", NULL,
                                        &reply, "a(sss)"),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sss)"), >=, 0);
        while (sd_bus_message_read(reply, "(sss)", &name, &st, &message) > 0)
                if (g_str_equal(name, source))
                        g_strlcpy(state, st, sizeof(state));
        sd_bus_message_unref(reply);
        return state;
}

static const char script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "node renderD129 /dev/zero pci 0000:04:00.0 0x8086 0x56a0 xe\n"
                "node card0 /dev/random platform ae00000.gpu msm\n"
                "node renderD130 /dev/urandom pci 0000:05:00.0 0x1002 0x7480 amdgpu\n"
                "power renderD130 suspended\n"
                "fd 100 5 /dev/full\n"
                "fd 100 6 /dev/zero\n"
                "fd 101 3 /dev/full\n"
                "fd 101 4 /dev/random\n"
                "fd 102 5 /dev/full\n"
                "fd 103 7 /dev/full\n"
                "fdinfo 103 7 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=77 drm-engine-gfx=5_ns\n"
                "denied 103 7\n"
                "fd 104 3 /dev/urandom\n"
                "fdinfo 104 3 keys drm-driver=amdgpu drm-pdev=0000:05:00.0 drm-client-id=99 drm-engine-gfx=1_ns\n"
                "step 1\n"
                "fdinfo 100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1000000000_ns "
                "drm-engine-compute=0_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1000000000_ns "
                "drm-engine-compute=0_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 100 6 keys drm-driver=xe drm-pdev=0000:04:00.0 drm-client-id=21 drm-cycles-rcs=100 "
                "drm-total-cycles-rcs=1000\n"
                "fdinfo 101 4 keys drm-driver=msm drm-client-id=31 drm-engine-gpu=0_ns drm-cycles-gpu=0 "
                "drm-maxfreq-gpu=800_MHz drm-total-memory=4096\n"
                "fdinfo 102 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=12 drm-engine-gfx=5_ns\n"
                "clock 1000000\n"
                "step 2\n"
                "fdinfo 100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1500000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1500000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 100 6 keys drm-driver=xe drm-pdev=0000:04:00.0 drm-client-id=21 drm-cycles-rcs=600 "
                "drm-total-cycles-rcs=2000\n"
                "fdinfo 101 4 keys drm-driver=msm drm-client-id=31 drm-engine-gpu=250000000_ns drm-cycles-gpu=400000000 "
                "drm-maxfreq-gpu=800_MHz drm-total-memory=4096\n"
                "close 102 5\n"
                "fd 102 6 /dev/full\n"
                "fdinfo 102 6 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=13 drm-engine-gfx=7_ns\n"
                "clock 2000000\n"
                "step 3\n"
                "fdinfo 100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1400000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1400000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "clock 3000000\n"
                "step 4\n"
                "fdinfo 100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1700000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 drm-engine-gfx=1700000000_ns "
                "drm-engine-compute=1600000000_ns drm-engine-capacity-compute=2 drm-resident-vram=1024_KiB drm-total-gtt=2048\n"
                "clock 4000000\n";

static const char nvml_script[] =
                "device name=\"NVIDIA RTX A2000\" uuid=GPU-1 bus=00000000:01:00.0 gpu=45 mem=30 used=1000 reserved=24 total=8000\n"
                "compute dev=0 100=536870912\n";

static void apply(ITest *t, unsigned step)
{
        g_autofree char *error = NULL;

        if (usage_fixture_apply(script, t->proc, t->sys, "/nonexistent", step, &error) < 0)
                g_error("fixture script: %s", error);
}

static void test_usage(void)
{
        ITest t;
        g_autofree char *nvml = NULL, *config = NULL, *line = NULL, *root_view = NULL, *user_view = NULL;
        sd_bus_message *reply = NULL;
        ITestUser u;
        uid_t user;
        int watch;

        ITEST_REQUIRE_ROOT("needs root: an unprivileged user to create, and a daemon to drop to it");
        itest_create_user(USER_PREFIX, &u);
        user = u.uid;

        usage_bus_setup_trees(&t);
        itest_fixture_process(&t, 100, 1000, user, "game", "/usr/bin/game", NULL);
        itest_fixture_process(&t, 101, 1001, 0, "compositor", "/usr/bin/compositor", NULL);
        itest_fixture_process(&t, 102, 1002, user, "tool", "/usr/bin/tool", NULL);
        itest_fixture_process(&t, 103, 1003, 0, "secret", "/usr/bin/secret", NULL);
        itest_fixture_process(&t, 104, 1004, 0, "sleeper", "/usr/bin/sleeper", NULL);
        apply(&t, 0);
        apply(&t, 1);

        nvml = g_build_filename(t.dir, "nvml.script", NULL);
        g_assert_true(g_file_set_contents(nvml, nvml_script, -1, NULL));
        g_setenv("NVPROFILED_NVML_FIXTURE_SCRIPT", nvml, TRUE);
        config = g_strdup_printf("[Usage]\nDrmMajor=1\nAccelMajor=4095\nMinIntervalSec=10ms\nRescanIntervalSec=100ms\n"
                                 "NVMLLibrary=%s\nPCIIDs=/nonexistent/pci.ids\n",
                        g_getenv("NVPROFILED_NVML_FIXTURE"));
        /* No PCI ID database: DRM devices have no name (test-usage-sensors.c has one). Root without
         * CAP_DAC_OVERRIDE: process 103's fdinfo (mode 0000) is a real EACCES to it. */
        t.without_dac_override = true;
        itest_start_daemon(&t, config);
        t.without_dac_override = false;
        {
                g_autofree char *status_path = g_strdup_printf("/proc/%i/status", (int) t.daemon_pid);
                g_autofree char *status = NULL;
                const char *cap;

                g_assert_true(g_file_get_contents(status_path, &status, NULL, NULL));
                cap = strstr(status, "CapEff:");
                g_assert_nonnull(cap);
                /* CAP_DAC_OVERRIDE (1) and CAP_DAC_READ_SEARCH (2) are gone, CAP_NET_ADMIN (12) stays. */
                g_assert_cmpuint(g_ascii_strtoull(cap + 7, NULL, 16) & 0x6, ==, 0);
                g_assert_cmpuint(g_ascii_strtoull(cap + 7, NULL, 16) & (1u << 12), !=, 0);
        }

        /* Nobody watches: no sampling, and NVML is not even loaded (it could hold a GPU awake). */
        g_assert_false(shows(&t, "client", NULL));
        g_assert_cmpstr(source_state(&t, "nvml"), ==, "idle");

        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL,
                                        &reply, "t", (uint64_t) 20000),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "h", &watch), >=, 0);
        watch = fcntl(watch, F_DUPFD_CLOEXEC, 3);
        g_assert_cmpint(watch, >=, 0);
        sd_bus_message_unref(reply);

        ITEST_WAIT_FOR(g_str_equal(source_state(&t, "nvml"), "ready"), WAIT_MS);
        g_assert_cmpstr(source_state(&t, "nvml"), ==, "ready");
        g_assert_cmpstr(source_state(&t, "drm-fdinfo"), ==, "ready");

        /* Step 1: every client once, no utilisation yet. */
        ITEST_WAIT_FOR(shows(&t, C12, NULL) && shows(&t, C31, NULL) && shows(&t, C21, NULL), WAIT_MS);
        root_view = dump_all(t.bus);
        g_test_message("step 1:\n%s", root_view);
        g_assert_true(usage_bus_has_line(
                        root_view, C11, "holders=100:5,101:3, hidden=0 interval=0 engine gfx=-1.0/-1.0 cap=1"));
        g_assert_true(usage_bus_has_line(root_view, C11, "mem vram.resident=1048576"));
        g_assert_true(usage_bus_has_line(root_view, C11, "mem gtt.total=2048"));
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo 0000:03:00.0",
                        "driver=amdgpu slot=0000:03:00.0 name= ids=1002:73bf nodes=renderD128 state=active clients=2"));
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo ae00000.gpu", "driver=msm slot= "));
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo 0000:05:00.0", "state=suspended clients=0"));
        g_assert_false(usage_bus_has_line(root_view, "client drm-fdinfo 0000:05:00.0", NULL)); /* never read */
        {
                /* ...and the daemon says why. */
                g_autofree char *log = g_build_filename(t.dir, "daemon.log", NULL), *text = NULL;
                g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
                g_assert_nonnull(strstr(text, "GPU 0000:05:00.0 (renderD130) is runtime-suspended"));
        }
        g_assert_true(usage_bus_has_line(root_view, "device nvml 0000:01:00.0", "name=NVIDIA RTX A2000"));
        g_assert_true(usage_bus_has_line(root_view, "client nvml 0000:01:00.0 100 ", "holders=100:-1,"));

        /* Step 2: 0.5 s of gfx in 1 s; 1.6 s of compute over 2 engines; xe 500 of 1000 cycles; msm 0.25 s
         * busy and 400M cycles at 800 MHz; client 12 gone, client 13 new. */
        apply(&t, 2);
        ITEST_WAIT_FOR(shows(&t, C13, NULL) && !shows(&t, C12, NULL) && shows(&t, C11, "gfx=50.0"), WAIT_MS);
        g_free(root_view);
        root_view = dump_all(t.bus);
        g_test_message("step 2:\n%s", root_view);
        g_assert_true(usage_bus_has_line(
                        root_view, C11, "interval=1000000 engine gfx=50.0/-1.0 cap=1 engine compute=80.0/-1.0 cap=2"));
        g_assert_true(usage_bus_has_line(root_view, C21, "engine rcs=50.0/-1.0"));
        g_assert_true(usage_bus_has_line(root_view, C31, "engine gpu=25.0/50.0 cap=1 mem memory.total=4096"));
        g_assert_true(usage_bus_has_line(root_view, C13, "holders=102:6, hidden=0 interval=0 engine gfx=-1.0/-1.0"));
        g_assert_false(usage_bus_has_line(root_view, C12, NULL));
        /* Device sums: client 13 has no figure yet. */
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo 0000:03:00.0", "clients=2 "));
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo 0000:03:00.0", "engine gfx=50.0/-1.0/2"));
        g_assert_true(usage_bus_has_line(root_view, "device drm-fdinfo 0000:03:00.0", "engine compute=80.0/-1.0/1"));
        g_assert_true(usage_bus_has_line(root_view, "process 100 ", "engine 0000:03:00.0/gfx=50.0"));
        g_assert_true(usage_bus_has_line(root_view, "process 100 ", "mem 0000:03:00.0/vram=1048576"));
        g_assert_true(usage_bus_has_line(root_view, "process 100 ", "mem 0000:01:00.0/vram=536870912"));
        g_assert_true(usage_bus_has_line(root_view, "process 101 ", "engine 0000:03:00.0/gfx=50.0"));
        g_assert_true(usage_bus_has_line(root_view, "process 101 ", "engine ae00000.gpu/gpu=25.0"));
        {
                uint32_t unreadable = 0;
                g_assert_cmpint(sd_bus_get_property_trivial(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE,
                                                "UnreadableFds", NULL, 'u', &unreadable),
                                >=, 0);
                g_assert_cmpuint(unreadable, ==, 1);
        }
        /* The EACCES fd's client is not listed with made-up figures: it is not listed at all. */
        g_assert_false(usage_bus_has_line(root_view, "client drm-fdinfo 0000:03:00.0 77 ", NULL));
        g_assert_false(usage_bus_has_line(root_view, "process 103 ", NULL));

        /* Privacy: the user sees device totals as root does, its own processes' clients with the other
         * holders hidden, and nothing of root's processes. */
        user_view = usage_bus_dump_as(&t, &u, dump_all);
        g_test_message("as the user:\n%s", user_view);
        g_assert_true(usage_bus_has_line(user_view, "device drm-fdinfo 0000:03:00.0", "engine gfx=50.0/-1.0/2"));
        g_assert_true(usage_bus_has_line(user_view, "device drm-fdinfo ae00000.gpu", "engine gpu=25.0/50.0/1"));
        g_assert_true(usage_bus_has_line(user_view, C11, "holders=100:5, hidden=1 "));
        g_assert_true(usage_bus_has_line(user_view, C21, NULL));
        g_assert_true(usage_bus_has_line(user_view, C13, NULL));
        g_assert_false(usage_bus_has_line(user_view, C31, NULL));
        g_assert_false(usage_bus_has_line(user_view, "process 101 ", NULL));
        g_assert_false(usage_bus_has_line(user_view, "process 103 ", NULL));
        g_assert_false(strstr(user_view, "101:"));
        g_assert_false(strstr(user_view, "compositor"));
        g_assert_true(usage_bus_has_line(user_view, "process 100 ", NULL));

        /* The process objects carry the same figures (their owner and root see them). */
        g_assert_cmpfloat(process_engine(&t, BUS_PROCESS_PREFIX "/100_1000", "0000:03:00.0", "gfx"), ==, 50.0);
        g_assert_cmpfloat(process_engine(&t, BUS_PROCESS_PREFIX "/101_1001", "ae00000.gpu", "gpu"), ==, 25.0);

        /* Step 3: gfx goes backwards: 0 % this interval, the larger value stays the baseline. */
        apply(&t, 3);
        ITEST_WAIT_FOR(shows(&t, C11, "interval=1000000 engine gfx=0.0"), WAIT_MS);
        g_assert_true(shows(&t, C11, "engine gfx=0.0/-1.0 cap=1 engine compute=0.0/-1.0 cap=2"));

        /* Step 4: 0.2 s more than the baseline of step 2, over the 2 s since it. */
        apply(&t, 4);
        ITEST_WAIT_FOR(shows(&t, C11, "engine gfx=10.0"), WAIT_MS);
        g_free(line);
        {
                g_autofree char *text = dump_all(t.bus);
                line = line_of(text, C11);
        }
        g_test_message("step 4: %s", line);
        g_assert_nonnull(strstr(line, "engine gfx=10.0/-1.0"));

        /* Watches are bounded per user (WatchersPerUser=16; root's one is open already). */
        {
                int extra[16];
                sd_bus_error error = SD_BUS_ERROR_NULL;

                for (unsigned i = 0; i < 15; i++) {
                        g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE,
                                                        "WatchUsage", NULL, &reply, "t", (uint64_t) 0),
                                        >=, 0);
                        g_assert_cmpint(sd_bus_message_read(reply, "h", &extra[i]), >=, 0);
                        extra[i] = fcntl(extra[i], F_DUPFD_CLOEXEC, 3);
                        sd_bus_message_unref(reply);
                }
                g_assert_cmpint(sd_bus_call_method(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage",
                                                &error, &reply, "t", (uint64_t) 0),
                                <, 0);
                g_assert_cmpstr(error.name, ==, BUS_ERROR_LIMITS_EXCEEDED);
                sd_bus_error_free(&error);
                for (unsigned i = 0; i < 15; i++)
                        close(extra[i]);
        }

        /* The watch ends when its descriptor closes: sampling stops. */
        close(watch);
        {
                uint64_t interval = 1;
                for (int i = 0; i < 500 && interval != 0; i++) {
                        g_usleep(20 * 1000);
                        g_assert_cmpint(sd_bus_get_property_trivial(t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE,
                                                        "SampleInterval", NULL, 't', &interval),
                                        >=, 0);
                }
                g_assert_cmpuint(interval, ==, 0);
        }
        g_assert_cmpstr(source_state(&t, "nvml"), ==, "idle");

        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/usage/fixture-through-dbus", test_usage);
        return g_test_run();
}
