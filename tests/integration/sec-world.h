/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* nvprofiled as an attacker tries it (HACKING.md "Security rules"): the real daemon runs as root on a
 * private bus with a --root fixture tree, and the attacker is an unprivileged user that each case creates
 * itself (useradd) and removes at the end, also when an assertion aborts the case. The attacker's calls
 * run as that user: nvprofilectl, or sd-bus directly, in a child that dropped to it.
 *
 * Every case collects everything the attacker was told (replies, error names and texts, nvprofilectl's
 * stdout and stderr) and at the end (sec_finish()) asserts that no byte of the secret ("hunter2" and a
 * random token per run) appears in it or in any line of the daemon's log, that no private fact reached
 * the attacker, and that the daemon is intact: it still runs, answers, lists the system rules and
 * reloads. Shared by test-security.c and test-security-files.c. */

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "itest.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define USER_RC ".nv/nvidia-application-profiles-rc"
#define USER_RCD ".nv/nvidia-application-profiles-rc.d"
#define MARKER "nvptest-system-marker"
#define USER_PREFIX "nvptest-sec-"
#define WAIT_MS 15000

typedef struct Sec {
        ITest t;
        ITestUser account; /* the attacker (itest_create_user()) */
        const char *user; /* its name, uid and gid */
        uid_t uid;
        gid_t gid;
        char *home; /* the attacker's home as the daemon names it (below --root) */
        char *home_dir; /* ...and where it is on disk */
        char *token; /* random, per run */
        char *secret; /* "hunter2-<token>" */
        char *ctl; /* a copy of nvprofilectl that the attacker can run */
        char *proc_mount; /* the live /proc bind-mounted at <root>/proc, or NULL */
        GString *seen; /* everything the callers were told (root's too, unless said otherwise) */
        GString *attacker_seen; /* ...of which the attacker's part */
        GPtrArray *private_facts; /* strings that must not reach the attacker (but may be in root's log) */
} Sec;

#define SEC_CHILDREN_MAX 64
/* Processes a case started, killed at its end or when it aborts (a 0 entry was reaped already). */
extern pid_t children[SEC_CHILDREN_MAX];
extern size_t n_children;

typedef void (*AttackerBusFn)(sd_bus *bus, FILE *out, void *userdata);

/* Kills pid (SIGKILL) when the case ends or aborts. */
void remember_child(pid_t pid);

/* The variable meson sets for the test (binaries, policy files), or the case fails. */
const char *env_or_fail(const char *name);

/* A child setup function (GSpawnChildSetupFunc, userdata the Sec): become the attacker for good. */
void drop_to_attacker(gpointer userdata);

/* path (not followed) now belongs to the attacker. */
void chown_attacker(Sec *s, const char *path);

/* A file in the attacker's home, owned by the attacker, with its directories. */
void attacker_write(Sec *s, const char *rel, const char *content, gssize len);

/* A directory in the attacker's home, owned by the attacker. */
void attacker_mkdir(Sec *s, const char *rel);

/* A symbolic link in the attacker's home, as the attacker would make it. target is absolute as the
 * daemon sees it (resolved below --root). */
void attacker_symlink(Sec *s, const char *rel, const char *target);

/* A file under the daemon's root, owned by root, with mode. */
void root_write(Sec *s, const char *rel, const char *content, mode_t mode);

/* A directory under the daemon's root, owned by root, with mode. */
void root_mkdir(Sec *s, const char *rel, mode_t mode);

/* A copy of an executable, mode 0755, with its directories. */
void copy_file(const char *from, const char *to);

/* private_proc: the live /proc is bind-mounted at <root>/proc in a mount namespace of our own (which the
 * bus, the daemon and every client inherit, and which goes with us), so that a link to /proc/<pid>/...
 * in a home reaches the real thing although the daemon resolves links below --root. */
void sec_setup(Sec *s, bool private_proc);

/* Kills what the case started, removes the scratch tree and the user. sec_finish() calls it. */
void sec_teardown(Sec *s);

/* Runs nvprofilectl (as the attacker, or as root) with the arguments; returns its exit status, its stdout
 * in ret_out and its stderr in ret_err. record: what it said joins s->seen (root listing what only root
 * may see passes false). */
int ctl_run(Sec *s, bool attacker, bool record, char **ret_out, char **ret_err, const char *const *args);

/* text as JSON, or the case fails (saying what it was). */
struct json_object *parse_json(const char *text);

/* The string member key of o, or NULL. */
const char *jstr(struct json_object *o, const char *key);

/* One call's outcome, as text: "Member: ok (...)" or "Member: error NAME: MESSAGE". */
void dump_call(FILE *f, const char *member, int r, const sd_bus_error *error, sd_bus_message *reply);

/* Runs fn as the attacker, connected to the bus, in a child; returns everything it wrote (which joins
 * s->seen). While waiting, tick(userdata) runs about every 50 ms, if given. */
char *attacker_on_bus(Sec *s, AttackerBusFn fn, void *userdata, void (*tick)(Sec *s, void *userdata));

/* A copy of the helper process named name (any bytes but '/'), run as the attacker (with its $HOME) or
 * as root, with args; returns its pid once it said "ready". */
GPid spawn_helper(Sec *s, bool attacker, const char *name, const char *const *args);

/* Whether the daemon tracks pid with exactly these profiles (comma-joined; NULL: tracked at all). */
bool tracked_with(Sec *s, pid_t pid, const char *profiles);

/* Everything the daemon logged so far (its stderr). */
char *daemon_log(Sec *s);

/* Fails the case, with the context, when needle is in text (which is where). */
void assert_absent(const char *where, const char *text, const char *needle);

/* Nothing leaked: no byte of the secret in anything the attacker was told or in the daemon's log, and no
 * private fact in anything the attacker was told. */
void assert_nothing_leaked(Sec *s);

/* The daemon still runs, answers, lists the system rules and reloads. */
void assert_daemon_intact(Sec *s);

/* The end of every case: the daemon is intact, stops cleanly, and nothing leaked; then sec_teardown(). */
void sec_finish(Sec *s);

/* Whether file is below prefix (when it ends with '/') or is prefix. */
bool file_matches(const char *file, const char *prefix);

/* The entries of `nvprofilectl errors` (as the attacker or root) about file (see file_matches()), with
 * their message containing needle (NULL: any). */
guint count_errors(struct json_object *errors, const char *prefix, const char *needle);

/* `nvprofilectl errors` as JSON, run as the attacker or as root (recorded). */
struct json_object *errors_json(Sec *s, bool attacker);

/* Rules of a listing from file (see file_matches()). */
guint count_rules_from(struct json_object *rules, const char *prefix);

/* `nvprofilectl rules --home HOME` as the attacker, as JSON. */
struct json_object *attacker_rules(Sec *s, const char *home);

/* The hexadecimal start addresses of the mappings in /proc/<pid>/maps. */
GPtrArray *load_addresses(pid_t pid);

#define CTL_ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define attacker_ctl(s, ret_out, ret_err, ...) ctl_run((s), true, true, (ret_out), (ret_err), CTL_ARGS(__VA_ARGS__))
#define root_ctl(s, ret_out, ret_err, ...) ctl_run((s), false, true, (ret_out), (ret_err), CTL_ARGS(__VA_ARGS__))
/* Root may see what it asks for here: not part of what must not leak. */
#define root_ctl_private(s, ret_out, ...) ctl_run((s), false, false, (ret_out), NULL, CTL_ARGS(__VA_ARGS__))
