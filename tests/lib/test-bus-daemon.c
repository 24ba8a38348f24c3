/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test-bus-daemon.h"

#define DBUS_DAEMON "/usr/bin/dbus-daemon"

bool test_bus_daemon_available(void)
{
        return access(DBUS_DAEMON, X_OK) == 0;
}

/* The template's folder: $NVPROFILED_TEST_LIB_DIR where a test runs as another user who cannot enter the
 * checkout (tests/integration/run-unprivileged.sh copies it), else tests/lib of the checkout. */
static int read_template(TestBusKind kind, char **ret)
{
        const char *dir = getenv("NVPROFILED_TEST_LIB_DIR");
        const char *name = kind == TEST_BUS_SYSTEM ? "test-bus-system.conf" : "test-bus-open.conf";
        char path[4096];
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (!dir || !*dir)
                dir = TEST_LIB_DIR;
        if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                return -ENAMETOOLONG;
        f = fopen(path, "re");
        if (!f)
                return -errno;
        text = calloc(1, 65536);
        if (!text) {
                fclose(f);
                return -ENOMEM;
        }
        size = fread(text, 1, 65535, f);
        fclose(f);
        if (size == 0 || size == 65535) {
                free(text);
                return -EINVAL;
        }
        *ret = text;
        return 0;
}

/* template with every @KEY@ of keys replaced by the value beside it (NULL: empty). */
static char *fill(const char *template, const char *const *keys)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        if (!f)
                return NULL;
        for (const char *p = template; *p;) {
                bool replaced = false;

                for (const char *const *k = keys; *k && !replaced; k += 2)
                        if (strncmp(p, k[0], strlen(k[0])) == 0) {
                                fputs(k[1] ? k[1] : "", f);
                                p += strlen(k[0]);
                                replaced = true;
                        }
                if (!replaced)
                        fputc(*p++, f);
        }
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}

static int write_config(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        int r = 0;

        if (!f)
                return -errno;
        if (fputs(text, f) < 0)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}

int test_bus_daemon_start(
                const char *dir, TestBusKind kind, const char *extra_policy, pid_t *ret_pid, char **ret_address)
{
        char conf[4096], socket[4096], config_arg[4200];
        char *template = NULL, *text, *address;
        struct timespec deadline, now;
        pid_t pid;
        int r;

        if ((size_t) snprintf(conf, sizeof(conf), "%s/bus.conf", dir) >= sizeof(conf) ||
                        (size_t) snprintf(socket, sizeof(socket), "%s/bus", dir) >= sizeof(socket))
                return -ENAMETOOLONG;
        r = read_template(kind, &template);
        if (r < 0)
                return r;
        text = fill(template,
                        (const char *const[]){ "@SOCKET@", socket, "@POLICY@",
                                        kind == TEST_BUS_SYSTEM ? getenv("NVPROFILED_DBUS_POLICY") : NULL,
                                        "@EXTRA_POLICY@", extra_policy, NULL });
        free(template);
        if (!text)
                return -ENOMEM;
        r = write_config(conf, text);
        free(text);
        if (r < 0)
                return r;
        snprintf(config_arg, sizeof(config_arg), "--config-file=%s", conf);

        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);

                /* A failed assertion must not leave the bus behind. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (null >= 0)
                        (void) dup2(null, STDOUT_FILENO);
                execl(DBUS_DAEMON, DBUS_DAEMON, "--nofork", "--nopidfile", config_arg, (char *) NULL);
                _exit(127);
        }

        /* The socket file exists from bind(), before dbus-daemon listens: callers retry a refused
         * connection. */
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += 10;
        while (access(socket, F_OK) < 0) {
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        return -ECHILD;
                if (now.tv_sec > deadline.tv_sec ||
                                (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
                        test_bus_daemon_stop(pid);
                        return -ETIMEDOUT;
                }
                usleep(10 * 1000);
        }
        if (chmod(socket, 0777) < 0) {
                r = -errno;
                test_bus_daemon_stop(pid);
                return r;
        }
        address = malloc(strlen("unix:path=") + strlen(socket) + 1);
        if (!address) {
                test_bus_daemon_stop(pid);
                return -ENOMEM;
        }
        stpcpy(stpcpy(address, "unix:path="), socket);
        *ret_pid = pid;
        *ret_address = address;
        return 0;
}

void test_bus_daemon_stop(pid_t pid)
{
        if (pid <= 0)
                return;
        (void) kill(pid, SIGTERM);
        (void) waitpid(pid, NULL, 0);
}
