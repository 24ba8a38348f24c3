/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/drm's device details: hwmon sensors over a fixture /sys tree (usage-fixture.c's "hwmon" lines)
 * with every kind, unit and label, what is skipped (unlabelled clocks, non-regular files, garbage), the
 * runtime-PM gate (a suspended device's hwmon is not even opened: inotify sees no open), and the PCI ID
 * database parser (tests/drm/fixture-pci.ids, and faults by line). */

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drm-hwmon.h"
#include "fd-util.h"
#include "pci-ids.h"
#include "test-util.h"
#include "usage-fixture.h"

static const char hwmon_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n" USAGE_FIXTURE_HWMON_AMDGPU
                "hwmon renderD128 temp3_input -1500\n" /* no label: "" */
                "hwmon renderD128 power1_input 999000000\n" /* the average preferred */
                "hwmon renderD128 freq3_input 5\n" /* unlabelled: not a clock we name */
                "hwmon renderD128 temp4_input garbage\n"
                "hwmon renderD128 temp5_label \x1b[31mred\n" /* label not printable: "" */
                "hwmon renderD128 temp5_input 1000\n";

static char *sys_tree(int *ret_fd, dev_t *ret_rdev)
{
        g_autofree char *root = test_mkdtemp();
        char *sys = g_build_filename(root, "sys", NULL);
        g_autofree char *err = NULL;
        struct stat st;

        g_assert_cmpint(usage_fixture_apply(hwmon_script, root, sys, "/nonexistent", 0, &err), ==, 0);
        g_assert_cmpint(stat("/dev/full", &st), ==, 0);
        *ret_rdev = st.st_rdev;
        *ret_fd = test_open_dir(sys);
        return sys;
}

static char *format(const GpuSensorReading *r, size_t n)
{
        GString *s = g_string_new(NULL);

        for (size_t i = 0; i < n; i++)
                g_string_append_printf(s, "%s/%s/%s=%g\n", r[i].sensor, r[i].label, r[i].unit, r[i].value);
        return g_string_free(s, FALSE);
}

static void test_hwmon(void)
{
        GpuSensorReading r[GPU_SENSORS_MAX];
        g_autofree char *sys = NULL, *text = NULL, *fifo = NULL;
        _cleanup_close_ int sys_fd = -EBADF;
        dev_t rdev;
        size_t n;

        sys = sys_tree(&sys_fd, &rdev);
        /* A fifo where a value is: never opened for reading (it would block), never a reading. */
        fifo = g_build_filename(sys, "devices/pci0000:00/0000:03:00.0/hwmon/hwmon0/fan2_input", NULL);
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);

        n = drm_hwmon_read(sys_fd, rdev, r, G_N_ELEMENTS(r));
        text = format(r, n);
        g_assert_cmpstr(text, ==,
                        "temperature/edge/celsius=45\n"
                        "temperature/junction/celsius=52.5\n"
                        "temperature//celsius=-1.5\n"
                        "temperature//celsius=1\n"
                        "power/PPT/watt=120\n"
                        "power_limit/PPT/watt=255\n"
                        "clock_graphics/sclk/megahertz=2100\n"
                        "clock_memory/mclk/megahertz=1000\n"
                        "fan//rpm=1250\n");

        /* Bounded by the room given. */
        g_assert_cmpuint(drm_hwmon_read(sys_fd, rdev, r, 2), ==, 2);
}

/* While the device says suspended, nothing below hwmon/ is opened, not even the directory. */
static void test_hwmon_suspended(void)
{
        GpuSensorReading r[GPU_SENSORS_MAX];
        g_autofree char *sys = NULL, *hwmon = NULL, *status = NULL;
        _cleanup_close_ int sys_fd = -EBADF, in = -EBADF;
        char buf[4096];
        dev_t rdev;

        sys = sys_tree(&sys_fd, &rdev);
        hwmon = g_build_filename(sys, "devices/pci0000:00/0000:03:00.0/hwmon/hwmon0", NULL);
        status = g_build_filename(sys, "devices/pci0000:00/0000:03:00.0/power/runtime_status", NULL);
        in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        g_assert_cmpint(in, >=, 0);
        g_assert_cmpint(inotify_add_watch(in, hwmon, IN_OPEN | IN_ACCESS), >=, 0);
        {
                /* hwmon/ itself too: listing it is an open. */
                g_autofree char *parent = g_path_get_dirname(hwmon);
                g_assert_cmpint(inotify_add_watch(in, parent, IN_OPEN | IN_ACCESS), >=, 0);
        }

        /* The watch sees reads of an awake device (so that silence below means something). */
        g_assert_cmpuint(drm_hwmon_read(sys_fd, rdev, r, G_N_ELEMENTS(r)), >, 0);
        g_assert_cmpint(read(in, buf, sizeof(buf)), >, 0);
        while (read(in, buf, sizeof(buf)) > 0)
                ;

        g_assert_true(g_file_set_contents(status, "suspended\n", -1, NULL));
        g_assert_cmpuint(drm_hwmon_read(sys_fd, rdev, r, G_N_ELEMENTS(r)), ==, 0);
        g_assert_cmpint(read(in, buf, sizeof(buf)), <, 0);
        g_assert_cmpint(errno, ==, EAGAIN);

        g_assert_true(g_file_set_contents(status, "active\n", -1, NULL));
        g_assert_cmpuint(drm_hwmon_read(sys_fd, rdev, r, G_N_ELEMENTS(r)), ==, 9);
}

static void test_pci_ids_fixture(void)
{
        g_autofree char *name = NULL;

        g_assert_cmpint(pci_ids_lookup(PCI_IDS_FIXTURE, 0x1002, 0x73bf, &name), ==, 1);
        g_assert_cmpstr(name, ==, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]");
        g_clear_pointer(&name, g_free);
        g_assert_cmpint(pci_ids_lookup(PCI_IDS_FIXTURE, 0x8086, 0x56a0, &name), ==, 1);
        g_assert_cmpstr(name, ==, "DG2 [Arc A770]");
        g_clear_pointer(&name, g_free);
        /* A device of another vendor with the same number, and one not listed. */
        g_assert_cmpint(pci_ids_lookup(PCI_IDS_FIXTURE, 0x10de, 0x73bf, &name), ==, 0);
        g_assert_cmpint(pci_ids_lookup(PCI_IDS_FIXTURE, 0x1234, 0x0001, &name), ==, 0);
        g_assert_null(name);
        g_assert_cmpint(pci_ids_lookup("/nonexistent/pci.ids", 0x1002, 0x73bf, &name), ==, -ENOENT);
        g_assert_cmpint(pci_ids_lookup("/dev/null", 0x1002, 0x73bf, &name), ==, -EBADFD);
}

static void assert_find(const char *text, uint16_t vendor, uint16_t device, int expect, unsigned expect_line,
                const char *expect_name)
{
        g_autofree char *name = NULL;
        unsigned line = 77;

        g_test_message("case: %s", text);
        g_assert_cmpint(pci_ids_find(text, strlen(text), vendor, device, &name, &line), ==, expect);
        g_assert_cmpuint(line, ==, expect_line);
        g_assert_cmpstr(name, ==, expect_name);
}

static void test_pci_ids_faults(void)
{
        g_autofree char *overlong = g_strdup_printf("8086  Intel\n\t56a0  %0*d\n", 1100, 0);

        assert_find("8086  Intel\n\t56a0  Arc", 0x8086, 0x56a0, 1, 2, "Arc");
        assert_find("# c\n\n8086  Intel\n\t\t1002 0001  sub\n\t56A0  Arc\n", 0x8086, 0x56a0, 1, 5, "Arc");
        assert_find("8086  Intel\n\t56a0  Arc\n", 0x8086, 0x56a1, 0, 0, NULL);
        assert_find("8086  Intel\n\t56a0 Arc\n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find("\t56a0  Arc\n8086  Intel\n", 0x8086, 0x56a0, -EBADMSG, 1, NULL);
        assert_find("\t\t1002 0001  sub\n", 0x8086, 0x56a0, -EBADMSG, 1, NULL);
        assert_find("# c\n80g6  Intel\n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find("8086  Intel\n\t56a0  \n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find("8086  Intel\n\t56a0  Arc\x1b[31m\n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find("8086  Intel\n\t56a0  Arc \xff\n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find("8086  Intel\r\n\t56a0  Arc\r\n", 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        assert_find(overlong, 0x8086, 0x56a0, -EBADMSG, 2, NULL);
        /* The class list ends the devices; past the vendor, the device is not listed. */
        assert_find("C 03  Display\n8086  Intel\n\t56a0  Arc\n", 0x8086, 0x56a0, 0, 0, NULL);
        assert_find("8086  Intel\n10de  NVIDIA\n\t56a0  Arc\n", 0x8086, 0x56a0, 0, 0, NULL);
        {
                /* A NUL inside a line. */
                static const char nul[] = "8086  Intel\n\t56a0  A\0rc\n";
                char *name = NULL;
                unsigned line = 0;

                g_assert_cmpint(pci_ids_find(nul, sizeof(nul) - 1, 0x8086, 0x56a0, &name, &line), ==, -EBADMSG);
                g_assert_cmpuint(line, ==, 2);
                g_assert_null(name);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/drm-sensors/hwmon", test_hwmon);
        g_test_add_func("/drm-sensors/hwmon-suspended", test_hwmon_suspended);
        g_test_add_func("/drm-sensors/pci-ids-fixture", test_pci_ids_fixture);
        g_test_add_func("/drm-sensors/pci-ids-faults", test_pci_ids_faults);
        return g_test_run();
}
