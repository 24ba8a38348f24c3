/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

/* The one test world of the C suites: a scratch directory, a private system-like dbus-daemon
 * (tests/lib/test-bus-system.conf, with our policy file), the real nvprofiled on it with a --root tree
 * (as root, as we are, or as deployed: as a system user the case creates, with the unit's capabilities),
 * fixture trees below the scratch directory, and users the case creates. What a case leaves behind is
 * removed by the teardown, or by the handler of a fatal signal (a failed assertion, meson's timeout)
 * when the case ends first. tests/integration/itest.h (ITest) and tests/bus/bus-world.h (BusWorld) are
 * this world with the helpers of their suites. */

typedef struct TestUser {
        char name[48];
        uid_t uid;
        gid_t gid;
} TestUser;

typedef struct TestWorld {
        char *dir; /* scratch, 0755: an unprivileged user reaches the bus socket and binaries inside */
        char *root; /* the daemon's --root */
        char *proc; /* the daemon's --proc when set (a fixture tree under dir), or NULL */
        char *sys; /* the daemon's --sys when set (a fixture tree under dir), or NULL */
        char *devdir; /* fake GPU device nodes */
        char *bus_address;
        GPid bus_pid, daemon_pid, polkit_pid;
        union {
                int daemon_log; /* the daemon's stderr, printed when a test fails */
                int daemon_stderr;
        };
        sd_bus *bus; /* our connection */
        int notify_fd; /* NOTIFY_SOCKET, as systemd would give it... */
        bool with_notify; /* ...to daemons started while this is set; the test must then read it, as
                           * systemd does, or the daemon's sd_notify() blocks on a full socket */
        bool without_dac_override; /* daemons started while set run as root (deployed: as the unit's user)
                                    * without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv): a file of
                                    * mode 0000 is EACCES to them */
        const char *const *daemon_wrapper; /* daemons started while set run as this command (NULL-terminated)
                                            * followed by theirs, e.g. in a PID namespace (pidns-run) */
        const char *const *helper_wrapper; /* ...and helpers spawned while set */
        bool deployed; /* the daemon runs as the unit runs it: as daemon_user */
        char daemon_user[48]; /* ...a system user the case creates, in place of the unit's User= */
        const TestUser *helper_user; /* helpers spawned while set run as this user, not as root */
        bool sanitizer_report_fails; /* teardown fails the case on a sanitizer's report in the daemon's log */
} TestWorld;

/* The scratch directory (named after prefix), the bus and our connection to it. deployed: the daemon
 * will run as deployed (root only). Root may own org.freedesktop.PolicyKit1 on the bus (a stand-in);
 * the daemon's user (deployed's, or ours when we are not root) may own the daemon's name. */
void test_world_setup(TestWorld *w, const char *prefix, bool deployed);
/* Stops everything, prints the daemon's log if the case failed, removes the scratch directory. */
void test_world_teardown(TestWorld *w);

/* Starts nvprofiled with config (the text of its --config file) and extra arguments (NULL-terminated, may
 * be NULL), and waits until it owns its name and answers. */
void test_world_start_daemon(TestWorld *w, const char *config, const char *const *args);
/* Runs another nvprofiled on the same bus to its end; returns its exit status and its log. */
int test_world_run_daemon(TestWorld *w, const char *config, char **ret_log);
/* SIGTERM and waits; the exit status (128 + signal when killed) in ret_exit_status if not NULL. */
void test_world_stop_daemon(TestWorld *w, int *ret_exit_status);
/* The daemon's log so far. */
char *test_world_daemon_log(TestWorld *w);
void test_world_print_daemon_log(TestWorld *w);

/* The handler of a fatal signal also kills (SIGKILL) the first *n pids of children (0: reaped already): the
 * processes a case started itself. */
void test_world_kill_on_abort(const pid_t *children, const size_t *n);

/* Whether name has an owner on the world's bus. */
bool test_world_name_has_owner(TestWorld *w, const char *name);

/* Writes a file, creating its directories (0755); below the daemon's root for test_world_write(). */
void test_write_file_p(const char *path, const char *content);
void test_world_write(TestWorld *w, const char *rel, const char *content);

/* An unprivileged user made for the case with useradd (a system user of its own group, without a home
 * directory or a shell), named prefix<our pid>-<n>. Removed by test_world_remove_users(), and by the
 * handler of a fatal signal. Root only. */
void test_world_create_user(const char *prefix, TestUser *ret);
/* The same for a user of a fixed name, which may exist already (another test binary made it); its uid. */
uid_t test_world_adopt_user(const char *name);
void test_world_remove_user(const char *name);
void test_world_remove_users(void);
/* In a forked child: becomes the user for good (no supplementary groups, no way back to root) and dies
 * with its parent; _exit(127) when it cannot. */
void test_world_become_user(const TestUser *u);
