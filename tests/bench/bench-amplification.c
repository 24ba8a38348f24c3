/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark of work amplification (issue 6.7): what the daemon's CPU time costs per event when clients
 * and users make it work. Root: the real proc connector. Prints figures; asserts nothing about time.
 *
 *   bench-amplification NVPROFILED [EXECS [OPEN_SECONDS]]
 *
 * 1. CPU-µs per ProcessChanged signal while EXECS matching processes start (in batches of 50), with 0
 *    clients, with 50 monitor-like clients (each subscribed to ProcessChanged and calling GetProcess for
 *    every signal, as nvprofilectl monitor does), and with 50 clients of the old kind (ExplainProcess
 *    for every signal, which reads /proc and resolves again).
 * 2. CPU-µs per open of a GPU node: a fake render node (mknod, char 1:3, i.e. /dev/null's device) in the
 *    daemon's DeviceDirectory, opened and closed 1,000 times per second for OPEN_SECONDS by one process;
 *    the daemon's idle CPU over the same time is printed beside it. */

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "bus-names.h"

#define N_CLIENTS 50
#define BATCH 50

static char dir[] = "/tmp/nvprofiled-bench-amp-XXXXXX";
static char bus_address[600], app_path[600], node_path[600];
static pid_t bus_pid, daemon_pid;
static sd_bus *bus;
static uint64_t n_signals;
static volatile uint64_t *client_calls; /* shared with the clients: GetProcess/ExplainProcess calls made */

/* The daemon's user+system CPU time so far, from /proc/<pid>/stat fields 14 and 15. */
static uint64_t daemon_cpu_usec(void)
{
        char path[64], buf[4096];
        unsigned long long utime = 0, stime = 0;
        const char *p;
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "/proc/%i/stat", (int) daemon_pid);
        f = fopen(path, "re");
        if (!f)
                bench_die(path);
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
                bench_die("stat");
        return (utime + stime) * 1000000ull / (unsigned long long) sysconf(_SC_CLK_TCK);
}

static pid_t spawn(char *const argv[])
{
        pid_t pid = fork();
        if (pid < 0)
                bench_die("fork");
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                dup2(null, STDOUT_FILENO);
                execv(argv[0], argv);
                _exit(127);
        }
        return pid;
}

static void start_world(const char *nvprofiled)
{
        char path[600], text[2048], a1[700], a2[700], a3[700];
        const uint64_t deadline = (bench_now_ns() / 1000) + 30 * 1000000ull;

        bench_bus_start(dir, &bus_pid, bus_address, sizeof(bus_address), &bus);

        snprintf(text, sizeof(text),
                        "mkdir -p '%s/root/etc/nvidia' '%s/dev/dri' '%s/bin' && cp /bin/sleep '%s/bin/nvp-amp-app'",
                        dir, dir, dir, dir);
        bench_run(text);
        snprintf(app_path, sizeof(app_path), "%s/bin/nvp-amp-app", dir);
        snprintf(path, sizeof(path), "%s/root/etc/nvidia/nvidia-application-profiles-rc", dir);
        bench_write_file(path,
                        "{\"rules\": [{\"pattern\": \"nvp-amp-app\", \"profile\": [\"GLSharpenEnable\", true]}]}\n");

        /* A render node the daemon watches for opens; opening it opens /dev/null's device. */
        snprintf(node_path, sizeof(node_path), "%s/dev/dri/renderD128", dir);
        if (mknod(node_path, S_IFCHR | 0666, makedev(1, 3)) < 0)
                bench_die("mknod");

        snprintf(path, sizeof(path), "%s/nvprofiled.conf", dir);
        snprintf(text, sizeof(text), "[ProcessWatch]\nDeviceDirectory=%s/dev\nSettleSec=0\n[Profiles]\nLogApplied=no\n",
                        dir);
        bench_write_file(path, text);
        snprintf(a1, sizeof(a1), "--bus=%s", bus_address);
        snprintf(a2, sizeof(a2), "--root=%s/root", dir);
        snprintf(a3, sizeof(a3), "--config=%s", path);
        daemon_pid = spawn((char *const[]){ (char *) nvprofiled, a1, a2, a3, "--log-level=warning", NULL });

        while ((bench_now_ns() / 1000) < deadline) {
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

static void stop_world(void)
{
        bench_world_stop(daemon_pid, bus, bus_pid, dir);
}

/* A client: for each ProcessChanged naming an object, one call of method about that process. */
typedef struct Client {
        const char *method;
        volatile uint64_t *calls;
} Client;

static int on_client_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Client *c = userdata;
        sd_bus_message *reply = NULL;
        const char *object;
        uint32_t pid, uid;
        uint64_t start;

        if (sd_bus_message_read(m, "outu", &object, &pid, &start, &uid) < 0 || strcmp(object, "/") == 0)
                return 0;
        (void) sd_bus_call_method(sd_bus_message_get_bus(m), BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, c->method,
                        NULL, &reply, "ut", pid, start);
        sd_bus_message_unref(reply);
        (*c->calls)++;
        return 0;
}

static pid_t start_client(const char *method, volatile uint64_t *calls, int ready_fd)
{
        pid_t pid = fork();

        if (pid < 0)
                bench_die("fork");
        if (pid == 0) {
                Client c = { method, calls };
                sd_bus *b;

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                b = bench_bus_connect(bus_address);
                bench_watch_processes(b, on_client_signal, &c);
                (void) !write(ready_fd, "r", 1);
                for (;;) {
                        int r = sd_bus_process(b, NULL);
                        if (r < 0)
                                _exit(0);
                        if (r == 0)
                                (void) sd_bus_wait(b, UINT64_MAX);
                }
        }
        return pid;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *object;
        uint32_t pid, uid;
        uint64_t start;

        if (sd_bus_message_read(m, "outu", &object, &pid, &start, &uid) >= 0 && strcmp(object, "/") != 0)
                n_signals++;
        return 0;
}

static void drain(uint64_t usec)
{
        const uint64_t until = (bench_now_ns() / 1000) + usec;

        while ((bench_now_ns() / 1000) < until) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        bench_die("sd_bus_process");
                if (r == 0)
                        (void) sd_bus_wait(bus, 20000);
        }
}

/* EXECS matching processes, BATCH at a time, each living 0.3 s. */
static void exec_matching(unsigned execs)
{
        for (unsigned done = 0; done < execs; done += BATCH) {
                pid_t pids[BATCH];

                for (unsigned i = 0; i < BATCH; i++)
                        pids[i] = spawn((char *const[]){ app_path, "0.3", NULL });
                for (unsigned i = 0; i < BATCH; i++)
                        waitpid(pids[i], NULL, 0);
                drain(0);
        }
        drain(1000000); /* signals and client calls still in flight */
}

static void phase_signals(const char *label, const char *method, unsigned execs)
{
        pid_t clients[N_CLIENTS];
        unsigned n_clients = method ? N_CLIENTS : 0;
        uint64_t cpu0, calls = 0;
        int ready[2];

        if (pipe(ready) < 0)
                bench_die("pipe");
        memset((void *) client_calls, 0, sizeof(uint64_t) * N_CLIENTS);
        for (unsigned i = 0; i < n_clients; i++)
                clients[i] = start_client(method, &client_calls[i], ready[1]);
        for (unsigned i = 0; i < n_clients; i++) {
                char c;
                if (read(ready[0], &c, 1) != 1)
                        bench_die("client");
        }
        close(ready[0]);
        close(ready[1]);
        drain(500000);

        n_signals = 0;
        cpu0 = daemon_cpu_usec();
        exec_matching(execs);
        {
                uint64_t cpu = daemon_cpu_usec() - cpu0;

                for (unsigned i = 0; i < n_clients; i++)
                        calls += client_calls[i];
                printf("%-44s %6" PRIu64 " signals, %7" PRIu64 " client calls, daemon CPU %7.3f s: %7.1f CPU-us per "
                       "signal\n",
                                label, n_signals, calls, (double) cpu / 1e6,
                                n_signals ? (double) cpu / (double) n_signals : 0.0);
        }
        for (unsigned i = 0; i < n_clients; i++) {
                kill(clients[i], SIGKILL);
                waitpid(clients[i], NULL, 0);
        }
}

static void phase_opens(unsigned seconds)
{
        uint64_t cpu0, idle, busy, opens = 0;
        volatile uint64_t *shared_opens;
        pid_t opener;

        shared_opens = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared_opens == MAP_FAILED)
                bench_die("mmap");

        cpu0 = daemon_cpu_usec();
        drain((uint64_t) seconds * 1000000);
        idle = daemon_cpu_usec() - cpu0;

        opener = fork();
        if (opener < 0)
                bench_die("fork");
        if (opener == 0) {
                const uint64_t start = (bench_now_ns() / 1000), end = start + (uint64_t) seconds * 1000000;
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                /* 1,000 per second, paced against the clock rather than by sleeping a fixed time. */
                for (uint64_t n = 0; (bench_now_ns() / 1000) < end; n++) {
                        uint64_t due = start + n * 1000;
                        int fd;

                        if (due > (bench_now_ns() / 1000))
                                usleep((useconds_t) (due - (bench_now_ns() / 1000)));
                        fd = open(node_path, O_RDWR | O_CLOEXEC);
                        if (fd >= 0) {
                                close(fd);
                                (*shared_opens)++;
                        }
                }
                _exit(0);
        }
        cpu0 = daemon_cpu_usec();
        while (waitpid(opener, NULL, WNOHANG) == 0)
                drain(100000);
        drain(500000);
        busy = daemon_cpu_usec() - cpu0;
        opens = *shared_opens;
        printf("%-44s %6" PRIu64 " opens in %u s, daemon CPU %7.3f s (idle: %.3f s): %7.1f CPU-us per open\n",
                        "render node opened 1,000 times per second", opens, seconds, (double) busy / 1e6,
                        (double) idle / 1e6, opens ? (double) (busy > idle ? busy - idle : 0) / (double) opens : 0.0);
        munmap((void *) shared_opens, sizeof(uint64_t));
}

int main(int argc, char *argv[])
{
        unsigned execs = argc > 2 ? (unsigned) atoi(argv[2]) : 1000;
        unsigned open_seconds = argc > 3 ? (unsigned) atoi(argv[3]) : 5;

        if (argc < 2) {
                fprintf(stderr, "usage: %s NVPROFILED [EXECS [OPEN_SECONDS]]\n", argv[0]);
                return 2;
        }
        if (geteuid() != 0) {
                printf("SKIP: needs root (the proc connector)\n");
                return 77;
        }
        if (!mkdtemp(dir))
                bench_die("mkdtemp");
        client_calls = mmap(
                        NULL, sizeof(uint64_t) * N_CLIENTS, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (client_calls == MAP_FAILED)
                bench_die("mmap");

        start_world(argv[1]);
        bench_watch_processes(bus, on_signal, NULL);
        execs = (execs + BATCH - 1) / BATCH * BATCH;

        printf("Daemon CPU per ProcessChanged signal, %u matching execs:\n", execs);
        phase_signals("no clients", NULL, execs);
        phase_signals("50 clients calling GetProcess per signal", "GetProcess", execs);
        phase_signals("50 clients calling ExplainProcess per signal", "ExplainProcess", execs);
        printf("Daemon CPU per open of a GPU device node:\n");
        phase_opens(open_seconds);

        stop_world();
        return 0;
}
