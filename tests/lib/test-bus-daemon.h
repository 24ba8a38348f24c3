/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The one place the C tests and benchmarks start dbus-daemon. Plain C (the benchmarks run without GLib);
 * the configuration comes from a template in tests/lib, which tests/gtk/appworld.py fills in too. */

typedef enum TestBusKind {
        /* tests/lib/test-bus-system.conf: like the system bus, deny by default, our policy file included
         * ($NVPROFILED_DBUS_POLICY). What the real daemon runs on in the tests. */
        TEST_BUS_SYSTEM,
        /* tests/lib/test-bus-open.conf: a session-type bus where anyone may own names and call methods,
         * limits lifted. For stand-in daemons and the benchmarks. */
        TEST_BUS_OPEN,
} TestBusKind;

/* Whether dbus-daemon is installed; the reason a test skips when it is not. */
#define TEST_BUS_UNAVAILABLE "dbus-daemon is not installed"
bool test_bus_daemon_available(void);

/* Writes dir/bus.conf from kind's template with extra_policy (XML, may be NULL) and starts dbus-daemon
 * on it, listening at dir/bus, as a child that dies with its parent. Returns 0 with its pid and address
 * ("unix:path=dir/bus", freed by the caller) once the socket exists, made 0777 (everyone may connect, the
 * policy decides what they may do), or a negative errno. */
int test_bus_daemon_start(
                const char *dir, TestBusKind kind, const char *extra_policy, pid_t *ret_pid, char **ret_address);

/* SIGTERM, and waits for it. */
void test_bus_daemon_stop(pid_t pid);
