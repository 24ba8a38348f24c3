/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "bus-names.h"
#include "test-bus-daemon.h"

void bench_die(const char *what)
{
        perror(what);
        exit(1);
}

void bench_write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                bench_die(path);
}

void bench_run(const char *cmd)
{
        if (system(cmd) != 0)
                bench_die(cmd);
}

uint64_t bench_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return (x > y) - (x < y);
}

void bench_sort_u64(uint64_t *v, size_t n)
{
        if (n > 0)
                qsort(v, n, sizeof(uint64_t), compare_u64);
}

uint64_t bench_median_u64(uint64_t *v, size_t n)
{
        assert(n > 0);
        bench_sort_u64(v, n);
        return v[n / 2];
}

sd_bus *bench_bus_connect(const char *address)
{
        const uint64_t deadline = bench_now_ns() + 30 * 1000000000ull;
        sd_bus *bus = NULL;

        /* The socket file exists from bind(), before dbus-daemon listens: retry until it accepts. */
        for (;;) {
                if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, address) < 0 || sd_bus_set_bus_client(bus, 1) < 0)
                        bench_die("bus");
                if (sd_bus_start(bus) >= 0)
                        return bus;
                bus = sd_bus_unref(bus);
                if (bench_now_ns() >= deadline)
                        bench_die("bus");
                usleep(10000);
        }
}

void bench_watch_processes(sd_bus *bus, sd_bus_message_handler_t handler, void *userdata)
{
        if (sd_bus_match_signal(bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged", handler,
                            userdata) < 0)
                bench_die("match");
        if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Subscribe", NULL, NULL, NULL) < 0)
                bench_die("Subscribe");
}

void bench_bus_start(const char *dir, pid_t *ret_pid, char *address, size_t address_size, sd_bus **ret_bus)
{
        char *bus_address = NULL;
        int r = test_bus_daemon_start(dir, TEST_BUS_OPEN, NULL, ret_pid, &bus_address);

        if (r < 0) {
                errno = -r;
                bench_die("starting the test bus");
        }
        if ((size_t) snprintf(address, address_size, "%s", bus_address) >= address_size)
                bench_die("bus address");
        free(bus_address);
        *ret_bus = bench_bus_connect(address);
}

void bench_world_stop(pid_t daemon_pid, sd_bus *bus, pid_t bus_pid, const char *dir)
{
        char cmd[1024];

        if (daemon_pid > 0) {
                kill(daemon_pid, SIGTERM);
                waitpid(daemon_pid, NULL, 0);
        }
        sd_bus_flush_close_unref(bus);
        test_bus_daemon_stop(bus_pid);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) !system(cmd);
}

/* A process's CPU time in nanoseconds: the sum over its threads of the first field of schedstat. */
uint64_t bench_cpu_ns(pid_t pid)
{
        char path[64];
        struct dirent *de;
        uint64_t sum = 0;
        DIR *d;

        snprintf(path, sizeof(path), "/proc/%i/task", (int) pid);
        d = opendir(path);
        if (!d)
                bench_die(path);
        while ((de = readdir(d))) {
                char p[320];
                unsigned long long v;
                FILE *f;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "/proc/%i/task/%s/schedstat", (int) pid, de->d_name);
                f = fopen(p, "r");
                if (!f)
                        continue;
                if (fscanf(f, "%llu", &v) == 1)
                        sum += v;
                fclose(f);
        }
        closedir(d);
        return sum;
}
