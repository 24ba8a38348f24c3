/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

/* A private D-Bus daemon configured like Debian's system bus (method calls denied unless a policy allows
 * them) with our policy file (NVPROFILED_DBUS_POLICY) included: what the integration and bus tests run
 * the real daemon on. */

/* The value of an environment variable meson sets for the test; fails the test without it. */
const char *test_env_or_fail(const char *name);

/* A GSpawnChildSetupFunc: children die with the test, even when an assertion aborts it before teardown. */
void test_child_dies_with_parent(gpointer userdata);

/* Starts dbus-daemon with its socket and configuration in dir, extra_policy (XML, may be "") appended
 * after our policy, and connects to it as the test (retrying while the daemon is not listening yet).
 * The socket is mode 0777: everyone may connect, the policy decides what they may do. */
void test_private_bus_start(
                const char *dir, const char *extra_policy, GPid *ret_pid, char **ret_address, sd_bus **ret_bus);

/* Connects to address as a bus client, retrying a refused connection until deadline (monotonic µs). */
sd_bus *test_bus_connect(const char *address, gint64 deadline);
