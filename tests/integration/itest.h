/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "test-world.h"

/* The integration tests' world: the one test world (tests/lib/test-world.h: a private system-like bus, a
 * real nvprofiled on it with a --root configuration tree) with either the real /proc and the real proc
 * connector (root only), or a fixture /proc tree (--proc=), which the daemon polls and which needs no
 * privileges at all. */

typedef TestWorld ITest;
typedef TestUser ITestUser;

/* Waits up to timeout_ms for a notify message containing needle (e.g. "READY=1"). */
bool itest_wait_notify(ITest *t, const char *needle, int timeout_ms);

void itest_setup(ITest *t);

/* The same, with the daemon run as deployed: as a system user the case creates (removed with the others),
 * with exactly the AmbientCapabilities=, CapabilityBoundingSet= and NoNewPrivileges= of the unit that
 * is installed (systemd/nvprofiled.service.in, read at test time: $NVPROFILED_UNIT_IN), through setpriv,
 * on a bus whose policy lets that user own the name. Root only. itest_setup() does this too when the
 * environment has NVPROFILED_ITEST_DEPLOYED=1 (the meson tests named <case>-deployed). */
void itest_setup_deployed(ITest *t);

/* Cases that need root (the proc connector, other users' processes, dropping to nobody) start with
 * ITEST_REQUIRE_ROOT(): without root the case reports SKIP with the reason, which CI (run as root)
 * never sees and counts as a failure if it does. */
bool itest_have_root(const char *why);
#define ITEST_REQUIRE_ROOT(why)            \
        G_STMT_START                       \
        {                                  \
                if (!itest_have_root(why)) \
                        return;            \
        }                                  \
        G_STMT_END

/* The uid an unprivileged caller runs as: nobody when we are root (itest_ctl_as_caller() drops to it),
 * else ourselves. */
uid_t itest_caller_uid(void);

/* Makes the next itest_start_daemon() read a fixture /proc tree under t->dir instead of the live one. */
void itest_use_fixture_proc(ITest *t);

/* A process in the fixture /proc tree: stat, status, comm, cmdline (argv0), exe (a symlink to exe),
 * environ, maps (NULL: none mapped), an empty fd/ and root (a symlink to the daemon's --root, so it is
 * not seen as a container). Replaces any earlier fixture process of that pid. */
void itest_fixture_process(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps);
/* The same with environment entries ("NAME=value", NULL-terminated; PATH is always there), such as the
 * HOME that picks a user's rc files. */
void itest_fixture_process_env(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps, const char *const *env);
/* The cgroup v2 path of a fixture process (its /proc/<pid>/cgroup), after itest_fixture_process(). */
void itest_fixture_cgroup(ITest *t, pid_t pid, const char *path);
/* The root of a fixture process (its /proc/<pid>/root): a link to dir, an absolute path. */
void itest_fixture_root(ITest *t, pid_t pid, const char *dir);
/* The process exits: its directory goes. */
void itest_fixture_exit(ITest *t, pid_t pid);
void itest_teardown(ITest *t);

/* An unprivileged user made for the case (test_world_create_user()), named prefix<our pid>-<n>.
 * itest_remove_users() removes it; so does itest_teardown(), and the abort handler when an assertion (or a
 * SIGTERM) ends the case first. Root only. */
void itest_create_user(const char *prefix, ITestUser *ret);
void itest_remove_users(void);
/* In a forked child: becomes the user for good (no supplementary groups, no way back to root) and dies
 * with its parent; _exit(127) when it cannot. */
void itest_become_user(const ITestUser *u);
/* The user owns path (a link itself, not what it names). */
void itest_user_chown(const ITestUser *u, const char *path);

/* Starts nvprofiled (with the given extra config text appended) and waits for its bus name. */
void itest_start_daemon(ITest *t, const char *extra_config);
void itest_stop_daemon(ITest *t, int *ret_exit_status);

/* Writes a file under the daemon's root, creating directories. */
void itest_write(ITest *t, const char *rel, const char *content);

/* /home/name below the daemon's root for owner (NULL: root), 0700 as is its .nv, with rc as the private
 * rc file .nv/nvidia-application-profiles-rc (0600); /home itself 0755. Returns "HOME=/home/name". */
char *itest_write_home(ITest *t, const char *name, const ITestUser *owner, const char *rc);

/* Spawns build/tests/integration/helper-process as a copy named name (NULL: its own name), with extra
 * environment entries and arguments; waits until it printed "ready". Returns its pid. */
GPid itest_spawn_helper(ITest *t, const char *name, const char *const *env, const char *const *args);
void itest_kill(GPid pid);

/* Runs nvprofilectl with args (and --bus=, --json=short); returns its exit status, stdout in ret_out. */
int itest_ctl(ITest *t, char **ret_out, const char *first_arg, ...) G_GNUC_NULL_TERMINATED;
/* The same as an unprivileged user (nobody). Root only. */
int itest_ctl_as_nobody(ITest *t, char **ret_out, const char *first_arg, ...) G_GNUC_NULL_TERMINATED;
/* The same as itest_caller_uid(): nobody when we are root, else ourselves. */
int itest_ctl_as_caller(ITest *t, char **ret_out, const char *first_arg, ...) G_GNUC_NULL_TERMINATED;

/* Profiles the daemon's tracked state lists for pid (via ListProcesses), as a comma-joined string,
 * NULL if untracked. */
char *itest_tracked_profiles(ITest *t, pid_t pid);

/* Whether the daemon tracks pid with exactly these profiles (comma-joined); whether it tracks pid. */
bool itest_profiles_are(ITest *t, pid_t pid, const char *expected);
bool itest_is_tracked(ITest *t, pid_t pid);

/* Generation of the configuration (ConfigGeneration). */
uint64_t itest_generation(ITest *t);

/* The list key of a listing's --json document (nvprofilectl processes, rules, profiles, errors: an object
 * naming its schema, the list one of its members), a reference of its own; NULL if out does not parse. */
struct json_object *itest_parse_list(const char *out, const char *key);

/* Calls Resolve with exe (and optional HOME) and returns the resolution as JSON (via nvprofilectl). */
struct json_object *itest_resolve_json(ITest *t, const char *exe, const char *home);

/* Looks up key among the resolution's settings; returns its value as a string, or NULL. */
const char *itest_setting(struct json_object *res, const char *key);

/* `nvprofilectl explain PID` as JSON (NULL when it failed), its exit status in ret_status if not NULL. */
struct json_object *itest_explain_json(ITest *t, pid_t pid, int *ret_status);

/* The string member key of o, or NULL. */
const char *itest_jstr(struct json_object *o, const char *key);

/* The daemon's TrackedProcesses. */
uint32_t itest_tracked_count(ITest *t);

/* Fails the case when needle is in text (what where was told), printing where it stands. */
void itest_assert_absent(const char *where, const char *text, const char *needle);

/* Waits up to timeout_ms, checking cond every 20 ms. A bounded wait for an event, not a timing test. */
#define ITEST_WAIT_FOR(cond, timeout_ms)                                                 \
        G_STMT_START                                                                     \
        {                                                                                \
                gint64 _deadline = g_get_monotonic_time() + (gint64) (timeout_ms) *1000; \
                while (!(cond) && g_get_monotonic_time() < _deadline)                    \
                        g_usleep(20 * 1000);                                             \
        }                                                                                \
        G_STMT_END
