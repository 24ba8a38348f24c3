/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest-user.h"

#define PASSWD_LOCK_ATTEMPTS 50

static char user_being_used[64];

static int run_quietly(const char *const *argv)
{
        g_autoptr(GError) error = NULL;
        int status;

        g_spawn_sync("/", (char **) argv, NULL,
                        G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                        NULL, &status, &error);
        g_assert_no_error(error);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Another test may hold the lock on /etc/passwd for a moment. */
static int run_retrying(const char *const *argv)
{
        int r;

        for (int attempt = 0; (r = run_quietly(argv)) != 0 && attempt < PASSWD_LOCK_ATTEMPTS; attempt++)
                g_usleep(100 * 1000);
        return r;
}

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

                g_test_message("removing stale user %s", (char *) stale->pdata[i]);
                (void) run_retrying(argv);
        }
}

void itest_user_create(ITestUser *u, const char *prefix)
{
        struct passwd *pw;

        g_assert_cmpstr(user_being_used, ==, "");
        remove_stale_users(prefix);
        *u = (ITestUser){ .name = g_strdup_printf("%s%i", prefix, (int) getpid()) };
        g_assert_cmpuint(strlen(u->name), <, sizeof(user_being_used));
        {
                const char *argv[] = { "useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                        "/nonexistent", "--shell", "/usr/sbin/nologin", u->name, NULL };

                g_assert_cmpint(run_retrying(argv), ==, 0);
        }
        strcpy(user_being_used, u->name);
        pw = getpwnam(u->name);
        g_assert_nonnull(pw);
        u->uid = pw->pw_uid;
        u->gid = pw->pw_gid;
        g_assert_cmpuint(u->uid, !=, 0);
}

void itest_user_remove(ITestUser *u)
{
        const char *argv[] = { "userdel", "-f", u->name, NULL };

        user_being_used[0] = '\0';
        (void) run_retrying(argv);
        g_assert_null(getpwnam(u->name));
        g_free(u->name);
        *u = (ITestUser){ 0 };
}

void itest_user_remove_now(void)
{
        pid_t pid;

        if (!user_being_used[0])
                return;
        /* -f: even while a process of the user is still around. */
        pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null >= 0) {
                        (void) dup2(null, STDOUT_FILENO);
                        (void) dup2(null, STDERR_FILENO);
                }
                execl("/usr/sbin/userdel", "userdel", "-f", user_being_used, (char *) NULL);
                execlp("userdel", "userdel", "-f", user_being_used, (char *) NULL);
                _exit(127);
        }
        if (pid > 0)
                (void) waitpid(pid, NULL, 0);
        user_being_used[0] = '\0';
}

void itest_user_become(gpointer userdata)
{
        const ITestUser *u = userdata;

        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
                _exit(127);
        if (getuid() != u->uid || geteuid() != u->uid || setuid(0) == 0)
                _exit(127);
}

void itest_user_chown(const ITestUser *u, const char *path)
{
        g_assert_cmpint(lchown(path, u->uid, u->gid), ==, 0);
}
