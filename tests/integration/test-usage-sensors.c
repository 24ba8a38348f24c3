/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Usage.ListGpuSensors and the product names of ListGpuDevices: the real daemon on a private bus over a
 * fixture /sys with two amdgpu cards whose hwmon has files (one of them runtime-suspended), and the fixture
 * NVML with two devices with sensors (one runtime-suspended), and a crafted pci.ids ([Usage] PCIIDs=).
 * Every reading is checked exactly; the suspended devices have none, and the suspended card's hwmon is
 * never opened while the other's is (inotify); an unprivileged user the test creates sees the same. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "usage-bus.h"
#include "usage-fixture.h"

#define WAIT_MS 20000
#define USER_PREFIX "nvpsensor"

static char *dump_sensors(sd_bus *bus)
{
        GString *out = g_string_new(NULL);
        sd_bus_message *reply = usage_bus_call_listing(bus, "ListGpuSensors", "(ssa(sssd))");
        const char *device, *source, *sensor, *label, *unit;
        double value;

        while (sd_bus_message_enter_container(reply, 'r', "ssa(sssd)") > 0) {
                g_assert_cmpint(sd_bus_message_read(reply, "ss", &device, &source), >=, 0);
                g_string_append_printf(out, "sensors %s %s:", source, device);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssd)"), >=, 0);
                while (sd_bus_message_read(reply, "(sssd)", &sensor, &label, &unit, &value) > 0)
                        g_string_append_printf(out, " %s/%s/%s=%g", sensor, label, unit, value);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                g_string_append_c(out, '\n');
        }
        sd_bus_message_unref(reply);
        return g_string_free(out, FALSE);
}

/* device -> name of ListGpuDevices, as "source device name=NAME" lines. */
static char *dump_names(sd_bus *bus)
{
        GString *out = g_string_new(NULL);
        sd_bus_message *reply = usage_bus_call_listing(bus, "ListGpuDevices", "(sssssuuassua(sddu)a(sa{st})t)");
        const char *device, *source, *driver, *slot, *name;

        while (sd_bus_message_enter_container(reply, 'r', "sssssuuassua(sddu)a(sa{st})t") > 0) {
                g_assert_cmpint(sd_bus_message_read(reply, "sssss", &device, &source, &driver, &slot, &name), >=, 0);
                g_string_append_printf(out, "%s %s name=%s\n", source, device, name);
                g_assert_cmpint(sd_bus_message_skip(reply, "uuassua(sddu)a(sa{st})t"), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        sd_bus_message_unref(reply);
        return g_string_free(out, FALSE);
}

static const char script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n" USAGE_FIXTURE_HWMON_AMDGPU
                "node renderD130 /dev/urandom pci 0000:05:00.0 0x1002 0x7480 amdgpu\n"
                "hwmon renderD130 temp1_input 30000\n"
                "hwmon renderD130 temp1_label edge\n"
                "power renderD130 suspended\n"
                "fd 100 5 /dev/full\n"
                "fdinfo 100 5 keys drm-driver=amdgpu drm-pdev=0000:03:00.0 drm-client-id=11 "
                "drm-engine-gfx=5_ns\n"
                "fd 100 6 /dev/urandom\n"
                "fdinfo 100 6 keys drm-driver=amdgpu drm-pdev=0000:05:00.0 drm-client-id=12 "
                "drm-engine-gfx=5_ns\n";

static const char nvml_script[] = "device name=\"NVIDIA GeForce RTX 4070\" uuid=GPU-1 bus=00000000:01:00.0 gpu=45 "
                                  "mem=30 used=1000 total=8000 temp=61 power=118250 limit=200000 gclk=2475 "
                                  "mclk=10501 fan=40\n"
                                  "device name=\"NVIDIA T400\" uuid=GPU-2 bus=00000000:02:00.0 temp=50 power=9000\n";

#define EXPECTED                                                                                          \
        "sensors drm-fdinfo 0000:03:00.0: temperature/edge/celsius=45 temperature/junction/celsius=52.5 " \
        "power/PPT/watt=120 power_limit/PPT/watt=255 clock_graphics/sclk/megahertz=2100 "                 \
        "clock_memory/mclk/megahertz=1000 fan//rpm=1250\n"                                                \
        "sensors drm-fdinfo 0000:05:00.0:\n"                                                              \
        "sensors nvml 0000:01:00.0: temperature//celsius=61 power//watt=118.25 power_limit//watt=200 "    \
        "clock_graphics//megahertz=2475 clock_memory//megahertz=10501 fan//percent=40\n"                  \
        "sensors nvml 0000:02:00.0:\n"

static uint64_t samples(ITest *t)
{
        uint64_t n = 0;

        g_assert_cmpint(sd_bus_get_property_trivial(
                                        t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "Samples", NULL, 't', &n),
                        >=, 0);
        return n;
}

static bool shows_expected(ITest *t)
{
        g_autofree char *text = dump_sensors(t->bus);
        return g_str_equal(text, EXPECTED);
}

/* Whether an inotify descriptor has events queued (it is drained). */
static bool had_events(int fd)
{
        char buf[4096];
        bool any = false;

        while (read(fd, buf, sizeof(buf)) > 0)
                any = true;
        return any;
}

static void test_sensors(void)
{
        ITest t;
        g_autofree char *nvml = NULL, *config = NULL, *root_view = NULL, *user_view = NULL, *names = NULL,
                        *status = NULL, *hwmon_awake = NULL, *hwmon_asleep = NULL, *error = NULL;
        ITestUser u;
        int watch, in, in_asleep;
        uint64_t n;

        ITEST_REQUIRE_ROOT("needs root: an unprivileged user to create, and a daemon to drop to it");
        itest_create_user(USER_PREFIX, &u);

        usage_bus_setup_trees(&t);
        itest_fixture_process(&t, 100, 1000, u.uid, "game", "/usr/bin/game", NULL);
        if (usage_fixture_apply(script, t.proc, t.sys, "/nonexistent", 0, &error) < 0)
                g_error("fixture script: %s", error);
        /* NVML's second device sleeps: the daemon looks at bus/pci/devices/<slot>/power. */
        status = g_build_filename(t.sys, "bus/pci/devices/0000:02:00.0/power/runtime_status", NULL);
        g_assert_cmpint(g_mkdir_with_parents(status, 0755), ==, 0);
        g_assert_cmpint(rmdir(status), ==, 0);
        g_assert_true(g_file_set_contents(status, "suspended\n", -1, NULL));

        hwmon_awake = g_build_filename(t.sys, "devices/pci0000:00/0000:03:00.0/hwmon/hwmon0", NULL);
        hwmon_asleep = g_build_filename(t.sys, "devices/pci0000:00/0000:05:00.0/hwmon", NULL);
        in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        g_assert_cmpint(in, >=, 0);
        g_assert_cmpint(inotify_add_watch(in, hwmon_awake, IN_OPEN), >=, 0);
        {
                /* The suspended card's hwmon/ and hwmon0/: any open there, the directories included. */
                g_autofree char *hwmon0 = g_build_filename(hwmon_asleep, "hwmon0", NULL);

                in_asleep = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
                g_assert_cmpint(in_asleep, >=, 0);
                g_assert_cmpint(inotify_add_watch(in_asleep, hwmon_asleep, IN_OPEN | IN_ACCESS), >=, 0);
                g_assert_cmpint(inotify_add_watch(in_asleep, hwmon0, IN_OPEN | IN_ACCESS), >=, 0);
        }

        nvml = g_build_filename(t.dir, "nvml.script", NULL);
        g_assert_true(g_file_set_contents(nvml, nvml_script, -1, NULL));
        g_setenv("NVPROFILED_NVML_FIXTURE_SCRIPT", nvml, TRUE);
        config = g_strdup_printf("[Usage]\nDrmMajor=1\nAccelMajor=4095\nMinIntervalSec=10ms\nRescanIntervalSec=100ms\n"
                                 "NVMLLibrary=%s\nPCIIDs=%s\n",
                        g_getenv("NVPROFILED_NVML_FIXTURE"), PCI_IDS_FIXTURE);
        itest_start_daemon(&t, config);

        /* Nobody watches: nothing sampled, no readings. */
        root_view = dump_sensors(t.bus);
        g_assert_cmpstr(root_view, ==, "");
        g_clear_pointer(&root_view, g_free);

        watch = usage_bus_watch(t.bus, 20000);

        ITEST_WAIT_FOR(shows_expected(&t), WAIT_MS);
        root_view = dump_sensors(t.bus);
        g_test_message("as root:\n%s", root_view);
        g_assert_cmpstr(root_view, ==, EXPECTED);

        /* Several samples more: the awake card's hwmon is read each time, the sleeping one's never. */
        n = samples(&t);
        ITEST_WAIT_FOR(samples(&t) >= n + 3, WAIT_MS);
        g_assert_cmpuint(samples(&t), >=, n + 3);
        g_assert_true(had_events(in));
        g_assert_false(had_events(in_asleep));

        /* The product names, from the crafted pci.ids for the cards, NVML's for the NVIDIA devices. */
        names = dump_names(t.bus);
        g_test_message("names:\n%s", names);
        g_assert_true(usage_bus_has_line(
                        names, "drm-fdinfo 0000:03:00.0 ", "name=Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]"));
        g_assert_true(usage_bus_has_line(
                        names, "drm-fdinfo 0000:05:00.0 ", "name=Navi 33 [Radeon RX 7700S/7600S/7600M XT]"));
        g_assert_true(usage_bus_has_line(names, "nvml 0000:01:00.0 ", "name=NVIDIA GeForce RTX 4070"));

        /* Everyone's: an unprivileged user sees the same readings. */
        user_view = usage_bus_dump_as(&t, &u, dump_sensors);
        g_test_message("as the user:\n%s", user_view);
        g_assert_cmpstr(user_view, ==, EXPECTED);

        close(watch);
        close(in);
        close(in_asleep);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/usage/sensors", test_sensors);
        return g_test_run();
}
