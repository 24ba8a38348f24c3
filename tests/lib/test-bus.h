/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

/* GLib's side of the tests' private buses (test-bus-daemon.h): the system-like bus that tests/lib/test-world.h
 * runs the real daemon on, and connecting to a bus. */

/* The value of an environment variable meson sets for the test; fails the test without it. */
const char *test_env_or_fail(const char *name);

/* A GSpawnChildSetupFunc: children die with the test, even when an assertion aborts it before teardown. */
void test_child_dies_with_parent(gpointer userdata);

/* Starts the system-like bus (TEST_BUS_SYSTEM) with its socket and configuration in dir, extra_policy (XML,
 * may be "") appended after our policy ($NVPROFILED_DBUS_POLICY), and connects to it as the test
 * (retrying while the daemon is not listening yet). */
void test_private_bus_start(
                const char *dir, const char *extra_policy, GPid *ret_pid, char **ret_address, sd_bus **ret_bus);

/* Connects to address as a bus client, retrying a refused connection until deadline (monotonic µs). */
sd_bus *test_bus_connect(const char *address, gint64 deadline);
