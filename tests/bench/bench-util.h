/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

/* What the benchmarks share: they run without GLib, and any failure ends the run. */

_Noreturn void bench_die(const char *what);
void bench_write_file(const char *path, const char *text);
void bench_run(const char *cmd);
uint64_t bench_now_ns(void);
/* Sorts v in ascending order. */
void bench_sort_u64(uint64_t *v, size_t n);
/* Sorts v and returns its median (the upper one of an even count); v has at least one element. */
uint64_t bench_median_u64(uint64_t *v, size_t n);
/* A process's CPU time in nanoseconds: the sum over its threads of the first field of schedstat. */
uint64_t bench_cpu_ns(pid_t pid);

/* Connects to the bus at address, retrying for up to 30 s while it does not accept yet. */
sd_bus *bench_bus_connect(const char *address);

/* Calls handler for every ProcessChanged: matches it and subscribes (the daemon sends it to subscribers
 * only). */
void bench_watch_processes(sd_bus *bus, sd_bus_message_handler_t handler, void *userdata);

/* Starts the tests' open bus (tests/lib/test-bus-daemon.h, TEST_BUS_OPEN: a session-type bus that allows
 * everything and lifts the per-connection limits, so that many clients and signal storms measure the
 * daemon, not the bus) with its socket and configuration in dir, writes its address to address and
 * connects to it. */
void bench_bus_start(const char *dir, pid_t *ret_pid, char *address, size_t address_size, sd_bus **ret_bus);

/* Ends what bench_bus_start() and a daemon on it started: the daemon (SIGTERM, waited for), the
 * connection, the bus, and dir with everything in it. */
void bench_world_stop(pid_t daemon_pid, sd_bus *bus, pid_t bus_pid, const char *dir);
