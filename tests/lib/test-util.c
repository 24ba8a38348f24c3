/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "string-util.h"
#include "test-util.h"

static GPtrArray *temp_dirs;

static void cleanup_dirs(void)
{
        if (!temp_dirs)
                return;
        for (guint i = 0; i < temp_dirs->len; i++) {
                g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", (char *) g_ptr_array_index(temp_dirs, i));
                if (system(cmd) != 0)
                        g_printerr("could not remove %s\n", (char *) g_ptr_array_index(temp_dirs, i));
        }
        g_ptr_array_free(temp_dirs, TRUE);
        temp_dirs = NULL;
}

char *test_mkdtemp(void)
{
        g_autoptr(GError) error = NULL;
        char *d = g_dir_make_tmp("nvprofiled-test-XXXXXX", &error);

        g_assert_no_error(error);
        if (!temp_dirs) {
                temp_dirs = g_ptr_array_new_with_free_func(g_free);
                atexit(cleanup_dirs);
        }
        g_ptr_array_add(temp_dirs, g_strdup(d));
        return d;
}

void test_mkdir_p(const char *root, const char *rel)
{
        g_autofree char *p = g_build_filename(root, rel, NULL);
        g_assert_cmpint(g_mkdir_with_parents(p, 0755), ==, 0);
}

void test_write_file_n(const char *root, const char *rel, const char *content, size_t len)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *p = g_build_filename(root, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(p);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_file_set_contents(p, content, (gssize) len, &error);
        g_assert_no_error(error);
}

void test_write_file(const char *root, const char *rel, const char *content)
{
        test_write_file_n(root, rel, content, strlen(content));
}

void test_symlink(const char *target, const char *root, const char *rel)
{
        g_autofree char *p = g_build_filename(root, rel, NULL);
        g_autofree char *dir = g_path_get_dirname(p);

        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        (void) unlink(p);
        g_assert_cmpint(symlink(target, p), ==, 0);
}

int test_open_dir(const char *path)
{
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        return fd;
}

void test_skip_all(const char *reason)
{
        /* On stdout, which is the TAP stream; nothing may have been printed there before. */
        printf("1..0 # SKIP %s\n", reason);
        fflush(stdout);
        exit(EXIT_SUCCESS);
}

const char *test_corpus_dir_or_skip(void)
{
        const char *d = g_getenv("NVPROFILED_CORPUS");
        const char *required = g_getenv("NVPROFILED_CORPUS_REQUIRED");
        struct stat st;

        if (d && stat(d, &st) == 0 && S_ISDIR(st.st_mode))
                return d;

        if (required && streq(required, "1")) {
                g_printerr("corpus directory '%s' is missing but required\n", strna(d));
                exit(1);
        }
        {
                g_autofree char *reason = g_strdup_printf("corpus directory '%s' not found", strna(d));
                test_skip_all(reason);
        }
}

char *test_corpus_path(const char *rel)
{
        return g_build_filename(test_corpus_dir_or_skip(), rel, NULL);
}

RcFile *test_parse_opts(const char *text, const RcSyntaxOptions *o)
{
        RcFile *f = NULL;

        g_assert_cmpint(rc_file_parse("test.rc", text, strlen(text), o, &f), ==, 0);
        g_assert_nonnull(f);
        return f;
}

RcFile *test_parse(const char *text)
{
        return test_parse_opts(text, NULL);
}

bool test_has_diag(const RcDiagnostics *d, RcSeverity sev, uint32_t line, uint32_t column, const char *needle)
{
        for (size_t i = 0; i < d->n_items; i++) {
                const RcDiagnostic *x = &d->items[i];
                if (x->severity == sev && (line == 0 || x->line == line) && (column == 0 || x->column == column) &&
                                (!needle || strstr(x->message, needle)))
                        return true;
        }
        return false;
}

void test_dump_diags(const char *path, const RcDiagnostics *d)
{
        for (size_t i = 0; i < d->n_items; i++)
                g_test_message("%s:%u:%u: %s: %s", d->items[i].path ? d->items[i].path : path, d->items[i].line,
                                d->items[i].column, rc_severity_to_string(d->items[i].severity), d->items[i].message);
}

RcConfig *test_config_from_texts(const char *const *texts, size_t n)
{
        g_autofree RcFile **files = g_new0(RcFile *, n + 1);
        RcConfig *c = NULL;

        for (size_t i = 0; i < n; i++) {
                g_autofree char *name = g_strdup_printf("file%zu.rc", i);
                g_assert_cmpint(rc_file_parse(name, texts[i], strlen(texts[i]), NULL, &files[i]), ==, 0);
                test_dump_diags(name, &files[i]->diagnostics);
        }
        g_assert_cmpint(rc_config_new_from_files(files, n, &c), ==, 0);
        for (size_t i = 0; i < n; i++)
                rc_file_unref(files[i]);
        return c;
}

RcResolution *test_resolve(RcConfig *c, const char *exe, const char *comm, const char *argv0, const char *const *dsos,
                const char *const *env)
{
        const char *argv[] = { argv0, NULL };
        RcProcessFacts facts = {
                .exe = exe,
                .comm = comm,
                .argv = argv0 ? (char **) argv : NULL,
                .dsos = (char **) dsos,
                .environ = (char **) env,
                .root_fd = -EBADF,
        };
        RcResolution *r = NULL;

        g_assert_cmpint(rc_resolve(c, &facts, &r), ==, 0);
        return r;
}

const RcEffectiveSetting *test_find_setting(const RcResolution *r, const char *key)
{
        for (size_t i = 0; i < r->n_settings; i++)
                if (streq(r->settings[i].setting->key, key))
                        return &r->settings[i];
        return NULL;
}

int64_t test_setting_int(const RcResolution *r, const char *key)
{
        const RcEffectiveSetting *s = test_find_setting(r, key);

        g_assert_nonnull(s);
        if (s->setting->value.type == RC_VALUE_BOOLEAN)
                return s->setting->value.boolean;
        g_assert_cmpint(s->setting->value.type, ==, RC_VALUE_INTEGER);
        return s->setting->value.integer;
}

int test_temp_fd(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "capture", NULL);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        g_assert_cmpint(fd, >=, 0);
        return fd;
}

char *test_read_back(int fd)
{
        GString *s = g_string_new(NULL);
        char buf[4096];
        ssize_t n;

        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                g_string_append_len(s, buf, n);
        g_assert_cmpint(n, ==, 0);
        return g_string_free(s, FALSE);
}

void test_capture_begin(TestCapture *c)
{
        c->out = test_temp_fd();
        c->err = test_temp_fd();
        fflush(stdout);
        fflush(stderr);
        c->saved_out = dup(STDOUT_FILENO);
        c->saved_err = dup(STDERR_FILENO);
        g_assert_cmpint(c->saved_out, >=, 0);
        g_assert_cmpint(c->saved_err, >=, 0);
        g_assert_cmpint(dup2(c->out, STDOUT_FILENO), ==, STDOUT_FILENO);
        g_assert_cmpint(dup2(c->err, STDERR_FILENO), ==, STDERR_FILENO);
}

void test_capture_end(TestCapture *c, char **ret_out, char **ret_err)
{
        fflush(stdout);
        fflush(stderr);
        g_assert_cmpint(dup2(c->saved_out, STDOUT_FILENO), ==, STDOUT_FILENO);
        g_assert_cmpint(dup2(c->saved_err, STDERR_FILENO), ==, STDERR_FILENO);
        close(c->saved_out);
        close(c->saved_err);
        if (ret_out)
                *ret_out = test_read_back(c->out);
        if (ret_err)
                *ret_err = test_read_back(c->err);
        close(c->out);
        close(c->err);
        *c = (TestCapture){ .out = -1, .err = -1, .saved_out = -1, .saved_err = -1 };
}

char *test_run_tmuxv(const char *socket, const char *first, va_list ap)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autoptr(GError) error = NULL;
        char *out = NULL;
        int status;

        g_ptr_array_add(argv, (char *) "tmux");
        g_ptr_array_add(argv, (char *) "-u");
        g_ptr_array_add(argv, (char *) "-S");
        g_ptr_array_add(argv, (char *) socket);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(argv, (char *) a);
        g_ptr_array_add(argv, NULL);
        g_assert_true(g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, &out, NULL, &status, &error));
        g_assert_no_error(error);
        g_assert_true(g_spawn_check_wait_status(status, NULL));
        return out;
}

char *test_run_tmux(const char *socket, const char *first, ...)
{
        va_list ap;
        char *out;

        va_start(ap, first);
        out = test_run_tmuxv(socket, first, ap);
        va_end(ap);
        return out;
}

/* Says where two texts first differ: line, column, and both lines. */
void test_report_difference(const char *what, const char *ours, size_t n_ours, const char *theirs, size_t n_theirs)
{
        size_t i = 0, line = 1, line_start = 0;

        while (i < n_ours && i < n_theirs && ours[i] == theirs[i]) {
                if (ours[i] == '\n') {
                        line++;
                        line_start = i + 1;
                }
                i++;
        }
        const char *oe = memchr(ours + line_start, '\n', n_ours - MIN(line_start, n_ours));
        const char *te = memchr(theirs + line_start, '\n', n_theirs - MIN(line_start, n_theirs));
        size_t ol = oe ? (size_t) (oe - ours - line_start) : n_ours - MIN(line_start, n_ours);
        size_t tl = te ? (size_t) (te - theirs - line_start) : n_theirs - MIN(line_start, n_theirs);
        size_t from = i - line_start > 120 ? i - line_start - 120 : 0;

        g_test_message("%s: first difference at line %zu column %zu (ours %zu bytes, ncu %zu bytes)", what, line,
                        i - line_start + 1, n_ours, n_theirs);
        g_test_message("ours: …%.*s", (int) MIN(ol - MIN(from, ol), (size_t) 300), ours + line_start + MIN(from, ol));
        g_test_message("ncu:  …%.*s", (int) MIN(tl - MIN(from, tl), (size_t) 300), theirs + line_start + MIN(from, tl));
}
