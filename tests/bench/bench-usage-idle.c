/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's idle cost (issue 22): its CPU seconds per second of wall time with nobody watching usage,
 * with one WatchUsage holder sampling every second, and again after that watch closed, side by side in the
 * same run; and the usage samples it took with nobody watching, which must be 0 (the Samples property).
 * The real daemon on a private bus over a fixture /proc and /sys (tests/drm/usage-fixture.c) with GPU
 * clients whose counters move, so a sample has real work; no root needed. Prints figures, asserts nothing.
 *
 *   bench-usage-idle NVPROFILED [SECONDS_PER_PHASE (10)] [PROCESSES (8)] */

#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-util.h"
#include "bus-names.h"
#include "usage-fixture.h"

static char dir[] = "/tmp/nvp-bench-idle-XXXXXX";

/* n processes with one i915 client each on a fixture device whose render counters step 1: 0 and step 2:
 * 0.5 s per process, each in a service of its own. */
static char *fixture_script(unsigned n, const char *root)
{
        GString *s = g_string_new("node renderD128 /dev/full pci 0000:00:02.0 0x8086 0x46a6 i915\n");

        for (unsigned i = 0; i < n; i++)
                g_string_append_printf(s,
                                "process %u %u %u game%u /usr/bin/game %s\nfd %u 3 /dev/full\n"
                                "cgroup %u /system.slice/game%u.service\n",
                                100 + i, (unsigned) getuid(), 1000 + i, i, root, 100 + i, 100 + i, i);
        for (unsigned step = 1; step <= 2; step++) {
                g_string_append_printf(s, "step %u\n", step);
                for (unsigned i = 0; i < n; i++)
                        g_string_append_printf(s,
                                        "fdinfo %u 3 keys drm-driver=i915 drm-pdev=0000:00:02.0 drm-client-id=%u "
                                        "drm-engine-render=%u_ns drm-total-system0=64_MiB drm-resident-system0=48_MiB\n",
                                        100 + i, 10 + i, step == 1 ? 0 : 500000000);
        }
        return g_string_free(s, FALSE);
}

static uint64_t samples(sd_bus *bus)
{
        uint64_t v = 0;

        if (sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "Samples", NULL, 't', &v) <
                        0)
                bench_die("Samples");
        return v;
}

typedef struct Phase {
        double cpu_s_per_s;
        uint64_t samples;
} Phase;

static Phase measure(pid_t daemon_pid, sd_bus *bus, unsigned seconds)
{
        uint64_t c0, c1, s0, t0, t1;

        s0 = samples(bus);
        c0 = bench_cpu_ns(daemon_pid);
        t0 = bench_now_ns();
        sleep(seconds);
        c1 = bench_cpu_ns(daemon_pid);
        t1 = bench_now_ns();
        return (Phase){ .cpu_s_per_s = (double) (c1 - c0) / (double) (t1 - t0), .samples = samples(bus) - s0 };
}

int main(int argc, char *argv[])
{
        g_autofree char *script = NULL, *error = NULL, *root = NULL, *proc = NULL, *sys = NULL, *conf = NULL;
        g_autofree char *a_bus = NULL, *a_root = NULL, *a_proc = NULL, *a_sys = NULL, *a_conf = NULL, *cmd = NULL;
        unsigned seconds = argc > 2 ? (unsigned) atoi(argv[2]) : 10, n = argc > 3 ? (unsigned) atoi(argv[3]) : 8;
        sd_bus_message *reply = NULL;
        pid_t bus_pid, daemon_pid;
        Phase idle, watched, after;
        char address[600];
        sd_bus *bus;
        int watch;

        if (argc < 2) {
                fprintf(stderr, "usage: %s NVPROFILED [SECONDS_PER_PHASE] [PROCESSES]\n", argv[0]);
                return 2;
        }
        if (seconds == 0 || n == 0 || n > 1000)
                bench_die("arguments");
        if (!mkdtemp(dir))
                bench_die("mkdtemp");
        root = g_strdup_printf("%s/root", dir);
        proc = g_strdup_printf("%s/proc", dir);
        sys = g_strdup_printf("%s/sys", dir);
        conf = g_strdup_printf("%s/nvprofiled.conf", dir);
        cmd = g_strdup_printf("mkdir -p '%s/etc' '%s' '%s'", root, proc, sys);
        bench_run(cmd);
        script = fixture_script(n, root);
        for (unsigned step = 0; step <= 1; step++)
                if (usage_fixture_apply(script, proc, sys, "/nonexistent", step, &error) < 0) {
                        fprintf(stderr, "fixture: %s\n", error);
                        bench_die("fixture");
                }
        bench_write_file(conf,
                        "[ProcessWatch]\nDeviceDirectory=\n[Profiles]\nLogApplied=no\n"
                        "[Usage]\nDrmMajor=1\nAccelMajor=4095\nWatchIntervalSec=1s\nNVML=no\n");

        bench_bus_start(dir, &bus_pid, address, sizeof(address), &bus);
        a_bus = g_strdup_printf("--bus=%s", address);
        a_root = g_strdup_printf("--root=%s", root);
        a_proc = g_strdup_printf("--proc=%s", proc);
        a_sys = g_strdup_printf("--sys=%s", sys);
        a_conf = g_strdup_printf("--config=%s", conf);
        daemon_pid = fork();
        if (daemon_pid < 0)
                bench_die("fork");
        if (daemon_pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                execl(argv[1], argv[1], a_bus, a_root, a_proc, a_sys, a_conf, "--log-level=warning", (char *) NULL);
                _exit(127);
        }
        for (int i = 0;; i++) {
                if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetNameOwner", NULL, &reply, "s", BUS_NAME) >= 0)
                        break;
                if (i == 1500)
                        bench_die("the daemon's bus name");
                usleep(20000);
        }
        reply = sd_bus_message_unref(reply);
        /* The counters' second step, so a watched sample has figures to work out. */
        if (usage_fixture_apply(script, proc, sys, "/nonexistent", 2, &error) < 0)
                bench_die("fixture step 2");
        sleep(2); /* settle after the first scan */

        idle = measure(daemon_pid, bus, seconds);

        if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL, &reply, "t",
                            (uint64_t) 1000000) < 0 ||
                        sd_bus_message_read(reply, "h", &watch) < 0)
                bench_die("WatchUsage");
        watch = fcntl(watch, F_DUPFD_CLOEXEC, 3);
        reply = sd_bus_message_unref(reply);
        sleep(2); /* the first sweep and samples */
        watched = measure(daemon_pid, bus, seconds);
        close(watch);
        sleep(2); /* the daemon sees the watch end */
        after = measure(daemon_pid, bus, seconds);

        printf("daemon idle cost (fixture /proc and /sys: %u processes with a DRM client each, polled every 2 s; "
               "%u s a phase):\n",
                        n, seconds);
        printf("  nobody watching          %10.3e CPU s per s (%7.3f ms/s), usage samples taken: %" PRIu64
               " (must be 0)\n",
                        idle.cpu_s_per_s, idle.cpu_s_per_s * 1e3, idle.samples);
        printf("  one watcher at 1 s       %10.3e CPU s per s (%7.3f ms/s), usage samples taken: %" PRIu64
               " (%.2f per s): %.2fx nobody watching\n",
                        watched.cpu_s_per_s, watched.cpu_s_per_s * 1e3, watched.samples,
                        (double) watched.samples / seconds,
                        idle.cpu_s_per_s > 0 ? watched.cpu_s_per_s / idle.cpu_s_per_s : 0.0);
        printf("  after the watch closed   %10.3e CPU s per s (%7.3f ms/s), usage samples taken: %" PRIu64
               " (must be 0)\n",
                        after.cpu_s_per_s, after.cpu_s_per_s * 1e3, after.samples);
        bench_world_stop(daemon_pid, bus, bus_pid, dir);
        return 0;
}
