/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest-user.h"

/* For the abort handler: who to remove when an assertion ends the case. */
static char user_to_remove[64];
static void (*previous_abort_handler)(int);

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

static void remove_user_now(void)
{
        pid_t pid;

        if (!user_to_remove[0])
                return;
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

static void on_abort(int sig)
{
        remove_user_now();
        if (previous_abort_handler && previous_abort_handler != SIG_DFL && previous_abort_handler != SIG_IGN)
                previous_abort_handler(sig);
        signal(sig, SIG_DFL);
        raise(sig);
}

/* Users an earlier run left behind when it was killed (its pid is in the name). */
static void remove_stale_users(const char *prefix)
{
        g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func(g_free);
        struct passwd *pw;

        setpwent();
        while ((pw = getpwent())) {
                char *end;
                long pid;

                if (!g_str_has_prefix(pw->pw_name, prefix))
                        continue;
                errno = 0;
                pid = strtol(pw->pw_name + strlen(prefix), &end, 10);
                if (*end || pid <= 0 || (kill((pid_t) pid, 0) < 0 && errno == ESRCH))
                        g_ptr_array_add(stale, g_strdup(pw->pw_name));
        }
        endpwent();
        for (guint i = 0; i < stale->len; i++) {
                const char *argv[] = { "userdel", "-f", stale->pdata[i], NULL };
                (void) run_quiet(argv);
        }
}

void itest_user_create(ITestUser *u, const char *prefix)
{
        struct passwd *pw;
        int r;

        g_assert_cmpint(geteuid(), ==, 0);
        remove_stale_users(prefix);
        g_assert_cmpint(snprintf(u->name, sizeof(u->name), "%s%i", prefix, (int) getpid()), <, (int) sizeof(u->name));
        {
                const char *argv[] = { "useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                        "/nonexistent", "--shell", "/usr/sbin/nologin", u->name, NULL };

                /* Another test may hold the lock on /etc/passwd for a moment. */
                for (int attempt = 0; (r = run_quiet(argv)) != 0 && attempt < 50; attempt++)
                        g_usleep(100 * 1000);
                g_assert_cmpint(r, ==, 0);
        }
        g_strlcpy(user_to_remove, u->name, sizeof(user_to_remove));
        previous_abort_handler = signal(SIGABRT, on_abort);
        pw = getpwnam(u->name);
        g_assert_nonnull(pw);
        u->uid = pw->pw_uid;
        u->gid = pw->pw_gid;
        g_assert_cmpuint(u->uid, !=, 0);
}

void itest_user_remove(ITestUser *u)
{
        const char *argv[] = { "userdel", "-f", u->name, NULL };

        user_to_remove[0] = '\0';
        for (int attempt = 0; run_quiet(argv) != 0 && attempt < 50; attempt++)
                g_usleep(100 * 1000);
        g_assert_null(getpwnam(u->name));
}

int itest_user_run(const ITestUser *u, int (*fn)(void *userdata), void *userdata)
{
        int status;
        pid_t pid;

        fflush(NULL);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                signal(SIGABRT, SIG_DFL);
                if (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
                        _exit(126);
                if (getuid() != u->uid || geteuid() != u->uid || setuid(0) == 0)
                        _exit(126);
                _exit(fn(userdata));
        }
        while (waitpid(pid, &status, 0) < 0)
                g_assert_cmpint(errno, ==, EINTR);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
