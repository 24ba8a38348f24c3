/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's report verbs as root runs them on what another user made (issue 17, items 1 and 9, and
 * the report path's type): an unprivileged user that each case creates (itest_create_user()) plants files in a
 * directory of its own, and root, the test, runs nvprofilectl there and on them.
 *
 *   python-runner-paths     a "nvprofiled/" package, json.py, argparse.py, runpy.py beside the report, in
 *                           the working directory and on PYTHONPATH: "report rules" and "report diff"
 *                           work and none of them runs (nor does Python write a byte there)
 *   rules-folder-reserved   a rule folder holding NVIDIA's stock rules and an NvRules.py, ncu_report.py
 *                           and _NvRules.py of the user's: the rules run on our NvRules, those three are
 *                           ignored with a note, none of them runs
 *   report-not-regular      a report path that is a link to a fifo or a device node: every report verb,
 *                           through the daemon and locally, refuses it without opening it (inotify sees
 *                           no open)
 *   terminal-escapes        a report whose kernel name carries OSC, C1 CSI and bidi controls: "report raw"
 *                           and "report details" in a real terminal (tmux) show them escaped and the
 *                           terminal's title stays; through a pipe and --output=FILE the bytes are exact,
 *                           FILE is created with its final mode and never left half written
 *
 * Root only: SKIP without it. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "test-bus.h"
#include "test-util.h"

#define USER_PREFIX "nvptest-cli-"
#define ARMLETH "reports/armleth_report_ncu2024.2.1.ncu-rep"
#define RULES "rules/ncu-2024.1.1"
#define ARMLETH_KERNEL "matrix_addition2D"
/* As long as ARMLETH_KERNEL, so that the report stays valid with one for the other: a window title
 * (OSC 0), a right-to-left override (U+202E), a C1 CSI (U+009B) and what follows it. */
#define HOSTILE_KERNEL                         \
        "\x1b]0;PWNED\x07\xe2\x80\xae\xc2\x9b" \
        "2J"
#define HOSTILE_ESCAPED "\\x1b]0;PWNED\\a\\xe2\\x80\\xae\\xc2\\x9b2J(float *, float *, float *, int, int)"
#define WAIT_USEC (150 * G_USEC_PER_SEC) /* a bound for sanitizer builds on a loaded machine, not a timing */

typedef struct Case {
        ITest t;
        ITestUser user;
        char *dir; /* the attacker's directory */
} Case;

static Case *current;
static char tmux_socket[4096]; /* a tmux server of ours runs there */
static void (*itest_abort_handler)(int);

/* Async-signal-safe. */
static void run_and_wait(const char *file, const char *a, const char *b, const char *c)
{
        pid_t pid = fork();

        if (pid == 0) {
                execlp(file, file, a, b, c, (char *) NULL);
                _exit(127);
        }
        if (pid > 0)
                (void) waitpid(pid, NULL, 0);
}

/* An assertion that aborts the case still stops the terminal and removes the user and every file: then
 * itest's handler stops the daemon and the bus. */
static void on_fatal_signal(int sig)
{
        if (tmux_socket[0])
                run_and_wait("tmux", "-S", tmux_socket, "kill-server");
        if (current && current->t.dir)
                run_and_wait("rm", "-rf", current->t.dir, NULL);
        /* itest's handler prints the daemon's log, stops it and the bus, and raises sig again. */
        if (itest_abort_handler && itest_abort_handler != SIG_DFL && itest_abort_handler != SIG_IGN)
                itest_abort_handler(sig);
        signal(sig, SIG_DFL);
        raise(sig);
}

static bool case_setup(Case *c, bool with_daemon)
{
        if (!itest_have_root("creates a user and acts as root on its files"))
                return false;
        *c = (Case){ 0 };
        (void) test_corpus_dir_or_skip();
        itest_setup(&c->t);
        current = c;
        itest_create_user(USER_PREFIX, &c->user);
        /* After itest_setup() and itest_create_user(), which install theirs (which removes the user); g_assert()
         * aborts, g_error() traps. */
        itest_abort_handler = signal(SIGABRT, on_fatal_signal);
        signal(SIGTRAP, on_fatal_signal);
        signal(SIGTERM, on_fatal_signal);
        signal(SIGINT, on_fatal_signal);

        c->dir = g_build_filename(c->t.dir, "attacker", NULL);
        g_assert_cmpint(mkdir(c->dir, 0755), ==, 0);
        itest_user_chown(&c->user, c->dir);
        if (with_daemon) {
                itest_use_fixture_proc(&c->t);
                itest_start_daemon(&c->t, NULL);
        }
        return true;
}

static void case_teardown(Case *c)
{
        itest_teardown(&c->t); /* removes the user too */
        signal(SIGABRT, SIG_DFL);
        signal(SIGTRAP, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        current = NULL;
        g_free(c->dir);
}

/* A file of the attacker's under its directory (rel may name subdirectories, made too). */
static char *attacker_write(Case *c, const char *rel, const char *content, gsize len)
{
        g_autoptr(GError) error = NULL;
        char *path = g_build_filename(c->dir, rel, NULL);

        for (g_autofree char *d = g_path_get_dirname(path); !g_str_equal(d, c->dir);) {
                char *up = g_path_get_dirname(d);

                if (mkdir(d, 0755) == 0)
                        itest_user_chown(&c->user, d);
                else
                        g_assert_cmpint(errno, ==, EEXIST);
                g_free(d);
                d = up;
        }
        g_file_set_contents(path, content, (gssize) len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(path, 0644), ==, 0);
        itest_user_chown(&c->user, path);
        return path;
}

static char *attacker_symlink(Case *c, const char *rel, const char *target)
{
        char *path = g_build_filename(c->dir, rel, NULL);

        g_assert_cmpint(symlink(target, path), ==, 0);
        itest_user_chown(&c->user, path);
        return path;
}

/* A copy of a corpus report in the attacker's directory, every from replaced by to (of the same length). */
static char *attacker_report(Case *c, const char *rel, const char *from, const char *to)
{
        g_autofree char *source = test_corpus_path(ARMLETH), *data = NULL;
        g_autoptr(GError) error = NULL;
        gsize len;

        g_file_get_contents(source, &data, &len, &error);
        g_assert_no_error(error);
        if (from) {
                size_t n = strlen(from), replaced = 0;

                g_assert_cmpuint(strlen(to), ==, n);
                for (char *p = memmem(data, len, from, n); p;
                                p = memmem(p + n, len - (size_t) (p + n - data), from, n)) {
                        memcpy(p, to, n);
                        replaced++;
                }
                g_assert_cmpuint(replaced, >, 0);
        }
        return attacker_write(c, rel, data, len);
}

static char *attacker_mkdir(Case *c, const char *rel)
{
        char *path = g_build_filename(c->dir, rel, NULL);

        g_assert_cmpint(mkdir(path, 0755), ==, 0);
        itest_user_chown(&c->user, path);
        return path;
}

/* Python that leaves a file named PWNED-<what> in the attacker's directory when it runs. */
static void plant(Case *c, const char *rel, const char *what)
{
        g_autofree char *code = NULL;

        g_assert_null(strchr(c->dir, '\''));
        code = g_strdup_printf("import os\n"
                               "with open('%s/PWNED-%s', 'w') as f:\n"
                               "    f.write('ran as uid %%d\\n' %% os.getuid())\n",
                        c->dir, what);
        g_free(attacker_write(c, rel, code, strlen(code)));
}

/* Every file under dir, relative to it, sorted, one a line. */
static void list_tree(const char *dir, const char *prefix, GPtrArray *into)
{
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        const char *name;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *path = g_build_filename(dir, name, NULL);
                g_autofree char *rel = prefix ? g_build_filename(prefix, name, NULL) : g_strdup(name);

                if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
                        list_tree(path, rel, into);
                else
                        g_ptr_array_add(into, g_steal_pointer(&rel));
        }
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static char *tree(const char *dir)
{
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

        list_tree(dir, NULL, names);
        g_ptr_array_sort(names, compare_names);
        g_ptr_array_add(names, NULL);
        return g_strjoinv("\n", (char **) names->pdata);
}

typedef struct Run {
        const char *cwd; /* NULL: / */
        const char *const *env; /* extra NAME=VALUE entries */
        mode_t umask; /* 0: 022 */
} Run;

static void child_setup(gpointer userdata)
{
        const Run *run = userdata;

        test_child_dies_with_parent(NULL);
        umask(run->umask ? run->umask : 022);
}

/* Runs nvprofilectl --bus=<the test's bus> ARGS as root, as run says: the exit status, stdout and stderr. */
static int ctl_full(
                Case *c, const Run *run, char **ret_out, gsize *ret_out_len, char **ret_err, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL, *err = NULL, *cmdline = NULL;
        g_auto(GStrv) envp = g_get_environ();
        int status;

        g_ptr_array_add(argv, g_strdup(test_env_or_fail("NVPROFILECTL_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", c->t.bus_address));
        for (const char *const *a = args; *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        g_ptr_array_add(argv, NULL);
        for (const char *const *e = run->env; e && *e; e++) {
                g_auto(GStrv) kv = g_strsplit(*e, "=", 2);
                envp = g_environ_setenv(envp, kv[0], kv[1], TRUE);
        }

        /* Binary-safe stdout: through a pipe we read ourselves. */
        {
                GPid pid;
                int out_fd, err_fd;
                g_autoptr(GByteArray) out_bytes = g_byte_array_new(), err_bytes = g_byte_array_new();

                g_spawn_async_with_pipes(run->cwd ? run->cwd : "/", (char **) argv->pdata, envp,
                                G_SPAWN_DO_NOT_REAP_CHILD, child_setup, (gpointer) run, &pid, NULL, &out_fd, &err_fd,
                                &error);
                g_assert_no_error(error);
                for (int fd_open = 2; fd_open > 0;) {
                        struct pollfd fds[2] = { { .fd = out_fd, .events = POLLIN },
                                { .fd = err_fd, .events = POLLIN } };
                        guint8 buf[65536];

                        g_assert_cmpint(poll(fds, 2, -1), >, 0);
                        for (int i = 0; i < 2; i++) {
                                ssize_t n;

                                if (fds[i].fd < 0 || !fds[i].revents)
                                        continue;
                                n = read(fds[i].fd, buf, sizeof(buf));
                                if (n > 0) {
                                        g_byte_array_append(i == 0 ? out_bytes : err_bytes, buf, (guint) n);
                                        continue;
                                }
                                close(fds[i].fd);
                                if (i == 0)
                                        out_fd = -1;
                                else
                                        err_fd = -1;
                                fd_open--;
                        }
                }
                g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
                if (ret_out_len)
                        *ret_out_len = out_bytes->len;
                g_byte_array_append(out_bytes, (const guint8 *) "", 1);
                g_byte_array_append(err_bytes, (const guint8 *) "", 1);
                out = (char *) g_byte_array_free(g_steal_pointer(&out_bytes), FALSE);
                err = (char *) g_byte_array_free(g_steal_pointer(&err_bytes), FALSE);
        }

        cmdline = g_strjoinv(" ", (char **) argv->pdata + 2);
        g_test_message("root (in %s)$ nvprofilectl %s -> %d", run->cwd ? run->cwd : "/", cmdline,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (*err)
                g_test_message("stderr: %s", err);
        if (ret_out)
                *ret_out = g_steal_pointer(&out);
        if (ret_err)
                *ret_err = g_steal_pointer(&err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define CTL_ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ctl_in(c, run, ret_out, ret_err, ...) ctl_full((c), (run), (ret_out), NULL, (ret_err), CTL_ARGS(__VA_ARGS__))

/* Nothing the attacker planted ran, and root wrote nothing there (no bytecode caches either). */
static void assert_untouched(Case *c, const char *planted)
{
        g_autofree char *now = tree(c->dir);

        g_assert_cmpstr(now, ==, planted);
}

static struct json_object *parse_json(const char *text)
{
        struct json_object *doc = json_tokener_parse(text);

        g_assert_nonnull(doc);
        return doc;
}

static void test_python_runner_paths(void)
{
        g_autofree char *report = NULL, *rules = test_corpus_path(RULES), *planted = NULL, *pythonpath = NULL;
        g_autofree char *out1 = NULL, *out2 = NULL, *out3 = NULL, *out4 = NULL;
        struct json_object *doc;
        int r;
        Case c;

        if (!case_setup(&c, false))
                return;
        report = attacker_report(&c, "report.ncu-rep", NULL, NULL);
        plant(&c, "nvprofiled/__init__.py", "nvprofiled");
        plant(&c, "json.py", "json");
        plant(&c, "argparse.py", "argparse");
        plant(&c, "runpy.py", "runpy");
        planted = tree(c.dir);

        /* In the attacker's directory, and elsewhere with the report there; with the directory on PYTHONPATH
         * too (sudo -E, an administrator's own setting). */
        pythonpath = g_strdup_printf("PYTHONPATH=%s", c.dir);
        const char *const env[] = { pythonpath, NULL };
        const Run there = { .cwd = c.dir, .env = env }, elsewhere = { .cwd = NULL, .env = env };

        r = ctl_in(&c, &there, &out1, NULL, "report", "rules", "--rules-dir", rules, "--rule", "CPIStall",
                        "report.ncu-rep");
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        g_assert_nonnull(strstr(
                        out1, "matrix_addition2D (range 0, action 0)\n  CPIStall [WarpStateStats]: Warp Stall\n"));

        r = ctl_in(&c, &elsewhere, &out2, NULL, "--json=short", "report", "rules", "--rules-dir", rules, "--rule",
                        "CPIStall", report);
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        doc = parse_json(out2);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(doc, "report")), ==, report);
        json_object_put(doc);

        r = ctl_in(&c, &there, &out3, NULL, "report", "diff", "report.ncu-rep", "report.ncu-rep");
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        g_assert_nonnull(strstr(out3, "matrix_addition2D (action 0) -> matrix_addition2D (action 0)\n"));

        r = ctl_in(&c, &there, &out4, NULL, "--json=short", "report", "diff", "--local", "report.ncu-rep", report);
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        doc = parse_json(out4);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "pairs")), ==, 1);
        json_object_put(doc);
        case_teardown(&c);
}

static void test_rules_folder_reserved(void)
{
        g_autofree char *report = NULL, *stock = test_corpus_path(RULES), *folder = NULL, *planted = NULL;
        g_autofree char *out = NULL, *err = NULL, *text = NULL, *text_err = NULL;
        g_autoptr(GDir) d = g_dir_open(stock, 0, NULL);
        struct json_object *doc, *ignored, *results, *speedup;
        const char *name;
        int r;
        Case c;

        if (!case_setup(&c, false))
                return;
        report = attacker_report(&c, "report.ncu-rep", NULL, NULL);
        /* ncu's sections folder as it ships: the stock rules, and NVIDIA's own modules beside them. */
        folder = attacker_mkdir(&c, "sections");
        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *source = g_build_filename(stock, name, NULL);
                g_autofree char *rel = g_build_filename("sections", name, NULL);

                if (g_str_has_suffix(name, ".py") || g_str_has_suffix(name, ".chart"))
                        g_free(attacker_symlink(&c, rel, source));
        }
        plant(&c, "sections/NvRules.py", "NvRules");
        plant(&c, "sections/ncu_report.py", "ncu_report");
        plant(&c, "sections/_NvRules.py", "_NvRules");
        planted = tree(c.dir);

        const Run run = { .cwd = c.dir };
        r = ctl_in(&c, &run, &out, &err, "--json=short", "report", "rules", "--rules-dir", folder, "--rule", "CPIStall",
                        "report.ncu-rep");
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        doc = parse_json(out);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(doc, "load_errors")), ==, 0);
        ignored = json_object_object_get(doc, "ignored");
        g_assert_cmpuint(json_object_array_length(ignored), ==, 3);
        for (size_t i = 0; i < 3; i++) {
                const char *path = json_object_get_string(
                                json_object_object_get(json_object_array_get_idx(ignored, i), "path"));
                g_autofree char *base = g_path_get_basename(path);

                g_assert_true(g_str_equal(base, "NvRules.py") || g_str_equal(base, "ncu_report.py") ||
                                g_str_equal(base, "_NvRules.py"));
                g_assert_nonnull(strstr(err, base));
        }
        g_assert_nonnull(strstr(err, "ignored: NVIDIA's own module"));
        /* CPIStall ran on our NvRules: the stored result, to the bit. */
        results = json_object_object_get(
                        json_object_array_get_idx(json_object_object_get(doc, "actions"), 0), "results");
        g_assert_cmpuint(json_object_array_length(results), ==, 1);
        speedup = json_object_object_get(
                        json_object_array_get_idx(
                                        json_object_object_get(json_object_array_get_idx(results, 0), "messages"), 0),
                        "speedup");
        g_assert_cmpfloat(json_object_get_double(json_object_object_get(speedup, "value")), ==, 11.607055023609657);
        json_object_put(doc);

        /* The text form says so too, on stderr. */
        r = ctl_in(&c, &run, &text, &text_err, "report", "rules", "--rules-dir", folder, "report.ncu-rep");
        assert_untouched(&c, planted);
        g_assert_cmpint(r, ==, 0);
        g_assert_nonnull(strstr(text, "  CPIStall [WarpStateStats]: Warp Stall\n"));
        g_assert_nonnull(strstr(text_err, "NvRules.py: ignored"));
        case_teardown(&c);
}

/* The inotify events of what wd watches so far, as text ("" for none). */
static char *drain_events(int fd)
{
        g_autoptr(GString) s = g_string_new(NULL);
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;

        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *) p)->len)
                        g_string_append_printf(s, "wd %d mask 0x%x; ", ((struct inotify_event *) p)->wd,
                                        ((struct inotify_event *) p)->mask);
        g_assert_true(n < 0 && errno == EAGAIN);
        return g_string_free(g_steal_pointer(&s), FALSE);
}

/* Every report verb on path fails saying it is not a regular file. python: also the verbs that run the
 * Python package (whose old form opened the path itself, blocking on a fifo). */
static void assert_refused_everywhere(Case *c, const char *path, const char *good, bool python)
{
        static const char *const c_verbs[][3] = {
                { "summary", NULL },
                { "json", NULL },
                { "raw", "--csv" },
                { "details", "--csv" },
                { "details", NULL },
                { "session", NULL },
        };
        const Run run = { .cwd = c->dir };

        for (size_t i = 0; i < G_N_ELEMENTS(c_verbs); i++)
                for (int local = 0; local < 2; local++) {
                        g_autofree char *err = NULL;

                        g_assert_cmpint(ctl_full(c, &run, NULL, NULL, &err,
                                                        (const char *const[]){ "report", c_verbs[i][0], path,
                                                                        local ? "--local" : "--no-legend",
                                                                        c_verbs[i][1], NULL }),
                                        ==, 1);
                        g_assert_nonnull(strstr(err, "not a regular file"));
                }
        {
                g_autofree char *err = NULL, *err2 = NULL;

                /* Through the daemon (Report.Diff), either file. */
                g_assert_cmpint(ctl_in(c, &run, NULL, &err, "--json=short", "report", "diff", path, good), ==, 1);
                g_assert_nonnull(strstr(err, "not a regular file"));
                g_assert_cmpint(ctl_in(c, &run, NULL, &err2, "--json=short", "report", "diff", good, path), ==, 1);
                g_assert_nonnull(strstr(err2, "not a regular file"));
        }
        if (python) {
                g_autofree char *rules = test_corpus_path(RULES);
                g_autofree char *err = NULL, *err2 = NULL, *err3 = NULL;

                g_assert_cmpint(ctl_in(c, &run, NULL, &err, "report", "rules", "--rules-dir", rules, path), ==, 1);
                g_assert_nonnull(strstr(err, "not a regular file"));
                g_assert_cmpint(ctl_in(c, &run, NULL, &err2, "report", "diff", good, path), ==, 1);
                g_assert_nonnull(strstr(err2, "not a regular file"));
                g_assert_cmpint(ctl_in(c, &run, NULL, &err3, "--json=short", "report", "diff", "--local", path, good),
                                ==, 1);
                g_assert_nonnull(strstr(err3, "not a regular file"));
        }
}

static void test_report_not_regular(void)
{
        g_autofree char *good = NULL, *fifo = NULL, *device = NULL, *events = NULL, *out = NULL;
        int ino;
        Case c;

        if (!case_setup(&c, true))
                return;
        good = attacker_report(&c, "report.ncu-rep", NULL, NULL);
        /* The attacker's fifo, and a device node (root's: a user cannot make one, but may link to any). */
        fifo = g_build_filename(c.dir, "pipe", NULL);
        g_assert_cmpint(mkfifo(fifo, 0666), ==, 0);
        itest_user_chown(&c.user, fifo);
        device = g_build_filename(c.t.dir, "null-device", NULL);
        g_assert_cmpint(mknod(device, S_IFCHR | 0666, makedev(1, 3)), ==, 0);
        g_free(attacker_symlink(&c, "fifo.ncu-rep", fifo));
        g_free(attacker_symlink(&c, "device.ncu-rep", device));
        g_free(attacker_symlink(&c, "link.ncu-rep", "report.ncu-rep"));

        /* Opening either, for reading or writing, is an event; an O_PATH handle is not. */
        ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        g_assert_cmpint(ino, >=, 0);
        g_assert_cmpint(inotify_add_watch(ino, fifo, IN_OPEN | IN_ACCESS | IN_CLOSE), >=, 0);
        g_assert_cmpint(inotify_add_watch(ino, device, IN_OPEN | IN_ACCESS | IN_CLOSE), >=, 0);

        assert_refused_everywhere(&c, "fifo.ncu-rep", "report.ncu-rep", false);
        events = drain_events(ino);
        g_assert_cmpstr(events, ==, "");
        assert_refused_everywhere(&c, "device.ncu-rep", "report.ncu-rep", true);
        g_free(events);
        events = drain_events(ino);
        g_assert_cmpstr(events, ==, "");
        close(ino);

        /* A link to a regular file is a report like any other. */
        const Run run = { .cwd = c.dir };
        g_assert_cmpint(ctl_in(&c, &run, &out, NULL, "report", "summary", "--no-legend", "link.ncu-rep"), ==, 0);
        g_assert_nonnull(strstr(out, "matrix_addition2D"));
        case_teardown(&c);
}

/* Runs command (sh) in a tmux pane of 200 columns until it ends, with exit status 0; returns everything the
 * pane showed, its wrapped lines joined, and the pane's title. The pane's shell says when the command
 * ended, and stays: tmux itself does not always reap a pane's process here (remain-on-exit then waits). */
static void run_in_terminal(Case *c, const char *command, char **ret_screen, char **ret_title)
{
        g_autofree char *conf = g_build_filename(c->t.dir, "tmux.conf", NULL);
        g_autofree char *socket = g_build_filename(c->t.dir, "tmux.sock", NULL);
        g_autofree char *done = g_build_filename(c->t.dir, "pane-done", NULL), *status = NULL;
        g_autofree char *cmd = g_strdup_printf("{ %s; }; echo \"exit status $?\" > '%s.new' && mv '%s.new' '%s'; "
                                               "exec sleep 600",
                        command, done, done, done);
        g_autoptr(GError) error = NULL;

        g_file_set_contents(conf, "set -g history-limit 100000\n", -1, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(strlen(socket), <, sizeof(tmux_socket));
        strcpy(tmux_socket, socket);
        g_free(test_run_tmux(socket, "-f", conf, "new-session", "-d", "-s", "view", "-x", "200", "-y", "50", "-e",
                        "LC_ALL=C.UTF-8", "-e", "TERM=screen", cmd, NULL));
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC; !g_file_test(done, G_FILE_TEST_EXISTS);
                        g_usleep(50000))
                if (g_get_monotonic_time() >= deadline) {
                        g_autofree char *pane = test_run_tmux(socket, "capture-pane", "-p", "-t", "view", NULL);

                        g_error("the command in the terminal did not end; the pane shows:\n%s", pane);
                }
        *ret_screen = test_run_tmux(socket, "capture-pane", "-p", "-J", "-S", "-", "-t", "view", NULL);
        *ret_title = test_run_tmux(socket, "display-message", "-p", "-t", "view", "#{pane_title}", NULL);
        g_free(test_run_tmux(socket, "kill-server", NULL));
        tmux_socket[0] = '\0';
        g_assert_true(g_file_get_contents(done, &status, NULL, &error));
        g_assert_cmpstr(status, ==, "exit status 0\n");
}

static char *read_file(const char *path, gsize *ret_len)
{
        g_autoptr(GError) error = NULL;
        char *data = NULL;

        g_file_get_contents(path, &data, ret_len, &error);
        g_assert_no_error(error);
        return data;
}

static void test_terminal_escapes(void)
{
        g_autofree char *hostile = NULL, *broken = NULL, *screen = NULL, *title = NULL, *command = NULL;
        g_autofree char *raw = NULL, *raw_local = NULL, *details = NULL, *details_local = NULL, *err = NULL;
        g_autofree char *outdir = NULL, *output = NULL, *written = NULL, *kept = NULL, *listing = NULL;
        gsize raw_len, raw_local_len, details_len, details_local_len, written_len;
        g_autofree char *tmux_path = g_find_program_in_path("tmux");
        const Run run = { .cwd = NULL }, tight = { .cwd = NULL, .umask = 027 };
        struct stat st;
        Case c;

        if (!tmux_path) {
                g_test_skip("tmux is not installed");
                return;
        }
        if (!case_setup(&c, true))
                return;
        hostile = attacker_report(&c, "hostile.ncu-rep", ARMLETH_KERNEL, HOSTILE_KERNEL);
        broken = attacker_write(&c, "broken.ncu-rep", "NVR\0broken", 10);

        /* Root looks at it on a terminal: through the daemon and locally, each page. */
        {
                g_autofree char *ctl = g_strdup_printf(
                                "'%s' --bus='%s' report", test_env_or_fail("NVPROFILECTL_BIN"), c.t.bus_address);

                command = g_strdup_printf("%s raw --csv '%s' && %s details --csv --local '%s' && %s raw --csv "
                                          "--local '%s' && %s details '%s' && %s raw --local '%s' && %s "
                                          "details --print-summary=per-kernel '%s'",
                                ctl, hostile, ctl, hostile, ctl, hostile, ctl, hostile, ctl, hostile, ctl, hostile);
        }
        run_in_terminal(&c, command, &screen, &title);
        g_assert_null(strstr(title, "PWNED"));
        /* The text pages too: the action's line of the details page, the raw page and the summary. */
        g_assert_nonnull(strstr(
                        screen, "\n  " HOSTILE_ESCAPED " (63, 63, 1)x(16, 16, 1), Context 1, Stream 7, Device 0"));
        g_assert_nonnull(strstr(
                        screen, "\n  " HOSTILE_ESCAPED " (63, 63, 1)x(16, 16, 1), Device 0, CC 7.5, Invocations 1"));
        g_assert_nonnull(strstr(screen, "  device__attribute_display_name "));
        g_assert_nonnull(strstr(screen, "\"0\",\"5816\",\"cuda_example\",\"127.0.0.1\",\"" HOSTILE_ESCAPED "\""));
        g_assert_nonnull(strstr(screen,
                        "\"0\",\"5816\",\"cuda_example\",\"127.0.0.1\",\"" HOSTILE_ESCAPED "\",\"1\",\"7\","
                        "\"(16, 16, 1)\",\"(63, 63, 1)\",\"0\",\"7.5\",\"GPU Speed Of Light Throughput\""));

        /* Through a pipe: the exact bytes, the same through the daemon and locally. */
        g_assert_cmpint(ctl_full(&c, &run, &raw, &raw_len, NULL, CTL_ARGS("report", "raw", "--csv", hostile)), ==, 0);
        g_assert_cmpint(ctl_full(&c, &run, &raw_local, &raw_local_len, NULL,
                                        CTL_ARGS("report", "raw", "--csv", "--local", hostile)),
                        ==, 0);
        g_assert_nonnull(strstr(raw, "\"127.0.0.1\",\"" HOSTILE_KERNEL "(float *, float *, float *, int, int)\""));
        g_assert_cmpmem(raw, raw_len, raw_local, raw_local_len);
        g_assert_cmpint(ctl_full(&c, &run, &details, &details_len, NULL,
                                        CTL_ARGS("report", "details", "--csv", hostile)),
                        ==, 0);
        g_assert_cmpint(ctl_full(&c, &run, &details_local, &details_local_len, NULL,
                                        CTL_ARGS("report", "details", "--csv", "--local", hostile)),
                        ==, 0);
        g_assert_nonnull(strstr(details, "\"" HOSTILE_KERNEL "(float *, float *, float *, int, int)\""));
        g_assert_cmpmem(details, details_len, details_local, details_local_len);

        /* --output=FILE: a failed export leaves FILE as it was and nothing beside it... */
        outdir = g_build_filename(c.t.dir, "out", NULL);
        g_assert_cmpint(mkdir(outdir, 0755), ==, 0);
        output = g_build_filename(outdir, "page.csv", NULL);
        {
                g_autoptr(GError) error = NULL;

                g_file_set_contents(output, "old\n", -1, &error);
                g_assert_no_error(error);
        }
        g_assert_cmpint(ctl_full(&c, &tight, NULL, NULL, &err,
                                        CTL_ARGS("report", "raw", "--csv", "--output", output, broken)),
                        ==, 1);
        kept = read_file(output, NULL);
        g_assert_cmpstr(kept, ==, "old\n");
        listing = tree(outdir);
        g_assert_cmpstr(listing, ==, "page.csv");
        g_clear_pointer(&listing, g_free);

        /* ...a good one replaces it whole with the exact bytes, in a file made with its final mode. */
        for (int local = 0; local < 2; local++) {
                g_assert_cmpint(ctl_full(&c, &tight, NULL, NULL, NULL,
                                                CTL_ARGS("report", "raw", "--csv", local ? "--local" : "--no-legend",
                                                                "--output", output, hostile)),
                                ==, 0);
                written = read_file(output, &written_len);
                g_assert_cmpmem(written, written_len, raw, raw_len);
                g_clear_pointer(&written, g_free);
                g_assert_cmpint(stat(output, &st), ==, 0);
                g_assert_cmpint(st.st_mode & 07777, ==, 0640);
                listing = tree(outdir);
                g_assert_cmpstr(listing, ==, "page.csv");
                g_clear_pointer(&listing, g_free);
        }
        g_clear_pointer(&err, g_free);
        /* Only the exports write exact bytes to a file. */
        g_assert_cmpint(ctl_full(&c, &run, NULL, NULL, &err,
                                        CTL_ARGS("report", "summary", "--output", output, hostile)),
                        ==, 2);
        g_assert_nonnull(strstr(err, "--output is an option of report raw, report details and report session"));
        case_teardown(&c);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/security-client/python-runner-paths", test_python_runner_paths);
        g_test_add_func("/security-client/rules-folder-reserved", test_rules_folder_reserved);
        g_test_add_func("/security-client/report-not-regular", test_report_not_regular);
        g_test_add_func("/security-client/terminal-escapes", test_terminal_escapes);
        return g_test_run();
}
