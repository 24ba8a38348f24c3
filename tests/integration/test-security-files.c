/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 17, items 6, 8 and 10, as an attacker tries them (sec-world.h): an unprivileged user that each
 * case creates attacks the real daemon running as root, and each case asserts what the attacker got
 * and that the daemon is intact.
 *
 *   proc-self       rc files linked to the daemon's own /proc entries (/proc/<its pid>/maps, /proc/self,
 *                   /proc/thread-self) and to sysfs: never read, listed as not a regular file on a
 *                   regular file system; no byte of the daemon's maps or environment anywhere.
 *   export-temp     the daemon, started with umask 022, writes its export where the attacker can list:
 *                   every temporary file the attacker races to open is EACCES, not a byte read.
 *   log-flood       the attacker's own rule and many short-lived processes: the daemon's log has at most
 *                   UserLogBurst= lines of theirs, then a summary; root's process is still logged. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "sec-world.h"

#define NOT_REGULAR "not a regular file on a regular file system"
#define USER_GLOBALS ".nv/nvidia-application-profile-globals-rc"

/* Everything the daemon must not tell the attacker of its own /proc: the start addresses of its
 * mappings (but those every process shares, such as [vsyscall]). */
static void add_daemon_addresses(Sec *s)
{
        g_autoptr(GPtrArray) daemon = load_addresses(s->t.daemon_pid), own = load_addresses(getpid());

        for (guint i = 0; i < daemon->len; i++) {
                bool shared = false;
                for (guint k = 0; k < own->len && !shared; k++)
                        shared = g_str_equal(daemon->pdata[i], own->pdata[k]);
                if (!shared)
                        g_ptr_array_add(s->private_facts, g_strdup(daemon->pdata[i]));
        }
        g_assert_cmpuint(s->private_facts->len, >, 3);
}

/* The private facts are in nothing anyone was told, root included, nor in the daemon's log. */
static void assert_facts_nowhere(Sec *s)
{
        g_autofree char *log = daemon_log(s);

        for (guint i = 0; i < s->private_facts->len; i++) {
                assert_absent("what the callers were told", s->seen->str, s->private_facts->pdata[i]);
                assert_absent("the daemon's log", log, s->private_facts->pdata[i]);
        }
}

/* The entries of `nvprofilectl errors` (as the attacker or root) about path saying why. */
static guint count_listed(Sec *s, bool attacker, const char *path, const char *why)
{
        struct json_object *errors = errors_json(s, attacker);
        guint n = count_errors(errors, path, why);

        if (n != 1)
                g_test_message("%s: %s", path, json_object_to_json_string(errors));

        json_object_put(errors);
        return n;
}

/* Item 6. The daemon reads rc files with the user's fsuid, but a process may always read its own /proc
 * entries: links to them (and to sysfs) must not be read at all. The secret of the run is in the
 * daemon's environment (/proc/self/environ) too. */
static void test_proc_self(void)
{
        /* Each link, and what it is listed as: environ is 0400, so the user's fsuid is refused first. */
        static const char *const links[][3] = {
                { USER_RCD "/50-self-maps", "/proc/self/maps", NOT_REGULAR },
                { USER_RCD "/51-thread-self-maps", "/proc/thread-self/maps", NOT_REGULAR },
                { USER_RCD "/52-self-environ", "/proc/self/environ", "not readable by uid" },
                { USER_RCD "/53-sysfs", "/sys/devices/system/cpu/online", NOT_REGULAR },
                { USER_RCD "/54-self-cmdline", "/proc/self/cmdline", NOT_REGULAR },
                { USER_GLOBALS, "/proc/self/status", NOT_REGULAR },
        };
        g_autofree char *sys_mount = NULL, *daemon_maps = NULL, *rc_path = NULL, *own_path = NULL;
        g_autofree char *rcd_path = NULL, *rcd_prefix = NULL;
        struct json_object *rules;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root, a mount namespace, and a user the test creates");
        sec_setup(&s, true);
        /* sysfs below --root too, in our private mount namespace (gone with it even if we abort). */
        sys_mount = g_build_filename(s.t.root, "sys", NULL);
        g_assert_cmpint(g_mkdir_with_parents(sys_mount, 0555), ==, 0);
        g_assert_cmpint(mount("/sys", sys_mount, NULL, MS_BIND | MS_REC, NULL), ==, 0);

        for (size_t i = 0; i < G_N_ELEMENTS(links); i++)
                attacker_symlink(&s, links[i][0], links[i][1]);
        /* The control: a file of its own in the same directory is read. */
        attacker_write(&s, USER_RCD "/60-own",
                        "{\"rules\": [{\"pattern\": \"nvptest-own\", \"profile\": [\"GLSharpenValue\", 1]}]}\n", -1);

        g_assert_true(g_setenv("NVPTEST_DAEMON_SECRET", s.secret, true));
        itest_start_daemon(&s.t, NULL);
        g_unsetenv("NVPTEST_DAEMON_SECRET");
        add_daemon_addresses(&s);
        /* The daemon's own pid, named: the link is made once the pid is known, before the home is read. */
        daemon_maps = g_strdup_printf("/proc/%i/maps", (int) s.t.daemon_pid);
        attacker_symlink(&s, USER_RC, daemon_maps);

        rc_path = g_strdup_printf("%s/" USER_RC, s.home);
        own_path = g_strdup_printf("%s/" USER_RCD "/60-own", s.home);
        rules = attacker_rules(&s, s.home);
        g_assert_cmpuint(count_rules_from(rules, own_path), ==, 1);
        json_object_put(rules);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "profiles", "--home", s.home), ==, 0);
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=short", "resolve", "--exe", "/usr/bin/nvptest-own",
                                        "--home", s.home),
                        ==, 0);

        /* Each is listed, for the attacker and for root, as what it is: not an rc file. */
        for (int attacker = 1; attacker >= 0; attacker--) {
                g_assert_cmpuint(count_listed(&s, attacker, rc_path, NOT_REGULAR), ==, 1);
                for (size_t i = 0; i < G_N_ELEMENTS(links); i++) {
                        g_autofree char *path = g_strdup_printf("%s/%s", s.home, links[i][0]);
                        g_test_message("%s -> %s", path, links[i][1]);
                        g_assert_cmpuint(count_listed(&s, attacker, path, links[i][2]), ==, 1);
                }
        }
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);
        g_assert_cmpint(root_ctl(&s, NULL, NULL, "--json=off", "errors"), <=, 1);

        /* The rc.d directory itself a link to the daemon's /proc directory: not listed, nothing below it
         * opened. (Watched: the change is picked up by a reload.) */
        rcd_path = g_strdup_printf("%s/" USER_RCD, s.home);
        rcd_prefix = g_strdup_printf("%s/", rcd_path);
        {
                g_autofree char *dir = g_build_filename(s.home_dir, USER_RCD, NULL);
                g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
                g_assert_cmpint(system(cmd), ==, 0);
        }
        attacker_symlink(&s, USER_RCD, "/proc/self");
        ITEST_WAIT_FOR(count_listed(&s, true, rcd_path, NOT_REGULAR) == 1, WAIT_MS);
        g_assert_cmpuint(count_listed(&s, true, rcd_path, NOT_REGULAR), ==, 1);
        {
                struct json_object *errors = errors_json(&s, true);
                g_assert_cmpuint(count_errors(errors, rcd_prefix, NULL), ==, 0);
                json_object_put(errors);
        }
        g_assert_cmpint(attacker_ctl(&s, NULL, NULL, "--json=off", "rules", "--home", s.home), ==, 0);

        assert_facts_nowhere(&s);
        g_assert_cmpint(umount2(sys_mount, MNT_DETACH), ==, 0);
        sec_finish(&s);
}

typedef struct RaceResult {
        const char *dir;
        unsigned opened, eacces, gone, other;
        size_t bytes;
} RaceResult;

#define RACE_EACCES_WANTED 10
#define RACE_MS 60000

/* As the attacker: open every temporary file that appears in the export's directory, as it appears. */
static void race_export(sd_bus *bus, FILE *out, void *userdata)
{
        RaceResult *r = userdata;
        int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), dir = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        gint64 deadline = g_get_monotonic_time() + (gint64) RACE_MS * 1000;

        /* A child that exits when done: what it opened goes with it. */
        if (in < 0 || dir < 0 || inotify_add_watch(in, r->dir, IN_CREATE) < 0) {
                fprintf(out, "setup failed: %s\n", strerror(errno));
                return;
        }
        /* Spinning, as an attacker would: the file must be opened the moment it is created. */
        while (r->eacces < RACE_EACCES_WANTED && r->opened == 0 && g_get_monotonic_time() < deadline) {
                char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                ssize_t n = read(in, buf, sizeof(buf));

                for (char *p = buf; n > 0 && p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        int fd;

                        p += sizeof(*ev) + ev->len;
                        if (ev->len == 0 || ev->name[0] != '.')
                                continue;
                        fd = openat(dir, ev->name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
                        if (fd >= 0) {
                                char data[65536];
                                ssize_t k;

                                r->opened++;
                                /* The descriptor reads what is written, however late. */
                                g_usleep(200 * 1000);
                                while ((k = read(fd, data, sizeof(data))) > 0)
                                        r->bytes += (size_t) k;
                                close(fd);
                        } else if (errno == EACCES)
                                r->eacces++;
                        else if (errno == ENOENT)
                                r->gone++;
                        else
                                r->other++;
                }
        }
        fprintf(out, "race: opened=%u bytes=%zu eacces=%u gone=%u other=%u\n", r->opened, r->bytes, r->eacces, r->gone,
                        r->other);
}

#define EXPORT_CLIENTS 500

/* Other users' GPU clients in a fixture /proc, each in a unit of its own, so the export names many
 * units and processes (and takes a while to write). Their fd 3 is /dev/null, a DRM node for DrmMajor=1. */
static void export_fixture(Sec *s)
{
        itest_use_fixture_proc(&s->t);
        for (unsigned i = 0; i < EXPORT_CLIENTS; i++) {
                pid_t pid = (pid_t) (10000 + i);
                g_autofree char *dir = g_strdup_printf("%s/%i", s->t.proc, (int) pid);
                g_autofree char *fd = g_build_filename(dir, "fd", "3", NULL);
                g_autofree char *fdinfo_dir = g_build_filename(dir, "fdinfo", NULL);
                g_autofree char *fdinfo = g_build_filename(fdinfo_dir, "3", NULL);
                g_autofree char *cgroup = g_build_filename(dir, "cgroup", NULL);
                g_autofree char *info = g_strdup_printf(
                                "pos:\t0\nflags:\t02\ndrm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\n"
                                "drm-client-id:\t%u\ndrm-engine-render:\t%u ns\ndrm-engine-copy:\t%u ns\n"
                                "drm-engine-video:\t%u ns\ndrm-engine-video-enhance:\t%u ns\n"
                                "drm-engine-compute:\t%u ns\ndrm-total-system0:\t4 KiB\ndrm-total-local0:\t8 KiB\n"
                                "drm-resident-system0:\t4 KiB\ndrm-resident-local0:\t8 KiB\n",
                                i + 1, i + 1, i + 2, i + 3, i + 4, i + 5);
                g_autofree char *unit =
                                g_strdup_printf("0::/user.slice/user-%u.slice/app-game%u.scope\n", 2000 + i % 50, i);

                itest_fixture_process(&s->t, pid, 1000 + i, 2000 + i % 50, "game", "/usr/bin/game", NULL);
                g_assert_cmpint(symlink("/dev/null", fd), ==, 0);
                g_assert_cmpint(g_mkdir_with_parents(fdinfo_dir, 0755), ==, 0);
                g_assert_true(g_file_set_contents(fdinfo, info, -1, NULL));
                g_assert_true(g_file_set_contents(cgroup, unit, -1, NULL));
        }
}

/* Item 8. Started by hand with a umask of 022, the daemon once created its temporary export file 0644
 * and made it 0640 only after writing it. */
static void test_export_temp(void)
{
        g_autofree char *dir = NULL, *path = NULL, *config = NULL, *got = NULL;
        RaceResult r = { 0 };
        mode_t old_umask;
        struct stat st;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the daemon runs as root, and a user the test creates");
        sec_setup(&s, false);
        export_fixture(&s);
        dir = g_build_filename(s.t.dir, "textfile", NULL);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_cmpint(chmod(dir, 0755), ==, 0);
        path = g_build_filename(dir, "nvprofiled.prom", NULL);
        config = g_strdup_printf("[Usage]\nDrmMajor=1\nNVML=no\n[Export]\nExportTextfile=%s\nExportIntervalSec=1s\n"
                                 "ExportProcessLabels=yes\n",
                        path);

        old_umask = umask(022);
        itest_start_daemon(&s.t, config);
        umask(old_umask);

        /* The race on the full export: once the daemon sampled the clients. */
        ITEST_WAIT_FOR(stat(path, &st) == 0 && st.st_size > EXPORT_CLIENTS * 500, 4 * WAIT_MS);
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(st.st_size, >, EXPORT_CLIENTS * 500);

        r.dir = dir;
        got = attacker_on_bus(&s, race_export, &r, NULL);
        g_test_message("%s", got);
        /* Not a byte; and the race was run to its end: each file the attacker reached refused it (one
         * renamed away first is "gone", which proves nothing either way). */
        g_assert_nonnull(strstr(got, "race: opened=0 bytes=0 eacces=" G_STRINGIFY(RACE_EACCES_WANTED) " "));
        g_assert_nonnull(strstr(got, " other=0"));

        /* The control: the export is there, as before, with its final mode. */
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0640);
        g_test_message("the export: %" G_GUINT64_FORMAT " bytes", (guint64) st.st_size);
        sec_finish(&s);
}

typedef struct Flood {
        Sec *s;
        const char *helper;
        unsigned n;
} Flood;

#define FLOOD_PROCESSES 120
#define FLOOD_PARALLEL 8
#define USER_LOG_BURST 20

/* As the attacker: FLOOD_PROCESSES short-lived processes its own rule matches, a few at a time. */
static void flood(sd_bus *bus, FILE *out, void *userdata)
{
        Flood *f = userdata;
        unsigned started = 0, failed = 0;

        if (setenv("HOME", f->s->home, 1) < 0) {
                fprintf(out, "setenv failed\n");
                return;
        }
        while (started < f->n) {
                pid_t pids[FLOOD_PARALLEL];
                unsigned k = 0;

                for (; k < FLOOD_PARALLEL && started < f->n; k++, started++) {
                        pids[k] = fork();
                        if (pids[k] == 0) {
                                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                                if (null >= 0)
                                        (void) dup2(null, STDOUT_FILENO);
                                execl(f->helper, "nvptest-flood", "--delay-ms", "60", "--seconds", "0", (char *) NULL);
                                _exit(127);
                        }
                }
                for (unsigned i = 0; i < k; i++) {
                        int status = 0;
                        if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
                                        WEXITSTATUS(status) != 0)
                                failed++;
                }
        }
        fprintf(out, "flood: %u started, %u failed\n", started, failed);
}

static guint count_lines(const char *log, const char *needle)
{
        guint n = 0;

        for (const char *p = log; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

static bool log_has(Sec *s, const char *needle)
{
        g_autofree char *log = daemon_log(s);
        return strstr(log, needle) != NULL;
}

/* Item 10. LogApplied=yes (the default) once logged a line per process: the attacker's own rule and a
 * loop of short-lived processes flooded the log, and journald's rate limit for the service then dropped
 * everyone's messages. The window is an hour, so the count does not depend on how fast this machine
 * runs the flood; the summary of a window still open comes when the daemon stops (the manager's test
 * sees it come when a window ends). */
static void test_log_flood(void)
{
        g_autofree char *helper = NULL, *config = NULL, *got = NULL, *log = NULL, *summary = NULL;
        g_autofree char *rule = NULL, *rootapp_line = NULL;
        int exit_status;
        GPid root_pid;
        guint applied;
        Flood f;
        Sec s;

        ITEST_REQUIRE_ROOT("needs root: the proc connector, and a user the test creates");
        sec_setup(&s, false);
        rule = g_strdup("{\"rules\": [{\"pattern\": \"nvptest-flood\", \"profile\": {\"name\": \"Flood\", "
                        "\"settings\": [\"GLSharpenValue\", 3]}}]}\n");
        attacker_write(&s, USER_RC, rule, -1);
        root_write(&s, RCD "/50-root",
                        "{\"rules\": [{\"pattern\": \"nvptest-rootapp\", \"profile\": {\"name\": \"RootApp\", "
                        "\"settings\": [\"GLSharpenValue\", 4]}}]}\n",
                        0644);
        helper = g_build_filename(s.t.dir, "bin", "nvptest-flood", NULL);
        copy_file(env_or_fail("NVPROFILED_HELPER"), helper);
        config = g_strdup_printf("[Profiles]\nLogApplied=yes\n[Limits]\nUserLogIntervalSec=60min\nUserLogBurst=%u\n",
                        USER_LOG_BURST);
        itest_start_daemon(&s.t, config);

        f = (Flood){ .s = &s, .helper = helper, .n = FLOOD_PROCESSES };
        got = attacker_on_bus(&s, flood, &f, NULL);
        g_test_message("%s", got);
        g_assert_nonnull(strstr(got, "flood: " G_STRINGIFY(FLOOD_PROCESSES) " started, 0 failed"));

        /* Root's process, after the attacker's flood and in its window, is logged all the same; the
         * daemon has seen every process of the flood by then (events come in order). */
        root_pid = spawn_helper(&s, false, "nvptest-rootapp", NULL);
        ITEST_WAIT_FOR(tracked_with(&s, root_pid, "RootApp"), WAIT_MS);
        g_assert_true(tracked_with(&s, root_pid, "RootApp"));
        ITEST_WAIT_FOR(log_has(&s, "Profile applied to nvptest-rootapp["), WAIT_MS);
        g_assert_true(log_has(&s, "Profile applied to nvptest-rootapp["));

        /* The daemon stops: what it dropped is said, in one line for the attacker's uid. */
        assert_daemon_intact(&s);
        itest_stop_daemon(&s.t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
        log = daemon_log(&s);
        applied = count_lines(log, "Profile applied to nvptest-flood[");
        g_test_message("%u lines about the attacker's processes", applied);
        g_assert_cmpuint(applied, ==, USER_LOG_BURST);
        summary = g_strdup_printf(" messages caused by uid %u in the last ", (unsigned) s.uid);
        g_assert_nonnull(strstr(log, summary));
        g_assert_cmpuint(count_lines(log, "Suppressed "), ==, 1);
        /* Root's own process, by its pid: exactly one line (a second process of that name, which the
         * sanitizer build has been seen to log under load, is not the one this asserts). */
        rootapp_line = g_strdup_printf("Profile applied to nvptest-rootapp[%i]", (int) root_pid);
        g_assert_cmpuint(count_lines(log, rootapp_line), ==, 1);

        assert_nothing_leaked(&s);
        sec_teardown(&s);
}

/* Each case is its own meson test (tests/integration/meson.build runs this binary with -p /security/NAME). */
int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/security/proc-self", test_proc_self);
        g_test_add_func("/security/export-temp", test_export_temp);
        g_test_add_func("/security/log-flood", test_log_flood);
        return g_test_run();
}
