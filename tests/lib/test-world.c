/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "test-bus-daemon.h"
#include "test-bus.h"
#include "test-other-user.h"
#include "test-world.h"

static TestWorld *current;

/* The case's own processes (test_world_kill_on_abort()). */
static const pid_t *children;
static const size_t *n_children;

/* Users made for the case, for the handler of a fatal signal: plain arrays, read without allocating. */
static char users_made[8][sizeof(((TestUser *) NULL)->name)];
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

/* A failed assertion ends the case before its teardown: show the daemon's side of the story, and leave
 * nothing behind. */
static void on_fatal_signal(int sig)
{
        for (size_t i = 0; children && i < *n_children; i++)
                if (children[i] > 0)
                        (void) kill(children[i], SIGKILL);
        remove_users_now();
        if (current) {
                test_world_print_daemon_log(current);
                /* A daemon and a bus left running would watch every exec of the machine (and every later
                 * benchmark) until someone kills them. */
                if (current->daemon_pid > 0)
                        (void) kill(current->daemon_pid, SIGKILL);
                if (current->polkit_pid > 0)
                        (void) kill(current->polkit_pid, SIGKILL);
                if (current->bus_pid > 0)
                        (void) kill(current->bus_pid, SIGKILL);
                /* Never below a mount point in it (test-security.c binds the live /proc there). */
                if (current->dir)
                        run_now((const char *const[]){ "rm", "-rf", "--one-file-system", current->dir, NULL });
        }
        signal(sig, SIG_DFL);
        raise(sig);
}

static void catch_fatal_signals(void)
{
        /* g_error() ends with SIGTRAP, g_assert() with SIGABRT, meson's timeout with SIGTERM, ^C with
         * SIGINT. */
        signal(SIGABRT, on_fatal_signal);
        signal(SIGTRAP, on_fatal_signal);
        signal(SIGTERM, on_fatal_signal);
        signal(SIGINT, on_fatal_signal);
}

void test_world_kill_on_abort(const pid_t *pids, const size_t *n)
{
        children = pids;
        n_children = n;
        catch_fatal_signals();
}

void test_write_file_p(const char *path, const char *content)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(path, content, -1, &error);
        g_assert_no_error(error);
}

void test_world_write(TestWorld *w, const char *rel, const char *content)
{
        g_autofree char *p = g_build_filename(w->root, rel, NULL);
        test_write_file_p(p, content);
}

static void start_bus(TestWorld *w)
{
        /* Root may stand in for polkit. Without root, the daemon runs as we do: our uid takes the place of
         * the nvprofiled user, which the policy allows to own the name (and nothing more). Deployed, the
         * user the case made does. */
        g_autofree char *own = NULL, *policy = NULL;

        if (w->deployed)
                own = g_strdup_printf("  <policy user=\"%s\">\n"
                                      "    <allow own=\"" BUS_NAME "\"/>\n"
                                      "  </policy>\n",
                                w->daemon_user);
        else if (geteuid() != 0)
                own = g_strdup_printf("  <policy user=\"%u\">\n"
                                      "    <allow own=\"" BUS_NAME "\"/>\n"
                                      "  </policy>\n",
                                (unsigned) geteuid());
        policy = g_strdup_printf("  <policy user=\"root\">\n"
                                 "    <allow own=\"org.freedesktop.PolicyKit1\"/>\n"
                                 "    <allow send_destination=\"org.freedesktop.PolicyKit1\"/>\n"
                                 "  </policy>\n"
                                 "%s",
                        own ? own : "");
        test_private_bus_start(w->dir, policy, &w->bus_pid, &w->bus_address, &w->bus);
}

void test_world_setup(TestWorld *w, const char *prefix, bool deployed)
{
        g_autofree char *template = g_strdup_printf("%s-XXXXXX", prefix);
        g_autoptr(GError) error = NULL;

        current = w;
        catch_fatal_signals();

        *w = (TestWorld){ .daemon_log = -1, .notify_fd = -1, .deployed = deployed };
        if (deployed) {
                TestUser u;

                g_assert_cmpuint(geteuid(), ==, 0);
                test_world_create_user("nvpd", &u);
                strcpy(w->daemon_user, u.name);
        }
        w->dir = g_dir_make_tmp(template, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(w->dir, 0755), ==, 0);
        w->root = g_build_filename(w->dir, "root", NULL);
        w->devdir = g_build_filename(w->dir, "dev", NULL);
        g_assert_cmpint(g_mkdir_with_parents(w->root, 0755), ==, 0);
        /* A fake GPU node; its opens are what the daemon watches. */
        {
                g_autofree char *card = g_build_filename(w->devdir, "dri", "card0", NULL);
                test_write_file_p(card, "");
                g_assert_cmpint(chmod(card, 0666), ==, 0);
        }
        start_bus(w);

        /* A datagram socket like systemd's notify socket, to see READY=1 and friends. */
        {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                g_autofree char *path = g_build_filename(w->dir, "notify", NULL);

                w->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                g_assert_cmpint(w->notify_fd, >=, 0);
                g_assert_cmpuint(strlen(path), <, sizeof(sa.sun_path));
                strcpy(sa.sun_path, path);
                g_assert_cmpint(bind(w->notify_fd, (struct sockaddr *) &sa, sizeof(sa)), ==, 0);
                /* The daemon's user sends to it as systemd's would let it. */
                if (deployed)
                        g_assert_cmpint(chmod(path, 0666), ==, 0);
        }
}

void test_world_print_daemon_log(TestWorld *w)
{
        char buf[4096];
        ssize_t n;
        off_t offset = 0;

        if (w->daemon_log < 0)
                return;
        /* pread: async-signal-safe and without moving the daemon's offset in the shared file. */
        (void) !write(STDERR_FILENO, "---- nvprofiled log ----\n", strlen("---- nvprofiled log ----\n"));
        while ((n = pread(w->daemon_log, buf, sizeof(buf), offset)) > 0) {
                (void) !write(STDERR_FILENO, buf, (size_t) n);
                offset += n;
        }
        (void) !write(STDERR_FILENO, "------------------------\n", strlen("------------------------\n"));
}

char *test_world_daemon_log(TestWorld *w)
{
        g_autofree char *path = g_build_filename(w->dir, "daemon.log", NULL);
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("");
        return text;
}

void test_world_create_user(const char *prefix, TestUser *ret)
{
        const char *argv[] = { "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                "--shell", "/usr/sbin/nologin", ret->name, NULL };
        struct passwd *pw;
        int status = 0;

        g_assert_cmpuint(n_users_made, <, G_N_ELEMENTS(users_made));
        *ret = (TestUser){ 0 };
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
        catch_fatal_signals();
        pw = getpwnam(ret->name);
        g_assert_nonnull(pw);
        g_assert_cmpuint(pw->pw_uid, !=, 0);
        ret->uid = pw->pw_uid;
        ret->gid = pw->pw_gid;
}

uid_t test_world_adopt_user(const char *name)
{
        struct passwd *pw = getpwnam(name);
        bool known = false;

        if (!pw) {
                /* Another test binary may create it at the same moment: look again either way. */
                run_now((const char *const[]){ "useradd", "--system", "--no-create-home", "--shell",
                                "/usr/sbin/nologin", name, NULL });
                pw = getpwnam(name);
        }
        g_assert_nonnull(pw);
        g_assert_cmpuint(pw->pw_uid, !=, 0);
        for (size_t i = 0; i < n_users_made; i++)
                known = known || g_str_equal(users_made[i], name);
        if (!known) {
                g_assert_cmpuint(n_users_made, <, G_N_ELEMENTS(users_made));
                g_assert_cmpuint(strlen(name), <, sizeof(users_made[0]));
                strcpy(users_made[n_users_made++], name);
        }
        catch_fatal_signals();
        return pw->pw_uid;
}

void test_world_remove_user(const char *name)
{
        size_t kept = 0;

        run_now((const char *const[]){ "userdel", "-f", name, NULL });
        for (size_t i = 0; i < n_users_made; i++)
                if (!g_str_equal(users_made[i], name))
                        memmove(users_made[kept++], users_made[i], sizeof(users_made[0]));
        n_users_made = kept;
        g_assert_null(getpwnam(name));
}

void test_world_remove_users(void)
{
        size_t n = n_users_made;

        remove_users_now();
        for (size_t i = 0; i < n; i++)
                g_assert_null(getpwnam(users_made[i]));
}

void test_world_become_user(const TestUser *u)
{
        test_child_dies_with_parent(NULL);
        if (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
                _exit(127);
        if (getuid() != u->uid || geteuid() != u->uid || setuid(0) == 0)
                _exit(127);
}

static void stop(GPid *pid, int *ret_exit_status)
{
        int status = 0;

        if (*pid <= 0)
                return;
        (void) kill(*pid, SIGTERM);
        g_assert_cmpint(waitpid(*pid, &status, 0), ==, *pid);
        *pid = 0;
        if (ret_exit_status)
                *ret_exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void test_world_stop_daemon(TestWorld *w, int *ret_exit_status)
{
        stop(&w->daemon_pid, ret_exit_status);
}

/* A sanitizer build of the daemon reports what it found when it exits. */
static void assert_no_sanitizer_report(TestWorld *w)
{
        g_autofree char *log = test_world_daemon_log(w);

        if (strstr(log, "Sanitizer") || strstr(log, "runtime error:"))
                test_world_print_daemon_log(w);
        g_assert_null(strstr(log, "Sanitizer"));
        g_assert_null(strstr(log, "runtime error:"));
}

void test_world_teardown(TestWorld *w)
{
        current = NULL;
        children = NULL;
        n_children = NULL;
        if (g_test_failed())
                test_world_print_daemon_log(w);
        test_world_stop_daemon(w, NULL);
        if (w->sanitizer_report_fails && w->daemon_log >= 0)
                assert_no_sanitizer_report(w);
        stop(&w->polkit_pid, NULL);
        if (w->daemon_log >= 0)
                close(w->daemon_log);
        if (w->notify_fd >= 0)
                close(w->notify_fd);
        sd_bus_flush_close_unref(w->bus);
        test_bus_daemon_stop(w->bus_pid);
        if (w->dir)
                run_now((const char *const[]){ "rm", "-rf", "--one-file-system", w->dir, NULL });
        g_free(w->dir);
        g_free(w->root);
        g_free(w->proc);
        g_free(w->devdir);
        g_free(w->sys);
        g_free(w->bus_address);
        *w = (TestWorld){ .daemon_log = -1, .notify_fd = -1 };
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
static GPtrArray *deployed_wrapper(const TestWorld *w)
{
        g_autoptr(GString) ambient = g_string_new("--ambient-caps=-all");
        g_autoptr(GString) inheritable = g_string_new("--inh-caps=-all");
        g_autoptr(GString) bounding = g_string_new("--bounding-set=-all");
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        g_auto(GStrv) lines = NULL;
        GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
        bool no_new_privs = false, have_ambient = false, have_bounding = false;
        struct passwd *pw = getpwnam(w->daemon_user);

        g_assert_nonnull(pw);
        g_file_get_contents(test_env_or_fail("NVPROFILED_UNIT_IN"), &text, NULL, &error);
        g_assert_no_error(error);
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                const char *v;

                if ((v = g_str_has_prefix(*l, "AmbientCapabilities=") ? strchr(*l, '=') + 1 : NULL)) {
                        if (!*v)
                                g_string_assign(ambient, "--ambient-caps=-all");
                        append_caps(ambient, v, w->without_dac_override);
                        have_ambient = true;
                } else if ((v = g_str_has_prefix(*l, "CapabilityBoundingSet=") ? strchr(*l, '=') + 1 : NULL)) {
                        if (!*v)
                                g_string_assign(bounding, "--bounding-set=-all");
                        append_caps(bounding, v, w->without_dac_override);
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
static void assert_runs_deployed(TestWorld *w)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/status", (int) w->daemon_pid), *status = NULL;
        g_autofree char *uid = NULL, *amb = NULL, *nnp = NULL, *want_uid = NULL;
        struct passwd *pw = getpwnam(w->daemon_user);

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
        g_test_message("nvprofiled runs as deployed: user %s, CapAmb %s", w->daemon_user, amb);
}

bool test_world_name_has_owner(TestWorld *w, const char *name)
{
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(w->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "GetNameOwner", NULL, &reply, "s", name);
        sd_bus_message_unref(reply);
        return r >= 0;
}

/* The daemon's command line: wrappers, the binary and its options, args. */
static GPtrArray *daemon_argv(TestWorld *w, const char *config, const char *const *args)
{
        g_autofree char *conf = g_build_filename(w->dir, "nvprofiled.conf", NULL);
        g_autoptr(GPtrArray) deployed_argv = w->deployed ? deployed_wrapper(w) : NULL;
        GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);

        test_write_file_p(conf, config ? config : "");
        for (const char *const *a = w->daemon_wrapper; a && *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        for (guint i = 0; deployed_argv && i < deployed_argv->len; i++)
                g_ptr_array_add(argv, g_strdup(deployed_argv->pdata[i]));
        if (w->without_dac_override && !w->deployed) {
                /* Root with the capability gone from its bounding set has it in no set after exec. */
                g_ptr_array_add(argv, g_strdup("setpriv"));
                g_ptr_array_add(argv, g_strdup("--bounding-set=-dac_override,-dac_read_search"));
                g_ptr_array_add(argv, g_strdup("--inh-caps=-dac_override,-dac_read_search"));
                g_ptr_array_add(argv, g_strdup("--"));
        }
        /* The deployed daemon's user may not enter the checkout (/root/src, HACKING.md): a copy it can. */
        g_ptr_array_add(argv,
                        w->deployed ? test_copy_for_other_users(w->dir, test_env_or_fail("NVPROFILED_BIN"))
                                    : g_strdup(test_env_or_fail("NVPROFILED_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", w->bus_address));
        g_ptr_array_add(argv, g_strdup_printf("--root=%s", w->root));
        g_ptr_array_add(argv, g_strdup_printf("--config=%s", conf));
        g_ptr_array_add(argv, g_strdup("--log-level=debug"));
        if (w->proc)
                g_ptr_array_add(argv, g_strdup_printf("--proc=%s", w->proc));
        if (w->sys)
                g_ptr_array_add(argv, g_strdup_printf("--sys=%s", w->sys));
        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        g_ptr_array_add(argv, NULL);
        return argv;
}

static char **daemon_environ(TestWorld *w)
{
        char **envp = w->deployed ? test_environ_for_other_users(w->dir) : g_get_environ();

        if (w->deployed && g_environ_getenv(envp, "NVPROFILED_REPORT_WORKER")) {
                g_autofree char *worker =
                                test_copy_for_other_users(w->dir, g_environ_getenv(envp, "NVPROFILED_REPORT_WORKER"));
                envp = g_environ_setenv(envp, "NVPROFILED_REPORT_WORKER", worker, TRUE);
        }
        if (w->with_notify) {
                g_autofree char *notify = g_build_filename(w->dir, "notify", NULL);
                envp = g_environ_setenv(envp, "NOTIFY_SOCKET", notify, TRUE);
                /* A short watchdog, so its pings are seen within the test. */
                envp = g_environ_setenv(envp, "WATCHDOG_USEC", "400000", TRUE);
        }
        return envp;
}

void test_world_start_daemon(TestWorld *w, const char *config, const char *const *args)
{
        g_autofree char *log = g_build_filename(w->dir, "daemon.log", NULL);
        g_autoptr(GPtrArray) argv = daemon_argv(w, config, args);
        g_auto(GStrv) envp = daemon_environ(w);
        g_autoptr(GError) error = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t generation = 0;
        gint64 deadline;
        int status;

        if (w->daemon_log >= 0)
                close(w->daemon_log);
        w->daemon_log = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        g_assert_cmpint(w->daemon_log, >=, 0);
        g_spawn_async_with_fds(NULL, (char **) argv->pdata, envp, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH,
                        test_child_dies_with_parent, NULL, &w->daemon_pid, -1, w->daemon_log, w->daemon_log, &error);
        g_assert_no_error(error);

        /* Ready means: owns its name (it takes the name last, after the first scan). Sanitizer builds
         * start slowly, hence the generous bound. */
        deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
        while (!test_world_name_has_owner(w, BUS_NAME) && g_get_monotonic_time() < deadline) {
                if (waitpid(w->daemon_pid, &status, WNOHANG) == w->daemon_pid) {
                        w->daemon_pid = 0;
                        test_world_print_daemon_log(w);
                        g_error("nvprofiled exited during start-up (status %d)", status);
                }
                g_usleep(20 * 1000);
        }
        if (!test_world_name_has_owner(w, BUS_NAME)) {
                test_world_print_daemon_log(w);
                g_error("nvprofiled did not take its bus name");
        }
        /* A call answered means the daemon is running. */
        g_assert_cmpint(sd_bus_get_property_trivial(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ConfigGeneration", &e, 't', &generation),
                        >=, 0);
        sd_bus_error_free(&e);
        if (w->deployed)
                assert_runs_deployed(w);
}

int test_world_run_daemon(TestWorld *w, const char *config, char **ret_log)
{
        g_autoptr(GPtrArray) argv = daemon_argv(w, config, NULL);
        g_auto(GStrv) envp = daemon_environ(w);
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL;
        int status;

        g_spawn_sync(NULL, (char **) argv->pdata, envp, G_SPAWN_SEARCH_PATH, test_child_dies_with_parent, NULL, &out,
                        ret_log, &status, &error);
        g_assert_no_error(error);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
