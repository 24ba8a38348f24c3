/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl without a daemon: the command line (options, verbs, usage errors and exit statuses),
 * "check" as the driver reads files and directories, how diagnostics and values are printed, and what
 * it says when nvprofiled is not on the bus. */

#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <pty.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "client.h"
#include "rc-reader.h"
#include "json-schema-check.h"
#include "rc-settings.h"
#include "private-bus.h"
#include "run-ctl.h"
#include "test-util.h"

/* ---- options ---- */

/* arg points into the strings of the last command line parsed: they live until the next. */
static GPtrArray *parsed_args;

static int parse(const char *first, ...)
{
        GPtrArray *args;
        g_autofree char **argv = NULL;
        va_list ap;
        int r, saved_err, null_fd;

        client_options_done(&arg);
        g_clear_pointer(&parsed_args, g_ptr_array_unref);
        args = parsed_args = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(args, g_strdup("nvprofilectl"));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, g_strdup(a));
        va_end(ap);
        g_ptr_array_add(args, NULL);
        argv = g_memdup2(args->pdata, sizeof(char *) * args->len);

        /* Usage messages go to stderr; keep the log readable but quiet. */
        fflush(stderr);
        saved_err = dup(STDERR_FILENO);
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        g_assert_cmpint(dup2(null_fd, STDERR_FILENO), ==, STDERR_FILENO);
        r = parse_argv((int) args->len - 1, argv);
        fflush(stderr);
        g_assert_cmpint(dup2(saved_err, STDERR_FILENO), ==, STDERR_FILENO);
        close(saved_err);
        close(null_fd);
        return r;
}

static void test_json_option(void)
{
        g_assert_cmpint(parse("--json=pretty", "status", NULL), ==, 1);
        g_assert_cmpint(arg.json, ==, JSON_PRETTY);
        g_assert_cmpint(parse("--json=short", "status", NULL), ==, 1);
        g_assert_cmpint(arg.json, ==, JSON_SHORT);
        g_assert_cmpint(parse("--json=pretty", "--json=off", "status", NULL), ==, 1);
        g_assert_cmpint(arg.json, ==, JSON_OFF);
        g_assert_cmpint(parse("--json=yaml", "status", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("--json=", "status", NULL), ==, -EINVAL);
        client_options_done(&arg);
}

/* Bare --json (and -j): pretty on a terminal, short otherwise. */
static void test_json_bare(void)
{
        int master, slave, saved;

        /* stdout a file: short. */
        {
                int fd = test_temp_fd();

                fflush(stdout);
                saved = dup(STDOUT_FILENO);
                g_assert_cmpint(dup2(fd, STDOUT_FILENO), ==, STDOUT_FILENO);
                g_assert_cmpint(parse("--json", "status", NULL), ==, 1);
                g_assert_cmpint(arg.json, ==, JSON_SHORT);
                g_assert_cmpint(parse("-j", "status", NULL), ==, 1);
                g_assert_cmpint(arg.json, ==, JSON_SHORT);
                g_assert_cmpint(dup2(saved, STDOUT_FILENO), ==, STDOUT_FILENO);
                close(saved);
                close(fd);
        }

        /* stdout a terminal: pretty. */
        g_assert_cmpint(openpty(&master, &slave, NULL, NULL, NULL), ==, 0);
        fflush(stdout);
        saved = dup(STDOUT_FILENO);
        g_assert_cmpint(dup2(slave, STDOUT_FILENO), ==, STDOUT_FILENO);
        g_assert_cmpint(parse("--json", "status", NULL), ==, 1);
        g_assert_cmpint(arg.json, ==, JSON_PRETTY);
        g_assert_cmpint(parse("status", "--json", NULL), ==, 1); /* after the verb, too */
        g_assert_cmpint(arg.json, ==, JSON_PRETTY);
        g_assert_cmpint(dup2(saved, STDOUT_FILENO), ==, STDOUT_FILENO);
        close(saved);
        close(slave);
        close(master);
        client_options_done(&arg);
}

static void test_bus_options(void)
{
        g_assert_cmpint(parse("--user", "status", NULL), ==, 1);
        g_assert_true(arg.session);
        g_assert_null(arg.bus_address);
        g_assert_cmpint(parse("--bus=unix:path=/run/x", "status", NULL), ==, 1);
        g_assert_cmpstr(arg.bus_address, ==, "unix:path=/run/x");
        g_assert_false(arg.session);
        g_assert_cmpint(parse("--bus=unix:path=/run/x", "--user", "status", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("--user", "--bus=unix:path=/run/x", "status", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("--bus=", "status", NULL), ==, -EINVAL);
        client_options_done(&arg);
}

static void test_resolve_options(void)
{
        g_assert_cmpint(parse("resolve", "--exe", "/usr/bin/sway", "--dso", "libwlroots.so", "--dso", "libGL.so",
                                        "--env", "__GL_SYNC_TO_VBLANK=0", "--home", "/home/u", NULL),
                        ==, 1);
        g_assert_cmpstr(arg.exe, ==, "/usr/bin/sway");
        g_assert_cmpuint(g_strv_length(arg.dsos), ==, 2);
        g_assert_cmpstr(arg.dsos[1], ==, "libGL.so");
        g_assert_cmpstr(arg.env[0], ==, "__GL_SYNC_TO_VBLANK=0");
        g_assert_cmpstr(arg.home, ==, "/home/u");
        g_assert_cmpint(parse("resolve", "--env", "NOEQUALS", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("resolve", "--env", "=x", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("resolve", "--home", "relative", NULL), ==, -EINVAL);
        g_assert_cmpint(parse("--no-such-option", "status", NULL), ==, -EINVAL);
        client_options_done(&arg);
        g_assert_null(arg.dsos);
        g_assert_true(arg.legend);
}

/* ---- verbs: usage errors exit 2 before anything is asked of a bus ---- */

static void test_usage_errors(void)
{
        g_autofree char *err = NULL;

        g_assert_cmpint(run_ctl(NULL, &err, "status", "extra", NULL), ==, EXIT_USAGE);
        g_assert_nonnull(strstr(err, "status takes no arguments"));
        g_assert_cmpint(run_ctl(NULL, NULL, "processes", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "errors", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "rules", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "profiles", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "monitor", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "reload", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "version", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "resolve", "x", "--exe", "/bin/x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "explain", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "explain", "1", "2", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "explain", "abc", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "explain", "0", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "resolve", NULL), ==, EXIT_USAGE); /* no fact at all */
        g_assert_cmpint(run_ctl(NULL, NULL, "status", "--exe", "/bin/x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "status", "--home", "/root", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "no-such-verb", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "--bus=unix:path=/x", "--user", "status", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "--json=yaml", "status", NULL), ==, EXIT_USAGE);
        /* --output= is for the exports only, and names a file. */
        g_assert_cmpint(run_ctl(NULL, NULL, "--output=x.csv", "status", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "--output=", "report", "raw", "x", "--csv", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "--output=x.csv", "report", "json", "x", NULL), ==, EXIT_USAGE);
        g_assert_cmpint(run_ctl(NULL, NULL, "--output=x.csv", "report", "diff", "x", "y", NULL), ==, EXIT_USAGE);
}

static void test_unknown_verb_escaped(void)
{
        g_autofree char *err = NULL;

        g_assert_cmpint(run_ctl(NULL, &err, "\x1b]0;x\x07", NULL), ==, EXIT_USAGE);
        g_assert_null(strchr(err, '\x1b'));
        g_assert_nonnull(strstr(err, "\\x1b]0;x\\a"));
}

static void test_help_and_version(void)
{
        g_autofree char *out = NULL, *resolve = NULL, *version = NULL;

        g_assert_cmpint(run_ctl(&out, NULL, "--help", NULL), ==, EXIT_SUCCESS);
        /* Every verb and the options of every verb (the man page is checked against this text); a verb's
         * own options in its help (tests/client/test-nvprofilectl-help.c). */
        for (const char *const *w = (const char *const[]){ "\n  status ", "\n  processes ", "\n  explain PID",
                             "\n  resolve ", "\n  rules ", "\n  profiles ", "\n  errors ", "\n  check [PATH...]",
                             "\n  monitor ", "\n  reload ", "\n  version ", "--help", "--version", "--json[=MODE]",
                             "\n  -j ", "--no-legend", "--bus=ADDRESS", "--user", "Exit status:", "\n  0 ", "\n  1 ",
                             "\n  2 ", NULL };
                        *w; w++)
                if (!strstr(out, *w))
                        g_error("--help does not mention \"%s\"", *w);
        g_assert_cmpint(run_ctl(&resolve, NULL, "resolve", "--help", NULL), ==, EXIT_SUCCESS);
        for (const char *const *w = (const char *const[]){ "--all", "--exe=PATH", "--argv=ARG", "--comm=NAME",
                             "--dso=NAME", "--env=NAME=VALUE", "--home=DIR", "--exe-dir-file=NAME", NULL };
                        *w; w++)
                if (!strstr(resolve, *w))
                        g_error("resolve --help does not mention \"%s\"", *w);
        g_assert_cmpint(run_ctl(&version, NULL, "--version", NULL), ==, EXIT_SUCCESS);
        g_assert_true(g_str_has_prefix(version, "nvprofilectl "));
}

/* ---- check ---- */

static struct json_object *check_json(int *ret_status, const char *first, ...)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *out = NULL;
        struct json_object *o;
        va_list ap;

        g_ptr_array_add(args, g_strdup("--json=short"));
        g_ptr_array_add(args, g_strdup("check"));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, g_strdup(a));
        va_end(ap);
        g_assert_cmpuint(args->len, <=, 6);
        g_ptr_array_set_size(args, 6);
        *ret_status = run_ctl(&out, NULL, g_ptr_array_index(args, 0), g_ptr_array_index(args, 1),
                        g_ptr_array_index(args, 2), g_ptr_array_index(args, 3), g_ptr_array_index(args, 4),
                        g_ptr_array_index(args, 5), NULL);
        assert_json_valid(out);
        o = json_tokener_parse(out);
        g_assert_nonnull(o);
        return o;
}

static const char *jstr(struct json_object *o, const char *key)
{
        return json_object_get_string(json_object_object_get(o, key));
}

/* The diagnostic of file whose message contains needle, or NULL. */
static struct json_object *find_diag(struct json_object *out, const char *file, const char *needle)
{
        struct json_object *diags = json_object_object_get(out, "diagnostics");

        for (size_t i = 0; i < json_object_array_length(diags); i++) {
                struct json_object *d = json_object_array_get_idx(diags, i);

                if (g_str_equal(jstr(d, "file"), file) && strstr(jstr(d, "message"), needle))
                        return d;
        }
        return NULL;
}

static const char *VALID = "{\"rules\": [{\"pattern\": \"x\", \"profile\": \"P\"}],"
                           " \"profiles\": [{\"name\": \"P\", \"settings\": [\"k\", 1]}]}";

static void test_check_missing_is_error(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *missing = g_build_filename(dir, "nonexistent", NULL);
        g_autofree char *good = g_build_filename(dir, "good", NULL);
        struct json_object *out;
        int status;

        test_write_file(dir, "good", VALID);
        out = check_json(&status, good, missing, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        g_assert_cmpint(json_object_get_int(json_object_object_get(out, "errors")), ==, 1);
        g_assert_cmpstr(jstr(find_diag(out, missing, "No such file"), "severity"), ==, "error");
        json_object_put(out);

        /* The good one alone is fine. */
        out = check_json(&status, good, NULL);
        g_assert_cmpint(status, ==, EXIT_SUCCESS);
        json_object_put(out);
}

static void test_check_too_large_is_error(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *big = g_build_filename(dir, "big", NULL);
        g_autofree char *text = g_malloc(RC_FILE_SIZE_MAX + 2);
        struct json_object *out;
        int status;

        /* Valid rc syntax if it were read: whitespace around an empty object. */
        memset(text, ' ', RC_FILE_SIZE_MAX + 1);
        text[0] = '{';
        text[RC_FILE_SIZE_MAX] = '}';
        text[RC_FILE_SIZE_MAX + 1] = '\0';
        test_write_file(dir, "big", text);

        out = check_json(&status, big, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        g_assert_cmpstr(jstr(find_diag(out, big, "larger than"), "severity"), ==, "error");
        json_object_put(out);

        /* One byte less is read. */
        text[RC_FILE_SIZE_MAX - 1] = '}';
        text[RC_FILE_SIZE_MAX] = '\0';
        test_write_file(dir, "big", text);
        out = check_json(&status, big, NULL);
        g_assert_cmpint(status, ==, EXIT_SUCCESS);
        json_object_put(out);
}

static void test_check_directory(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *rcd = g_build_filename(dir, "rc.d", NULL);
        g_autofree char *outside = g_build_filename(dir, "outside", NULL);
        g_autofree char *fifo = g_build_filename(rcd, "fifo", NULL);
        /* strcmp order: digits, upper case, lower case. */
        const char *const expected[] = { "10-x", "9-x", "B", "a", "b", "dangling", "fifo", "link", "sub", NULL };
        struct json_object *out, *files;
        int status;

        test_write_file(rcd, "b", "{\"rules\": [{\"pattern\": \"b\", \"profile\": \"FromA\"}]}");
        test_write_file(rcd, "a", "{\"profiles\": [{\"name\": \"FromA\", \"settings\": [\"k\", 1]}]}");
        test_write_file(rcd, "B", VALID);
        test_write_file(rcd, "9-x", "{}");
        test_write_file(rcd, "10-x", "{}");
        test_write_file(dir, "outside", "{}");
        test_write_file(rcd, "sub/ignored", "this is not read");
        test_symlink(outside, rcd, "link");
        test_symlink("/nonexistent/target", rcd, "dangling");
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);

        out = check_json(&status, rcd, NULL);
        /* Ignored entries are notes, not errors; a rule may use a profile of another file. */
        g_assert_cmpint(status, ==, EXIT_SUCCESS);
        g_assert_cmpint(json_object_get_int(json_object_object_get(out, "errors")), ==, 0);
        files = json_object_object_get(out, "files");
        g_assert_cmpuint(json_object_array_length(files), ==, g_strv_length((char **) expected));
        for (size_t i = 0; expected[i]; i++) {
                g_autofree char *path = g_build_filename(rcd, expected[i], NULL);
                struct json_object *f = json_object_array_get_idx(files, i);

                g_assert_cmpstr(jstr(f, "file"), ==, path);
        }
        g_assert_cmpstr(jstr(json_object_array_get_idx(files, 7), "state"), ==, "loaded"); /* link */
        g_assert_cmpstr(jstr(json_object_array_get_idx(files, 3), "state"), ==, "loaded"); /* a */
        {
                /* Each ignored entry with its reason. */
                const char *const ignored[][2] = {
                        { "dangling", "dangling symbolic link, ignored" },
                        { "fifo", "not a regular file, ignored" },
                        { "sub", "directory, ignored" },
                };

                for (size_t i = 0; i < G_N_ELEMENTS(ignored); i++) {
                        g_autofree char *path = g_build_filename(rcd, ignored[i][0], NULL);
                        struct json_object *d = find_diag(out, path, ignored[i][1]);

                        g_assert_nonnull(d);
                        g_assert_cmpstr(jstr(d, "severity"), ==, "note");
                }
        }
        g_assert_null(find_diag(out, rcd, "not a regular file"));
        json_object_put(out);

        /* A broken file in it is an error. */
        test_write_file(rcd, "c", "{\"rules\": [,]}");
        out = check_json(&status, rcd, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        json_object_put(out);
}

static void test_check_special_file_is_error(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
        struct json_object *out;
        int status;

        /* Named by the user, a fifo cannot be checked: an error, and no hang on opening it. */
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
        out = check_json(&status, fifo, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        g_assert_cmpstr(jstr(find_diag(out, fifo, "neither a regular file nor a directory"), "severity"), ==, "error");
        json_object_put(out);
}

static void test_check_output_escaped(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *evil = g_build_filename(dir, "evil\x1b]0;PWNED\x07", NULL);
        g_autofree char *out = NULL, *err = NULL;
        struct json_object *o;
        int status;

        /* A name and a content with ESC: the message quotes the byte, the name is printed. */
        test_write_file(dir, "evil\x1b]0;PWNED\x07", "{\"rules\": [\x1b[31m]}");
        status = run_ctl(&out, &err, "check", evil, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        g_assert_null(strchr(out, '\x1b'));
        g_assert_null(strchr(err, '\x1b'));
        g_assert_null(strchr(err, '\x07'));
        g_assert_nonnull(strstr(err, "evil\\x1b]0;PWNED\\a:1:"));

        /* JSON is exact: the name parses back to the very bytes. */
        o = check_json(&status, evil, NULL);
        g_assert_cmpint(status, ==, EXIT_FAILURE);
        g_assert_cmpstr(jstr(json_object_array_get_idx(json_object_object_get(o, "files"), 0), "file"), ==, evil);
        json_object_put(o);
}

/* ---- how things are printed ---- */

static char *diagnostic_text(const char *file, uint32_t line, uint32_t column, const char *severity,
                const char *message, const char *suffix)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        g_assert_nonnull(f);
        print_diagnostic(f, file, line, column, severity, message, suffix);
        g_assert_cmpint(fclose(f), ==, 0);
        return buf;
}

static void test_print_diagnostic(void)
{
        const struct {
                const char *file;
                uint32_t line, column;
                const char *suffix, *expected;
        } cases[] = {
                { "f.rc", 3, 7, NULL, "f.rc:3:7: error: bad\n" },
                { "f.rc", 3, 0, NULL, "f.rc:3: error: bad\n" },
                { "f.rc", 0, 0, NULL, "f.rc: error: bad\n" }, /* about the whole file: no ":0:0" */
                { "", 0, 0, NULL, "error: bad\n" }, /* about no file */
                { NULL, 0, 0, NULL, "error: bad\n" },
                { "f.rc", 1, 2, " [last good version in force]",
                                "f.rc:1:2: error: bad [last good version in force]\n" },
                { "a\x1b[2J", 1, 1, NULL, "a\\x1b[2J:1:1: error: bad\n" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *text = diagnostic_text(
                                cases[i].file, cases[i].line, cases[i].column, "error", "bad", cases[i].suffix);

                g_assert_cmpstr(text, ==, cases[i].expected);
        }

        {
                g_autofree char *text = diagnostic_text("f", 0, 0, "warning", "unexpected '\x1b]0;x\x07'", NULL);

                g_assert_cmpstr(text, ==, "f: warning: unexpected '\\x1b]0;x\\a'\n");
        }
}

static void test_value_text(void)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        struct json_object *s = json_object_new_string("DP-3\x1b[31m"), *i = json_object_new_int64(-5),
                           *b = json_object_new_boolean(1);

        g_assert_cmpstr(value_text(&e, s), ==, "\"DP-3\\x1b[31m\"");
        g_assert_cmpstr(value_text(&e, i), ==, "-5");
        g_assert_cmpstr(value_text(&e, b), ==, "true");
        g_assert_cmpstr(value_text(&e, NULL), ==, "?");
        json_object_put(s);
        json_object_put(i);
        json_object_put(b);
}

/* ---- no daemon on the bus ---- */

static void test_not_running(void)
{
        PrivateBus b = { 0 };
        g_autofree char *bus_arg = NULL, *expected = NULL;

        if (!private_bus_start(&b)) {
                g_test_skip(TEST_BUS_UNAVAILABLE);
                return;
        }
        bus_arg = g_strdup_printf("--bus=%s", b.address);
        expected = g_strdup_printf("nvprofiled is not running on the bus at %s.", b.address);

        for (const char *const *verb = (const char *const[]){ "status", "processes", "errors", "doctor", "rules",
                             "profiles", "monitor", "reload", NULL };
                        *verb; verb++) {
                g_autofree char *err = NULL;

                g_assert_cmpint(run_ctl(NULL, &err, bus_arg, *verb, NULL), ==, EXIT_FAILURE);
                if (!strstr(err, expected))
                        g_error("%s: expected \"%s\", got \"%s\"", *verb, expected, err);
                /* The next step, and none of the bus's words. */
                g_assert_nonnull(strstr(err, "Start it with: sudo systemctl start nvprofiled.\n"));
                g_assert_null(strstr(err, "org.freedesktop"));
                g_assert_null(strstr(err, ".service files"));
        }
        {
                /* top says it once: no reading without a watch of a daemon that is not there. */
                g_autofree char *err = NULL;
                const char *first;

                g_assert_cmpint(run_ctl(NULL, &err, bus_arg, "top", "--once", NULL), ==, EXIT_FAILURE);
                first = strstr(err, expected);
                g_assert_nonnull(first);
                g_assert_null(strstr(first + 1, expected));
                g_assert_null(strstr(err, "without a watch"));
        }
        {
                g_autofree char *err = NULL;

                g_assert_cmpint(run_ctl(NULL, &err, bus_arg, "explain", "1", NULL), ==, EXIT_FAILURE);
                g_assert_nonnull(strstr(err, expected));
                g_clear_pointer(&err, g_free);
                g_assert_cmpint(run_ctl(NULL, &err, bus_arg, "resolve", "--exe", "/usr/bin/x", NULL), ==, EXIT_FAILURE);
                g_assert_nonnull(strstr(err, expected));
        }
        {
                g_autofree char *out = NULL;

                /* version answers for the client either way. */
                g_assert_cmpint(run_ctl(&out, NULL, bus_arg, "version", NULL), ==, EXIT_SUCCESS);
                g_assert_nonnull(strstr(out, "nvprofiled (not running)"));
                g_clear_pointer(&out, g_free);
                /* The daemon's version is not known: null. */
                g_assert_cmpint(run_ctl(&out, NULL, bus_arg, "--json=short", "version", NULL), ==, EXIT_SUCCESS);
                assert_json_valid(out);
                g_assert_nonnull(strstr(out, "\"daemon\":null"));
        }
        private_bus_stop(&b);
}

static void test_no_bus(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *bus_arg = g_strdup_printf("--bus=unix:path=%s/none", dir);
        g_autofree char *err = NULL;

        /* The state's words (service-state.h) and its next step. */
        g_assert_cmpint(run_ctl(NULL, &err, bus_arg, "status", NULL), ==, EXIT_FAILURE);
        g_assert_nonnull(strstr(err, "nvprofiled cannot be reached: failed to connect to the bus at unix:path="));
        g_assert_nonnull(strstr(err, "check it with: systemctl status dbus.\n"));
}

/* ---- edits of a user's own files, without a daemon ---- */

/* Runs an edit with $HOME in a scratch directory and no bus to be found; returns the exit status and the
 * JSON output in *ret (NULL unless the status is 0). */
static int edit(const char *home, struct json_object **ret, const char *first, ...)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *bus_arg = g_strdup_printf("--bus=unix:path=%s/none", home), *out = NULL;
        g_autofree char *old_home = g_strdup(g_getenv("HOME"));
        va_list ap;
        int status;

        g_ptr_array_add(args, g_strdup("nvprofilectl"));
        g_ptr_array_add(args, g_strdup(bus_arg));
        g_ptr_array_add(args, g_strdup("--json=short"));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, g_strdup(a));
        va_end(ap);
        g_ptr_array_add(args, NULL);

        g_assert_true(g_setenv("HOME", home, TRUE));
        {
                g_autofree char **argv = g_memdup2(args->pdata, sizeof(char *) * args->len);
                TestCapture capture;
                g_autofree char *err = NULL;

                test_capture_begin(&capture);
                status = client_run((int) args->len - 1, argv);
                test_capture_end(&capture, &out, &err);
                if (*err)
                        g_test_message("stderr: %s", err);
        }
        if (old_home)
                g_setenv("HOME", old_home, TRUE);
        *ret = status == 0 ? json_tokener_parse(out) : NULL;
        if (status == 0)
                g_assert_nonnull(*ret);
        return status;
}

static void test_edit_patterns(void)
{
        g_autofree char *home = test_mkdtemp();
        g_autofree char *file = g_build_filename(home, ".nv/nvidia-application-profiles-rc.d/50-nvprofilectl", NULL);
        struct json_object *o = NULL, *v = NULL;
        struct {
                const char *const args[8];
                const char *pattern; /* as the diff must show it */
        } cases[] = {
                { { "--procname", "niri" }, "{ \"feature\": \"procname\", \"matches\": \"niri\" }" },
                { { "--commname", "a", "--dso", "libGL.so.1" },
                                "{ \"op\": \"and\", \"sub\": [ { \"feature\": \"commname\", \"matches\": \"a\" }, "
                                "{ \"feature\": \"dso\", \"matches\": \"libGL.so.1\" } ] }" },
                { { "--procname", "firefox", "--procname", "chromium", "--or" },
                                "{ \"op\": \"or\", \"sub\": [ { \"feature\": \"procname\", \"matches\": \"firefox\" }, "
                                "{ \"feature\": \"procname\", \"matches\": \"chromium\" } ] }" },
                { { "--cmdline", "GTA5.exe", "--not" },
                                "{ \"op\": \"not\", \"sub\": [ { \"feature\": \"cmdline\", \"matches\": \"GTA5.exe\" } ] }" },
                { { "--findfile", "a:b" }, "{ \"feature\": \"findfile\", \"matches\": \"a:b\" }" },
                { { "--true" }, "{ \"feature\": \"true\", \"matches\": \"\" }" },
                { { "--pattern", "{\"op\": \"or\", \"sub\": [\"x\", \"y\"]}" },
                                "{\"op\": \"or\", \"sub\": [\"x\", \"y\"]}" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const char *const *a = cases[i].args;

                g_assert_cmpint(edit(home, &o, "rules", "add", "--dry-run", "--setting", "GLVidHeapReuseRatio=0", a[0],
                                                a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL),
                                ==, 0);
                g_assert_true(json_object_object_get_ex(o, "diff", &v));
                if (!strstr(json_object_get_string(v), cases[i].pattern))
                        g_error("case %zu: no %s in\n%s", i, cases[i].pattern, json_object_get_string(v));
                /* No daemon: no word on running processes, and nothing written. */
                g_assert_false(json_object_object_get_ex(o, "changes", NULL));
                g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
                g_clear_pointer(&o, json_object_put);
        }

        /* Written without a daemon too: the file is complete and the user's. */
        g_assert_cmpint(edit(home, &o, "rules", "add", "--procname", "niri", "--setting", "GLVidHeapReuseRatio=0",
                                        NULL),
                        ==, 0);
        g_assert_true(g_file_test(file, G_FILE_TEST_IS_REGULAR));
        g_clear_pointer(&o, json_object_put);
}

static void test_edit_usage_errors(void)
{
        g_autofree char *home = test_mkdtemp();
        struct json_object *o = NULL;
        static const char *const bad[][6] = {
                { "rules", "add", "--setting", "GLVidHeapReuseRatio=0" }, /* no pattern */
                { "rules", "add", "--procname", "x" }, /* neither settings nor a profile */
                { "rules", "add", "--procname", "x", "--profile", "P" }, /* both below: with --setting */
                { "rules", "add", "--procname", "x", "--setting", "GLSyncToVBlank=1" }, /* the spelling */
                { "rules", "add", "--procname", "x", "--setting", "GLSyncToVblank=yes" }, /* the type */
                { "rules", "add", "--procname", "x", "--setting", "GLFSAAMode=99" }, /* the range */
                { "rules", "remove", "not-an-address" },
                { "rules", "move", "0123456789ab" }, /* no --position nor --file */
                { "profiles", "add", "P" }, /* no settings */
                { "processes", "--procname", "x" }, /* an edit option elsewhere */
        };

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                int status;

                if (i == 2)
                        status = edit(home, &o, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5],
                                        "--setting", "K=1", NULL);
                else
                        status = edit(home, &o, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5], NULL);
                g_test_message("case %zu: exit %d", i, status);
                g_assert_cmpint(status, ==, EXIT_USAGE);
        }
        /* Nothing was created by any of them. */
        {
                g_autofree char *nv = g_build_filename(home, ".nv", NULL);
                g_assert_false(g_file_test(nv, G_FILE_TEST_EXISTS));
        }
}

/* Edits write --home's files when given, and never turn a regular file where the rc.d directory
 * should be into a directory (nvidia-settings unlinks it). */
static void test_edit_home_and_rcd_file(void)
{
        g_autofree char *env_home = test_mkdtemp(), *other = test_mkdtemp();
        g_autofree char *env_nv = g_build_filename(env_home, ".nv", NULL);
        g_autofree char *rcd = g_build_filename(other, ".nv", "nvidia-application-profiles-rc.d", NULL);
        g_autofree char *written = g_build_filename(rcd, "50-nvprofilectl", NULL), *text = NULL;
        struct json_object *o = NULL;

        g_assert_cmpint(edit(env_home, &o, "rules", "add", "--home", other, "--procname", "niri", "--setting",
                                        "GLVidHeapReuseRatio=0", NULL),
                        ==, 0);
        json_object_put(o);
        o = NULL;
        g_assert_true(g_file_get_contents(written, &text, NULL, NULL));
        g_assert_nonnull(strstr(text, "\"niri\""));
        g_assert_false(g_file_test(env_nv, G_FILE_TEST_EXISTS));

        g_assert_cmpint(unlink(written), ==, 0);
        g_assert_cmpint(rmdir(rcd), ==, 0);
        g_assert_true(g_file_set_contents(rcd, "{ \"rules\": [] }\n", -1, NULL));
        g_assert_cmpint(edit(env_home, &o, "rules", "add", "--home", other, "--procname", "niri", "--setting",
                                        "GLVidHeapReuseRatio=0", NULL),
                        ==, EXIT_FAILURE);
        json_object_put(o);
        g_assert_true(g_file_test(rcd, G_FILE_TEST_IS_REGULAR));
        g_free(text);
        g_assert_true(g_file_get_contents(rcd, &text, NULL, NULL));
        g_assert_cmpstr(text, ==, "{ \"rules\": [] }\n");
        g_assert_cmpint(unlink(rcd), ==, 0);
}

/* A dry run's text output with $HOME set to home, on a terminal (a pseudo-terminal in raw mode, so that
 * what is read back is what was written) or in a file; with no daemon to be found. */
static char *dry_run_text(const char *home, bool terminal)
{
        g_autofree char *bus_arg = g_strdup_printf("--bus=unix:path=%s/none", home), *out = NULL;
        g_autofree char *old_home = g_strdup(g_getenv("HOME"));
        char *argv[] = { (char *) "nvprofilectl", bus_arg, (char *) "rules", (char *) "add", (char *) "--dry-run",
                (char *) "--procname", (char *) "niri", (char *) "--setting", (char *) "GLVidHeapReuseRatio=0", NULL };
        int master = -1, slave = -1, saved = -1;

        g_assert_true(g_setenv("HOME", home, TRUE));
        if (terminal) {
                struct termios raw;
                GString *read_back = g_string_new(NULL);
                char buf[4096];
                ssize_t n;

                g_assert_cmpint(openpty(&master, &slave, NULL, NULL, NULL), ==, 0);
                g_assert_cmpint(tcgetattr(slave, &raw), ==, 0);
                cfmakeraw(&raw);
                g_assert_cmpint(tcsetattr(slave, TCSANOW, &raw), ==, 0);
                fflush(stdout);
                saved = dup(STDOUT_FILENO);
                g_assert_cmpint(dup2(slave, STDOUT_FILENO), ==, STDOUT_FILENO);
                g_assert_cmpint(client_run((int) G_N_ELEMENTS(argv) - 1, argv), ==, 0);
                fflush(stdout);
                g_assert_cmpint(dup2(saved, STDOUT_FILENO), ==, STDOUT_FILENO);
                close(saved);
                close(slave);
                /* The whole output is in the terminal's buffer; EIO once it is read and the slave closed. */
                while ((n = read(master, buf, sizeof(buf))) > 0)
                        g_string_append_len(read_back, buf, n);
                close(master);
                out = g_string_free(read_back, FALSE);
        } else {
                TestCapture capture;

                test_capture_begin(&capture);
                g_assert_cmpint(client_run((int) G_N_ELEMENTS(argv) - 1, argv), ==, 0);
                test_capture_end(&capture, &out, NULL);
        }
        if (old_home)
                g_setenv("HOME", old_home, TRUE);
        return g_steal_pointer(&out);
}

/* A dry run prints the diff as lines, on a terminal and in a file alike: what comes from the file is
 * escaped line by line, and diff's own note on a missing last newline is kept as it is. */
static void test_edit_dry_run_diff_lines(void)
{
        g_autofree char *home = test_mkdtemp();
        g_autofree char *rcd = g_build_filename(home, ".nv", "nvidia-application-profiles-rc.d", NULL);
        g_autofree char *file = g_build_filename(rcd, "50-nvprofilectl", NULL);
        g_autofree char *header = g_strdup_printf("--- a%s\n+++ b%s\n@@ -1,2 +1,2 @@\n", file, file);

        g_assert_cmpint(g_mkdir_with_parents(rcd, 0755), ==, 0);
        g_assert_true(g_file_set_contents(file, "# set by \x1b]0;owned\a a\\b\n{ \"rules\": [] }", -1, NULL));

        for (int terminal = 0; terminal <= 1; terminal++) {
                g_autofree char *out = dry_run_text(home, terminal);

                g_test_message("terminal %d:\n%s", terminal, out);
                g_assert_true(g_str_has_prefix(out, header));
                g_assert_nonnull(strstr(out,
                                "\n # set by \\x1b]0;owned\\a a\\\\b\n"
                                "-{ \"rules\": [] }\n"
                                "\\ No newline at end of file\n"
                                "+{ \"rules\": [{ \"pattern\": { \"feature\": \"procname\", \"matches\": "
                                "\"niri\" }, \"profile\": { \"settings\": [{ \"key\": "
                                "\"GLVidHeapReuseRatio\", \"value\": 0 }] } }] }\n"
                                "\\ No newline at end of file\n"
                                "Running processes: not known (the daemon did not answer).\n"));
                g_assert_null(strchr(out, '\x1b'));
        }
        /* Nothing written. */
        {
                g_autofree char *text = NULL;

                g_assert_true(g_file_get_contents(file, &text, NULL, NULL));
                g_assert_cmpstr(text, ==, "# set by \x1b]0;owned\a a\\b\n{ \"rules\": [] }");
        }
        g_assert_cmpint(unlink(file), ==, 0);
}

/* settings: the table edits are checked against, listed; a key in the wrong case is named rightly. */
static void test_settings(void)
{
        g_autofree char *out = NULL, *err = NULL, *one = NULL;
        struct json_object *o, *setting;
        size_t n_known, n_lines;

        rc_settings_known(&n_known);
        g_assert_cmpint(run_ctl(&out, NULL, "--no-legend", "settings", NULL), ==, 0);
        n_lines = 0;
        for (const char *c = out; *c; c++)
                n_lines += *c == '\n';
        g_assert_cmpuint(n_lines, ==, n_known);
        g_assert_true(g_regex_match_simple(
                        "^GLSyncToVblank +true\\|false +__GL_SYNC_TO_VBLANK +\\S", out, G_REGEX_MULTILINE, 0));
        g_assert_true(g_regex_match_simple("^GLFSAAMode +0\\.\\.15 ", out, G_REGEX_MULTILINE, 0));

        g_assert_cmpint(run_ctl(&one, NULL, "--json=short", "settings", "GLVidHeapReuseRatio", NULL), ==, 0);
        assert_json_valid(one);
        o = json_tokener_parse(one);
        g_assert_nonnull(o);
        g_assert_cmpuint(json_object_array_length(json_object_object_get(o, "settings")), ==, 1);
        setting = json_object_array_get_idx(json_object_object_get(o, "settings"), 0);
        g_assert_cmpstr(json_object_get_string(json_object_object_get(setting, "type")), ==, "integer");
        g_assert_false(json_object_get_boolean(json_object_object_get(setting, "documented")));
        json_object_put(o);

        /* A boolean has no range: null, not left out. */
        g_clear_pointer(&one, g_free);
        g_assert_cmpint(run_ctl(&one, NULL, "--json=short", "settings", "GLSyncToVblank", NULL), ==, 0);
        assert_json_valid(one);
        o = json_tokener_parse(one);
        setting = json_object_array_get_idx(json_object_object_get(o, "settings"), 0);
        g_assert_true(json_object_object_get_ex(setting, "min", NULL));
        g_assert_null(json_object_object_get(setting, "min"));
        json_object_put(o);

        g_clear_pointer(&out, g_free);
        g_assert_cmpint(run_ctl(&out, NULL, "--json=pretty", "settings", NULL), ==, 0);
        assert_json_valid(out);

        g_assert_cmpint(run_ctl(NULL, &err, "settings", "glsynctovblank", NULL), ==, EXIT_FAILURE);
        g_assert_nonnull(strstr(err, "did you mean GLSyncToVblank"));
}

/* Every method of the contract has words for errors ("Could not list the rules: ..."): a method added
 * without them would be named by its D-Bus name. */
static void test_request_words(void)
{
        g_autofree char *xml = NULL;
        g_autoptr(GRegex) re = g_regex_new("<method name=\"([A-Za-z]+)\"", 0, 0, NULL);
        g_autoptr(GMatchInfo) match = NULL;
        unsigned n = 0;

        g_assert_true(g_file_get_contents(g_getenv("NVPROFILED_DBUS_XML"), &xml, NULL, NULL));
        for (g_regex_match(re, xml, 0, &match); g_match_info_matches(match); g_match_info_next(match, NULL)) {
                g_autofree char *method = g_match_info_fetch(match, 1);

                if (!bus_request_words(method))
                        g_error("no words for errors of %s (client/client-bus.c, bus_requests)", method);
                n++;
        }
        g_assert_cmpuint(n, >, 40);
        g_assert_null(bus_request_words("NoSuchMethod"));
}

int main(int argc, char *argv[])
{
        int r;

        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/nvprofilectl/options/json", test_json_option);
        g_test_add_func("/nvprofilectl/options/json-bare", test_json_bare);
        g_test_add_func("/nvprofilectl/options/bus", test_bus_options);
        g_test_add_func("/nvprofilectl/options/resolve", test_resolve_options);
        g_test_add_func("/nvprofilectl/verbs/usage-errors", test_usage_errors);
        g_test_add_func("/nvprofilectl/verbs/unknown-verb-escaped", test_unknown_verb_escaped);
        g_test_add_func("/nvprofilectl/verbs/help-and-version", test_help_and_version);
        g_test_add_func("/nvprofilectl/check/missing-is-error", test_check_missing_is_error);
        g_test_add_func("/nvprofilectl/check/too-large-is-error", test_check_too_large_is_error);
        g_test_add_func("/nvprofilectl/check/directory", test_check_directory);
        g_test_add_func("/nvprofilectl/check/special-file-is-error", test_check_special_file_is_error);
        g_test_add_func("/nvprofilectl/check/output-escaped", test_check_output_escaped);
        g_test_add_func("/nvprofilectl/print/diagnostic", test_print_diagnostic);
        g_test_add_func("/nvprofilectl/print/value", test_value_text);
        g_test_add_func("/nvprofilectl/bus/not-running", test_not_running);
        g_test_add_func("/nvprofilectl/edit/patterns", test_edit_patterns);
        g_test_add_func("/nvprofilectl/edit/usage-errors", test_edit_usage_errors);
        g_test_add_func("/nvprofilectl/bus/no-bus", test_no_bus);
        g_test_add_func("/nvprofilectl/settings", test_settings);
        g_test_add_func("/nvprofilectl/errors/request-words", test_request_words);
        g_test_add_func("/nvprofilectl/edit/home-and-rcd-file", test_edit_home_and_rcd_file);
        g_test_add_func("/nvprofilectl/edit/dry-run-diff-lines", test_edit_dry_run_diff_lines);
        r = g_test_run();
        client_options_done(&arg);
        g_clear_pointer(&parsed_args, g_ptr_array_unref);
        return r;
}
