/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The attacker's world of the security cases (sec-world.h). */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sec-world.h"
#include "test-mount.h"

/* What to kill when a fatal signal ends the case first (tests/lib/test-world.c's handler, which removes
 * the user and the rest too). */
pid_t children[SEC_CHILDREN_MAX];
size_t n_children;

void remember_child(pid_t pid)
{
        g_assert_cmpuint(n_children, <, G_N_ELEMENTS(children));
        children[n_children++] = pid;
}

static void die_with_parent(void)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
}

const char *env_or_fail(const char *name)
{
        const char *v = g_getenv(name);
        if (!v)
                g_error("%s is not set; run this test through meson", name);
        return v;
}

static void create_user(Sec *s)
{
        itest_create_user(USER_PREFIX, &s->account);
        s->user = s->account.name;
        s->uid = s->account.uid;
        s->gid = s->account.gid;
}

void drop_to_attacker(gpointer userdata)
{
        Sec *s = userdata;

        itest_become_user(&s->account);
}

static void root_child_setup(gpointer userdata)
{
        die_with_parent();
}

void chown_attacker(Sec *s, const char *path)
{
        g_assert_cmpint(lchown(path, s->uid, s->gid), ==, 0);
}

/* A file in the attacker's home, owned by the attacker, with its directories. */
void attacker_write(Sec *s, const char *rel, const char *content, gssize len)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(path);
        g_autoptr(GError) error = NULL;

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(path, content, len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(path, 0644), ==, 0);
        chown_attacker(s, path);
        /* Its directories too, up to the home. */
        for (g_autofree char *d = g_path_get_dirname(path); strlen(d) > strlen(s->home_dir);) {
                char *up = g_path_get_dirname(d);
                chown_attacker(s, d);
                g_free(d);
                d = up;
        }
}

void attacker_mkdir(Sec *s, const char *rel)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_assert_cmpint(g_mkdir_with_parents(path, 0755), ==, 0);
        chown_attacker(s, path);
}

/* A symbolic link in the attacker's home, as the attacker would make it. target is absolute as the
 * daemon sees it (resolved below --root). */
void attacker_symlink(Sec *s, const char *rel, const char *target)
{
        g_autofree char *path = g_build_filename(s->home_dir, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(path);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        chown_attacker(s, dir);
        (void) unlink(path);
        g_assert_cmpint(symlink(target, path), ==, 0);
        chown_attacker(s, path);
}

/* A file under the daemon's root, owned by root, with mode. */
void root_write(Sec *s, const char *rel, const char *content, mode_t mode)
{
        g_autofree char *path = g_build_filename(s->t.root, rel, NULL);

        itest_write(&s->t, rel, content);
        g_assert_cmpint(chmod(path, mode), ==, 0);
}

void root_mkdir(Sec *s, const char *rel, mode_t mode)
{
        g_autofree char *path = g_build_filename(s->t.root, rel, NULL);

        g_assert_cmpint(g_mkdir_with_parents(path, 0755), ==, 0);
        g_assert_cmpint(chmod(path, mode), ==, 0);
}

void copy_file(const char *from, const char *to)
{
        g_autofree char *contents = NULL, *dir = g_path_get_dirname(to);
        g_autoptr(GError) error = NULL;
        gsize len;

        g_file_get_contents(from, &contents, &len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(to, contents, (gssize) len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(to, 0755), ==, 0);
}

/* private_proc: the live /proc is bind-mounted at <root>/proc in a mount namespace of our own (which the
 * bus, the daemon and every client inherit, and which goes with us), so that a link to /proc/<pid>/...
 * in a home reaches the real thing although the daemon resolves links below --root. */
void sec_setup(Sec *s, bool private_proc)
{
        *s = (Sec){ 0 };
        if (private_proc) {
                const char *why = test_private_mount_namespace();

                if (why)
                        g_error("a mount namespace of our own: %s", why);
        }
        itest_setup(&s->t);
        create_user(s);
        test_world_kill_on_abort(children, &n_children);

        s->seen = g_string_new(NULL);
        s->attacker_seen = g_string_new(NULL);
        s->private_facts = g_ptr_array_new_with_free_func(g_free);
        s->token = g_strdup_printf("%08x%08x", g_random_int(), g_random_int());
        s->secret = g_strdup_printf("hunter2-%s", s->token);

        s->home = g_strdup_printf("/home/%s", s->user);
        s->home_dir = g_build_filename(s->t.root, s->home, NULL);
        root_mkdir(s, "home", 0755);
        g_assert_cmpint(g_mkdir_with_parents(s->home_dir, 0700), ==, 0);
        g_assert_cmpint(chmod(s->home_dir, 0700), ==, 0);
        chown_attacker(s, s->home_dir);
        attacker_mkdir(s, ".nv");

        /* The system rule whose presence says that the daemon's state is intact. */
        root_write(s, RCD "/10-marker",
                        "{\"rules\": [{\"pattern\": \"" MARKER "\", \"profile\": {\"name\": \"Marker\", \"settings\": "
                        "[\"GLShaderDiskCache\", false]}}]}\n",
                        0644);

        s->ctl = g_build_filename(s->t.dir, "bin", "nvprofilectl", NULL);
        copy_file(env_or_fail("NVPROFILECTL_BIN"), s->ctl);

        if (private_proc) {
                s->proc_mount = g_build_filename(s->t.root, "proc", NULL);
                g_assert_cmpint(g_mkdir_with_parents(s->proc_mount, 0555), ==, 0);
                g_assert_cmpint(mount("/proc", s->proc_mount, NULL, MS_BIND | MS_REC, NULL), ==, 0);
        }
}

void sec_teardown(Sec *s)
{
        for (size_t i = 0; i < n_children; i++)
                if (children[i] > 0) {
                        (void) kill(children[i], SIGKILL);
                        (void) waitpid(children[i], NULL, 0);
                }
        n_children = 0;
        /* Before itest_teardown()'s rm -rf, which would descend into the mount. */
        if (s->proc_mount)
                g_assert_cmpint(umount2(s->proc_mount, MNT_DETACH), ==, 0);
        itest_teardown(&s->t); /* removes the user too */
        g_assert_null(getpwnam(s->user));

        g_string_free(s->seen, TRUE);
        g_string_free(s->attacker_seen, TRUE);
        g_ptr_array_unref(s->private_facts);
        g_free(s->home);
        g_free(s->home_dir);
        g_free(s->token);
        g_free(s->secret);
        g_free(s->ctl);
        g_free(s->proc_mount);
}

/* Runs nvprofilectl (as the attacker, or as root) with the arguments; returns its exit status, its stdout
 * in ret_out and its stderr in ret_err. record: what it said joins s->seen (root listing what only root
 * may see passes false). */
int ctl_run(Sec *s, bool attacker, bool record, char **ret_out, char **ret_err, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        g_autofree char *out = NULL, *err = NULL, *cmdline = NULL;
        g_auto(GStrv) envp = g_get_environ();
        int status;

        g_ptr_array_add(argv, g_strdup(attacker ? s->ctl : env_or_fail("NVPROFILECTL_BIN")));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", s->t.bus_address));
        for (const char *const *a = args; *a; a++)
                g_ptr_array_add(argv, g_strdup(*a));
        g_ptr_array_add(argv, NULL);
        if (attacker)
                envp = g_environ_setenv(envp, "HOME", s->home, TRUE);

        g_spawn_sync("/", (char **) argv->pdata, envp, 0, attacker ? drop_to_attacker : root_child_setup, s, &out, &err,
                        &status, &error);
        g_assert_no_error(error);

        cmdline = g_strjoinv(" ", (char **) argv->pdata + 2);
        g_test_message("%s$ nvprofilectl %s -> %d", attacker ? "attacker" : "root", cmdline,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (err && *err)
                g_test_message("stderr: %s", err);
        if (record) {
                g_string_append_printf(s->seen, "$ %s\n%s%s", cmdline, out, err);
                if (attacker)
                        g_string_append_printf(s->attacker_seen, "$ %s\n%s%s", cmdline, out, err);
        }
        if (ret_out)
                *ret_out = g_steal_pointer(&out);
        if (ret_err)
                *ret_err = g_steal_pointer(&err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

struct json_object *parse_json(const char *text)
{
        struct json_object *o = json_tokener_parse(text);

        if (!o)
                g_test_message("not JSON: %s", text);
        g_assert_nonnull(o);
        return o;
}

const char *jstr(struct json_object *o, const char *key)
{
        return itest_jstr(o, key);
}

/* Every basic value of a message, whatever its signature, as text. */
static int dump_message(sd_bus_message *m, FILE *f)
{
        for (;;) {
                const char *contents;
                char type;
                int r;

                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r <= 0)
                        return r;
                if (type == SD_BUS_TYPE_ARRAY || type == SD_BUS_TYPE_STRUCT || type == SD_BUS_TYPE_VARIANT ||
                                type == SD_BUS_TYPE_DICT_ENTRY) {
                        r = sd_bus_message_enter_container(m, type, contents);
                        if (r < 0)
                                return r;
                        fputc('(', f);
                        r = dump_message(m, f);
                        if (r < 0)
                                return r;
                        fputc(')', f);
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                        continue;
                }
                {
                        union {
                                uint8_t u8;
                                int b;
                                int16_t i16;
                                uint16_t u16;
                                int32_t i32;
                                uint32_t u32;
                                int64_t i64;
                                uint64_t u64;
                                double d;
                                const char *s;
                                int fd;
                        } v;

                        r = sd_bus_message_read_basic(m, type, &v);
                        if (r < 0)
                                return r;
                        switch (type) {
                        case SD_BUS_TYPE_STRING:
                        case SD_BUS_TYPE_OBJECT_PATH:
                        case SD_BUS_TYPE_SIGNATURE:
                                fprintf(f, "\"%s\" ", v.s);
                                break;
                        case SD_BUS_TYPE_BYTE:
                                fprintf(f, "%u ", v.u8);
                                break;
                        case SD_BUS_TYPE_BOOLEAN:
                                fprintf(f, "%s ", v.b ? "true" : "false");
                                break;
                        case SD_BUS_TYPE_INT16:
                                fprintf(f, "%i ", v.i16);
                                break;
                        case SD_BUS_TYPE_UINT16:
                                fprintf(f, "%u ", v.u16);
                                break;
                        case SD_BUS_TYPE_INT32:
                                fprintf(f, "%" PRIi32 " ", v.i32);
                                break;
                        case SD_BUS_TYPE_UINT32:
                                fprintf(f, "%" PRIu32 " ", v.u32);
                                break;
                        case SD_BUS_TYPE_INT64:
                                fprintf(f, "%" PRIi64 " ", v.i64);
                                break;
                        case SD_BUS_TYPE_UINT64:
                                fprintf(f, "%" PRIu64 " ", v.u64);
                                break;
                        case SD_BUS_TYPE_DOUBLE:
                                fprintf(f, "%g ", v.d);
                                break;
                        default:
                                fprintf(f, "<%c> ", type);
                        }
                }
        }
}

/* One call's outcome, as text: "Member: ok (...)" or "Member: error NAME: MESSAGE". */
void dump_call(FILE *f, const char *member, int r, const sd_bus_error *error, sd_bus_message *reply)
{
        if (r < 0) {
                fprintf(f, "%s: error %s: %s\n", member, error->name ? error->name : "(none)",
                                error->message ? error->message : strerror(-r));
                return;
        }
        fprintf(f, "%s: ok ", member);
        if (dump_message(reply, f) < 0)
                fprintf(f, "(unreadable reply)");
        fputc('\n', f);
}

/* Runs fn as the attacker, connected to the bus, in a child; returns everything it wrote (which joins
 * s->seen). While waiting, tick(userdata) runs about every 50 ms, if given. */
char *attacker_on_bus(Sec *s, AttackerBusFn fn, void *userdata, void (*tick)(Sec *s, void *userdata))
{
        GString *got = g_string_new(NULL);
        int pipefd[2], status;
        pid_t pid;

        g_assert_cmpint(pipe2(pipefd, O_CLOEXEC), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                sd_bus *bus = NULL;
                FILE *f;

                close(pipefd[0]);
                drop_to_attacker(s);
                f = fdopen(pipefd[1], "w");
                if (!f)
                        _exit(126);
                if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, s->t.bus_address) < 0 ||
                                sd_bus_set_bus_client(bus, true) < 0 || sd_bus_start(bus) < 0) {
                        fprintf(f, "cannot connect\n");
                        fclose(f);
                        _exit(125);
                }
                fn(bus, f, userdata);
                sd_bus_flush_close_unref(bus);
                fclose(f);
                _exit(0);
        }
        close(pipefd[1]);
        for (;;) {
                struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
                char buf[65536];
                ssize_t n;

                if (poll(&pfd, 1, 50) == 0) {
                        if (tick)
                                tick(s, userdata);
                        continue;
                }
                n = read(pipefd[0], buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                g_assert_cmpint(n, >=, 0);
                if (n == 0)
                        break;
                g_string_append_len(got, buf, n);
        }
        close(pipefd[0]);
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_string_append(s->seen, got->str);
        g_string_append(s->attacker_seen, got->str);
        return g_string_free(got, FALSE);
}

/* A copy of the helper process named name (any bytes but '/'), run as the attacker (with its $HOME) or
 * as root, with args; returns its pid once it said "ready". */
GPid spawn_helper(Sec *s, bool attacker, const char *name, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autoptr(GError) error = NULL;
        g_autofree char *path = g_build_filename(s->t.dir, "bin", name, NULL);
        g_auto(GStrv) envp = g_get_environ();
        struct pollfd pfd;
        char buf[16] = { 0 };
        GPid pid;
        int out = -1;
        ssize_t n;

        copy_file(env_or_fail("NVPROFILED_HELPER"), path);
        g_ptr_array_add(argv, path);
        for (const char *const *a = args; a && *a; a++)
                g_ptr_array_add(argv, (char *) *a);
        g_ptr_array_add(argv, NULL);
        if (attacker)
                envp = g_environ_setenv(envp, "HOME", s->home, TRUE);

        g_spawn_async_with_pipes("/", (char **) argv->pdata, envp, G_SPAWN_DO_NOT_REAP_CHILD,
                        attacker ? drop_to_attacker : root_child_setup, s, &pid, NULL, &out, NULL, &error);
        g_assert_no_error(error);
        remember_child(pid);
        pfd = (struct pollfd){ .fd = out, .events = POLLIN };
        g_assert_cmpint(poll(&pfd, 1, 30000), ==, 1);
        n = read(out, buf, sizeof(buf) - 1);
        close(out);
        g_assert_cmpint(n, >, 0);
        g_assert_true(g_str_has_prefix(buf, "ready"));
        return pid;
}

/* Whether the daemon tracks pid with exactly these profiles (comma-joined; NULL: tracked at all). */
bool tracked_with(Sec *s, pid_t pid, const char *profiles)
{
        g_autofree char *p = itest_tracked_profiles(&s->t, pid);
        return p && (!profiles || g_str_equal(p, profiles));
}

char *daemon_log(Sec *s)
{
        GString *log = g_string_new(NULL);
        char buf[65536];
        off_t off = 0;
        ssize_t n;

        while ((n = pread(s->t.daemon_stderr, buf, sizeof(buf), off)) > 0) {
                g_string_append_len(log, buf, n);
                off += n;
        }
        return g_string_free(log, FALSE);
}

void assert_absent(const char *where, const char *text, const char *needle)
{
        itest_assert_absent(where, text, needle);
}

/* Nothing leaked: no byte of the secret in anything the attacker was told or in the daemon's log, and no
 * private fact in anything the attacker was told. */
void assert_nothing_leaked(Sec *s)
{
        g_autofree char *log = daemon_log(s);

        g_assert_cmpuint(s->seen->len, >, 0);
        assert_absent("what the callers were told", s->seen->str, "hunter2");
        assert_absent("what the callers were told", s->seen->str, s->token);
        assert_absent("the daemon's log", log, "hunter2");
        assert_absent("the daemon's log", log, s->token);
        for (guint i = 0; i < s->private_facts->len; i++)
                assert_absent("what the attacker was told", s->attacker_seen->str, s->private_facts->pdata[i]);
}

static bool rules_list_marker(Sec *s)
{
        g_autofree char *out = NULL;
        return root_ctl(s, &out, NULL, "--json=short", "rules") == 0 && strstr(out, MARKER);
}

/* The daemon still runs, answers, lists the system rules and reloads. */
void assert_daemon_intact(Sec *s)
{
        g_autofree char *out = NULL;
        uint64_t g0;

        g_assert_cmpint(waitpid(s->t.daemon_pid, NULL, WNOHANG), ==, 0);
        g_assert_cmpint(root_ctl(s, &out, NULL, "--json=short", "status"), ==, 0);
        g_assert_true(rules_list_marker(s));
        g0 = itest_generation(&s->t);
        g_assert_cmpint(root_ctl(s, NULL, NULL, "reload"), ==, 0);
        ITEST_WAIT_FOR(itest_generation(&s->t) > g0, WAIT_MS);
        g_assert_cmpuint(itest_generation(&s->t), >, g0);
        g_assert_true(rules_list_marker(s));
        /* The attacker is still served too. */
        g_assert_cmpint(attacker_ctl(s, NULL, NULL, "--json=short", "status"), ==, 0);
}

void sec_finish(Sec *s)
{
        int exit_status;

        assert_daemon_intact(s);
        /* A clean stop too (in the sanitizer build, a leak or an error found on the way makes it
         * non-zero); its last words are part of the log checked below. */
        itest_stop_daemon(&s->t, &exit_status);
        g_assert_cmpint(exit_status, ==, 0);
        assert_nothing_leaked(s);
        sec_teardown(s);
}

/* Whether file is below prefix (when it ends with '/') or is prefix. */
bool file_matches(const char *file, const char *prefix)
{
        if (!file)
                return false;
        if (!*prefix || g_str_has_suffix(prefix, "/"))
                return g_str_has_prefix(file, prefix);
        return g_str_equal(file, prefix);
}

/* The entries of `nvprofilectl errors` (as the attacker or root) about file (see file_matches()), with
 * their message containing needle (NULL: any). */
guint count_errors(struct json_object *errors, const char *prefix, const char *needle)
{
        guint n = 0;

        for (size_t i = 0; i < json_object_array_length(errors); i++) {
                struct json_object *e = json_object_array_get_idx(errors, i);
                const char *file = jstr(e, "file"), *message = jstr(e, "message");

                if (file_matches(file, prefix) && (!needle || (message && strstr(message, needle))))
                        n++;
        }
        return n;
}

struct json_object *errors_json(Sec *s, bool attacker)
{
        g_autofree char *out = NULL;
        int r = ctl_run(s, attacker, true, &out, NULL, CTL_ARGS("--json=short", "errors"));

        g_assert_cmpint(r, >=, 0);
        g_assert_cmpint(r, <=, 1);
        return itest_parse_list(out, "errors");
}

/* Rules of a listing from file (see file_matches()). */
guint count_rules_from(struct json_object *rules, const char *prefix)
{
        guint n = 0;

        for (size_t i = 0; i < json_object_array_length(rules); i++)
                n += file_matches(jstr(json_object_array_get_idx(rules, i), "file"), prefix);
        return n;
}

struct json_object *attacker_rules(Sec *s, const char *home)
{
        g_autofree char *out = NULL;

        g_assert_cmpint(attacker_ctl(s, &out, NULL, "--json=short", "rules", "--home", home), ==, 0);
        return itest_parse_list(out, "rules");
}

/* The hexadecimal start addresses of the mappings in /proc/<pid>/maps. */
GPtrArray *load_addresses(pid_t pid)
{
        g_autofree char *path = g_strdup_printf("/proc/%i/maps", (int) pid), *maps = NULL;
        g_autoptr(GError) error = NULL;
        g_auto(GStrv) lines = NULL;
        GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

        g_file_get_contents(path, &maps, NULL, &error);
        g_assert_no_error(error);
        lines = g_strsplit(maps, "\n", -1);
        for (char **l = lines; *l && **l; l++) {
                size_t n = strspn(*l, "0123456789abcdef");
                /* Short ones ("0-1000") say nothing about ASLR, and would match anywhere. */
                if (n >= 8)
                        g_ptr_array_add(a, g_strndup(*l, n));
        }
        return a;
}
