/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc parsing, race-safe facts, and the proc connector's message parsing. */

#include <fcntl.h>
#include <linux/cn_proc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-util.h"
#include "proc-connector.h"
#include "proc-facts.h"
#include "proc-parse.h"
#include "strv.h"
#include "test-util.h"

static void test_stat(void)
{
        /* A comm with spaces and ')' in it: fields are counted after the LAST ')'. */
        static const char s[] = "4242 (a) b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 "
                                "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
        uint64_t start;
        pid_t ppid;

        g_assert_cmpint(proc_parse_stat(s, strlen(s), &start, &ppid), ==, 0);
        g_assert_cmpuint(start, ==, 987654);
        g_assert_cmpint(ppid, ==, 17);
        g_assert_cmpint(proc_parse_stat("1 (x) S 1", 9, &start, &ppid), ==, -EBADMSG);
        g_assert_cmpint(proc_parse_stat("no parenthesis", 14, &start, &ppid), ==, -EBADMSG);
        g_assert_cmpint(proc_parse_stat("", 0, &start, &ppid), ==, -EBADMSG);
}

static void test_status(void)
{
        static const char s[] =
                        "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1001\t1000\t1000\nGid:\t100\n";
        uid_t uid;

        g_assert_cmpint(proc_parse_status_uid(s, strlen(s), &uid), ==, 0);
        g_assert_cmpuint(uid, ==, 1000);
        g_assert_cmpint(proc_parse_status_uid("Name:\tx\n", 8, &uid), ==, -EBADMSG);
        g_assert_cmpint(proc_parse_status_uid("Uid:\t\n", 6, &uid), ==, -EBADMSG);
}

static void test_maps(void)
{
        static const char s[] =
                        "55d0c0000000-55d0c0002000 r--p 00000000 08:01 123 /usr/bin/gnome-shell\n"
                        "55d0c0002000-55d0c0004000 r-xp 00002000 08:01 123 /usr/bin/gnome-shell\n"
                        "55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0 [heap]\n"
                        "7f0000000000-7f0000100000 r--p 00000000 08:01 456 /usr/lib/x86_64-linux-gnu/libmutter-15.so.0.0.0\n"
                        "7f0000100000-7f0000200000 r-xp 00100000 08:01 456 /usr/lib/x86_64-linux-gnu/libmutter-15.so.0.0.0\n"
                        "7f0000200000-7f0000300000 r--p 00000000 08:01 789 /usr/lib/libold.so.1 (deleted)\n"
                        "7f0000300000-7f0000301000 rw-p 00000000 00:00 0 \n"
                        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
                        "7f0000400000-7f0000401000 r--p 00000000 08:01 999 /path with spaces/libx.so";
        char **paths = NULL;
        bool truncated;

        g_assert_cmpint(proc_parse_maps(s, strlen(s), 100, &paths, &truncated), ==, 0);
        g_assert_false(truncated);
        g_assert_cmpuint(strv_length(paths), ==, 4);
        g_assert_cmpstr(paths[0], ==, "/usr/bin/gnome-shell");
        g_assert_cmpstr(paths[1], ==, "/usr/lib/x86_64-linux-gnu/libmutter-15.so.0.0.0");
        g_assert_cmpstr(paths[2], ==, "/usr/lib/libold.so.1");
        g_assert_cmpstr(paths[3], ==, "/path with spaces/libx.so");
        strv_free(paths);

        g_assert_cmpint(proc_parse_maps(s, strlen(s), 2, &paths, &truncated), ==, 0);
        g_assert_true(truncated);
        g_assert_cmpuint(strv_length(paths), ==, 2);
        strv_free(paths);
}

static void test_environ(void)
{
        static const char e[] =
                        "PATH=/bin\0HOME=/home/u\0__GL_SYNC_TO_VBLANK=0\0__GLX_VENDOR=x\0BAD=\xff\0__GL_X=\xff\xfe\0__GL_Y=1";
        char **env = NULL;

        g_assert_cmpint(proc_parse_environ(e, sizeof(e) - 1, 64, &env), ==, 0);
        /* HOME and __GL_* only; non-UTF-8 values skipped; a last entry without NUL kept. */
        g_assert_cmpuint(strv_length(env), ==, 3);
        g_assert_cmpstr(strv_env_get(env, "HOME"), ==, "/home/u");
        g_assert_cmpstr(strv_env_get(env, "__GL_SYNC_TO_VBLANK"), ==, "0");
        g_assert_cmpstr(strv_env_get(env, "__GL_Y"), ==, "1");
        g_assert_null(strv_env_get(env, "__GL_X"));
        strv_free(env);

        g_assert_cmpint(proc_parse_environ(e, sizeof(e) - 1, 1, &env), ==, 0);
        g_assert_cmpuint(strv_length(env), ==, 1);
        strv_free(env);
}

/* Our own process, through the live /proc. */
static void test_facts_self(void)
{
        _cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ProcFacts f = { .root_fd = -EBADF }, g = { .root_fd = -EBADF };
        ProcIdentity wrong;

        g_assert_cmpint(proc_facts_read(proc, getpid(), NULL, PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT,
                                        NULL, &f),
                        ==, 0);
        g_assert_cmpint(f.id.pid, ==, getpid());
        g_assert_cmpuint(f.id.start_time, >, 0);
        g_assert_cmpuint(f.uid, ==, getuid());
        g_assert_nonnull(f.exe);
        g_assert_true(g_str_has_suffix(f.exe, "test-procwatch"));
        g_assert_nonnull(f.argv);
        g_assert_true(strv_length(f.dsos) > 0);
        g_assert_cmpint(f.root_fd, >=, 0);

        /* A different start time is a different process. */
        wrong = f.id;
        wrong.start_time++;
        g_assert_cmpint(proc_facts_read(proc, getpid(), &wrong, 0, NULL, &g), ==, -ESRCH);
        g_assert_cmpint(proc_facts_read(proc, 0x7ffffff0, NULL, 0, NULL, &g), ==, -ESRCH);
        proc_facts_done(&f);
}

/* cmdline and environ are read with one read(2) when they fit the first buffer; longer ones (here 20 KB
 * each) still come whole, and stat and status of a real process parse as before. */
static void test_facts_whole_reads(void)
{
        _cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_autofree char *arg = g_malloc(20001), *home = NULL;
        ProcFacts f = { .root_fd = -EBADF };
        pid_t pid;
        int status;

        memset(arg, 'a', 20000);
        arg[20000] = '\0';
        home = g_strconcat("HOME=/home/", arg, NULL);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                char *const argv[] = { (char *) "sh", (char *) "-c", (char *) "sleep 30; :", arg, NULL };
                char *const envp[] = { home, (char *) "PATH=/usr/bin:/bin", NULL };
                (void) setpgid(0, 0); /* its sleep goes with it */
                execve("/bin/sh", argv, envp);
                _exit(127);
        }

        /* Until the exec has happened, cmdline is ours. */
        for (int i = 0; i < 500; i++) {
                proc_facts_done(&f);
                g_assert_cmpint(proc_facts_read(proc, pid, NULL, PROC_FACTS_ENVIRON, NULL, &f), ==, 0);
                if (strv_length(f.argv) == 4)
                        break;
                usleep(10000);
        }
        g_assert_cmpuint(strv_length(f.argv), ==, 4);
        g_assert_cmpstr(f.argv[2], ==, "sleep 30; :");
        g_assert_cmpstr(f.argv[3], ==, arg);
        g_assert_cmpuint(strv_length(f.env), ==, 1);
        g_assert_cmpstr(f.env[0], ==, home);
        g_assert_cmpuint(f.uid, ==, getuid());
        g_assert_cmpint(f.id.pid, ==, pid);
        g_assert_cmpuint(f.id.start_time, >, 0);
        g_assert_cmpint(f.ppid, ==, getpid());

        kill(-pid, SIGKILL);
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        proc_facts_done(&f);
}

/* A fixture /proc tree, as the daemon's --proc option reads it. */
static void test_facts_fixture(void)
{
        g_autofree char *dir = test_mkdtemp();
        _cleanup_close_ int proc = -EBADF;
        ProcFacts f = { .root_fd = -EBADF };
        pid_t *pids = NULL;
        size_t n;

        test_write_file(dir, "321/stat", "321 (fake game) S 1 321 321 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5555 0 0\n");
        test_write_file(dir, "321/status",
                        "Name:\tfake game\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\nGroups:\t100 27\n");
        test_write_file(dir, "321/comm", "fake game\n");
        test_write_file_n(dir, "321/cmdline", "C:\\Games\\game.exe\0--fullscreen", 31);
        test_write_file_n(dir, "321/environ", "HOME=/home/gamer\0__GL_SYNC_TO_VBLANK=0\0", 40);
        test_write_file(dir, "321/maps", "7f00-7f01 r--p 0 08:01 1 /usr/lib/libGL.so.1.7.0\n");
        test_symlink("/usr/bin/wine64-preloader", dir, "321/exe");
        test_write_file(dir, "self-is-not-a-pid", "");
        proc = test_open_dir(dir);

        g_assert_cmpint(proc_facts_read(proc, 321, NULL, PROC_FACTS_MAPS | PROC_FACTS_ENVIRON, NULL, &f), ==, 0);
        g_assert_cmpuint(f.id.start_time, ==, 5555);
        g_assert_cmpuint(f.uid, ==, 1000);
        g_assert_cmpstr(f.comm, ==, "fake game");
        g_assert_cmpstr(f.exe, ==, "/usr/bin/wine64-preloader");
        g_assert_cmpstr(f.argv[0], ==, "C:\\Games\\game.exe");
        g_assert_cmpstr(f.argv[1], ==, "--fullscreen");
        g_assert_cmpstr(strv_env_get(f.env, "HOME"), ==, "/home/gamer");
        g_assert_cmpstr(f.dsos[0], ==, "/usr/lib/libGL.so.1.7.0");
        proc_facts_done(&f);

        g_assert_cmpint(proc_list_pids(proc, 100, &pids, &n), ==, 0);
        g_assert_cmpuint(n, ==, 1);
        g_assert_cmpint(pids[0], ==, 321);
        free(pids);
}

/* The Flatpak id of a sandbox's /.flatpak-info names the application over the scope's name; a file that is
 * not one (a directory, not a key file) leaves the scope's; without a known cgroup it is not looked at.
 * As the test's own user (the process's), so nothing needs root; test-usage's case takes other users. */
static void test_facts_flatpak(void)
{
        g_autofree char *dir = test_mkdtemp(), *sandbox = NULL, *status = NULL, *proc_dir = NULL, *info = NULL;
        _cleanup_close_ int proc = -EBADF;
        ProcFacts f = { .root_fd = -EBADF };
        static const char scope[] =
                        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-4.scope\n";

        sandbox = g_build_filename(dir, "sandbox", NULL);
        proc_dir = g_build_filename(dir, "proc", NULL);
        info = g_build_filename(sandbox, ".flatpak-info", NULL);
        status = g_strdup_printf("Name:\tgjs\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t\n", getuid(),
                        getuid(), getuid(), getuid(), getgid(), getgid(), getgid(), getgid());
        test_write_file(dir, "proc/322/stat", "322 (gjs) S 1 322 322 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6666 0 0\n");
        test_write_file(dir, "proc/322/status", status);
        test_write_file(dir, "proc/322/comm", "gjs\n");
        test_write_file_n(dir, "proc/322/cmdline", "gjs", 4);
        test_symlink("/usr/bin/gjs", dir, "proc/322/exe");
        test_write_file(dir, "proc/322/cgroup", scope);
        test_symlink(sandbox, dir, "proc/322/root");
        test_write_file(dir, "sandbox/.flatpak-info", "[Application]\nname=org.gnome.Maps.Devel\n");
        proc = test_open_dir(proc_dir);

        g_assert_cmpint(proc_facts_read(proc, 322, NULL, PROC_FACTS_FLATPAK, NULL, &f), ==, 0);
        g_assert_cmpstr(f.cgroup.unit, ==, "user@1000.service/app-flatpak-org.gnome.Maps-4.scope");
        g_assert_cmpstr(f.cgroup.app_kind, ==, "flatpak");
        g_assert_cmpstr(f.cgroup.app, ==, "org.gnome.Maps.Devel");
        proc_facts_done(&f);

        test_write_file(dir, "sandbox/.flatpak-info", "[Application]\nname=not an id\n");
        g_assert_cmpint(proc_facts_read(proc, 322, NULL, PROC_FACTS_FLATPAK, NULL, &f), ==, 0);
        g_assert_cmpstr(f.cgroup.app, ==, "org.gnome.Maps");
        proc_facts_done(&f);

        g_assert_cmpint(unlink(info), ==, 0);
        test_write_file(dir, "sandbox/.flatpak-info/x", "[Application]\nname=org.x.Y\n");
        g_assert_cmpint(proc_facts_read(proc, 322, NULL, PROC_FACTS_FLATPAK, NULL, &f), ==, 0);
        g_assert_cmpstr(f.cgroup.app, ==, "org.gnome.Maps");
        proc_facts_done(&f);

        test_write_file(dir, "proc/322/cgroup", "");
        {
                g_autofree char *x = g_build_filename(info, "x", NULL);
                g_assert_cmpint(unlink(x), ==, 0);
        }
        g_assert_cmpint(rmdir(info), ==, 0);
        test_write_file(dir, "sandbox/.flatpak-info", "[Application]\nname=org.gnome.Maps.Devel\n");
        g_assert_cmpint(proc_facts_read(proc, 322, NULL, PROC_FACTS_FLATPAK, NULL, &f), ==, 0);
        g_assert_null(f.cgroup.path);
        g_assert_null(f.cgroup.app);
        proc_facts_done(&f);
}

/* Builds one netlink message carrying a proc event. */
static size_t put_event(uint8_t *buf, unsigned what, pid_t pid, pid_t tgid, size_t event_len)
{
        struct nlmsghdr *nl = (struct nlmsghdr *) buf;
        struct cn_msg *cn = NLMSG_DATA(nl);
        struct proc_event ev = { .what = what, .timestamp_ns = 1000000 + (uint64_t) pid };

        switch (what) {
        case PROC_EVENT_EXEC:
                ev.event_data.exec.process_pid = pid;
                ev.event_data.exec.process_tgid = tgid;
                break;
        case PROC_EVENT_COMM:
                ev.event_data.comm.process_pid = pid;
                ev.event_data.comm.process_tgid = tgid;
                break;
        case PROC_EVENT_EXIT:
                ev.event_data.exit.process_pid = pid;
                ev.event_data.exit.process_tgid = tgid;
                break;
        case PROC_EVENT_FORK:
                /* Forked by 42 (its thread 43). */
                ev.event_data.fork.parent_pid = 43;
                ev.event_data.fork.parent_tgid = 42;
                ev.event_data.fork.child_pid = pid;
                ev.event_data.fork.child_tgid = tgid;
                break;
        default:
                break;
        }
        cn->id.idx = CN_IDX_PROC;
        cn->id.val = CN_VAL_PROC;
        cn->len = (uint16_t) event_len;
        memcpy(cn->data, &ev, MIN(event_len, sizeof(ev)));
        nl->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + event_len);
        nl->nlmsg_type = NLMSG_DONE;
        return NLMSG_ALIGN(nl->nlmsg_len);
}

static void test_connector_parse(void)
{
        _Alignas(8) uint8_t buf[4096] = { 0 };
        ProcEvent ev[8];
        size_t len = 0;
        int n;

        len += put_event(buf + len, PROC_EVENT_EXEC, 100, 100, sizeof(struct proc_event));
        len += put_event(buf + len, PROC_EVENT_COMM, 101, 100, sizeof(struct proc_event)); /* a thread: ignored */
        len += put_event(buf + len, PROC_EVENT_COMM, 100, 100, sizeof(struct proc_event));
        len += put_event(buf + len, PROC_EVENT_EXIT, 102, 100, sizeof(struct proc_event)); /* a thread: ignored */
        len += put_event(buf + len, PROC_EVENT_FORK, 104, 103, sizeof(struct proc_event)); /* a thread: ignored */
        len += put_event(buf + len, PROC_EVENT_EXIT, 100, 100, sizeof(struct proc_event));
        len += put_event(buf + len, PROC_EVENT_EXEC, 200, 200, 8); /* truncated event: ignored */
        len += put_event(buf + len, PROC_EVENT_FORK, 103, 103, sizeof(struct proc_event));
        len += put_event(buf + len, PROC_EVENT_FORK, 105, 105, 16); /* truncated event: ignored */

        n = proc_connector_parse(buf, len, ev, ELEMENTSOF(ev));
        g_assert_cmpint(n, ==, 4);
        /* A new process, with the process that forked it. */
        g_assert_cmpint(ev[3].type, ==, PROC_EVENT_TYPE_FORK);
        g_assert_cmpint(ev[3].pid, ==, 103);
        g_assert_cmpint(ev[3].parent, ==, 42);
        g_assert_cmpint(ev[0].parent, ==, 0);
        g_assert_cmpint(ev[0].type, ==, PROC_EVENT_TYPE_EXEC);
        g_assert_cmpint(ev[0].pid, ==, 100);
        g_assert_cmpuint(ev[0].timestamp_ns, ==, 1000100); /* when it happened: execs are read by age */
        g_assert_cmpint(ev[1].type, ==, PROC_EVENT_TYPE_COMM);
        g_assert_cmpint(ev[2].type, ==, PROC_EVENT_TYPE_EXIT);
        g_assert_cmpuint(ev[2].timestamp_ns, ==, 1000100);

        /* Bounded by max; a cut datagram parses what is whole. */
        g_assert_cmpint(proc_connector_parse(buf, len, ev, 1), ==, 1);
        g_assert_cmpint(proc_connector_parse(buf, 10, ev, ELEMENTSOF(ev)), ==, 0);
        /* An exec by a non-leader thread reports the group: after exec, the thread is the leader. */
        len = put_event(buf, PROC_EVENT_EXEC, 301, 300, sizeof(struct proc_event));
        g_assert_cmpint(proc_connector_parse(buf, len, ev, ELEMENTSOF(ev)), ==, 1);
        g_assert_cmpint(ev[0].pid, ==, 300);
}

/* A well-formed exec event that did not come from the kernel (nl_pid != 0) is ignored: only the kernel
 * speaks for processes. NETLINK_USERSOCK lets any user send one netlink socket another a datagram, and
 * the receiver sees the sender's port id, as it would for a forged proc-connector message. */
static void test_connector_ignores_other_senders(void)
{
        _cleanup_close_ int sender = -EBADF, receiver = -EBADF;
        struct sockaddr_nl local = { .nl_family = AF_NETLINK }, to = { .nl_family = AF_NETLINK };
        socklen_t to_len = sizeof(to);
        _Alignas(8) uint8_t buf[256] = { 0 };
        ProcEvent ev[4];
        size_t len;

        sender = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_USERSOCK);
        receiver = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_USERSOCK);
        g_assert_cmpint(sender, >=, 0);
        g_assert_cmpint(receiver, >=, 0);
        g_assert_cmpint(bind(sender, (struct sockaddr *) &local, sizeof(local)), ==, 0);
        g_assert_cmpint(bind(receiver, (struct sockaddr *) &local, sizeof(local)), ==, 0);
        g_assert_cmpint(getsockname(receiver, (struct sockaddr *) &to, &to_len), ==, 0);
        g_assert_cmpuint(to.nl_pid, !=, 0);

        len = put_event(buf, PROC_EVENT_EXEC, 4242, 4242, sizeof(struct proc_event));
        /* The message itself is one the parser takes: only its sender makes the difference. */
        g_assert_cmpint(proc_connector_parse(buf, len, ev, ELEMENTSOF(ev)), ==, 1);
        g_assert_cmpint(ev[0].pid, ==, 4242);

        g_assert_cmpint(sendto(sender, buf, len, 0, (struct sockaddr *) &to, sizeof(to)), ==, (ssize_t) len);
        memset(ev, 0, sizeof(ev));
        g_assert_cmpint(proc_connector_receive(receiver, ev, ELEMENTSOF(ev)), ==, 0);
        g_assert_cmpint(ev[0].pid, ==, 0);
        /* The datagram was consumed, not left to be read some other way. */
        g_assert_cmpint(recv(receiver, buf, sizeof(buf), MSG_DONTWAIT), <, 0);
        g_assert_cmpint(errno, ==, EAGAIN);
}

/* A fixture process whose maps exceed the limit: still read (a huge maps file is a fact of life for
 * browsers and games, not an error), with the list of mapped files marked partial. */
static void test_facts_oversized_maps(void)
{
        g_autofree char *dir = test_mkdtemp();
        _cleanup_close_ int proc = -EBADF;
        g_autoptr(GString) maps = g_string_new(NULL);
        ProcLimits limits = proc_limits_default;
        ProcFacts f = { .root_fd = -EBADF };
        static const char *const first[] = { "/usr/lib/libnvptest-0.so", "/usr/lib/libnvptest-1.so",
                "/usr/lib/libnvptest-2.so" };

        for (unsigned i = 0; i < 100; i++)
                g_string_append_printf(maps, "7f%08x000-7f%08x000 r--p 00000000 08:01 %u /usr/lib/libnvptest-%u.so\n",
                                i, i + 1, i + 1, i);
        limits.maps_max = 1024;
        g_assert_cmpuint(maps->len, >, limits.maps_max);

        test_write_file(dir, "777/stat", "777 (bigmaps) S 1 777 777 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7777 0 0\n");
        test_write_file(dir, "777/status",
                        "Name:\tbigmaps\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\nGroups:\t\n");
        test_write_file(dir, "777/comm", "bigmaps\n");
        test_write_file_n(dir, "777/cmdline", "/usr/bin/bigmaps", sizeof("/usr/bin/bigmaps"));
        test_write_file(dir, "777/maps", maps->str);
        test_symlink("/usr/bin/bigmaps", dir, "777/exe");
        proc = test_open_dir(dir);

        g_assert_cmpint(proc_facts_read(proc, 777, NULL, PROC_FACTS_MAPS, &limits, &f), ==, 0);
        g_assert_cmpuint(f.id.start_time, ==, 7777);
        g_assert_cmpstr(f.exe, ==, "/usr/bin/bigmaps");
        g_assert_cmpstr(f.comm, ==, "bigmaps");
        g_assert_cmpstr(f.argv[0], ==, "/usr/bin/bigmaps");
        g_assert_true(f.dsos_truncated);
        /* Whatever is kept comes from the start of the file, in order. */
        g_assert_cmpuint(strv_length(f.dsos), <=, G_N_ELEMENTS(first));
        for (size_t i = 0; f.dsos && f.dsos[i]; i++)
                g_assert_cmpstr(f.dsos[i], ==, first[i]);

        /* The settle re-read takes the same path. */
        f.dsos_truncated = false;
        g_assert_cmpint(proc_facts_refresh(proc, &f, &limits), ==, 0);
        g_assert_true(f.dsos_truncated);
        proc_facts_done(&f);

        /* Within the limit, nothing is marked partial. */
        limits.maps_max = maps->len;
        g_assert_cmpint(proc_facts_read(proc, 777, NULL, PROC_FACTS_MAPS, &limits, &f), ==, 0);
        g_assert_false(f.dsos_truncated);
        g_assert_cmpuint(strv_length(f.dsos), ==, 100);
        proc_facts_done(&f);
}

/* Reading in steps: the identity (with comm and state from stat) first, then only what is asked for,
 * each file once. */
static void test_facts_staged(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *pid_dir = NULL;
        _cleanup_close_ int proc = -EBADF, dfd = -EBADF, ino = -EBADF;
        _Alignas(struct inotify_event) uint8_t buf[4096];
        _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
        GString *opened = g_string_new(NULL);
        ssize_t n;

        test_write_file(dir, "321/stat", "321 (fake) game) Z 1 321 321 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5555 0 0\n");
        test_write_file(dir, "321/status", "Name:\tfake\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n");
        test_write_file(dir, "321/comm", "fake) game\n");
        test_write_file_n(dir, "321/cmdline", "game\0", 5);
        test_write_file_n(dir, "321/environ", "HOME=/home/gamer\0", 17);
        test_write_file(dir, "321/maps", "7f00-7f01 r--p 0 08:01 1 /usr/lib/libGL.so.1.7.0\n");
        test_symlink("/usr/bin/game", dir, "321/exe");
        proc = test_open_dir(dir);
        pid_dir = g_strdup_printf("%s/321", dir);
        ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        g_assert_cmpint(inotify_add_watch(ino, pid_dir, IN_OPEN), >=, 0);

        g_assert_cmpint(proc_facts_open(proc, 321, &(ProcIdentity){ 321, 5556 }, &f, &dfd), ==, -ESRCH);
        g_assert_cmpint(proc_facts_open(proc, 321, &(ProcIdentity){ 321, 5555 }, &f, &dfd), ==, 0);
        g_assert_cmpuint(f.id.start_time, ==, 5555);
        g_assert_cmpstr(f.comm, ==, "fake) game");
        g_assert_cmpint(f.state, ==, 'Z');
        g_assert_cmpint(f.have, ==, 0);
        g_assert_cmpint(proc_facts_add(dfd, PROC_FACTS_STATUS | PROC_FACTS_EXE, NULL, &f), ==, 0);
        g_assert_cmpint(proc_facts_add(dfd, PROC_FACTS_STATUS | PROC_FACTS_ENVIRON, NULL, &f), ==, 0);
        g_assert_cmpuint(f.uid, ==, 1000);
        g_assert_cmpstr(f.exe, ==, "/usr/bin/game");
        g_assert_cmpstr(strv_env_get(f.env, "HOME"), ==, "/home/gamer");
        g_assert_null(f.argv);
        g_assert_null(f.dsos);

        while ((n = read(ino, buf, sizeof(buf))) > 0)
                for (uint8_t *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;
                        g_string_append_printf(opened, " %s", e->len > 0 ? e->name : ".");
                        p += sizeof(*e) + e->len;
                }
        /* stat (opened twice, once per identity check: inotify merges the two unread events), status and
         * environ once each; the directory is held with O_PATH, which inotify does not report as an open. */
        g_assert_cmpstr(opened->str, ==, " stat status environ");
        g_string_free(opened, true);

        g_assert_cmpint(proc_facts_add(dfd, PROC_FACTS_CMDLINE | PROC_FACTS_MAPS, NULL, &f), ==, 0);
        g_assert_cmpstr(f.argv[0], ==, "game");
        g_assert_cmpstr(f.dsos[0], ==, "/usr/lib/libGL.so.1.7.0");
}

static void test_stat_comm(void)
{
        char comm[16], state = 0;

        g_assert_cmpint(proc_parse_stat_comm("1 (a) b) S 0", 12, comm, sizeof(comm), &state), ==, 0);
        g_assert_cmpstr(comm, ==, "a) b");
        g_assert_cmpint(state, ==, 'S');
        /* comm as /proc/<pid>/comm is read: up to its first newline. */
        g_assert_cmpint(proc_parse_stat_comm("1 (a\nb) R 0", 11, comm, sizeof(comm), &state), ==, 0);
        g_assert_cmpstr(comm, ==, "a");
        g_assert_cmpint(proc_parse_stat_comm("1 (0123456789abcdefgh) R 0", 26, comm, sizeof(comm), &state), ==, 0);
        g_assert_cmpstr(comm, ==, "0123456789abcde");
        g_assert_cmpint(proc_parse_stat_comm("1 (x)", 5, comm, sizeof(comm), &state), ==, -EBADMSG);
        g_assert_cmpint(proc_parse_stat_comm("1 x) S", 6, comm, sizeof(comm), &state), ==, -EBADMSG);
}

static void *thread_main(void *arg)
{
        return arg;
}

/* Receives raw datagrams from fd for a while; fails on any that the filter (types) should have dropped;
 * returns the events of interest seen for pid. */
static unsigned receive_filtered(int fd, unsigned types, pid_t pid, uint32_t *ret_seen)
{
        unsigned n = 0;
        uint32_t seen = 0;

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                _Alignas(8) uint8_t buf[1024];
                const struct cn_msg *cn;
                struct proc_event ev;
                ssize_t len;

                /* Its exit is its last event: everything of it has been looked at then. (Waiting for a
                 * quiet spell alone never ends on a machine that keeps starting processes.) */
                if ((seen & (PROC_EVENT_EXEC | PROC_EVENT_EXIT)) == (PROC_EVENT_EXEC | PROC_EVENT_EXIT) ||
                                poll(&pfd, 1, 300) <= 0)
                        break;
                len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                g_assert_cmpint(len, >=, (ssize_t) (NLMSG_HDRLEN + sizeof(struct cn_msg) + 16));
                cn = NLMSG_DATA((struct nlmsghdr *) buf);
                memset(&ev, 0, sizeof(ev));
                memcpy(&ev, cn->data, MIN((size_t) cn->len, sizeof(ev)));
                n++;
                switch (ev.what) {
                case PROC_EVENT_EXEC:
                        g_assert_true(types & (1u << PROC_EVENT_TYPE_EXEC));
                        if (ev.event_data.exec.process_tgid == pid)
                                seen |= PROC_EVENT_EXEC;
                        break;
                case PROC_EVENT_EXIT:
                        g_assert_true(types & (1u << PROC_EVENT_TYPE_EXIT));
                        /* Threads' exits never get through. */
                        g_assert_cmpint(ev.event_data.exit.process_pid, ==, ev.event_data.exit.process_tgid);
                        if (ev.event_data.exit.process_tgid == pid)
                                seen |= PROC_EVENT_EXIT;
                        break;
                case PROC_EVENT_COMM:
                        g_assert_true(types & (1u << PROC_EVENT_TYPE_COMM));
                        g_assert_cmpint(ev.event_data.comm.process_pid, ==, ev.event_data.comm.process_tgid);
                        break;
                case PROC_EVENT_FORK:
                        g_assert_true(types & (1u << PROC_EVENT_TYPE_FORK));
                        /* New threads never get through. */
                        g_assert_cmpint(ev.event_data.fork.child_pid, ==, ev.event_data.fork.child_tgid);
                        if (ev.event_data.fork.child_tgid == pid) {
                                g_assert_cmpint(ev.event_data.fork.parent_tgid, ==, getpid());
                                seen |= PROC_EVENT_FORK;
                        }
                        break;
                default:
                        g_error("event 0x%x got through a filter for 0x%x", (unsigned) ev.what, types);
                }
        }
        *ret_seen = seen;
        return n;
}

/* A real proc-connector socket; false (the case skipped, saying why) where there can be none. */
static bool open_connector(int *ret_fd)
{
        int r;

        if (!have_cap_net_admin()) {
                g_test_skip("needs CAP_NET_ADMIN (root) for the proc connector");
                return false;
        }
        r = proc_connector_open(1024 * 1024, ret_fd);
        if (r == -EPROTONOSUPPORT) {
                g_test_skip("kernel without CONFIG_PROC_EVENTS");
                return false;
        }
        g_assert_cmpint(r, ==, 0);
        return true;
}

/* The socket filter on a real proc-connector socket (set twice: types replaces first_types): a child
 * that starts and ends a thread, renames a thread, then execs /bin/true. Its events that arrive are
 * expected; any event types should have dropped fails the test. */
static void connector_filter(unsigned first_types, unsigned types, uint32_t expected)
{
        _cleanup_close_ int fd = -EBADF;
        uint32_t seen;
        pid_t pid;

        if (!open_connector(&fd))
                return;
        /* A second filter replaces the first. */
        g_assert_cmpint(proc_connector_set_filter(fd, first_types), ==, 0);
        g_assert_cmpint(proc_connector_set_filter(fd, types), ==, 0);
        /* What was queued before the filter (the subscription's answer, anything else that happened)
         * went through unfiltered. */
        for (uint8_t buf[1024]; recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0;)
                ;

        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                pthread_t t;

                if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
                        _exit(1);
                (void) pthread_setname_np(pthread_self(), "nvp-filter");
                execl("/bin/true", "true", NULL);
                _exit(127);
        }
        g_assert_cmpint(waitpid(pid, NULL, 0), ==, pid);

        g_assert_cmpuint(receive_filtered(fd, types, pid, &seen), >, 0);
        g_assert_cmpuint(seen, ==, expected);
}

/* With EXEC and EXIT passed (after a filter that passed FORK), its FORK, the thread's exit and the comm
 * changes never arrive; its exec and exit do. */
static void test_connector_filter(void)
{
        connector_filter(1u << PROC_EVENT_TYPE_FORK, (1u << PROC_EVENT_TYPE_EXEC) | (1u << PROC_EVENT_TYPE_EXIT),
                        PROC_EVENT_EXEC | PROC_EVENT_EXIT);
}

/* With FORK passed as well (GPU usage follows holders' children): the child's FORK arrives, with this
 * process as its parent; no new thread's (its own, or any on the machine) does. */
static void test_connector_filter_fork(void)
{
        connector_filter(0, (1u << PROC_EVENT_TYPE_EXEC) | (1u << PROC_EVENT_TYPE_EXIT) | (1u << PROC_EVENT_TYPE_FORK),
                        PROC_EVENT_FORK | PROC_EVENT_EXEC | PROC_EVENT_EXIT);
}

/* Several datagrams per receive call, each parsed. */
static void test_connector_receive_batch(void)
{
        _cleanup_close_ int sender = -EBADF, receiver = -EBADF;
        struct sockaddr_nl local = { .nl_family = AF_NETLINK }, to = { .nl_family = AF_NETLINK };
        socklen_t to_len = sizeof(to);
        ProcEvent ev[8];

        /* Another process's socket cannot be the kernel: what arrives from it is consumed and dropped,
         * several per call. */
        sender = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_USERSOCK);
        receiver = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_USERSOCK);
        g_assert_cmpint(bind(sender, (struct sockaddr *) &local, sizeof(local)), ==, 0);
        g_assert_cmpint(bind(receiver, (struct sockaddr *) &local, sizeof(local)), ==, 0);
        g_assert_cmpint(getsockname(receiver, (struct sockaddr *) &to, &to_len), ==, 0);
        for (int i = 0; i < 5; i++) {
                _Alignas(8) uint8_t buf[256] = { 0 };
                size_t len = put_event(buf, PROC_EVENT_EXEC, 100 + i, 100 + i, sizeof(struct proc_event));
                g_assert_cmpint(sendto(sender, buf, len, 0, (struct sockaddr *) &to, sizeof(to)), ==, (ssize_t) len);
        }
        g_assert_cmpint(proc_connector_receive(receiver, ev, ELEMENTSOF(ev)), ==, 0);
        g_assert_cmpint(recv(receiver, ev, sizeof(ev), MSG_DONTWAIT), <, 0);
        g_assert_cmpint(errno, ==, EAGAIN);
}

/* In a new PID namespace, the connector's view: a listener there proves its events, returns the exit
 * status the child should end with (0: verify said what was expected). */
static int verify_in_new_pid_namespace(int expected)
{
        _cleanup_close_ int fd = -EBADF;
        pid_t inner;
        int status, r;

        if (unshare(CLONE_NEWPID) < 0)
                return 10;
        inner = fork();
        if (inner < 0)
                return 11;
        if (inner == 0) {
                /* pid 1 of the new namespace, with the host's /proc, network and capabilities. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (proc_connector_open(1024 * 1024, &fd) < 0)
                        _exit(12);
                if (proc_connector_set_filter(fd, 1u << PROC_EVENT_TYPE_FORK) < 0)
                        _exit(13);
                r = proc_connector_verify(fd);
                _exit(r == expected ? 0 : r == 0 ? 14 : r == -ENODATA ? 15 : r == -EDOM ? 16 : 17);
        }
        if (waitpid(inner, &status, 0) != inner)
                return 18;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 19;
}

/* The proof that connector events are about the listener's PID namespace: here (the initial one) it
 * holds. In a new PID namespace the kernel ignores the listener's subscription but delivers what others
 * asked for (this test's listener) with the host's pids: the proof fails there with -EXDEV. */
static void test_connector_verify(void)
{
        _cleanup_close_ int fd = -EBADF;
        pid_t pid;
        int status;

        if (!open_connector(&fd))
                return;
        /* Without FORK events nothing can be proven. */
        g_assert_cmpint(proc_connector_set_filter(fd, 1u << PROC_EVENT_TYPE_EXIT), ==, 0);
        g_assert_cmpint(proc_connector_verify(fd), !=, 0);
        g_assert_cmpint(proc_connector_set_filter(fd, 1u << PROC_EVENT_TYPE_FORK), ==, 0);
        g_assert_cmpint(proc_connector_verify(fd), ==, 0);
        /* Twice: what the first left queued (the child's exit) is no obstacle. */
        g_assert_cmpint(proc_connector_verify(fd), ==, 0);

        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                _exit(verify_in_new_pid_namespace(-EXDEV));
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/procwatch/stat", test_stat);
        g_test_add_func("/procwatch/status", test_status);
        g_test_add_func("/procwatch/maps", test_maps);
        g_test_add_func("/procwatch/environ", test_environ);
        g_test_add_func("/procwatch/facts-self", test_facts_self);
        g_test_add_func("/procwatch/facts-fixture", test_facts_fixture);
        g_test_add_func("/procwatch/facts-flatpak", test_facts_flatpak);
        g_test_add_func("/procwatch/facts-whole-reads", test_facts_whole_reads);
        g_test_add_func("/procwatch/connector-parse", test_connector_parse);
        g_test_add_func("/procwatch/connector-ignores-other-senders", test_connector_ignores_other_senders);
        g_test_add_func("/procwatch/facts-oversized-maps", test_facts_oversized_maps);
        g_test_add_func("/procwatch/facts-staged", test_facts_staged);
        g_test_add_func("/procwatch/stat-comm", test_stat_comm);
        g_test_add_func("/procwatch/connector-filter", test_connector_filter);
        g_test_add_func("/procwatch/connector-filter-fork", test_connector_filter_fork);
        g_test_add_func("/procwatch/connector-receive-batch", test_connector_receive_batch);
        g_test_add_func("/procwatch/connector-verify", test_connector_verify);
        return g_test_run();
}
