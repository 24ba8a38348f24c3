/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "test-bus.h"
#include "test-other-user.h"

#define NOBODY 65534

static void write_file(const char *path, const char *content)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(path, content, -1, &error);
        g_assert_no_error(error);
}

static void start_bus(ITest *t)
{
        /* Without root, the daemon runs as we do: our uid takes the place of the nvprofiled user, which
         * the policy allows to own the name (and nothing more). Deployed, the user the case made does. */
        g_autofree char *own_policy = NULL;

        if (t->deployed)
                own_policy = g_strdup_printf("  <policy user=\"%s\">\n"
                                             "    <allow own=\"" BUS_NAME "\"/>\n"
                                             "  </policy>\n",
                                t->daemon_user);
        else
                own_policy = geteuid() == 0 ? g_strdup("")
                                            : g_strdup_printf("  <policy user=\"%u\">\n"
                                                              "    <allow own=\"" BUS_NAME "\"/>\n"
                                                              "  </policy>\n",
                                                              (unsigned) geteuid());

        test_private_bus_start(t->dir, own_policy, &t->bus_pid, &t->bus_address, &t->bus);
}

static ITest *current;

/* Users itest_create_user() made, for the abort handler: plain arrays, read without allocating. */
static char users_made[8][sizeof(((ITestUser *) NULL)->name)];
static size_t n_users_made;

/* Runs a command quietly to its end. Async-signal-safe: fork and exec only. */
static void run_now(const char *const *argv)
{
        pid_t pid = fork();

        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null >= 0) {
                        (void) dup2(null, STDOUT_FILENO);
                        (void) dup2(null, STDERR_FILENO);
                }
                execvp(argv[0], (char *const *) argv);
                _exit(127);
        }
        if (pid > 0)
                (void) waitpid(pid, NULL, 0);
}

static void remove_users_now(void)
{
        /* -f: even when a process of the user is still around. */
        for (size_t i = 0; i < n_users_made; i++)
                run_now((const char *const[]){ "userdel", "-f", users_made[i], NULL });
        n_users_made = 0;
}

static void print_daemon_log(ITest *t);

/* A failed assertion aborts before teardown: show the daemon's side of the story first. */
static void on_abort(int sig)
{
        remove_users_now();
        if (current) {
                print_daemon_log(current);
                /* No teardown follows: a daemon and a bus left running would watch every exec of the
                 * machine (and every later benchmark) until someone kills them. */
                if (current->daemon_pid > 0)
                        (void) kill(current->daemon_pid, SIGKILL);
                if (current->bus_pid > 0)
                        (void) kill(current->bus_pid, SIGKILL);
                /* Nor the scratch directory, now that its log is printed; never below a mount point in it
                 * (test-security.c binds the live /proc there). */
                if (current->dir)
                        run_now((const char *const[]){ "rm", "-rf", "--one-file-system", current->dir, NULL });
        }
        signal(sig, SIG_DFL);
        raise(sig);
}

static void setup(ITest *t, bool deployed)
{
        g_autoptr(GError) error = NULL;

        current = t;
        signal(SIGABRT, on_abort);

        *t = (ITest){ .daemon_stderr = -1, .notify_fd = -1, .deployed = deployed };
        if (deployed) {
                ITestUser u;

                g_assert_cmpuint(geteuid(), ==, 0);
                itest_create_user("nvpd", &u);
                strcpy(t->daemon_user, u.name);
        }
        t->dir = g_dir_make_tmp("nvprofiled-itest-XXXXXX", &error);
        g_assert_no_error(error);
        /* nobody must reach the bus socket inside. */
        g_assert_cmpint(chmod(t->dir, 0755), ==, 0);
        t->root = g_build_filename(t->dir, "root", NULL);
        t->devdir = g_build_filename(t->dir, "dev", NULL);
        g_assert_cmpint(g_mkdir_with_parents(t->root, 0755), ==, 0);
        /* A fake GPU node; its opens are what the daemon watches. */
        {
                g_autofree char *card = g_build_filename(t->devdir, "dri", "card0", NULL);
                write_file(card, "");
                g_assert_cmpint(chmod(card, 0666), ==, 0);
        }
        start_bus(t);

        /* A datagram socket like systemd's notify socket, to see READY=1 and friends. */
        {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                g_autofree char *path = g_build_filename(t->dir, "notify", NULL);

                t->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                g_assert_cmpint(t->notify_fd, >=, 0);
                g_assert_cmpuint(strlen(path), <, sizeof(sa.sun_path));
                strcpy(sa.sun_path, path);
                g_assert_cmpint(bind(t->notify_fd, (struct sockaddr *) &sa, sizeof(sa)), ==, 0);
                /* The daemon's user sends to it as systemd's would let it. */
                if (deployed)
                        g_assert_cmpint(chmod(path, 0666), ==, 0);
        }
}

void itest_setup(ITest *t)
{
        bool deployed = g_strcmp0(g_getenv("NVPROFILED_ITEST_DEPLOYED"), "1") == 0;

        /* The <case>-deployed variants create the daemon's user: without root they SKIP, as the cases that
         * need root do (ITEST_REQUIRE_ROOT()); the case cannot go on, so the TAP lines are ours (one case
         * runs per meson test: -p). */
        if (deployed && geteuid() != 0) {
                printf("ok 1 # SKIP needs root: the deployed mode creates the daemon's user\n1..1\n");
                fflush(stdout);
                exit(EXIT_SUCCESS);
        }
        setup(t, deployed);
}

void itest_setup_deployed(ITest *t)
{
        setup(t, true);
}

bool itest_have_root(const char *why)
{
        if (geteuid() == 0)
                return true;
        g_test_skip(why);
        return false;
}

uid_t itest_caller_uid(void)
{
        return geteuid() == 0 ? NOBODY : geteuid();
}

void itest_use_fixture_proc(ITest *t)
{
        g_free(t->proc);
        t->proc = g_build_filename(t->dir, "proc", NULL);
        g_assert_cmpint(g_mkdir_with_parents(t->proc, 0755), ==, 0);
}

static void write_in(const char *dir, const char *name, const char *content, size_t len)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autoptr(GError) error = NULL;

        g_file_set_contents(path, content, (gssize) len, &error);
        g_assert_no_error(error);
}

static void symlink_in(const char *dir, const char *name, const char *target)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_assert_cmpint(symlink(target, path), ==, 0);
}

void itest_fixture_process(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps)
{
        itest_fixture_process_env(t, pid, start_time, uid, comm, exe, maps, NULL);
}

void itest_fixture_process_env(ITest *t, pid_t pid, uint64_t start_time, uid_t uid, const char *comm, const char *exe,
                const char *maps, const char *const *env)
{
        g_autofree char *dir = NULL, *stage = NULL, *stat = NULL, *status = NULL, *comm_line = NULL, *fd = NULL;
        g_autoptr(GString) environ_text = g_string_new("PATH=/usr/bin");

        g_assert_nonnull(t->proc);
        g_assert_cmpint(pid, >, 0);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        /* Built aside and renamed into place, so a poll never sees half a process. */
        stage = g_strdup_printf("%s/.stage-%i", t->dir, (int) pid);
        fd = g_build_filename(stage, "fd", NULL);
        g_assert_cmpint(g_mkdir_with_parents(fd, 0755), ==, 0);

        stat = g_strdup_printf("%i (%s) S 1 %i %i 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %" G_GUINT64_FORMAT
                               " 1000 100 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
                        (int) pid, comm, (int) pid, (int) pid, start_time);
        status = g_strdup_printf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%i\nPid:\t%i\nPPid:\t1\n"
                                 "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t\n",
                        comm, (int) pid, (int) pid, uid, uid, uid, uid, uid, uid, uid, uid);
        comm_line = g_strdup_printf("%s\n", comm);
        write_in(stage, "stat", stat, strlen(stat));
        write_in(stage, "status", status, strlen(status));
        write_in(stage, "comm", comm_line, strlen(comm_line));
        /* argv[0] is the executable's path, NUL-terminated as the kernel writes it. */
        write_in(stage, "cmdline", exe, strlen(exe) + 1);
        /* Each entry NUL-terminated, as the kernel shows them. */
        for (const char *const *e = env; e && *e; e++)
                g_string_append_printf(environ_text, "%c%s", '\0', *e);
        write_in(stage, "environ", environ_text->str, environ_text->len + 1);
        write_in(stage, "maps", maps ? maps : "", maps ? strlen(maps) : 0);
        symlink_in(stage, "exe", exe);
        symlink_in(stage, "root", t->root);

        itest_fixture_exit(t, pid);
        g_assert_cmpint(rename(stage, dir), ==, 0);
}

void itest_fixture_cgroup(ITest *t, pid_t pid, const char *path)
{
        g_autofree char *dir = NULL, *line = NULL;

        g_assert_nonnull(t->proc);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        g_assert_true(g_file_test(dir, G_FILE_TEST_IS_DIR));
        /* As the kernel writes it on a unified hierarchy; g_file_set_contents() renames it into place. */
        line = g_strdup_printf("0::%s\n", path);
        write_in(dir, "cgroup", line, strlen(line));
}

void itest_fixture_root(ITest *t, pid_t pid, const char *dir)
{
        g_autofree char *pid_dir = NULL, *link = NULL, *staged = NULL;

        g_assert_nonnull(t->proc);
        g_assert_true(g_path_is_absolute(dir));
        pid_dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        link = g_build_filename(pid_dir, "root", NULL);
        staged = g_build_filename(pid_dir, ".root", NULL);
        /* Replaced in one step, as the other files are. */
        g_assert_cmpint(symlink(dir, staged), ==, 0);
        g_assert_cmpint(rename(staged, link), ==, 0);
}

void itest_fixture_exit(ITest *t, pid_t pid)
{
        g_autofree char *dir = NULL, *cmd = NULL;

        g_assert_nonnull(t->proc);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        if (!g_file_test(dir, G_FILE_TEST_EXISTS))
                return;
        /* Renamed away first: the directory disappears in one step, as a process's does. */
        cmd = g_strdup_printf("%s/.gone-%i", t->dir, (int) pid);
        g_assert_cmpint(rename(dir, cmd), ==, 0);
        g_free(dir);
        dir = g_steal_pointer(&cmd);
        cmd = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(cmd), ==, 0);
}

bool itest_wait_notify(ITest *t, const char *needle, int timeout_ms)
{
        gint64 deadline = g_get_monotonic_time() + (gint64) timeout_ms * 1000;

        do {
                char buf[4096];
                struct pollfd pfd = { .fd = t->notify_fd, .events = POLLIN };
                ssize_t n;

                if (poll(&pfd, 1, 50) <= 0)
                        continue;
                n = recv(t->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                g_test_message("notify: %s", buf);
                if (strstr(buf, needle))
                        return true;
        } while (g_get_monotonic_time() < deadline);
        return false;
}

static void print_daemon_log(ITest *t)
{
        char buf[4096];
        ssize_t n;

        if (t->daemon_stderr < 0)
                return;
        (void) lseek(t->daemon_stderr, 0, SEEK_SET);
        g_printerr("---- nvprofiled log ----\n");
        while ((n = read(t->daemon_stderr, buf, sizeof(buf))) > 0)
                fwrite(buf, 1, (size_t) n, stderr);
        g_printerr("------------------------\n");
}

void itest_create_user(const char *prefix, ITestUser *ret)
{
        const char *argv[] = { "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                "--shell", "/usr/sbin/nologin", ret->name, NULL };
        struct passwd *pw;
        int status = 0;

        g_assert_cmpuint(n_users_made, <, G_N_ELEMENTS(users_made));
        *ret = (ITestUser){ 0 };
        g_assert_cmpint(snprintf(ret->name, sizeof(ret->name), "%s%i-%zu", prefix, (int) getpid(), n_users_made), <,
                        32); /* useradd's limit */
        for (int attempt = 0; attempt < 50; attempt++) {
                g_autoptr(GError) error = NULL;

                g_spawn_sync("/", (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                NULL, NULL, NULL, &status, &error);
                g_assert_no_error(error);
                if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                        break;
                g_usleep(100 * 1000); /* another test may hold the lock on /etc/passwd */
        }
        g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        strcpy(users_made[n_users_made++], ret->name);
        /* g_error() ends with SIGTRAP, g_assert() with SIGABRT, meson's timeout with SIGTERM. */
        signal(SIGABRT, on_abort);
        signal(SIGTRAP, on_abort);
        signal(SIGTERM, on_abort);
        pw = getpwnam(ret->name);
        g_assert_nonnull(pw);
        g_assert_cmpuint(pw->pw_uid, !=, 0);
        ret->uid = pw->pw_uid;
        ret->gid = pw->pw_gid;
}

void itest_remove_users(void)
{
        size_t n = n_users_made;

        remove_users_now();
        for (size_t i = 0; i < n; i++)
                g_assert_null(getpwnam(users_made[i]));
}

void itest_become_user(const ITestUser *u)
{
        test_child_dies_with_parent(NULL);
        if (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
                _exit(127);
        if (getuid() != u->uid || geteuid() != u->uid || setuid(0) == 0)
                _exit(127);
}

void itest_teardown(ITest *t)
{
        current = NULL;
        if (g_test_failed())
                print_daemon_log(t);
        if (t->daemon_pid > 0)
                itest_stop_daemon(t, NULL);
        if (t->daemon_stderr >= 0)
                close(t->daemon_stderr);
        if (t->notify_fd >= 0)
                close(t->notify_fd);
        sd_bus_flush_close_unref(t->bus);
        if (t->bus_pid > 0) {
                kill(t->bus_pid, SIGTERM);
                waitpid(t->bus_pid, NULL, 0);
        }
        if (t->dir) {
                g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", t->dir);
                if (system(cmd) != 0)
                        g_printerr("could not remove %s\n", t->dir);
        }
        g_free(t->dir);
        g_free(t->root);
        g_free(t->proc);
        g_free(t->devdir);
        g_free(t->sys);
        g_free(t->bus_address);
        itest_remove_users();
}

/* "CAP_SYS_PTRACE CAP_SETUID" -> "-all,+sys_ptrace,+setuid", as setpriv takes a capability set; without
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH when drop_dac. */
static void append_caps(GString *out, const char *value, bool drop_dac)
{
        g_auto(GStrv) caps = g_strsplit_set(value, " \t", -1);

        for (char **c = caps; *c; c++) {
                g_autofree char *lower = g_ascii_strdown(*c, -1);

                if (!*lower)
                        continue;
                g_assert_true(g_str_has_prefix(lower, "cap_"));
                if (drop_dac && (g_str_equal(lower, "cap_dac_override") || g_str_equal(lower, "cap_dac_read_search")))
                        continue;
                g_string_append_printf(out, ",+%s", lower + strlen("cap_"));
        }
}

/* setpriv's arguments for what the unit file says, read now, so that the tests follow any change of it.
 * An empty assignment resets a list, as systemd's does; NoNewPrivileges= must be there. */
static GPtrArray *deployed_wrapper(const ITest *t)
{
        g_autoptr(GString) ambient = g_string_new("--ambient-caps=-all");
        g_autoptr(GString) inheritable = g_string_new("--inh-caps=-all");
        g_autoptr(GString) bounding = g_string_new("--bounding-set=-all");
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        g_auto(GStrv) lines = NULL;
        GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
        bool no_new_privs = false, have_ambient = false, have_bounding = false;
        struct passwd *pw = getpwnam(t->daemon_user);

        g_assert_nonnull(pw);
        g_file_get_contents(test_env_or_fail("NVPROFILED_UNIT_IN"), &text, NULL, &error);
        g_assert_no_error(error);
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                const char *v;

                if ((v = g_str_has_prefix(*l, "AmbientCapabilities=") ? strchr(*l, '=') + 1 : NULL)) {
                        if (!*v)
                                g_string_assign(ambient, "--ambient-caps=-all");
                        append_caps(ambient, v, t->without_dac_override);
                        have_ambient = true;
                } else if ((v = g_str_has_prefix(*l, "CapabilityBoundingSet=") ? strchr(*l, '=') + 1 : NULL)) {
                        if (!*v)
                                g_string_assign(bounding, "--bounding-set=-all");
                        append_caps(bounding, v, t->without_dac_override);
                        have_bounding = true;
                } else if (g_str_has_prefix(*l, "NoNewPrivileges="))
                        no_new_privs = g_str_equal(*l, "NoNewPrivileges=yes");
        }
        g_assert_true(have_ambient);
        g_assert_true(have_bounding);
        /* An ambient capability needs to be inheritable (and permitted) first. */
        g_string_append(inheritable, strchr(ambient->str, ',') ? strchr(ambient->str, ',') : "");

        g_ptr_array_add(argv, g_strdup("setpriv"));
        g_ptr_array_add(argv, g_strdup_printf("--reuid=%u", (unsigned) pw->pw_uid));
        g_ptr_array_add(argv, g_strdup_printf("--regid=%u", (unsigned) pw->pw_gid));
        /* As systemd's User= does: the user's own groups. */
        g_ptr_array_add(argv, g_strdup("--init-groups"));
        g_ptr_array_add(argv, g_strdup(inheritable->str));
        g_ptr_array_add(argv, g_strdup(ambient->str));
        g_ptr_array_add(argv, g_strdup(bounding->str));
        if (no_new_privs)
                g_ptr_array_add(argv, g_strdup("--no-new-privs"));
        /* The credential change clears the parent-death signal test_child_dies_with_parent() set. */
        g_ptr_array_add(argv, g_strdup("--pdeathsig=KILL"));
        g_ptr_array_add(argv, g_strdup("--"));
        return argv;
}

/* The value of a "Name:\t..." line of /proc/PID/status. */
static char *status_field(const char *status, const char *name)
{
        g_autofree char *key = g_strdup_printf("\n%s:\t", name);
        const char *p = strstr(status, key);

        g_assert_nonnull(p);
        p += strlen(key);
        return g_strndup(p, strcspn(p, "\n"));
}

/* The daemon runs as the case's user, with ambient capabilities and no new privileges (and so not as root
 * by mistake, which would let every deployed case pass for the wrong reason). */
static void assert_runs_deployed(ITest *t)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/status", (int) t->daemon_pid), *status = NULL;
        g_autofree char *uid = NULL, *amb = NULL, *nnp = NULL, *want_uid = NULL;
        struct passwd *pw = getpwnam(t->daemon_user);

        g_assert_nonnull(pw);
        g_assert_true(g_file_get_contents(path, &status, NULL, NULL));
        /* Real, effective and saved: the file-system uid is another user's while the daemon acts for one. */
        uid = status_field(status, "Uid");
        want_uid = g_strdup_printf("%u\t%u\t%u\t", pw->pw_uid, pw->pw_uid, pw->pw_uid);
        g_assert_true(g_str_has_prefix(uid, want_uid));
        amb = status_field(status, "CapAmb");
        g_assert_cmpstr(amb, !=, "0000000000000000");
        nnp = status_field(status, "NoNewPrivs");
        g_assert_cmpstr(nnp, ==, "1");
        g_test_message("nvprofiled runs as deployed: user %s, CapAmb %s", t->daemon_user, amb);
}

static bool name_has_owner(ITest *t)
{
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(t->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "GetNameOwner", NULL, &reply, "s", BUS_NAME);
        sd_bus_message_unref(reply);
        return r >= 0;
}

void itest_start_daemon(ITest *t, const char *extra_config)
{
        g_autofree char *conf = g_build_filename(t->dir, "nvprofiled.conf", NULL);
        g_autofree char *log = g_build_filename(t->dir, "daemon.log", NULL);
        g_autofree char *text = NULL, *bus_arg = NULL, *root_arg = NULL, *conf_arg = NULL, *proc_arg = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *sys_arg = NULL;
        g_autoptr(GPtrArray) deployed_argv = t->deployed ? deployed_wrapper(t) : NULL;
        g_autofree char *daemon_copy = NULL;
        const char *argv[32], **daemon_argv = argv;
        g_auto(GStrv) envp = NULL;
        gint64 deadline;
        int status;

        text = g_strdup_printf(
                        "[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=2s\n[Profiles]\nReloadCoalesceSec=100ms\n%s",
                        t->devdir, extra_config ? extra_config : "");
        write_file(conf, text);

        bus_arg = g_strdup_printf("--bus=%s", t->bus_address);
        root_arg = g_strdup_printf("--root=%s", t->root);
        conf_arg = g_strdup_printf("--config=%s", conf);
        for (const char *const *w = t->daemon_wrapper; w && *w; w++) {
                g_assert_cmpint(daemon_argv - argv, <, 12);
                *daemon_argv++ = *w;
        }
        for (guint i = 0; deployed_argv && i < deployed_argv->len; i++) {
                g_assert_cmpint(daemon_argv - argv, <, 22);
                *daemon_argv++ = deployed_argv->pdata[i];
        }
        if (t->without_dac_override && !t->deployed) {
                /* Root with the capability gone from its bounding set has it in no set after exec. */
                daemon_argv[0] = "setpriv";
                daemon_argv[1] = "--bounding-set=-dac_override,-dac_read_search";
                daemon_argv[2] = "--inh-caps=-dac_override,-dac_read_search";
                daemon_argv[3] = "--";
                daemon_argv += 4;
        }
        /* The deployed daemon's user may not enter the checkout (/root/src, HACKING.md): a copy it can. */
        if (t->deployed)
                daemon_copy = test_copy_for_other_users(t->dir, test_env_or_fail("NVPROFILED_BIN"));
        daemon_argv[0] = daemon_copy ? daemon_copy : test_env_or_fail("NVPROFILED_BIN");
        daemon_argv[1] = bus_arg;
        daemon_argv[2] = root_arg;
        daemon_argv[3] = conf_arg;
        daemon_argv[4] = "--log-level=debug";
        daemon_argv[5] = NULL;
        if (t->proc) {
                proc_arg = g_strdup_printf("--proc=%s", t->proc);
                daemon_argv[5] = proc_arg;
                daemon_argv[6] = NULL;
        }
        if (t->sys) {
                sys_arg = g_strdup_printf("--sys=%s", t->sys);
                daemon_argv[t->proc ? 6 : 5] = sys_arg;
                daemon_argv[t->proc ? 7 : 6] = NULL;
        }

        if (t->daemon_stderr >= 0)
                close(t->daemon_stderr);
        t->daemon_stderr = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        g_assert_cmpint(t->daemon_stderr, >=, 0);

        envp = t->deployed ? test_environ_for_other_users(t->dir) : g_get_environ();
        if (t->deployed && g_environ_getenv(envp, "NVPROFILED_REPORT_WORKER")) {
                g_autofree char *worker =
                                test_copy_for_other_users(t->dir, g_environ_getenv(envp, "NVPROFILED_REPORT_WORKER"));
                envp = g_environ_setenv(envp, "NVPROFILED_REPORT_WORKER", worker, TRUE);
        }
        if (t->with_notify) {
                g_autofree char *notify = g_build_filename(t->dir, "notify", NULL);
                envp = g_environ_setenv(envp, "NOTIFY_SOCKET", notify, TRUE);
                /* A short watchdog, so its pings are seen within the test. */
                envp = g_environ_setenv(envp, "WATCHDOG_USEC", "400000", TRUE);
        }
        g_spawn_async_with_fds(NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH,
                        test_child_dies_with_parent, NULL, &t->daemon_pid, -1, t->daemon_stderr, t->daemon_stderr,
                        &error);
        g_assert_no_error(error);

        /* Ready means: owns its name (it takes the name last, after the first scan). Sanitizer builds
         * start slowly, hence the generous bound. */
        deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
        while (!name_has_owner(t) && g_get_monotonic_time() < deadline) {
                if (waitpid(t->daemon_pid, &status, WNOHANG) == t->daemon_pid) {
                        t->daemon_pid = 0;
                        print_daemon_log(t);
                        g_error("nvprofiled exited during start-up (status %d)", status);
                }
                g_usleep(20 * 1000);
        }
        if (!name_has_owner(t)) {
                print_daemon_log(t);
                g_error("nvprofiled did not take its bus name");
        }
        if (t->deployed)
                assert_runs_deployed(t);
}

void itest_stop_daemon(ITest *t, int *ret_exit_status)
{
        int status = 0;

        if (t->daemon_pid <= 0)
                return;
        kill(t->daemon_pid, SIGTERM);
        g_assert_cmpint(waitpid(t->daemon_pid, &status, 0), ==, t->daemon_pid);
        t->daemon_pid = 0;
        if (ret_exit_status)
                *ret_exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void itest_write(ITest *t, const char *rel, const char *content)
{
        g_autofree char *p = g_build_filename(t->root, rel, NULL);
        write_file(p, content);
}

static void become_helper_user(gpointer userdata)
{
        itest_become_user(userdata);
        /* Once more: the change of credentials cleared the parent-death signal. */
        test_child_dies_with_parent(NULL);
}

GPid itest_spawn_helper(ITest *t, const char *name, const char *const *env, const char *const *args)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *path = NULL;
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_auto(GStrv) envp = g_get_environ();
        const char *helper = test_env_or_fail("NVPROFILED_HELPER");
        char buf[16] = { 0 };
        GPid pid;
        int out = -1;
        struct pollfd pfd;
        ssize_t n;

        if (name) {
                g_autofree char *contents = NULL;
                gsize len;

                path = g_build_filename(t->dir, "bin", name, NULL);
                g_file_get_contents(helper, &contents, &len, &error);
                g_assert_no_error(error);
                {
                        g_autofree char *dir = g_path_get_dirname(path);
                        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
                }
                g_file_set_contents(path, contents, (gssize) len, &error);
                g_assert_no_error(error);
                g_assert_cmpint(chmod(path, 0755), ==, 0);
        } else
                path = g_strdup(helper);

        for (const char *const *w = t->helper_wrapper; w && *w; w++)
                g_ptr_array_add(argv, (char *) *w);
        g_ptr_array_add(argv, path);
        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, (char *) *a);
        g_ptr_array_add(argv, NULL);
        for (const char *const *e = env; e && *e; e++) {
                g_auto(GStrv) kv = g_strsplit(*e, "=", 2);
                envp = g_environ_setenv(envp, kv[0], kv[1], TRUE);
        }

        g_spawn_async_with_pipes(NULL, (char **) argv->pdata, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                        t->helper_user ? become_helper_user : test_child_dies_with_parent, (gpointer) t->helper_user,
                        &pid, NULL, &out, NULL, &error);
        g_assert_no_error(error);

        pfd = (struct pollfd){ .fd = out, .events = POLLIN };
        g_assert_cmpint(poll(&pfd, 1, 30000), ==, 1);
        n = read(out, buf, sizeof(buf) - 1);
        close(out);
        g_assert_cmpint(n, >, 0);
        g_assert_true(g_str_has_prefix(buf, "ready"));
        return pid;
}

void itest_kill(GPid pid)
{
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

static void drop_to_nobody(gpointer userdata)
{
        test_child_dies_with_parent(NULL);
        if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
                _exit(127);
}

static int run_ctl(ITest *t, bool nobody, char **ret_out, const char *first_arg, va_list ap)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        g_autofree char *err = NULL, *discard = NULL;
        g_auto(GStrv) envp = nobody ? test_environ_for_other_users(t->dir) : g_get_environ();
        int status;

        /* Never into our stdout: that is the TAP stream. */
        if (!ret_out)
                ret_out = &discard;
        g_ptr_array_add(argv,
                        nobody ? test_copy_for_other_users(t->dir, test_env_or_fail("NVPROFILECTL_BIN"))
                               : g_strdup(test_env_or_fail("NVPROFILECTL_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", t->bus_address));
        g_ptr_array_add(argv, g_strdup("--json=short"));
        for (const char *a = first_arg; a; a = va_arg(ap, const char *))
                g_ptr_array_add(argv, g_strdup(a));
        g_ptr_array_add(argv, NULL);

        g_spawn_sync("/", (char **) argv->pdata, envp, 0, nobody ? drop_to_nobody : NULL, NULL, ret_out, &err, &status,
                        &error);
        g_assert_no_error(error);
        if (err && *err)
                g_test_message("nvprofilectl stderr: %s", err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int itest_ctl(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, false, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

int itest_ctl_as_nobody(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, true, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

int itest_ctl_as_caller(ITest *t, char **ret_out, const char *first_arg, ...)
{
        va_list ap;
        int r;

        va_start(ap, first_arg);
        r = run_ctl(t, geteuid() == 0, ret_out, first_arg, ap);
        va_end(ap);
        return r;
}

char *itest_tracked_profiles(ITest *t, pid_t pid)
{
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *result = NULL;
        int r;

        r = sd_bus_call_method(
                        t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", &error, &reply, NULL);
        if (r < 0) {
                g_test_message("ListProcesses: %s", error.message);
                sd_bus_error_free(&error);
                return NULL;
        }
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(outussasu)"), >=, 0);
        while (sd_bus_message_enter_container(reply, 'r', "outussasu") > 0) {
                const char *object, *comm, *exe;
                uint32_t p, uid, settings;
                uint64_t start;
                char **profiles = NULL;

                g_assert_cmpint(sd_bus_message_read(reply, "outuss", &object, &p, &start, &uid, &comm, &exe), >=, 0);
                g_assert_cmpint(sd_bus_message_read_strv(reply, &profiles), >=, 0);
                g_assert_cmpint(sd_bus_message_read(reply, "u", &settings), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                if ((pid_t) p == pid && !result)
                        result = profiles ? g_strjoinv(",", profiles) : g_strdup("");
                g_strfreev(profiles);
        }
        sd_bus_message_unref(reply);
        return result;
}

bool itest_profiles_are(ITest *t, pid_t pid, const char *expected)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p && g_str_equal(p, expected);
}

bool itest_is_tracked(ITest *t, pid_t pid)
{
        g_autofree char *p = itest_tracked_profiles(t, pid);
        return p != NULL;
}

uint64_t itest_generation(ITest *t)
{
        uint64_t g = 0;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        if (sd_bus_get_property_trivial(t->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ConfigGeneration",
                            &error, 't', &g) < 0)
                g_test_message("ConfigGeneration: %s", error.message);
        sd_bus_error_free(&error);
        return g;
}

struct json_object *itest_parse_list(const char *out, const char *key)
{
        struct json_object *doc = json_tokener_parse(out), *list;

        if (!doc)
                return NULL;
        list = json_object_get(json_object_object_get(doc, key));
        json_object_put(doc);
        g_assert_true(json_object_is_type(list, json_type_array));
        return list;
}

struct json_object *itest_resolve_json(ITest *t, const char *exe, const char *home)
{
        g_autofree char *out = NULL;
        int r;

        if (home)
                r = itest_ctl(t, &out, "resolve", "--exe", exe, "--home", home, NULL);
        else
                r = itest_ctl(t, &out, "resolve", "--exe", exe, NULL);
        g_assert_cmpint(r, ==, 0);
        return json_tokener_parse(out);
}

const char *itest_setting(struct json_object *res, const char *key)
{
        struct json_object *settings;

        if (!res || !json_object_object_get_ex(res, "settings", &settings))
                return NULL;
        for (size_t i = 0; i < json_object_array_length(settings); i++) {
                struct json_object *s = json_object_array_get_idx(settings, i), *k, *v;
                if (json_object_object_get_ex(s, "key", &k) && g_str_equal(json_object_get_string(k), key) &&
                                json_object_object_get_ex(s, "value", &v))
                        return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        }
        return NULL;
}

void itest_assert_absent(const char *where, const char *text, const char *needle)
{
        const char *hit = strstr(text, needle);

        if (hit) {
                size_t start = hit - text > 300 ? (size_t) (hit - text) - 300 : 0;
                g_autofree char *context = g_strndup(text + start, 600);
                g_test_message("LEAK: \"%s\" in %s: ...%s...", needle, where, context);
        }
        g_assert_null(hit);
}

void itest_user_chown(const ITestUser *u, const char *path)
{
        g_assert_cmpint(lchown(path, u->uid, u->gid), ==, 0);
}

char *itest_write_home(ITest *t, const char *name, const ITestUser *owner, const char *rc)
{
        g_autofree char *rel = g_build_filename("home", name, NULL);
        g_autofree char *home = g_build_filename(t->root, rel, NULL);
        g_autofree char *nv = g_build_filename(home, ".nv", NULL);
        g_autofree char *file = g_build_filename(nv, "nvidia-application-profiles-rc", NULL);
        g_autofree char *homes = g_build_filename(t->root, "home", NULL);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(homes, 0755), ==, 0);
        g_assert_cmpint(g_mkdir_with_parents(nv, 0700), ==, 0);
        g_assert_cmpint(chmod(home, 0700), ==, 0);
        g_file_set_contents(file, rc, -1, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(file, 0600), ==, 0);
        if (owner) {
                itest_user_chown(owner, home);
                itest_user_chown(owner, nv);
                itest_user_chown(owner, file);
        }
        return g_strdup_printf("HOME=/%s", rel);
}
