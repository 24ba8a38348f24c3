/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs a command in a new PID namespace with a /proc of its own, as a container runtime would, or another
 * command inside such a namespace. For the integration tests (tests/integration/test-pidns.c); root only.
 *
 *   pidns-run -- COMMAND...                       COMMAND in a new PID namespace, whose pid 1 reaps as a
 *                                                 container's init does, and the /proc it sees is that
 *                                                 namespace's
 *   pidns-run --join PID [--pid N] -- COMMAND...  COMMAND in the namespace that "pidns-run" process PID
 *                                                 made, as pid N there when N is given (it must be free)
 *
 * pidns-run itself stays in the caller's PID namespace: it passes SIGTERM, SIGINT and SIGHUP on to
 * COMMAND, waits for it, and exits with its status (128 + the signal when a signal ended it). COMMAND dies
 * with it (SIGKILL); so does the namespace's pid 1, which takes every process of its namespace with it.
 * Only /proc is made private to the new mount namespace, so / need not be a mount point (as in a chroot). */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void pass_on(int sig)
{
        if (child > 0)
                (void) kill(child, sig);
}

_Noreturn static void die(const char *what)
{
        perror(what);
        exit(126);
}

/* Forks: the child returns (dying with its parent); the parent passes signals on, waits for the child and
 * exits with its status. */
static void fork_and_wait(void)
{
        pid_t pid = fork();
        int status;

        if (pid < 0)
                die("fork");
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                return;
        }
        child = pid;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        die("waitpid");
        exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* pid 1 of the namespace, as a container's init: runs COMMAND as its child, passes signals on, reaps every
 * process that ends up its child (as an init must, or they stay zombies that /proc still lists), and
 * exits with COMMAND's status when COMMAND ends. */
_Noreturn static void run_init(char *const *command)
{
        pid_t pid;
        int status;

        pid = fork();
        if (pid < 0)
                die("fork");
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                execvp(command[0], command);
                die(command[0]);
        }
        child = pid;
        for (;;) {
                pid_t ended = wait(&status);

                if (ended < 0) {
                        if (errno == EINTR)
                                continue;
                        die("wait");
                }
                if (ended == child)
                        exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        }
}

_Noreturn static void new_namespace(char *const *command)
{
        if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
                die("unshare");
        /* Our /proc mount must not reach the caller's namespace. */
        if (mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                die("mount --make-rprivate /proc");
        fork_and_wait();
        /* pid 1 of the new namespace: a proc mounted now is this namespace's. */
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                die("mount proc");
        run_init(command);
}

static void join_namespace(const char *pid, long want)
{
        char path[64];
        FILE *f;
        int fd;

        /* The namespace "pidns-run PID" made is that of its children, not its own. */
        snprintf(path, sizeof(path), "/proc/%s/ns/pid_for_children", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                die(path);
        if (setns(fd, CLONE_NEWPID) < 0)
                die("setns");
        close(fd);
        fork_and_wait();
        if (want <= 0)
                return;
        /* In the namespace now: its next pid follows the last one written here. */
        f = fopen("/proc/sys/kernel/ns_last_pid", "we");
        if (!f || fprintf(f, "%ld", want - 1) < 0 || fclose(f) != 0)
                die("ns_last_pid");
        fork_and_wait();
        if (getpid() != want) {
                fprintf(stderr, "pidns-run: pid %ld was taken, got %ld\n", want, (long) getpid());
                exit(125);
        }
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                { "join", required_argument, NULL, 'j' },
                { "pid", required_argument, NULL, 'p' },
                { 0 },
        };
        struct sigaction sa = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
        const char *join = NULL;
        long want = 0;
        int c;

        while ((c = getopt_long(argc, argv, "+", options, NULL)) >= 0)
                switch (c) {
                case 'j':
                        join = optarg;
                        break;
                case 'p':
                        want = strtol(optarg, NULL, 10);
                        break;
                default:
                        return 2;
                }
        if (optind >= argc) {
                fprintf(stderr, "pidns-run: no command\n");
                return 2;
        }

        (void) sigaction(SIGTERM, &sa, NULL);
        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGHUP, &sa, NULL);
        if (!join)
                new_namespace(argv + optind);
        join_namespace(join, want);

        execvp(argv[optind], argv + optind);
        die(argv[optind]);
}
