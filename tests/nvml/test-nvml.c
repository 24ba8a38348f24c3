/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/nvml: the NVML source loaded over tests/nvml's fixture library (see nvml-fixture.h), which
 * follows NVML's documented API with scripted values. Every figure, the version fallbacks, the failure
 * states, runtime PM, NVML's sample timestamps and the bounds. */

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include "fd-util.h"
#include "nvml-fixture.h"
#include "nvml.h"
#include "test-util.h"

#define MiB (1024ULL * 1024ULL)

static char *fixture_path(const char *variant)
{
        return g_strdup_printf("%s/lib%s.so", NVML_FIXTURE_DIR, variant);
}

static void set_script(const char *text)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "script", NULL);

        test_write_file(dir, "script", text);
        g_assert_true(g_setenv(NVML_FIXTURE_SCRIPT_ENV, path, TRUE));
}

/* A /sys tree with a runtime_status for each bus id given ("0000:01:00.0=active"), as a directory fd. */
static int make_sys(const char *const *statuses)
{
        g_autofree char *root = test_mkdtemp();

        test_mkdir_p(root, "bus/pci/devices");
        for (; statuses && *statuses; statuses++) {
                g_auto(GStrv) kv = g_strsplit(*statuses, "=", 2);
                g_autofree char *rel = g_strdup_printf("bus/pci/devices/%s/power/runtime_status", kv[0]);
                g_autofree char *content = g_strdup_printf("%s\n", kv[1]);

                test_write_file(root, rel, content);
        }
        return test_open_dir(root);
}

static void set_status(int sys_fd, const char *bus_id, const char *status)
{
        g_autofree char *rel = g_strdup_printf("bus/pci/devices/%s/power/runtime_status", bus_id);
        _cleanup_close_ int fd = openat(sys_fd, rel, O_WRONLY | O_TRUNC | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(write(fd, status, strlen(status)), ==, (ssize_t) strlen(status));
}

static NvmlSource *open_fixture(const char *variant, const char *script, int sys_fd)
{
        g_autofree char *path = fixture_path(variant);
        NvmlSource *s = NULL;

        set_script(script);
        g_assert_cmpint(nvml_source_open(path, sys_fd, &s), ==, 0);
        g_assert_nonnull(s);
        return s;
}

/* The fixture's own counters, from the copy the loader has loaded (RTLD_NOLOAD: never a second one). */
static unsigned long long counter(const char *variant, const char *what, int device)
{
        g_autofree char *path = fixture_path(variant);
        unsigned long long (*f)(const char *, int);
        unsigned long long v;
        void *dl, *p;

        dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        g_assert_nonnull(dl);
        p = dlsym(dl, "nvml_fixture_counter");
        g_assert_nonnull(p);
        memcpy(&f, &p, sizeof(f));
        v = f(what, device);
        dlclose(dl);
        return v;
}

static bool loaded(const char *variant)
{
        g_autofree char *path = fixture_path(variant);
        void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

        if (dl)
                dlclose(dl);
        return dl;
}

static const NvmlProcessUsage *find_process(const NvmlDeviceUsage *d, uint32_t pid)
{
        for (size_t i = 0; i < d->n_processes; i++)
                if (d->processes[i].pid == pid)
                        return &d->processes[i];
        return NULL;
}

static void assert_util(const NvmlProcessUsage *p, uint64_t ts, uint32_t sm, uint32_t mem, uint32_t enc, uint32_t dec)
{
        g_assert_nonnull(p);
        g_assert_true(p->has_utilization);
        g_assert_cmpuint(p->timestamp_usec, ==, ts);
        g_assert_cmpuint(p->sm_percent, ==, sm);
        g_assert_cmpuint(p->mem_percent, ==, mem);
        g_assert_cmpuint(p->enc_percent, ==, enc);
        g_assert_cmpuint(p->dec_percent, ==, dec);
}

/* Two devices, processes in both lists, a process only NVML's samples know, NA memory (alone, and in
 * one list of two), two batches of samples (the older of two samples of one process last). */
static const char script_two[] =
                "# two boards\n"
                "device name=\"NVIDIA RTX A2000 12GB\" uuid=GPU-5f2c1a3e-0000-1111-2222-333344445555 "
                "bus=00000000:01:00.0 gpu=45 mem=30 used=1048576000 reserved=25165824 total=12884901888\n"
                "device name=\"NVIDIA T400\" uuid=GPU-aaaa bus=00000000:41:00.0 gpu=3 mem=1 used=2 reserved=1 total=9\n"
                "compute dev=0 1234=536870912 5678=NA 7777=NA\n"
                "compute dev=0 1234=805306368\n"
                "graphics dev=0 1234=1000 4321=2097152000 7777=65536\n"
                "util dev=0 1234@1000=50,10,0,0 4321@1500=5,1,2,3 1234@900=99,99,99,99 9999@1200=7,0,0,0\n"
                "util dev=0 1234@2000=70,20,1,1\n";

static void assert_two_first_sample(NvmlSource *s, const char *variant, bool memory_v2)
{
        const NvmlDeviceUsage *d0, *d1;
        const NvmlProcessUsage *p;

        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d0 = nvml_source_device(s, 0);
        d1 = nvml_source_device(s, 1);

        g_assert_cmpint(d0->state, ==, NVML_DEVICE_SAMPLED);
        g_assert_cmpstr(d0->message, ==, "");
        g_assert_cmpstr(d0->source, ==, "nvml");
        g_assert_cmpuint(d0->index, ==, 0);
        g_assert_cmpstr(d0->pci_bus_id, ==, "0000:01:00.0");
        g_assert_cmpstr(d0->name, ==, "NVIDIA RTX A2000 12GB");
        g_assert_cmpstr(d0->uuid, ==, "GPU-5f2c1a3e-0000-1111-2222-333344445555");
        g_assert_true(d0->has_utilization);
        g_assert_cmpuint(d0->gpu_percent, ==, 45);
        g_assert_cmpuint(d0->memory_percent, ==, 30);
        /* Version 2 separates the driver's reservation; version 1 counts it as used. */
        g_assert_cmpuint(d0->memory_used_bytes, ==, memory_v2 ? 1048576000ULL : 1048576000ULL + 25165824ULL);
        g_assert_cmpuint(d0->memory_total_bytes, ==, 12884901888ULL);

        g_assert_cmpuint(d0->n_processes, ==, 5);
        g_assert_false(d0->processes_truncated);
        for (size_t i = 1; i < d0->n_processes; i++)
                g_assert_cmpuint(d0->processes[i - 1].pid, <, d0->processes[i].pid);

        /* In both lists: one entry, the larger figure; the newest of its two samples. */
        p = find_process(d0, 1234);
        g_assert_nonnull(p);
        g_assert_true(p->compute);
        g_assert_true(p->graphics);
        g_assert_cmpuint(p->memory_bytes, ==, 536870912ULL);
        g_assert_cmpstr(p->source, ==, "nvml");
        assert_util(p, 1000, 50, 10, 0, 0);

        p = find_process(d0, 5678);
        g_assert_nonnull(p);
        g_assert_true(p->compute);
        g_assert_false(p->graphics);
        g_assert_cmpuint(p->memory_bytes, ==, NVML_SOURCE_UNKNOWN);
        g_assert_false(p->has_utilization);

        p = find_process(d0, 4321);
        g_assert_nonnull(p);
        g_assert_false(p->compute);
        g_assert_true(p->graphics);
        g_assert_cmpuint(p->memory_bytes, ==, 2097152000ULL);
        assert_util(p, 1500, 5, 1, 2, 3);

        /* Unknown in one list, known in the other: the known figure. */
        p = find_process(d0, 7777);
        g_assert_nonnull(p);
        g_assert_true(p->compute);
        g_assert_true(p->graphics);
        g_assert_cmpuint(p->memory_bytes, ==, 65536);
        g_assert_false(p->has_utilization);

        /* Only in the samples: listed, memory unknown. */
        p = find_process(d0, 9999);
        g_assert_nonnull(p);
        g_assert_false(p->compute);
        g_assert_false(p->graphics);
        g_assert_cmpuint(p->memory_bytes, ==, NVML_SOURCE_UNKNOWN);
        assert_util(p, 1200, 7, 0, 0, 0);

        g_assert_cmpuint(d0->last_seen_usec, ==, 1500);
        g_assert_cmpuint(counter(variant, "last_seen", 0), ==, 0);

        g_assert_cmpint(d1->state, ==, NVML_DEVICE_SAMPLED);
        g_assert_cmpstr(d1->pci_bus_id, ==, "0000:41:00.0");
        g_assert_cmpstr(d1->name, ==, "NVIDIA T400");
        g_assert_cmpuint(d1->gpu_percent, ==, 3);
        g_assert_cmpuint(d1->memory_total_bytes, ==, 9);
        g_assert_cmpuint(d1->n_processes, ==, 0);
        g_assert_cmpuint(d1->last_seen_usec, ==, 0);
}

static void assert_two_later_samples(NvmlSource *s, const char *variant)
{
        const NvmlDeviceUsage *d0;
        const NvmlProcessUsage *p;

        /* Second call: NVML is asked for what is newer than the newest it gave; the second compute
         * answer; only 1234 has a new sample, so the others have none (not the old one again). */
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d0 = nvml_source_device(s, 0);
        g_assert_cmpuint(counter(variant, "last_seen", 0), ==, 1500);
        g_assert_cmpuint(d0->n_processes, ==, 3);
        p = find_process(d0, 1234);
        g_assert_cmpuint(p->memory_bytes, ==, 805306368ULL);
        assert_util(p, 2000, 70, 20, 1, 1);
        p = find_process(d0, 4321);
        g_assert_nonnull(p);
        g_assert_false(p->has_utilization);
        g_assert_null(find_process(d0, 5678));
        g_assert_null(find_process(d0, 9999));
        g_assert_cmpuint(d0->last_seen_usec, ==, 2000);

        /* Third call: NVML has nothing newer (NVML_ERROR_NOT_FOUND): no utilisation, no error. */
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d0 = nvml_source_device(s, 0);
        g_assert_cmpint(d0->state, ==, NVML_DEVICE_SAMPLED);
        g_assert_cmpuint(counter(variant, "last_seen", 0), ==, 2000);
        g_assert_false(find_process(d0, 1234)->has_utilization);
        g_assert_cmpuint(find_process(d0, 1234)->memory_bytes, ==, 805306368ULL);
        g_assert_cmpuint(d0->last_seen_usec, ==, 2000);
}

static void test_figures(void)
{
        _cleanup_close_ int sys_fd = make_sys((const char *const[]){ "0000:01:00.0=active", NULL });
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture", script_two, sys_fd);
        g_autofree char *path = fixture_path("nvml-fixture");
        g_autofree char *message = NULL;
        unsigned long long shutdowns;

        g_assert_cmpint(nvml_source_state(s), ==, NVML_SOURCE_READY);
        message = g_strdup_printf("NVML (%s): 2 devices", path);
        g_assert_cmpstr(nvml_source_message(s), ==, message);
        g_assert_cmpuint(nvml_source_running_processes_version(s, false), ==, 3);
        g_assert_cmpuint(nvml_source_running_processes_version(s, true), ==, 3);
        g_assert_cmpstr(nvml_source_process_utilization_function(s, 0), ==, "nvmlDeviceGetProcessesUtilizationInfo");
        g_assert_cmpuint(nvml_source_n_devices(s), ==, 2);

        /* Before the first sample: identity from open (the bus id), nothing else. */
        g_assert_cmpstr(nvml_source_device(s, 0)->pci_bus_id, ==, "0000:01:00.0");
        g_assert_cmpstr(nvml_source_device(s, 0)->name, ==, "");
        g_assert_cmpuint(nvml_source_device(s, 0)->n_processes, ==, 0);
        g_assert_cmpuint(nvml_source_device(s, 0)->memory_used_bytes, ==, NVML_SOURCE_UNKNOWN);

        assert_two_first_sample(s, "nvml-fixture", true);
        g_assert_cmpuint(counter("nvml-fixture", "info", 0), ==, 1);
        g_assert_cmpuint(counter("nvml-fixture", "samples", 0), ==, 0);
        assert_two_later_samples(s, "nvml-fixture");

        /* Closing shuts NVML down and unloads it. */
        shutdowns = counter("nvml-fixture", "shutdown", -1);
        {
                void *keep = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
                g_assert_nonnull(keep);
                s = nvml_source_free(s);
                g_assert_cmpuint(counter("nvml-fixture", "shutdown", -1), ==, shutdowns + 1);
                dlclose(keep);
        }
        g_assert_false(loaded("nvml-fixture"));
}

/* _v3 missing: _v2 lists, nvmlDeviceGetProcessUtilization, memory version 1. */
static void test_fallback_v2(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture-v2", script_two, sys_fd);

        g_assert_cmpint(nvml_source_state(s), ==, NVML_SOURCE_READY);
        g_assert_cmpuint(nvml_source_running_processes_version(s, false), ==, 2);
        g_assert_cmpuint(nvml_source_running_processes_version(s, true), ==, 2);
        g_assert_cmpstr(nvml_source_process_utilization_function(s, 0), ==, "nvmlDeviceGetProcessUtilization");
        assert_two_first_sample(s, "nvml-fixture-v2", false);
        g_assert_cmpuint(counter("nvml-fixture-v2", "samples", 0), ==, 1);
        assert_two_later_samples(s, "nvml-fixture-v2");
}

/* Only the unversioned functions (16-byte elements) and no nvmlErrorString. */
static void test_fallback_v1(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture-v1", script_two, sys_fd);

        g_assert_cmpint(nvml_source_state(s), ==, NVML_SOURCE_READY);
        g_assert_cmpuint(nvml_source_running_processes_version(s, false), ==, 1);
        g_assert_cmpuint(nvml_source_running_processes_version(s, true), ==, 1);
        g_assert_cmpstr(nvml_source_process_utilization_function(s, 0), ==, "nvmlDeviceGetProcessUtilization");
        assert_two_first_sample(s, "nvml-fixture-v1", false);
        assert_two_later_samples(s, "nvml-fixture-v1");
}

/* The newer utilisation function exists but the device refuses it: the older one, decided once. */
static void test_info_unsupported(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *script = g_strconcat(script_two, "option info_unsupported\n", NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture", script, sys_fd);

        assert_two_first_sample(s, "nvml-fixture", true);
        g_assert_cmpstr(nvml_source_process_utilization_function(s, 0), ==, "nvmlDeviceGetProcessUtilization");
        g_assert_cmpuint(counter("nvml-fixture", "info", 0), ==, 1);
        g_assert_cmpuint(counter("nvml-fixture", "samples", 0), ==, 1);
        assert_two_later_samples(s, "nvml-fixture");
        g_assert_cmpuint(counter("nvml-fixture", "info", 0), ==, 1);
        g_assert_cmpuint(counter("nvml-fixture", "samples", 0), ==, 3);
}

/* A library that hands back samples it already gave: each still counts once. */
static void test_old_samples_not_counted_twice(gconstpointer variant)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *script = g_strconcat(script_two, "option ignore_last_seen\n", NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture(variant, script, sys_fd);

        assert_two_first_sample(s, variant, !g_str_equal(variant, "nvml-fixture-v2"));
        assert_two_later_samples(s, variant);
}

static void test_insufficient_size(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *script = g_strconcat(script_two, "option insufficient_first\n", NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture", script, sys_fd);

        assert_two_first_sample(s, "nvml-fixture", true);
        g_assert_cmpuint(counter("nvml-fixture", "compute", 0), ==, 2);
        g_assert_cmpuint(counter("nvml-fixture", "graphics", 0), ==, 2);
        g_assert_cmpuint(counter("nvml-fixture", "info", 0), ==, 2);
        assert_two_later_samples(s, "nvml-fixture");
}

static void assert_unavailable(NvmlSource *s, const char *message)
{
        g_assert_cmpint(nvml_source_state(s), ==, NVML_SOURCE_UNAVAILABLE);
        g_assert_cmpstr(nvml_source_message(s), ==, message);
        g_assert_cmpuint(nvml_source_n_devices(s), ==, 0);
        g_assert_cmpint(nvml_source_sample(s), ==, -ENODEV);
}

static void test_absent_library(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = NULL;

        g_assert_cmpint(nvml_source_open("/nonexistent/libnvidia-ml.so.1", sys_fd, &s), ==, 0);
        assert_unavailable(s,
                        "NVML not available: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: "
                        "No such file or directory");
        g_assert_cmpuint(nvml_source_running_processes_version(s, false), ==, 0);
}

static void test_init_failure(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *path = fixture_path("nvml-fixture");
        void *keep = dlopen(path, RTLD_NOW);
        unsigned long long inits = counter("nvml-fixture", "init", -1),
                           shutdowns = counter("nvml-fixture", "shutdown", -1);
        NvmlSource *s;

        s = open_fixture("nvml-fixture", "init error=9\n", sys_fd);
        assert_unavailable(s, "NVML not available: nvmlInit failed: Driver Not Loaded (NVML error 9)");
        /* nvmlShutdown() only after a successful nvmlInit(). */
        g_assert_cmpuint(counter("nvml-fixture", "init", -1), ==, inits + 1);
        g_assert_cmpuint(counter("nvml-fixture", "shutdown", -1), ==, shutdowns);
        nvml_source_free(s);
        dlclose(keep);
        g_assert_false(loaded("nvml-fixture"));

        /* Unloaded at once: failing to start leaves nothing behind. */
        s = open_fixture("nvml-fixture-v1", "init error=9\n", sys_fd);
        assert_unavailable(s, "NVML not available: nvmlInit failed: unknown error (NVML error 9)");
        g_assert_false(loaded("nvml-fixture-v1"));
        nvml_source_free(s);
}

static void test_no_device(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *path = fixture_path("nvml-fixture");
        void *keep = dlopen(path, RTLD_NOW);
        unsigned long long shutdowns = counter("nvml-fixture", "shutdown", -1);
        NvmlSource *s;

        s = open_fixture("nvml-fixture", "# no device\n", sys_fd);
        assert_unavailable(s, "NVML not available: no NVIDIA device");
        g_assert_cmpuint(counter("nvml-fixture", "shutdown", -1), ==, shutdowns + 1);
        nvml_source_free(s);
        dlclose(keep);
}

static void test_not_nvml(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autofree char *path = fixture_path("nvml-fixture-noinit");
        g_autofree char *message = g_strdup_printf("NVML not available: %s lacks nvmlInit", path);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture-noinit", "", sys_fd);

        assert_unavailable(s, message);
}

/* A sleeping GPU is not touched: nothing but the handle and PCI info NVML had at open. */
static void test_suspended(void)
{
        _cleanup_close_ int sys_fd =
                        make_sys((const char *const[]){ "0000:01:00.0=suspended", "0000:41:00.0=active", NULL });
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture", script_two, sys_fd);
        const NvmlDeviceUsage *d0, *d1;

        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d0 = nvml_source_device(s, 0);
        d1 = nvml_source_device(s, 1);
        g_assert_cmpint(d0->state, ==, NVML_DEVICE_SUSPENDED);
        g_assert_cmpstr(d0->message, ==, "runtime-suspended: not queried, which would wake it");
        g_assert_cmpstr(d0->pci_bus_id, ==, "0000:01:00.0");
        g_assert_cmpstr(d0->name, ==, "");
        g_assert_false(d0->has_utilization);
        g_assert_cmpuint(d0->memory_used_bytes, ==, NVML_SOURCE_UNKNOWN);
        g_assert_cmpuint(d0->n_processes, ==, 0);
        g_assert_cmpuint(counter("nvml-fixture", "queries", 0), ==, 0);
        g_assert_cmpint(d1->state, ==, NVML_DEVICE_SAMPLED);
        g_assert_cmpstr(d1->name, ==, "NVIDIA T400");

        set_status(sys_fd, "0000:01:00.0", "suspending\n");
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        g_assert_cmpint(nvml_source_device(s, 0)->state, ==, NVML_DEVICE_SUSPENDED);
        g_assert_cmpuint(counter("nvml-fixture", "queries", 0), ==, 0);

        /* Awake again: queried, from the first sample on (it never saw the first util batch as taken
         * earlier: NVML's buffer still holds it). */
        set_status(sys_fd, "0000:01:00.0", "active\n");
        assert_two_first_sample(s, "nvml-fixture", true);
        g_assert_cmpuint(counter("nvml-fixture", "queries", 0), >, 0);

        /* Asleep while it has processes: nothing stale is left in the figures. */
        set_status(sys_fd, "0000:01:00.0", "suspended\n");
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d0 = nvml_source_device(s, 0);
        g_assert_cmpint(d0->state, ==, NVML_DEVICE_SUSPENDED);
        g_assert_cmpuint(d0->n_processes, ==, 0);
        g_assert_false(d0->has_utilization);
        g_assert_cmpstr(d0->name, ==, "NVIDIA RTX A2000 12GB"); /* read while it was awake */
}

/* Sensors: each in its unit, one the device lacks absent, none read while it sleeps. */
static void test_sensors(void)
{
        _cleanup_close_ int sys_fd = make_sys((const char *const[]){ "0000:01:00.0=active", NULL });
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture",
                        "device bus=00000000:01:00.0 temp=61 power=118250 limit=200000 gclk=2475 mclk=10501\n", sys_fd);
        const NvmlDeviceUsage *d;
        unsigned long long reads;

        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d = nvml_source_device(s, 0);
        g_assert_cmpuint(d->n_sensors, ==, 5); /* no fan */
        g_assert_cmpstr(d->sensors[0].sensor, ==, GPU_SENSOR_TEMPERATURE);
        g_assert_cmpstr(d->sensors[0].unit, ==, GPU_UNIT_CELSIUS);
        g_assert_cmpfloat(d->sensors[0].value, ==, 61.0);
        g_assert_cmpstr(d->sensors[0].label, ==, "");
        g_assert_cmpstr(d->sensors[1].sensor, ==, GPU_SENSOR_POWER);
        g_assert_cmpstr(d->sensors[1].unit, ==, GPU_UNIT_WATT);
        g_assert_cmpfloat(d->sensors[1].value, ==, 118.25);
        g_assert_cmpstr(d->sensors[2].sensor, ==, GPU_SENSOR_POWER_LIMIT);
        g_assert_cmpfloat(d->sensors[2].value, ==, 200.0);
        g_assert_cmpstr(d->sensors[3].sensor, ==, GPU_SENSOR_CLOCK_GRAPHICS);
        g_assert_cmpstr(d->sensors[3].unit, ==, GPU_UNIT_MEGAHERTZ);
        g_assert_cmpfloat(d->sensors[3].value, ==, 2475.0);
        g_assert_cmpstr(d->sensors[4].sensor, ==, GPU_SENSOR_CLOCK_MEMORY);
        g_assert_cmpfloat(d->sensors[4].value, ==, 10501.0);
        reads = counter("nvml-fixture", "sensors", 0);
        g_assert_cmpuint(reads, ==, 6);

        set_status(sys_fd, "0000:01:00.0", "suspended\n");
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d = nvml_source_device(s, 0);
        g_assert_cmpuint(d->n_sensors, ==, 0);
        g_assert_cmpuint(counter("nvml-fixture", "sensors", 0), ==, reads);
}

static void test_bus_id(void)
{
        _cleanup_close_ int sys_fd = make_sys((const char *const[]){ "0001:c1:1f.3=suspended", NULL });
        _cleanup_(nvml_source_freep) NvmlSource *s =
                        open_fixture("nvml-fixture", "device bus=00000001:C1:1F.3\ndevice bus=garbage\n", sys_fd);

        g_assert_cmpstr(nvml_source_device(s, 0)->pci_bus_id, ==, "0001:c1:1f.3");
        /* Not parseable: NVML's numeric fields (here all 0). */
        g_assert_cmpstr(nvml_source_device(s, 1)->pci_bus_id, ==, "0000:00:00.0");
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        g_assert_cmpint(nvml_source_device(s, 0)->state, ==, NVML_DEVICE_SUSPENDED);
        g_assert_cmpint(nvml_source_device(s, 1)->state, ==, NVML_DEVICE_SAMPLED);
}

static void test_bounds_processes(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        _cleanup_(nvml_source_freep) NvmlSource *s = open_fixture("nvml-fixture",
                        "device\n"
                        /* Each call takes the next answer, those that say INSUFFICIENT_SIZE too. */
                        "many dev=0 kind=compute n=4096 pid=10000 mem=1\n"
                        "many dev=0 kind=compute n=4096 pid=10000 mem=1\n"
                        "many dev=0 kind=compute n=5000 pid=10000 mem=1\n"
                        "many dev=0 kind=compute n=4096 pid=10000 mem=1\n"
                        "graphics dev=0 1=5 2=6\n"
                        "graphics dev=0\n",
                        sys_fd);
        const NvmlDeviceUsage *d;

        /* Exactly the bound: all listed, merged with the graphics list, then bounded again. */
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d = nvml_source_device(s, 0);
        g_assert_cmpuint(d->n_processes, ==, NVML_SOURCE_PROCESSES_MAX);
        g_assert_true(d->processes_truncated);
        g_assert_cmpuint(d->processes[0].pid, ==, 1);
        g_assert_cmpuint(d->processes[1].pid, ==, 2);
        g_assert_cmpuint(d->processes[2].pid, ==, 10000);

        /* Beyond it: NVML gives nothing with INSUFFICIENT_SIZE, so the list is left out, and said so. */
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d = nvml_source_device(s, 0);
        g_assert_cmpuint(d->n_processes, ==, 0);
        g_assert_true(d->processes_truncated);

        /* Back to the bound alone: complete, not truncated, in one call with the grown buffer. */
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        d = nvml_source_device(s, 0);
        g_assert_cmpuint(counter("nvml-fixture", "compute", 0), ==, 4);
        g_assert_cmpuint(d->n_processes, ==, NVML_SOURCE_PROCESSES_MAX);
        g_assert_false(d->processes_truncated);
        g_assert_cmpuint(d->processes[0].pid, ==, 10000);
        g_assert_cmpuint(d->processes[NVML_SOURCE_PROCESSES_MAX - 1].pid, ==, 10000 + NVML_SOURCE_PROCESSES_MAX - 1);
        g_assert_cmpuint(d->processes[NVML_SOURCE_PROCESSES_MAX - 1].memory_bytes, ==, 1);
}

static void test_bounds_devices(void)
{
        _cleanup_close_ int sys_fd = make_sys(NULL);
        g_autoptr(GString) script = g_string_new(NULL);
        g_autofree char *path = fixture_path("nvml-fixture");
        g_autofree char *message = NULL;
        _cleanup_(nvml_source_freep) NvmlSource *s = NULL;

        for (unsigned i = 0; i < 70; i++)
                g_string_append_printf(script, "device bus=00000000:%02x:00.0 gpu=%u\n", i + 1, i);
        s = open_fixture("nvml-fixture", script->str, sys_fd);
        message = g_strdup_printf("NVML (%s): 64 of 70 devices (at most 64 are watched)", path);
        g_assert_cmpstr(nvml_source_message(s), ==, message);
        g_assert_cmpuint(nvml_source_n_devices(s), ==, NVML_SOURCE_DEVICES_MAX);
        g_assert_cmpint(nvml_source_sample(s), ==, 0);
        g_assert_cmpuint(nvml_source_device(s, 63)->gpu_percent, ==, 63);
        g_assert_cmpstr(nvml_source_device(s, 63)->pci_bus_id, ==, "0000:40:00.0");
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/nvml/figures", test_figures);
        g_test_add_func("/nvml/fallback-v2", test_fallback_v2);
        g_test_add_func("/nvml/fallback-v1", test_fallback_v1);
        g_test_add_func("/nvml/info-unsupported", test_info_unsupported);
        g_test_add_data_func("/nvml/old-samples/info", "nvml-fixture", test_old_samples_not_counted_twice);
        g_test_add_data_func("/nvml/old-samples/samples", "nvml-fixture-v2", test_old_samples_not_counted_twice);
        g_test_add_func("/nvml/insufficient-size", test_insufficient_size);
        g_test_add_func("/nvml/absent-library", test_absent_library);
        g_test_add_func("/nvml/init-failure", test_init_failure);
        g_test_add_func("/nvml/no-device", test_no_device);
        g_test_add_func("/nvml/not-nvml", test_not_nvml);
        g_test_add_func("/nvml/suspended", test_suspended);
        g_test_add_func("/nvml/bus-id", test_bus_id);
        g_test_add_func("/nvml/sensors", test_sensors);
        g_test_add_func("/nvml/bounds-processes", test_bounds_processes);
        g_test_add_func("/nvml/bounds-devices", test_bounds_devices);

        return g_test_run();
}
