/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled as an attacker tries it (issue 6, items 1-9; HACKING.md "Security rules"): the real daemon
 * runs as root on a private bus with a --root fixture tree, and the attacker is an unprivileged user that
 * each case creates itself (useradd) and removes at the end, also when an assertion aborts the case. The
 * attacker's calls run as that user: nvprofilectl, or sd-bus directly, in a child that dropped to it.
 *
 * Every case collects everything the attacker was told (replies, error names and texts, nvprofilectl's
 * stdout and stderr) and at the end asserts that no byte of the secret ("hunter2" and a random token per
 * run) appears in it or in any line of the daemon's log, and that the daemon is intact: it still runs,
 * answers, lists the system rules and reloads. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "test-mount.h"

#define RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define USER_RC ".nv/nvidia-application-profiles-rc"
#define USER_RCD ".nv/nvidia-application-profiles-rc.d"
#define MARKER "nvptest-system-marker"
#define USER_PREFIX "nvptest-sec-"
#define WAIT_MS 15000
#define MEMORY_MAX (UINT64_C(128) * 1024 * 1024) /* systemd/nvprofiled.service: MemoryMax=128M */

typedef struct Sec {
        ITest t;
        char *user; /* nvptest-sec-<our pid>: unique, so that concurrent runs never share it */
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

/* For the signal handlers: what to clean up when an assertion aborts the case. */
static char user_to_remove[64];
static pid_t children[64];
static size_t n_children;
static void (*itest_abort_handler)(int);

static void remove_user_now(void)
{
        pid_t pid;

        if (!user_to_remove[0])
                return;
        for (size_t i = 0; i < n_children; i++)
                if (children[i] > 0)
                        (void) kill(children[i], SIGKILL);
        /* Async-signal-safe: fork and exec only. -f: even if a process of the user is still around. */
        pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null >= 0) {
                        (void) dup2(null, STDOUT_FILENO);
                        (void) dup2(null, STDERR_FILENO);
                }
                execl("/usr/sbin/userdel", "userdel", "-f", user_to_remove, (char *) NULL);
                execlp("userdel", "userdel", "-f", user_to_remove, (char *) NULL);
                _exit(127);
        }
        if (pid > 0)
                (void) waitpid(pid, NULL, 0);
        user_to_remove[0] = '\0';
}

static void on_fatal_signal(int sig)
{
        remove_user_now();
        /* itest's handler prints the daemon's log and re-raises. */
        if (sig == SIGABRT && itest_abort_handler && itest_abort_handler != SIG_DFL && itest_abort_handler != SIG_IGN)
                itest_abort_handler(sig);
        signal(sig, SIG_DFL);
        raise(sig);
}

static void remember_child(pid_t pid)
{
        g_assert_cmpuint(n_children, <, G_N_ELEMENTS(children));
        children[n_children++] = pid;
}

static void die_with_parent(void)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static const char *env_or_fail(const char *name)
{
        const char *v = g_getenv(name);
        if (!v)
                g_error("%s is not set; run this test through meson", name);
        return v;
}

static int run_quiet(const char *const *argv)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL, *err = NULL;
        int status;

        g_spawn_sync("/", (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error);
        g_assert_no_error(error);
        if (err && *err)
                g_test_message("%s: %s", argv[0], err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Users an earlier run of this test left behind when it was killed (its pid is in the name). */
static void remove_stale_users(void)
{
        g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func(g_free);
        struct passwd *pw;

        setpwent();
        while ((pw = getpwent())) {
                char *end;
                long pid;

                if (!g_str_has_prefix(pw->pw_name, USER_PREFIX))
                        continue;
                errno = 0;
                pid = strtol(pw->pw_name + strlen(USER_PREFIX), &end, 10);
                if (*end || pid <= 0 || (kill((pid_t) pid, 0) < 0 && errno == ESRCH))
                        g_ptr_array_add(stale, g_strdup(pw->pw_name));
        }
        endpwent();
        for (guint i = 0; i < stale->len; i++) {
                const char *argv[] = { "userdel", "-f", stale->pdata[i], NULL };
                g_test_message("removing stale user %s", (char *) stale->pdata[i]);
                (void) run_quiet(argv);
        }
}

static void create_user(Sec *s)
{
        struct passwd *pw;

        remove_stale_users();
        s->user = g_strdup_printf(USER_PREFIX "%i", (int) getpid());
        g_assert_cmpuint(strlen(s->user), <, sizeof(user_to_remove));
        {
                const char *argv[] = { "useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                        "/nonexistent", "--shell", "/usr/sbin/nologin", s->user, NULL };
                int r;

                /* Another test may hold the lock on /etc/passwd for a moment. */
                for (int attempt = 0; (r = run_quiet(argv)) != 0 && attempt < 50; attempt++)
                        g_usleep(100 * 1000);
                g_assert_cmpint(r, ==, 0);
        }
        strcpy(user_to_remove, s->user);
        pw = getpwnam(s->user);
        g_assert_nonnull(pw);
        s->uid = pw->pw_uid;
        s->gid = pw->pw_gid;
        g_assert_cmpuint(s->uid, !=, 0);
}

static void drop_to_attacker(gpointer userdata)
{
        Sec *s = userdata;

        die_with_parent();
        if (setgroups(0, NULL) < 0 || setgid(s->gid) < 0 || setuid(s->uid) < 0)
                _exit(127);
        if (getuid() != s->uid || geteuid() != s->uid || setuid(0) == 0)
                _exit(127);
}

static void root_child_setup(gpointer userdata)
{
        die_with_parent();
}

static void chown_attacker(Sec *s, const char *path)
{
        g_assert_cmpint(lchown(path, s->uid, s->gid), ==, 0);
}

/* A file in the attacker's home, owned by the attacker, with its directories. */
static void attacker_write(Sec *s, const char *rel, const char *content, gssize len)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(path);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(path, content, len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(path, 0644), ==, 0);
        chown_attacker(s, path);
        /* Its directories too, up to the home. */
        for (g_autofree char *d = g_path_get_dirname(path); strlen(d) > strlen(s->home_dir);) {
                char *up = g_path_get_dirname(d);
                chown_attacker(s, d);
                g_free(d);
                d = up;
        }
}

static void attacker_mkdir(Sec *s, const char *rel)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_assert_cmpint(g_mkdir_with_parents(path, 0755), ==, 0);
        chown_attacker(s, path);
}

/* A symbolic link in the attacker's home, as the attacker would make it. target is absolute as the
 * daemon sees it (resolved below --root). */
static void attacker_symlink(Sec *s, const char *rel, const char *target)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        chown_attacker(s, dir);
        (void) unlink(path);
        g_assert_cmpint(symlink(target, path), ==, 0);
        chown_attacker(s, path);
}

/* A file under the daemon's root, owned by root, with mode. */
static void root_write(Sec *s, const char *rel, const char *content, mode_t mode)
{
        g_autofree char *path = g_build_filename(s->t.root, rel, NULL);

        itest_write(&s->t, rel, content);
        g_assert_cmpint(chmod(path, mode), ==, 0);
}

static void root_mkdir(Sec *s, const char *rel, mode_t mode)
{
        g_autofree char *path = g_build_filename(s->t.root, rel, NULL);

        g_assert_cmpint(g_mkdir_with_parents(path, 0755), ==, 0);
        g_assert_cmpint(chmod(path, mode), ==, 0);
}

static void copy_file(const char *from, const char *to)
{
        g_autofree char *contents = NULL, *dir = g_path_get_dirname(to);
        g_autoptr(GError) error = NULL;
        gsize len;

        g_file_get_contents(from, &contents, &len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(to, contents, (gssize) len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(to, 0755), ==, 0);
}

/* private_proc: the live /proc is bind-mounted at <root>/proc in a mount namespace of our own (which the
 * bus, the daemon and every client inherit, and which goes with us), so that a link to /proc/<pid>/...
 * in a home reaches the real thing although the daemon resolves links below --root. */
static void sec_setup(Sec *s, bool private_proc)
{
        *s = (Sec){ 0 };
        if (private_proc) {
                const char *why = test_private_mount_namespace();

                if (why)
                        g_error("a mount namespace of our own: %s", why);
        }
        itest_setup(&s->t);
        /* After itest_setup(), which installs its own. */
        itest_abort_handler = signal(SIGABRT, on_fatal_signal);
        signal(SIGTERM, on_fatal_signal);
        signal(SIGINT, on_fatal_signal);

        s->seen = g_string_new(NULL);
        s->attacker_seen = g_string_new(NULL);
        s->private_facts = g_ptr_array_new_with_free_func(g_free);
        s->token = g_strdup_printf("%08x%08x", g_random_int(), g_random_int());
        s->secret = g_strdup_printf("hunter2-%s", s->token);
        create_user(s);

        s->home = g_strdup_printf("/home/%s", s->user);
        s->home_dir = g_build_filename(s->t.root, s->home, NULL);
        root_mkdir(s, "home", 0755);
        g_assert_cmpint(g_mkdir_with_parents(s->home_dir, 0700), ==, 0);
        g_assert_cmpint(chmod(s->home_dir, 0700), ==, 0);
        chown_attacker(s, s->home_dir);
        attacker_mkdir(s, ".nv");

        /* The system rule whose presence says that the daemon's state is intact. */
        root_write(s, RCD "/10-marker",
                        "{\"rules\": [{\"pattern\": \"" MARKER "\", \"profile\": {\"name\": \"Marker\", \"settings\": "
                        "[\"GLShaderDiskCache\", false]}}]}\n",
                        0644);

        s->ctl = g_build_filename(s->t.dir, "bin", "nvprofilectl", NULL);
        copy_file(env_or_fail("NVPROFILECTL_BIN"), s->ctl);

        if (private_proc) {
                s->proc_mount = g_build_filename(s->t.root, "proc", NULL);
                g_assert_cmpint(g_mkdir_with_parents(s->proc_mount, 0555), ==, 0);
                g_assert_cmpint(mount("/proc", s->proc_mount, NULL, MS_BIND | MS_REC, NULL), ==, 0);
        }
}

static void sec_teardown(Sec *s)
{
        for (size_t i = 0; i < n_children; i++)
                if (children[i] > 0) {
                        (void) kill(children[i], SIGKILL);
                        (void) waitpid(children[i], NULL, 0);
                }
        n_children = 0;
        /* Before itest_teardown()'s rm -rf, which would descend into the mount. */
        if (s->proc_mount)
                g_assert_cmpint(umount2(s->proc_mount, MNT_DETACH), ==, 0);
        itest_teardown(&s->t);
        {
                const char *argv[] = { "userdel", "-f", s->user, NULL };

                user_to_remove[0] = '\0';
                for (int attempt = 0; run_quiet(argv) != 0 && attempt < 50; attempt++)
                        g_usleep(100 * 1000);
        }
        g_assert_null(getpwnam(s->user));
        signal(SIGABRT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);

        g_string_free(s->seen, TRUE);
        g_string_free(s->attacker_seen, TRUE);
        g_ptr_array_unref(s->private_facts);
        g_free(s->user);
        g_free(s->home);
        g_free(s->home_dir);
        g_free(s->token);
        g_free(s->secret);
        g_free(s->ctl);
        g_free(s->proc_mount);
}

/* Runs nvprofilectl (as the attacker, or as root) with the arguments; returns its exit status, its stdout
 * in ret_out and its stderr in ret_err. record: what it said joins s->seen (root listing what only root
 * may see passes false). */
static int ctl_run(Sec *s, bool attacker, bool record, char **ret_out, char **ret_err, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL, *err = NULL, *cmdline = NULL;
        g_auto(GStrv) envp = g_get_environ();
        int status;

        g_ptr_array_add(argv, g_strdup(attacker ? s->ctl : env_or_fail("NVPROFILECTL_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", s->t.bus_address));
        for (const char *const *a = args; *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        g_ptr_array_add(argv, NULL);
        if (attacker)
                envp = g_environ_setenv(envp, "HOME", s->home, TRUE);

        g_spawn_sync("/", (char **) argv->pdata, envp, 0, attacker ? drop_to_attacker : root_child_setup, s, &out, &err,
                        &status, &error);
        g_assert_no_error(error);

        cmdline = g_strjoinv(" ", (char **) argv->pdata + 2);
        g_test_message("%s$ nvprofilectl %s -> %d", attacker ? "attacker" : "root", cmdline,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (err && *err)
                g_test_message("stderr: %s", err);
        if (record) {
                g_string_append_printf(s->seen, "$ %s\n%s%s", cmdline, out, err);
                if (attacker)
                        g_string_append_printf(s->attacker_seen, "$ %s\n%s%s", cmdline, out, err);
        }
        if (ret_out)
                *ret_out = g_steal_pointer(&out);
        if (ret_err)
                *ret_err = g_steal_pointer(&err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define CTL_ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define attacker_ctl(s, ret_out, ret_err, ...) ctl_run((s), true, true, (ret_out), (ret_err), CTL_ARGS(__VA_ARGS__))
#define root_ctl(s, ret_out, ret_err, ...) ctl_run((s), false, true, (ret_out), (ret_err), CTL_ARGS(__VA_ARGS__))
/* Root may see what it asks for here: not part of what must not leak. */
#define root_ctl_private(s, ret_out, ...) ctl_run((s), false, false, (ret_out), NULL, CTL_ARGS(__VA_ARGS__))

static struct json_object *parse_json(const char *text)
{
        struct json_object *o = json_tokener_parse(text);

        if (!o)
                g_test_message("not JSON: %s", text);
        g_assert_nonnull(o);
        return o;
}

static const char *jstr(struct json_object *o, const char *key)
{
        struct json_object *v;
        return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Every basic value of a message, whatever its signature, as text. */
static int dump_message(sd_bus_message *m, FILE *f)
{
        for (;;) {
                const char *contents;
                char type;
                int r;

                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r <= 0)
                        return r;
                if (type == SD_BUS_TYPE_ARRAY || type == SD_BUS_TYPE_STRUCT || type == SD_BUS_TYPE_VARIANT ||
                                type == SD_BUS_TYPE_DICT_ENTRY) {
                        r = sd_bus_message_enter_container(m, type, contents);
                        if (r < 0)
                                return r;
                        fputc('(', f);
                        r = dump_message(m, f);
                        if (r < 0)
                                return r;
                        fputc(')', f);
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                        continue;
                }
                {
                        union {
                                uint8_t u8;
                                int b;
                                int16_t i16;
                                uint16_t u16;
                                int32_t i32;
                                uint32_t u32;
                                int64_t i64;
                                uint64_t u64;
                                double d;
                                const char *s;
                                int fd;
                        } v;

                        r = sd_bus_message_read_basic(m, type, &v);
                        if (r < 0)
                                return r;
                        switch (type) {
                        case SD_BUS_TYPE_STRING:
                        case SD_BUS_TYPE_OBJECT_PATH:
                        case SD_BUS_TYPE_SIGNATURE:
                                fprintf(f, "\"%s\" ", v.s);
                                break;
                        case SD_BUS_TYPE_BYTE:
                                fprintf(f, "%u ", v.u8);
                                break;
                        case SD_BUS_TYPE_BOOLEAN:
                                fprintf(f, "%s ", v.b ? "true" : "false");
                                break;
                        case SD_BUS_TYPE_INT16:
                                fprintf(f, "%i ", v.i16);
                                break;
                        case SD_BUS_TYPE_UINT16:
                                fprintf(f, "%u ", v.u16);
                                break;
                        case SD_BUS_TYPE_INT32:
                                fprintf(f, "%" PRIi32 " ", v.i32);
                                break;
                        case SD_BUS_TYPE_UINT32:
                                fprintf(f, "%" PRIu32 " ", v.u32);
                                break;
                        case SD_BUS_TYPE_INT64:
                                fprintf(f, "%" PRIi64 " ", v.i64);
                                break;
                        case SD_BUS_TYPE_UINT64:
                                fprintf(f, "%" PRIu64 " ", v.u64);
                                break;
                        case SD_BUS_TYPE_DOUBLE:
                                fprintf(f, "%g ", v.d);
                                break;
                        default:
                                fprintf(f, "<%c> ", type);
                        }
                }
        }
}

/* One call's outcome, as text: "Member: ok (...)" or "Member: error NAME: MESSAGE". */
static void dump_call(FILE *f, const char *member, int r, const sd_bus_error *error, sd_bus_message *reply)
{
        if (r < 0) {
                fprintf(f, "%s: error %s: %s\n", member, error->name ? error->name : "(none)",
                                error->message ? error->message : strerror(-r));
                return;
        }
        fprintf(f, "%s: ok ", member);
        if (dump_message(reply, f) < 0)
                fprintf(f, "(unreadable reply)");
        fputc('\n', f);
}

typedef void (*AttackerBusFn)(sd_bus *bus, FILE *out, void *userdata);

/* Runs fn as the attacker, connected to the bus, in a child; returns everything it wrote (which joins
 * s->seen). While waiting, tick(userdata) runs about every 50 ms, if given. */
static char *attacker_on_bus(Sec *s, AttackerBusFn fn, void *userdata, void (*tick)(Sec *s, void *userdata))
{
        GString *got = g_string_new(NULL);
        int pipefd[2], status;
        pid_t pid;

        g_assert_cmpint(pipe2(pipefd, O_CLOEXEC), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                sd_bus *bus = NULL;
                FILE *f;

                close(pipefd[0]);
                drop_to_attacker(s);
                f = fdopen(pipefd[1], "w");
                if (!f)
                        _exit(126);
                if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, s->t.bus_address) < 0 ||
                                sd_bus_set_bus_client(bus, true) < 0 || sd_bus_start(bus) < 0) {
                        fprintf(f, "cannot connect\n");
                        fclose(f);
                        _exit(125);
                }
                fn(bus, f, userdata);
                sd_bus_flush_close_unref(bus);
                fclose(f);
                _exit(0);
        }
        close(pipefd[1]);
        for (;;) {
                struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
                char buf[65536];
                ssize_t n;

                if (poll(&pfd, 1, 50) == 0) {
                        if (tick)
                                tick(s, userdata);
                        continue;
                }
                n = read(pipefd[0], buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                g_assert_cmpint(n, >=, 0);
                if (n == 0)
                        break;
                g_string_append_len(got, buf, n);
        }
        close(pipefd[0]);
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_string_append(s->seen, got->str);
        g_string_append(s->attacker_seen, got->str);
        return g_string_free(got, FALSE);
}

/* A copy of the helper process named name (any bytes but '/'), run as the attacker (with its $HOME) or
 * as root, with args; returns its pid once it said "ready". */
static GPid spawn_helper(Sec *s, bool attacker, const char *name, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autoptr(GError) error = NULL;
        g_autofree char *path = g_build_filename(s->t.dir, "bin", name, NULL);
        g_auto(GStrv) envp = g_get_environ();
        struct pollfd pfd;
        char buf[16] = { 0 };
        GPid pid;
        int out = -1;
        ssize_t n;

        copy_file(env_or_fail("NVPROFILED_HELPER"), path);
        g_ptr_array_add(argv, path);
        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, (char *) *a);
        g_ptr_array_add(argv, NULL);
        if (attacker)
                envp = g_environ_setenv(envp, "HOME", s->home, TRUE);

        g_spawn_async_with_pipes("/", (char **) argv->pdata, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                        attacker ? drop_to_attacker : root_child_setup, s, &pid, NULL, &out, NULL, &error);
        g_assert_no_error(error);
        remember_child(pid);
        pfd = (struct pollfd){ .fd = out, .events = POLLIN };
        g_assert_cmpint(poll(&pfd, 1, 30000), ==, 1);
        n = read(out, buf, sizeof(buf) - 1);
        close(out);
        g_assert_cmpint(n, >, 0);
        g_assert_true(g_str_has_prefix(buf, "ready"));
        return pid;
}

/* Whether the daemon tracks pid with exactly these profiles (comma-joined; NULL: tracked at all). */
static bool tracked_with(Sec *s, pid_t pid, const char *profiles)
{
        g_autofree char *p = itest_tracked_profiles(&s->t, pid);
        return p && (!profiles || g_str_equal(p, profiles));
}

static char *daemon_log(Sec *s)
{
        GString *log = g_string_new(NULL);
        char buf[65536];
        off_t off = 0;
        ssize_t n;

        while ((n = pread(s->t.daemon_stderr, buf, sizeof(buf), off)) > 0) {
                g_string_append_len(log, buf, n);
                off += n;
        }
        return g_string_free(log, FALSE);
}

static void assert_absent(const char *where, const char *text, const char *needle)
{
        const char *hit = strstr(text, needle);

        if (hit) {
                size_t start = hit - text > 200 ? (size_t) (hit - text) - 200 : 0;
                g_autofree char *context = g_strndup(text + start, 400);
                g_test_message("LEAK: \"%s\" in %s: ...%s...", needle, where, context);
        }
        g_assert_null(hit);
}

/* Nothing leaked: no byte of the secret in anything the attacker was told or in the daemon's log, and no
 * private fact in anything the attacker was told. */
static void assert_nothing_leaked(Sec *s)
{
        g_autofree char *log = daemon_log(s);

        g_assert_cmpuint(s->seen->len, >, 0);
        assert_absent("what the callers were told", s->seen->str, "hunter2");
        assert_absent("what the callers were told", s->seen->str, s->token);
        assert_absent("the daemon's log", log, "hunter2");
        assert_absent("the daemon's log", log, s->token);
        for (guint i = 0; i < s->private_facts->len; i++)
                assert_absent("what the attacker was told", s->attacker_seen->str, s->private_facts->pdata[i]);
}

static bool rules_list_marker(Sec *s)
{
        g_autofree char *out = NULL;
        return root_ctl(s, &out, NULL, "--json=short", "rules") == 0 && strstr(out, MARKER);
}

/* The daemon still runs, answers, lists the system rules and reloads. */
static void assert_daemon_intact(Sec *s)
{
        g_autofree char *out = NULL;
        uint64_t g0;

        g_assert_cmpint(waitpid(s->t.daemon_pid, NULL, WNOHANG), ==, 0);
        g_assert_cmpint(root_ctl(s, &out, NULL, "--json=short", "status"), ==, 0);
        g_assert_true(rules_list_marker(s));
        g0 = itest_generation(&s->t);
        g_assert_cmpint(root_ctl(s, NULL, NULL, "reload"), ==, 0);
        ITEST_WAIT_FOR(itest_generation(&s->t) > g0, WAIT_MS);
        g_assert_cmpuint(itest_generation(&s->t), >, g0);
        g_assert_true(rules_list_marker(s));
        /* The attacker is still served too. */
        g_assert_cmpint(attacker_ctl(s, NULL, NULL, "--json=short", "status"), ==, 0);
}

static void sec_finish(Sec *s)
{
        int exit_status;

        assert_daemon_intact(s);
        /* A clean stop too (in the sanitizer build, a leak or an error found on the way makes it
         * non-zero); its last words are part of the log checked below. */
        itest_stop_daemon(&s->t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
        assert_nothing_leaked(s);
        sec_teardown(s);
}

/* Whether file is below prefix (when it ends with '/') or is prefix. */
static bool file_matches(const char *file, const char *prefix)
{
        if (!file)
                return false;
        if (!*prefix || g_str_has_suffix(prefix, "/"))
                return g_str_has_prefix(file, prefix);
        return g_str_equal(file, prefix);
}

/* The entries of `nvprofilectl errors` (as the attacker or root) about file (see file_matches()), with
 * their message containing needle (NULL: any). */
static guint count_errors(struct json_object *errors, const char *prefix, const char *needle)
{
        guint n = 0;

        for (size_t i = 0; i < json_object_array_length(errors); i++) {
                struct json_object *e = json_object_array_get_idx(errors, i);
                const char *file = jstr(e, "file"), *message = jstr(e, "message");

                if (file_matches(file, prefix) && (!needle || (message && strstr(message, needle))))
                        n++;
        }
        return n;
}

static struct json_object *errors_json(Sec *s, bool attacker)
{
        g_autofree char *out = NULL;
        int r = ctl_run(s, attacker, true, &out, NULL, CTL_ARGS("--json=short", "errors"));

        g_assert_cmpint(r, >=, 0);
        g_assert_cmpint(r, <=, 1);
        return parse_json(out);
}

/* Rules of a listing from file (see file_matches()). */
static guint count_rules_from(struct json_object *rules, const char *prefix)
{
        guint n = 0;

        for (size_t i = 0; i < json_object_array_length(rules); i++)
                n += file_matches(jstr(json_object_array_get_idx(rules, i), "file"), prefix);
        return n;
}

static struct json_object *attacker_rules(Sec *s, const char *home)
{
        g_autofree char *out = NULL;

        g_assert_cmpint(attacker_ctl(s, &out, NULL, "--json=short", "rules", "--home", home), ==, 0);
        return parse_json(out);
}

/* Item 1: the attacker's rc file is a link to a 0644 file inside another user's 0700 directory: a
 * non-JSON one (its first word is the secret) and, in the rc.d, an rc file whose rules carry it. The
 * kernel decides as for the attacker: neither is read; both are listed as not readable by its uid. */
static void test_symlink_other_user(void)
{
        Sec s;
        g_autofree char *note = NULL, *text = NULL, *err = NULL, *rc_path = NULL, *rcd_path = NULL;
        g_autofree char *notes_text = NULL, *rules_text = NULL, *home_prefix = NULL;
        struct json_object *rules, *errors;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        notes_text = g_strdup_printf("%s is the password\n", s.secret);
        rules_text = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"%s\", "
                                     "\"settings\": [\"GLSharpenValue\", 7]}}]}\n",
                        s.secret, s.secret);
        root_mkdir(&s, "home/victim", 0700);
        root_write(&s, "home/victim/notes", notes_text, 0644);
        root_write(&s, "home/victim/profiles-rc", rules_text, 0644);
        attacker_symlink(&s, USER_RC, "/home/victim/notes");
        attacker_symlink(&s, USER_RCD "/50-victim", "/home/victim/profiles-rc");
        /* And one of its own, which is read: the links were followed as far as the attacker may. */
        attacker_write(&s, USER_RCD "/60-own",
                        "{\"rules\": [{\"pattern\": \"nvptest-own\", \"profile\": [\"GLSharpenValue\", 1]}]}\n", -1);
        itest_start_daemon(&s.t, NULL);

        rc_path = g_strdup_printf("%s/" USER_RC, s.home);
        rcd_path = g_strdup_printf("%s/" USER_RCD "/50-victim", s.home);
        note = g_strdup_printf("not readable by uid %u", (unsigned) s.uid);
        home_prefix = g_strdup_printf("%s/", s.home);

        rules = attacker_rules(&s, s.home);
        /* The system marker and its own rule; none of the victim's. */
        g_assert_cmpuint(count_rules_from(rules, "/" RCD "/"), ==, 1);
        g_assert_cmpuint(count_rules_from(rules, rc_path), ==, 0);
        g_assert_cmpuint(count_rules_from(rules, rcd_path), ==, 0);
        g_assert_cmpuint(count_rules_from(rules, home_prefix), ==, 1);
        json_object_put(rules);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "profiles", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/nvptest-own",
                                        "--home", s.home),
                        ==, 0);

        /* errors: both entries, as not readable by the attacker's uid; no word of their content. */
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        g_assert_cmpuint(count_errors(errors, rcd_path, note), ==, 1);
        json_object_put(errors);
        g_assert_cmpint(attacker_ctl(&s, &text, &err, "--json=off", "errors"), <=, 1);
        g_assert_nonnull(strstr(text, note));
        /* Root sees the attacker's configuration the same way. */
        errors = errors_json(&s, false);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        json_object_put(errors);

        sec_finish(&s);
}

/* The hexadecimal start addresses of the mappings in /proc/<pid>/maps. */
static GPtrArray *load_addresses(pid_t pid)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/maps", (int) pid), *maps = NULL;
        g_autoptr(GError) error = NULL;
        g_auto(GStrv) lines = NULL;
        GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

        g_file_get_contents(path, &maps, NULL, &error);
        g_assert_no_error(error);
        lines = g_strsplit(maps, "\n", -1);
        for (char **l = lines; *l && **l; l++) {
                size_t n = strspn(*l, "0123456789abcdef");
                /* Short ones ("0-1000") say nothing about ASLR, and would match anywhere. */
                if (n >= 8)
                        g_ptr_array_add(a, g_strndup(*l, n));
        }
        return a;
}

/* Item 2: the same link pointed at /proc/<pid>/maps of a root process: no load address of it anywhere.
 * The attacker's link to its own process's maps is the control: that one is read (and is no rc file). */
static void test_symlink_proc_maps(void)
{
        Sec s;
        g_autofree char *root_maps = NULL, *own_maps = NULL, *own_path = NULL, *rc_path = NULL, *note = NULL;
        g_autoptr(GPtrArray) root_addresses = NULL, own_addresses = NULL;
        struct json_object *errors;
        GPid root_pid, own_pid;

        ITEST_REQUIRE_ROOT("needs root: a root process's maps, a mount namespace, and a user the test creates");
        sec_setup(&s, true);
        root_pid = spawn_helper(&s, false, "nvptest-rootmaps", NULL);
        own_pid = spawn_helper(&s, true, "nvptest-ownmaps", NULL);
        root_addresses = load_addresses(root_pid);
        own_addresses = load_addresses(own_pid);
        g_assert_cmpuint(root_addresses->len, >, 3);
        for (guint i = 0; i < root_addresses->len; i++) {
                bool shared = false;
                for (guint k = 0; k < own_addresses->len; k++)
                        shared = shared || g_str_equal(root_addresses->pdata[i], own_addresses->pdata[k]);
                /* [vsyscall] and the like are the same everywhere: no secret. */
                if (!shared)
                        g_ptr_array_add(s.private_facts, g_strdup(root_addresses->pdata[i]));
        }
        g_assert_cmpuint(s.private_facts->len, >, 3);

        root_maps = g_strdup_printf("/proc/%i/maps", (int) root_pid);
        own_maps = g_strdup_printf("/proc/%i/maps", (int) own_pid);
        attacker_symlink(&s, USER_RC, root_maps);
        attacker_symlink(&s, USER_RCD "/50-rootmaps", root_maps);
        attacker_symlink(&s, USER_RCD "/60-ownmaps", own_maps);
        itest_start_daemon(&s.t, NULL);

        rc_path = g_strdup_printf("%s/" USER_RC, s.home);
        own_path = g_strdup_printf("%s/" USER_RCD "/60-ownmaps", s.home);
        note = g_strdup_printf("not readable by uid %u", (unsigned) s.uid);

        json_object_put(attacker_rules(&s, s.home));
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "profiles", "--home", s.home), ==, 0);
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, rc_path, note), ==, 1);
        /* The control: its own maps were opened and read (and are not an rc file). */
        g_assert_cmpuint(count_errors(errors, own_path, NULL), >=, 1);
        g_assert_cmpuint(count_errors(errors, own_path, "not readable"), ==, 0);
        json_object_put(errors);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);
        /* Root's view of the attacker's configuration is the attacker's too. */
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);

        sec_finish(&s);
}

static void list_rules_call(sd_bus *bus, FILE *f, void *userdata)
{
        const char *home = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules", &error, &reply, "s", home);
        dump_call(f, "ListRules", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProfiles", &error, &reply, "s", home);
        dump_call(f, "ListProfiles", r, &error, reply);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

/* Item 3: root's home (0700, with an rc file carrying the secret) named by the attacker: refused with
 * AccessDenied under every spelling, nothing listed. Root is answered. */
static void test_home_root(void)
{
        Sec s;
        g_autofree char *rc = NULL, *out = NULL, *got = NULL;
        const char *spellings[] = { "/root", "//root", "/root/", "/home/../root", "/root/.", NULL };
        struct json_object *rules;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"RootsOwn\", "
                             "\"settings\": [\"GLSharpenValue\", 3]}}]}\n",
                        s.secret);
        root_mkdir(&s, "root", 0700);
        root_mkdir(&s, "root/.nv", 0755);
        root_write(&s, "root/" USER_RC, rc, 0644);
        itest_start_daemon(&s.t, NULL);

        for (const char **h = spellings; *h; h++) {
                g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL;

                g_assert_cmpint(attacker_ctl(&s, &o1, &e1, "--json=short", "rules", "--home", *h), ==, 1);
                g_assert_cmpstr(o1, ==, "");
                g_assert_nonnull(strstr(e1, "denied"));
                g_assert_cmpint(attacker_ctl(&s, &o2, NULL, "--json=short", "profiles", "--home", *h), ==, 1);
                g_assert_cmpstr(o2, ==, "");
                g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/x", "--home",
                                                *h),
                                ==, 1);
                got = attacker_on_bus(&s, list_rules_call, (void *) *h, NULL);
                g_test_message("%s", got);
                g_assert_nonnull(strstr(got, "ListRules: error " SD_BUS_ERROR_ACCESS_DENIED ":"));
                g_assert_nonnull(strstr(got, "ListProfiles: error " SD_BUS_ERROR_ACCESS_DENIED ":"));
                g_clear_pointer(&got, g_free);
        }
        /* Nothing of root's in its errors either. */
        json_object_put(errors_json(&s, true));

        /* Root is answered: the file is there and is read for root. */
        g_assert_cmpint(root_ctl_private(&s, &out, "--json=short", "rules", "--home", "/root"), ==, 0);
        rules = parse_json(out);
        g_assert_cmpuint(count_rules_from(rules, "/root/" USER_RC), ==, 1);
        json_object_put(rules);

        sec_finish(&s);
}

typedef struct RaceState {
        const char *home;
        unsigned polls;
        uint64_t last_reload_usec;
        sd_bus *root_bus;
} RaceState;

static void race_poll(sd_bus *bus, FILE *f, void *userdata)
{
        RaceState *st = userdata;
        gint64 end = g_get_monotonic_time() + 6 * G_USEC_PER_SEC;

        /* At least st->polls calls, and for long enough that reloads happen while the link changes. */
        for (unsigned i = 0; i < st->polls || g_get_monotonic_time() < end; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                int r;

                r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules", &error, &reply,
                                "s", st->home);
                dump_call(f, "ListRules", r, &error, reply);
                sd_bus_error_free(&error);
                reply = sd_bus_message_unref(reply);
                if (i % 10 == 0) {
                        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListErrors",
                                        &error, &reply, NULL);
                        dump_call(f, "ListErrors", r, &error, reply);
                        if (r < 0)
                                fprintf(f, "ListErrors failed\n");
                        sd_bus_error_free(&error);
                        reply = sd_bus_message_unref(reply);
                }
                g_usleep(5000);
        }
}

/* Root asks for a reload now and then, so that the files are opened again while the link moves. */
static void race_tick(Sec *s, void *userdata)
{
        RaceState *st = userdata;
        uint64_t now = (uint64_t) g_get_monotonic_time();

        if (now - st->last_reload_usec < 250 * 1000)
                return;
        st->last_reload_usec = now;
        (void) sd_bus_call_method(s->t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", NULL, NULL, NULL);
}

/* Item 1, the race: the attacker swaps its link between a file it owns and a root-only 0600 file as
 * fast as it can while ListRules is polled 300+ times (and the daemon reloads): the secret never shows,
 * the attacker's own file does. */
static void test_symlink_swap_race(void)
{
        Sec s;
        g_autofree char *rc = NULL, *got = NULL, *link = NULL, *tmp = NULL;
        RaceState st = { .polls = 300 };
        unsigned own_seen = 0;
        pid_t swapper;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"RootOnly\", "
                             "\"settings\": [\"GLSharpenValue\", 9]}}]}\n",
                        s.secret);
        root_mkdir(&s, "srv/private", 0755);
        root_write(&s, "srv/private/rc", rc, 0600);
        attacker_write(&s, "own-rc",
                        "{\"rules\": [{\"pattern\": \"nvptest-own-swap\", \"profile\": [\"GLSharpenValue\", 1]}]}\n",
                        -1);
        attacker_symlink(&s, USER_RC, "/srv/private/rc");
        itest_start_daemon(&s.t, NULL);

        link = g_build_filename(s.home_dir, USER_RC, NULL);
        tmp = g_build_filename(s.home_dir, ".nv", "link.tmp", NULL);
        swapper = fork();
        g_assert_cmpint(swapper, >=, 0);
        if (swapper == 0) {
                unsigned n = 0;
                char own[4096];

                drop_to_attacker(&s);
                g_snprintf(own, sizeof(own), "%s/own-rc", s.home);
                for (;; n++) {
                        (void) unlink(tmp);
                        if (symlink(n % 2 ? own : "/srv/private/rc", tmp) < 0 || rename(tmp, link) < 0)
                                _exit(1);
                        /* Hundreds of swaps per second, at varying moments; not a busy loop, which
                         * would only starve the daemon of CPU. */
                        usleep(200 + n % 7 * 150);
                }
        }
        remember_child(swapper);

        st.home = s.home;
        st.last_reload_usec = (uint64_t) g_get_monotonic_time();
        got = attacker_on_bus(&s, race_poll, &st, race_tick);
        g_assert_cmpint(waitpid(swapper, NULL, WNOHANG), ==, 0);
        for (const char *p = got; (p = strstr(p, "nvptest-own-swap")); p++)
                own_seen++;
        g_test_message("the attacker's own rule was listed %u times in %u+ polls", own_seen, st.polls);
        g_assert_cmpuint(own_seen, >, 0);
        g_assert_null(strstr(got, "ListRules: error"));
        g_assert_null(strstr(got, "ListErrors failed"));
        kill(swapper, SIGKILL);
        g_assert_cmpint(waitpid(swapper, NULL, 0), ==, swapper);
        children[n_children - 1] = 0;

        sec_finish(&s);
}

/* Item 5 (issue item 2): a system rc file of mode 0600 does not count for the attacker's processes, as
 * the driver, which reads it inside the process, could not read it either. */
static void test_system_file_unreadable(void)
{
        Sec s;
        g_autofree char *private_rc = NULL, *spid = NULL, *note = NULL, *root_text = NULL, *attacker_text = NULL;
        g_autofree char *out = NULL;
        struct json_object *res;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, and a process of a user the test creates");
        sec_setup(&s, false);
        root_write(&s, RCD "/40-public",
                        "{\"rules\": [{\"pattern\": \"nvptest-secproc\", \"profile\": {\"name\": \"Public\", "
                        "\"settings\": [\"GLSharpenEnable\", true]}}]}\n",
                        0644);
        private_rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"nvptest-secproc\", \"profile\": {\"name\": "
                                     "\"Private\", \"settings\": [\"GLSharpenValue\", 5, \"%s\", 1]}}]}\n",
                        s.secret);
        root_write(&s, RCD "/50-private", private_rc, 0600);
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, true, "nvptest-secproc", NULL);
        spid = g_strdup_printf("%i", (int) pid);
        note = g_strdup_printf("/" RCD "/50-private: not readable by uid %u", (unsigned) s.uid);

        /* The readable file applies, the other one does not. */
        ITEST_WAIT_FOR(tracked_with(&s, pid, "Public"), WAIT_MS);
        {
                g_autofree char *p = itest_tracked_profiles(&s.t, pid);
                g_assert_cmpstr(p, ==, "Public");
        }
        for (int attacker = 0; attacker <= 1; attacker++) {
                g_clear_pointer(&out, g_free);
                g_assert_cmpint(ctl_run(&s, attacker, true, &out, NULL, CTL_ARGS("--json=short", "explain", spid)), ==,
                                0);
                res = parse_json(out);
                g_assert_cmpstr(itest_setting(res, "GLSharpenEnable"), ==, "true");
                g_assert_null(itest_setting(res, "GLSharpenValue"));
                json_object_put(res);
                g_clear_pointer(&out, g_free);
                g_assert_cmpint(ctl_run(&s, attacker, true, &out, NULL,
                                                CTL_ARGS("--json=short", "--all", "explain", spid)),
                                ==, 0);
                g_assert_null(strstr(out, "\"Private\""));
        }
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "processes"), ==, 0);
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=short", "processes", "--all"), ==, 0);
        json_object_put(errors_json(&s, true));

        g_assert_cmpint(root_ctl(&s, &root_text, NULL, "--json=off", "explain", spid), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, &attacker_text, NULL, "--json=off", "explain", spid), ==, 0);
        g_test_message("root's explain:\n%s", root_text);
        g_test_message("the attacker's explain:\n%s", attacker_text);
        /* The file is named as not readable by the process's uid, for root and for the attacker. */
        g_assert_nonnull(strstr(root_text, note));
        g_assert_nonnull(strstr(attacker_text, note));
        sec_finish(&s);
}

/* Item 6 (issue item 5): 1,100 links to separate directories in the attacker's rc.d, and one call naming
 * that home, cost nobody else anything: an edit of a system rc file is still picked up at once. */
static void test_watch_starvation(void)
{
        Sec s;
        g_autofree char *out = NULL, *err = NULL;
        uint64_t g0;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        for (unsigned i = 0; i < 1100; i++) {
                g_autofree char *dir = g_strdup_printf("dirs/%04u", i), *entry = g_strdup_printf(USER_RCD "/%04u", i),
                                *target = g_strdup_printf("%s/dirs/%04u", s.home, i);
                attacker_mkdir(&s, dir);
                attacker_symlink(&s, entry, target);
        }
        attacker_write(&s, "dirs/0000/rc", "{\"rules\": []}\n", -1);
        itest_start_daemon(&s.t, NULL);

        g_assert_cmpint(attacker_ctl(&s, &out, &err, "--json=short", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/x", "--home",
                                        s.home),
                        ==, 0);
        json_object_put(errors_json(&s, true));
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=off", "status"), ==, 0);

        for (int round = 0; round < 2; round++) {
                g_autofree char *rule = g_strdup_printf("nvptest-after-edit-%d", round), *text = NULL, *listed = NULL;

                g0 = itest_generation(&s.t);
                text = g_strdup_printf(
                                "{\"rules\": [{\"pattern\": \"%s\", \"profile\": [\"GLSharpenValue\", 2]}]}\n", rule);
                /* Created first, then edited in place. */
                root_write(&s, RCD "/20-edited", text, 0644);
                /* Within a few seconds: coalescing is 100 ms here, at most 2 s in a burst. */
                ITEST_WAIT_FOR(itest_generation(&s.t) > g0, 5000);
                g_assert_cmpuint(itest_generation(&s.t), >, g0);
                g_assert_cmpint(root_ctl(&s, &listed, NULL, "--json=short", "rules"), ==, 0);
                g_assert_nonnull(strstr(listed, rule));
        }
        sec_finish(&s);
}

static uint64_t daemon_rss(Sec *s)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/status", (int) s->t.daemon_pid), *status = NULL;
        g_autoptr(GError) error = NULL;
        const char *p;

        g_file_get_contents(path, &status, NULL, &error);
        g_assert_no_error(error);
        p = strstr(status, "VmRSS:");
        g_assert_nonnull(p);
        return g_ascii_strtoull(p + strlen("VmRSS:"), NULL, 10) * 1024;
}

static bool daemon_has_asan(Sec *s)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/maps", (int) s->t.daemon_pid), *maps = NULL;

        return g_file_get_contents(path, &maps, NULL, NULL) && strstr(maps, "libasan");
}

/* The distinct files below prefix that a rules listing has rules from. */
static guint files_with_rules(struct json_object *rules, const char *prefix)
{
        g_autoptr(GHashTable) files = g_hash_table_new(g_str_hash, g_str_equal);

        for (size_t i = 0; i < json_object_array_length(rules); i++) {
                const char *file = jstr(json_object_array_get_idx(rules, i), "file");
                if (file_matches(file, prefix))
                        g_hash_table_add(files, (char *) file);
        }
        return g_hash_table_size(files);
}

/* Item 7 (issue item 6): 60 files of 1 MB in the attacker's rc.d: the daemon stays within the unit's
 * MemoryMax, and the files beyond the user's budget are listed as skipped for it. Other spellings of the
 * same home are the same configuration. */
static void test_memory_budget(void)
{
        Sec s;
        g_autoptr(GString) big =
                        g_string_new("{\"profiles\": [{\"name\": \"P\", \"settings\": [\"GLSharpenValue\", 1]}],\n"
                                     " \"rules\": [\n");
        g_autofree char *rcd = NULL;
        g_auto(GStrv) spellings = NULL;
        struct json_object *rules, *errors;
        guint loaded, skipped;
        uint64_t rss_before, rss_after, rss_spellings;
        bool asan;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root and the attacker is a user the test creates");
        sec_setup(&s, false);
        /* A valid rc file of exactly 1,000,000 bytes: ~19,000 rules. */
        for (unsigned i = 0; big->len < 1000000 - 200; i++)
                g_string_append_printf(big, "{\"pattern\": \"nvptest-mem-%07u\", \"profile\": \"P\"},\n", i);
        g_string_append(big, "{\"pattern\": \"nvptest-mem-last\", \"profile\": \"P\"}]}\n");
        while (big->len < 1000000)
                g_string_append_c(big, ' ');
        for (unsigned i = 0; i < 60; i++) {
                g_autofree char *name = g_strdup_printf(USER_RCD "/%02u-big", i);
                attacker_write(&s, name, big->str, (gssize) big->len);
        }
        /* And a small one, first in order: read whatever happens to the big ones. */
        attacker_write(&s, USER_RCD "/00-small",
                        "{\"rules\": [{\"pattern\": \"nvptest-small\", \"profile\": [\"GLSharpenValue\", 2]}]}\n", -1);
        itest_start_daemon(&s.t, NULL);
        asan = daemon_has_asan(&s);
        rss_before = daemon_rss(&s);

        rcd = g_strdup_printf("%s/" USER_RCD "/", s.home);
        rules = attacker_rules(&s, s.home);
        rss_after = daemon_rss(&s);
        g_test_message("daemon RSS %" PRIu64 " KiB before, %" PRIu64 " KiB after", rss_before / 1024, rss_after / 1024);
        loaded = files_with_rules(rules, rcd);
        json_object_put(rules);
        errors = errors_json(&s, true);
        skipped = count_errors(errors, rcd, "memory budget");
        json_object_put(errors);
        g_test_message("%u of 61 files read, %u skipped for the memory budget", loaded, skipped);
        g_assert_cmpuint(loaded, >=, 1);
        g_assert_cmpuint(skipped, >=, 50);
        if (asan)
                g_test_message("sanitizer build: its RSS is not the unit's figure, not compared with MemoryMax");
        else
                g_assert_cmpuint(rss_after, <, MEMORY_MAX);

        /* The same home under other spellings: the same configuration (its files keep the first
         * spelling's paths, and are listed once), and no more memory. */
        spellings = g_new0(char *, 5);
        spellings[0] = g_strdup_printf("//home/%s/", s.user);
        spellings[1] = g_strdup_printf("/home/../home/%s", s.user);
        spellings[2] = g_strdup_printf("/home/%s/.", s.user);
        spellings[3] = g_strdup_printf("/home/./%s//", s.user);
        for (char **h = spellings; *h; h++) {
                rules = attacker_rules(&s, *h);
                g_assert_cmpuint(files_with_rules(rules, rcd), ==, loaded);
                json_object_put(rules);
        }
        rss_spellings = daemon_rss(&s);
        g_test_message("daemon RSS %" PRIu64 " KiB after the other spellings", rss_spellings / 1024);
        errors = errors_json(&s, true);
        g_assert_cmpuint(count_errors(errors, "", "memory budget"), ==, skipped);
        g_assert_cmpuint(count_errors(errors, rcd, "memory budget"), ==, skipped);
        json_object_put(errors);
        if (!asan)
                g_assert_cmpuint(rss_spellings, <, rss_after + UINT64_C(16) * 1024 * 1024);

        sec_finish(&s);

        /* Every file is either read (its rules listed) or listed as not read, with the reason. (Files a
         * user's two configurations share are charged once, so neither loses one to the other's share.)
         * Asserted last, after the teardown, so that a failure leaves no 60 MB behind. */
        g_assert_cmpuint(loaded + skipped, ==, 61);
}

static void explain_calls(sd_bus *bus, FILE *f, void *userdata)
{
        pid_t pid = *(pid_t *) userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r, pidfd;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcess", &error, &reply,
                        "ut", (uint32_t) pid, UINT64_C(0));
        dump_call(f, "ExplainProcess", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "GetProcess", &error, &reply, "ut",
                        (uint32_t) pid, UINT64_C(0));
        dump_call(f, "GetProcess", r, &error, reply);
        sd_bus_error_free(&error);
        reply = sd_bus_message_unref(reply);

        /* Anyone may open a pidfd of any process. */
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0) {
                r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcessByPidfd",
                                &error, &reply, "h", pidfd);
                dump_call(f, "ExplainProcessByPidfd", r, &error, reply);
                sd_bus_error_free(&error);
                reply = sd_bus_message_unref(reply);
                close(pidfd);
        } else
                fprintf(f, "pidfd_open: %s\n", strerror(errno));

        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", &error, &reply, NULL);
        dump_call(f, "ListProcesses", r, &error, reply);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
}

static bool refused(const char *got, const char *member)
{
        g_autofree char *denied = g_strdup_printf("%s: error %s:", member, SD_BUS_ERROR_ACCESS_DENIED),
                        *gone = g_strdup_printf("%s: error %s:", member, BUS_ERROR_NO_SUCH_PROCESS);
        return strstr(got, denied) || strstr(got, gone);
}

/* Item 8 (issue item 7): explaining a root process as the attacker is refused, and the refusal says
 * nothing about the process (its executable, its profile). */
static void test_explain_other_user(void)
{
        Sec s;
        g_autofree char *name = NULL, *exe = NULL, *profile = NULL, *rc = NULL, *spid = NULL, *got = NULL;
        g_autofree char *out = NULL, *err = NULL;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, a root process, and a user the test creates");
        sec_setup(&s, false);
        /* comm keeps 15 bytes of the name: "nvptest-rootpro", nothing private. */
        name = g_strdup_printf("nvptest-rootproc-%s", s.token + 8);
        exe = g_build_filename(s.t.dir, "bin", name, NULL);
        profile = g_strdup_printf("RootProfile%s", s.token + 8);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"%s\", \"settings\": "
                             "[\"GLSharpenValue\", 4]}}]}\n",
                        name, profile);
        root_write(&s, RCD "/50-rootproc", rc, 0644);
        g_ptr_array_add(s.private_facts, g_strdup(exe));
        g_ptr_array_add(s.private_facts, g_strdup(s.token + 8));
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, false, name, NULL);
        spid = g_strdup_printf("%i", (int) pid);
        ITEST_WAIT_FOR(tracked_with(&s, pid, profile), WAIT_MS);
        {
                g_autofree char *p = itest_tracked_profiles(&s.t, pid);
                g_assert_cmpstr(p, ==, profile);
        }

        g_assert_cmpint(attacker_ctl(&s, &out, &err, "--json=short", "explain", spid), ==, 1);
        g_assert_cmpstr(out, ==, "");
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "--all", "explain", spid), ==, 1);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "processes", "--all"), ==, 0);
        got = attacker_on_bus(&s, explain_calls, &pid, NULL);
        g_test_message("%s", got);
        g_assert_true(refused(got, "ExplainProcess"));
        g_assert_true(refused(got, "GetProcess"));
        g_assert_true(refused(got, "ExplainProcessByPidfd"));

        /* The control: root is answered, with the details the attacker did not get. */
        {
                g_autofree char *root_out = NULL;
                g_assert_cmpint(root_ctl_private(&s, &root_out, "--json=short", "explain", spid), ==, 0);
                g_assert_nonnull(strstr(root_out, profile));
        }
        sec_finish(&s);
}

static bool has_control_bytes(const char *text)
{
        return strchr(text, 0x1b) || strchr(text, 0x07);
}

/* Item 9: a process of the attacker named with terminal escapes (and an executable whose name has one):
 * nvprofilectl's text output holds no raw ESC or BEL byte; its JSON keeps the exact name. */
static void test_terminal_escapes(void)
{
        Sec s;
        static const char rename_to[] = "\x1b]0;PWNED\x07\x1b[31mX";
        static const char exe_name[] = "nvptest-esc\x1b[2J";
        const char *args[] = { "--rename", rename_to, "--open", NULL, NULL };
        g_autofree char *card = NULL, *spid = NULL, *comm = NULL, *json = NULL;
        struct json_object *res, *facts;
        GPid pid;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, and a process of a user the test creates");
        sec_setup(&s, false);
        /* A GPU user is tracked with an object whatever its name. */
        card = g_build_filename(s.t.devdir, "dri", "card0", NULL);
        args[3] = card;
        root_write(&s, RCD "/50-esc",
                        "{\"rules\": [{\"pattern\": {\"feature\": \"commname\", \"matches\": "
                        "\"\\u001b]0;PWNED\\u0007\\u001b[31m\"}, \"profile\": {\"name\": \"Esc\", \"settings\": "
                        "[\"GLSharpenValue\", 6]}}]}\n",
                        0644);
        itest_start_daemon(&s.t, NULL);
        pid = spawn_helper(&s, true, exe_name, args);
        spid = g_strdup_printf("%i", (int) pid);
        /* The kernel keeps 15 bytes of it. */
        comm = g_strndup(rename_to, 15);
        ITEST_WAIT_FOR(tracked_with(&s, pid, NULL), WAIT_MS);
        g_assert_true(tracked_with(&s, pid, NULL));

        /* JSON: exact. */
        ITEST_WAIT_FOR(root_ctl(&s, NULL, NULL, "--json=short", "explain", spid) == 0, WAIT_MS);
        g_assert_cmpint(root_ctl(&s, &json, NULL, "--json=short", "explain", spid), ==, 0);
        res = parse_json(json);
        g_assert_true(json_object_object_get_ex(res, "facts", &facts));
        g_assert_cmpstr(jstr(facts, "commname"), ==, comm);
        g_assert_cmpstr(jstr(facts, "procname"), ==, exe_name);
        json_object_put(res);

        /* Text, for root and for the attacker: escaped, yet there. */
        for (int attacker = 0; attacker <= 1; attacker++) {
                const char *const verbs[][4] = {
                        { "--json=off", "explain", spid, NULL },
                        { "--json=off", "--all", "explain", spid },
                        { "--json=off", "processes", "--all", NULL },
                        { "--json=off", "processes", NULL, NULL },
                };

                for (size_t v = 0; v < G_N_ELEMENTS(verbs); v++) {
                        g_autofree char *out = NULL, *err = NULL;
                        const char *argv[5] = { verbs[v][0], verbs[v][1], verbs[v][2], verbs[v][3], NULL };
                        int r = ctl_run(&s, attacker, true, &out, &err, argv);

                        g_assert_cmpint(r, ==, 0);
                        g_assert_false(has_control_bytes(out));
                        g_assert_false(has_control_bytes(err));
                        /* The control: the name is there, escaped. */
                        g_assert_nonnull(strstr(out, "nvptest-esc\\x1b[2J"));
                        if (g_strcmp0(verbs[v][1], "explain") == 0 || g_strcmp0(verbs[v][2], "explain") == 0)
                                g_assert_nonnull(strstr(out, "PWNED"));
                }
        }
        sec_finish(&s);
}

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p /security/NAME). */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/security/symlink-other-user", test_symlink_other_user);
        g_test_add_func("/security/symlink-proc-maps", test_symlink_proc_maps);
        g_test_add_func("/security/home-root", test_home_root);
        g_test_add_func("/security/symlink-swap-race", test_symlink_swap_race);
        g_test_add_func("/security/system-file-unreadable", test_system_file_unreadable);
        g_test_add_func("/security/watch-starvation", test_watch_starvation);
        g_test_add_func("/security/memory-budget", test_memory_budget);
        g_test_add_func("/security/explain-other-user", test_explain_other_user);
        g_test_add_func("/security/terminal-escapes", test_terminal_escapes);
        return g_test_run();
}
