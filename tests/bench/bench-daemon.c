/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark of the live daemon (root: it uses the real proc connector). Prints figures; asserts nothing
 * about time.
 *
 *   bench-daemon NVPROFILED HELPER LISTENER CORPUS [LATENCY_EXECS [STORM_EXECS [IDLE_PROCESSES]]]
 *
 * 1. exec storm, twice: with no rc files, and with NVIDIA's shipped 570 file (CORPUS/appprofiles/
 *    nvidia-shipped-570.153.02-rc as /usr/share/nvidia/..., plus the three rules of the later steps).
 *    STORM_EXECS short-lived execs, 64 at a time, with a long-lived process started every 400 execs;
 *    afterwards every long-lived one must be tracked (with its profile where a rule names it), even if
 *    the kernel dropped events (each overrun triggers a rescan). The daemon's CPU per exec is set
 *    against that of LISTENER (bench-listener: receives and parses every event, nothing else), which
 *    listens to the same storm: their ratio is the daemon's overhead over the floor. Then a quarter of
 *    the storm again under `perf stat -e raw_syscalls:sys_enter` for the system calls per exec of each.
 * 2. exec-to-signal latency (570 file): a process is exec'ed, the time just before execve() is noted in
 *    shared memory, and the ProcessChanged signal for its pid is awaited; p50/p99/max over LATENCY_EXECS.
 * 3. idle: IDLE_PROCESSES sleeping processes tracked; the daemon's context switches over 10 s (wakeups
 *    per second; the watchdog is set to 30 s as under systemd) and its RSS.
 *
 * CPU time is the sum over the process's threads of /proc/<pid>/task/<tid>/schedstat (nanoseconds). */

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>

#include "bench-util.h"
#include "bus-names.h"
#include "bus-signatures.h"
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/nvprofiled-bench-XXXXXX";
static pid_t bus_pid, daemon_pid, listener_pid;
static const char *corpus;
static char bus_address[600];
static sd_bus *bus;
static volatile uint64_t *shared_exec_ns;
static pid_t awaited_pid;
static uint64_t signal_ns;

static void copy_file(const char *from, const char *to)
{
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 755 '%s'", from, to, to);
        if (system(cmd) != 0)
                bench_die("cp");
}

static pid_t spawn(char *const argv[], char *const envp[])
{
        pid_t pid = fork();
        if (pid < 0)
                bench_die("fork");
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);
                dup2(null, STDOUT_FILENO);
                if (shared_exec_ns)
                        *shared_exec_ns = bench_now_ns();
                execve(argv[0], argv, envp ? envp : (char *const[]){ NULL });
                _exit(127);
        }
        return pid;
}

static int on_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *object;
        uint32_t pid, uid;
        uint64_t start;

        if (sd_bus_message_read(m, "outu", &object, &pid, &start, &uid) >= 0 && (pid_t) pid == awaited_pid &&
                        signal_ns == 0)
                signal_ns = bench_now_ns();
        return 0;
}

static uint64_t get_u64(const char *prop)
{
        uint64_t v = 0;
        sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, prop, NULL, 't', &v);
        return v;
}

static uint32_t get_u32(const char *prop)
{
        uint32_t v = 0;
        sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, prop, NULL, 'u', &v);
        return v;
}

typedef enum World {
        WORLD_NO_RC_FILES,
        WORLD_SHIPPED_570,
} World;

static const char *world_name(World w)
{
        return w == WORLD_NO_RC_FILES ? "no rc files" : "NVIDIA's 570 file";
}

static void start_bus(void)
{
        bench_bus_start(dir, &bus_pid, bus_address, sizeof(bus_address), &bus);
}

static void start_daemon(const char *nvprofiled, World world)
{
        char root[512], cmd[1500], rc[600], dconf[512];
        const uint64_t deadline = bench_now_ns() + 30 * 1000000000ull;

        snprintf(root, sizeof(root), "%s/root-%i", dir, (int) world);
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/etc/nvidia' '%s/usr/share/nvidia'", root, root);
        bench_run(cmd);
        snprintf(dconf, sizeof(dconf), "%s/nvprofiled-%i.conf", dir, (int) world);
        if (world == WORLD_SHIPPED_570) {
                snprintf(cmd, sizeof(cmd),
                                "cp '%s/appprofiles/nvidia-shipped-570.153.02-rc' "
                                "'%s/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc'",
                                corpus, root);
                bench_run(cmd);
                snprintf(rc, sizeof(rc), "%s/etc/nvidia/nvidia-application-profiles-rc", root);
                bench_write_file(rc,
                                "{\"rules\": [\n"
                                "  {\"pattern\": \"nvp-bench-app\", \"profile\": [\"GLSharpenEnable\", true]},\n"
                                "  {\"pattern\": \"nvp-bench-long\", \"profile\": [\"GLSharpenValue\", 1]},\n"
                                "  {\"pattern\": \"nvp-bench-idle\", \"profile\": [\"GLSharpenValue\", 2]}\n"
                                "]}\n");
                bench_write_file(dconf,
                                "[ProcessWatch]\nDeviceDirectory=\n[Profiles]\nLogApplied=no\n"
                                "DriverVersion=570.153.02\n");
        } else
                bench_write_file(dconf, "[ProcessWatch]\nDeviceDirectory=\n[Profiles]\nLogApplied=no\n");

        {
                char a1[700], a2[700], a3[700];
                char env_watchdog[] = "WATCHDOG_USEC=30000000";
                snprintf(a1, sizeof(a1), "--bus=%s", bus_address);
                snprintf(a2, sizeof(a2), "--root=%s", root);
                snprintf(a3, sizeof(a3), "--config=%s", dconf);
                daemon_pid = spawn((char *const[]){ (char *) nvprofiled, a1, a2, a3, "--log-level=warning", NULL },
                                (char *const[]){ env_watchdog, NULL });
        }

        while (bench_now_ns() < deadline) {
                sd_bus_message *reply = NULL;
                if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetNameOwner", NULL, &reply, "s", BUS_NAME) >= 0) {
                        sd_bus_message_unref(reply);
                        return;
                }
                usleep(20000);
        }
        fprintf(stderr, "nvprofiled did not start\n");
        exit(1);
}

static void stop_daemon(void)
{
        if (daemon_pid > 0) {
                kill(daemon_pid, SIGTERM);
                waitpid(daemon_pid, NULL, 0);
        }
        daemon_pid = 0;
        /* Until the name is gone, a new daemon could not take it. */
        for (uint64_t deadline = bench_now_ns() + 10 * 1000000000ull; bench_now_ns() < deadline; usleep(20000)) {
                sd_bus_message *reply = NULL;
                if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetNameOwner", NULL, &reply, "s", BUS_NAME) < 0)
                        break;
                sd_bus_message_unref(reply);
        }
}

static void start_listener(const char *listener)
{
        int p[2];
        char line[64];
        FILE *f;

        if (pipe(p) < 0)
                bench_die("pipe");
        listener_pid = fork();
        if (listener_pid < 0)
                bench_die("fork");
        if (listener_pid == 0) {
                dup2(p[1], STDOUT_FILENO);
                close(p[0]);
                close(p[1]);
                execl(listener, listener, NULL);
                _exit(127);
        }
        close(p[1]);
        f = fdopen(p[0], "r");
        if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "ready", 5) != 0) {
                fprintf(stderr, "bench-listener did not start\n");
                exit(1);
        }
        fclose(f);
}

static void stop_listener(void)
{
        if (listener_pid > 0) {
                kill(listener_pid, SIGTERM);
                waitpid(listener_pid, NULL, 0);
        }
        listener_pid = 0;
}

static void stop_world(void)
{
        stop_listener();
        stop_daemon();
        bench_world_stop(0, bus, bus_pid, dir);
}

static void bench_latency(const char *app, unsigned n)
{
        uint64_t *lat = calloc(n, sizeof(uint64_t));
        unsigned got = 0, lost = 0;

        if (!lat)
                bench_die("calloc");
        shared_exec_ns = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared_exec_ns == MAP_FAILED)
                bench_die("mmap");
        bench_watch_processes(bus, on_changed, NULL);

        for (unsigned i = 0; i < n; i++) {
                uint64_t deadline;
                pid_t pid;

                signal_ns = 0;
                *shared_exec_ns = 0;
                pid = spawn((char *const[]){ (char *) app, "--seconds", "30", NULL }, NULL);
                awaited_pid = pid;
                deadline = bench_now_ns() + 5 * 1000000000ull;
                while (signal_ns == 0 && bench_now_ns() < deadline) {
                        int r = sd_bus_process(bus, NULL);
                        if (r == 0)
                                sd_bus_wait(bus, 100000);
                }
                if (signal_ns && *shared_exec_ns && signal_ns > *shared_exec_ns)
                        lat[got++] = signal_ns - *shared_exec_ns;
                else
                        lost++;
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
        }
        munmap((void *) shared_exec_ns, 4096);
        shared_exec_ns = NULL;

        bench_sort_u64(lat, got);
        if (got > 0)
                printf("exec-to-signal latency over %u execs: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%u without a signal)\n",
                                got, lat[got / 2] / 1e6, lat[(size_t) (got * 0.99)] / 1e6, lat[got - 1] / 1e6, lost);
        free(lat);
}

/* System calls of pid while perf watches (until stop_syscall_count()). */
static pid_t start_syscall_count(pid_t pid, const char *out)
{
        char p[32];

        snprintf(p, sizeof(p), "%i", (int) pid);
        return spawn((char *const[]){ "/usr/bin/perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-p", p, "-o",
                                     (char *) out, NULL },
                        NULL);
}

static double stop_syscall_count(pid_t perf, const char *out)
{
        char line[512];
        double v = -1;
        FILE *f;
        int status;

        kill(perf, SIGINT);
        waitpid(perf, &status, 0);
        f = fopen(out, "r");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (strstr(line, "raw_syscalls:sys_enter") && line[0] >= '0' && line[0] <= '9')
                        v = strtod(line, NULL);
        fclose(f);
        return v;
}

static bool tracked_with_profile(pid_t pid, bool want_profile)
{
        sd_bus_message *reply = NULL;
        bool found = false;

        if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", NULL, &reply,
                            NULL) < 0)
                return false;
        sd_bus_message_enter_container(reply, 'a', "(" BUS_PROCESS_ENTRY_FIELDS ")");
        while (sd_bus_message_enter_container(reply, 'r', BUS_PROCESS_ENTRY_FIELDS) > 0) {
                const char *object, *comm, *exe;
                uint32_t p, uid, settings;
                uint64_t start;
                char **profiles = NULL;

                sd_bus_message_read(reply, "outuss", &object, &p, &start, &uid, &comm, &exe);
                sd_bus_message_read_strv(reply, &profiles);
                sd_bus_message_read(reply, "u", &settings);
                sd_bus_message_exit_container(reply);
                if ((pid_t) p == pid && (!want_profile || (profiles && profiles[0])))
                        found = true;
                for (char **s = profiles; s && *s; s++)
                        free(*s);
                free(profiles);
        }
        sd_bus_message_unref(reply);
        return found;
}

typedef struct StormResult {
        unsigned execs;
        uint64_t daemon_ns, listener_ns;
        double daemon_syscalls, listener_syscalls; /* per exec; < 0: not counted */
} StormResult;

/* Runs n short-lived execs (and a long-lived one every 400) and waits until the daemon is done. */
static unsigned storm(const char *shortlived, const char *longlived, unsigned n, pid_t *longs, unsigned *n_long)
{
        enum {
                PARALLEL = 64,
                LONG_EVERY = 400
        };
        unsigned running = 0;
        uint64_t last;

        for (unsigned i = 0; i < n; i++) {
                if (running >= PARALLEL) {
                        while (waitpid(-1, NULL, 0) < 0)
                                ;
                        running--;
                }
                spawn((char *const[]){ (char *) shortlived, "--seconds", "0", NULL }, NULL);
                running++;
                if (longs && i % LONG_EVERY == LONG_EVERY / 2 && *n_long < 256)
                        longs[(*n_long)++] =
                                        spawn((char *const[]){ (char *) longlived, "--seconds", "600", NULL }, NULL);
        }
        while (running > 0)
                if (waitpid(-1, NULL, WNOHANG) > 0 || (usleep(1000), 0))
                        running--;

        /* The daemon is done when its event counter stops moving. */
        last = get_u64("ProcessEvents");
        for (;;) {
                uint64_t now;
                usleep(200000);
                now = get_u64("ProcessEvents");
                if (now == last)
                        break;
                last = now;
        }
        return n + (longs ? *n_long : 0);
}

static StormResult bench_storm(World world, const char *shortlived, const char *longlived, unsigned n)
{
        pid_t longs[256];
        unsigned n_long = 0, missed = 0, execs;
        uint64_t events0 = get_u64("ProcessEvents"), overruns0 = get_u64("EventOverruns"), t0, t1;
        uint64_t d0 = bench_cpu_ns(daemon_pid), l0 = bench_cpu_ns(listener_pid);
        StormResult res = { 0 };
        char out_d[600], out_l[600];
        pid_t perf_d, perf_l;

        t0 = bench_now_ns();
        execs = storm(shortlived, longlived, n, longs, &n_long);
        t1 = bench_now_ns() - 200000000ull;
        res.execs = execs;
        res.daemon_ns = bench_cpu_ns(daemon_pid) - d0;
        res.listener_ns = bench_cpu_ns(listener_pid) - l0;

        for (unsigned i = 0; i < n_long; i++)
                if (!tracked_with_profile(longs[i], world == WORLD_SHIPPED_570))
                        missed++;
        for (unsigned i = 0; i < n_long; i++) {
                kill(longs[i], SIGKILL);
                waitpid(longs[i], NULL, 0);
        }

        printf("exec storm, %s: %u execs (+%u long-lived) in %.2f s (%.0f execs/s), %" PRIu64 " events, %" PRIu64
               " overruns, long-lived processes missed: %u of %u\n",
                        world_name(world), n, n_long, (t1 - t0) / 1e9, execs / ((t1 - t0) / 1e9),
                        get_u64("ProcessEvents") - events0, get_u64("EventOverruns") - overruns0, missed, n_long);

        /* System calls, on a shorter storm of their own: perf's counting is not free. */
        snprintf(out_d, sizeof(out_d), "%s/perf-daemon.txt", dir);
        snprintf(out_l, sizeof(out_l), "%s/perf-listener.txt", dir);
        perf_d = start_syscall_count(daemon_pid, out_d);
        perf_l = start_syscall_count(listener_pid, out_l);
        usleep(500000);
        execs = storm(shortlived, NULL, n / 4, NULL, NULL);
        res.daemon_syscalls = stop_syscall_count(perf_d, out_d);
        res.listener_syscalls = stop_syscall_count(perf_l, out_l);
        if (res.daemon_syscalls >= 0)
                res.daemon_syscalls /= execs;
        if (res.listener_syscalls >= 0)
                res.listener_syscalls /= execs;
        return res;
}

static void print_storm(World world, const StormResult *r)
{
        double d = r->daemon_ns / 1e3 / r->execs, l = r->listener_ns / 1e3 / r->execs;

        printf("CPU per exec, %s: daemon %.2f us, bare listener %.2f us, ratio %.2f (aim <= 2); "
               "system calls per exec: daemon %.2f, bare listener %.2f\n",
                        world_name(world), d, l, l > 0 ? d / l : 0.0, r->daemon_syscalls, r->listener_syscalls);
}

static void read_status(uint64_t *ret_switches, uint64_t *ret_rss_kib, uint64_t *ret_hwm_kib)
{
        char path[64], line[256];
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%i/status", (int) daemon_pid);
        f = fopen(path, "r");
        if (!f)
                bench_die(path);
        *ret_switches = 0;
        while (fgets(line, sizeof(line), f)) {
                uint64_t v;
                if (sscanf(line, "voluntary_ctxt_switches: %" SCNu64, &v) == 1 ||
                                sscanf(line, "nonvoluntary_ctxt_switches: %" SCNu64, &v) == 1)
                        *ret_switches += v;
                else if (sscanf(line, "VmRSS: %" SCNu64, &v) == 1)
                        *ret_rss_kib = v;
                else if (sscanf(line, "VmHWM: %" SCNu64, &v) == 1)
                        *ret_hwm_kib = v;
        }
        fclose(f);
}

static void bench_idle(const char *idle, unsigned n)
{
        pid_t *pids = calloc(n, sizeof(pid_t));
        uint32_t base = get_u32("TrackedProcesses");
        uint64_t s0, s1, rss, hwm, deadline;

        if (!pids)
                bench_die("calloc");
        for (unsigned i = 0; i < n; i++)
                pids[i] = spawn((char *const[]){ (char *) idle, "--seconds", "600", NULL }, NULL);
        deadline = bench_now_ns() + 60 * 1000000000ull;
        while (get_u32("TrackedProcesses") < base + n && bench_now_ns() < deadline)
                usleep(100000);
        /* Let the settle re-reads (3 s) run out, then only listen. */
        sleep(4);
        read_status(&s0, &rss, &hwm);
        sleep(10);
        read_status(&s1, &rss, &hwm);
        printf("idle with %" PRIu32 " processes tracked: %.2f wakeups/s over 10 s (watchdog 30 s), RSS %.1f MiB "
               "(peak %.1f MiB)\n",
                        get_u32("TrackedProcesses"), (s1 - s0) / 10.0, rss / 1024.0, hwm / 1024.0);

        for (unsigned i = 0; i < n; i++)
                kill(pids[i], SIGKILL);
        for (unsigned i = 0; i < n; i++)
                waitpid(pids[i], NULL, 0);
        free(pids);
}

int main(int argc, char *argv[])
{
        unsigned latency_n = 2000, storm_n = 20000, idle_n = 1000;
        char app[600], shortlived[600], longlived[600], idle[600];
        StormResult none, shipped;

        if (argc < 5) {
                fprintf(stderr,
                                "Usage: %s NVPROFILED HELPER LISTENER CORPUS [LATENCY_EXECS [STORM_EXECS "
                                "[IDLE_PROCESSES]]]\n",
                                argv[0]);
                return 2;
        }
        if (geteuid() != 0) {
                fprintf(stderr, "bench-daemon needs root (the proc connector); skipping.\n");
                return 77;
        }
        corpus = argv[4];
        if (argc > 5)
                latency_n = (unsigned) strtoul(argv[5], NULL, 10);
        if (argc > 6)
                storm_n = (unsigned) strtoul(argv[6], NULL, 10);
        if (argc > 7)
                idle_n = (unsigned) strtoul(argv[7], NULL, 10);

        if (!mkdtemp(dir))
                bench_die("mkdtemp");
        snprintf(app, sizeof(app), "%s/nvp-bench-app", dir);
        snprintf(shortlived, sizeof(shortlived), "%s/nvp-bench-short", dir);
        snprintf(longlived, sizeof(longlived), "%s/nvp-bench-long", dir);
        snprintf(idle, sizeof(idle), "%s/nvp-bench-idle", dir);
        copy_file(argv[2], app);
        copy_file(argv[2], shortlived);
        copy_file(argv[2], longlived);
        copy_file(argv[2], idle);

        start_bus();
        start_listener(argv[3]);

        start_daemon(argv[1], WORLD_NO_RC_FILES);
        none = bench_storm(WORLD_NO_RC_FILES, shortlived, longlived, storm_n);
        stop_daemon();

        start_daemon(argv[1], WORLD_SHIPPED_570);
        shipped = bench_storm(WORLD_SHIPPED_570, shortlived, longlived, storm_n);
        stop_listener();
        bench_latency(app, latency_n);
        bench_idle(idle, idle_n);

        print_storm(WORLD_NO_RC_FILES, &none);
        print_storm(WORLD_SHIPPED_570, &shipped);
        stop_world();
        return 0;
}
