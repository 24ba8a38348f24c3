/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "check": lints rc files locally, without the daemon, reading them as the driver does (in this user's
 * own process, with this user's permissions). The paths given are read in that order as one
 * configuration, so cross-file references and duplicate profile names are checked too; a directory is
 * read as an rc.d directory. With no paths, this machine's search path is checked for this user ($HOME,
 * the loaded driver's version).
 *
 * Only files are read here (rc_file_parse(), rc_config_new_from_files()); the daemon's loader and its
 * options are not used, so what the user asked for decides what is an error: a path that does not
 * exist, cannot be read or is too large to be read is one. */

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "rc-config.h"
#include "string-util.h"

typedef struct CheckRun {
        RcFile **files; /* in precedence order: what was read, and a record for what was not */
        size_t n_files, allocated;
} CheckRun;

static void check_run_done(CheckRun *run)
{
        for (size_t i = 0; i < run->n_files; i++)
                rc_file_unref(run->files[i]);
        run->files = mfree(run->files);
        run->n_files = run->allocated = 0;
}

/* Takes file, also on failure. */
static int add_file(CheckRun *run, RcFile *file)
{
        _cleanup_(rc_file_unrefp) RcFile *f = file;

        if (GREEDY_REALLOC(run->files, run->allocated, run->n_files + 1) < 0)
                return -ENOMEM;
        run->files[run->n_files++] = TAKE_PTR(f);
        return 0;
}

/* A record for path that was not read: an error (nothing of what the user meant gets checked or
 * applied), or a note (an rc.d entry the driver ignores too). */
static int add_unread(CheckRun *run, const char *path, RcSeverity severity, const char *message)
{
        RcFile *f;
        int r;

        r = rc_file_new_unread(path, RC_FILE_SKIPPED, severity, message, &f);
        if (r < 0)
                return r;
        return add_file(run, f);
}

static int add_unreadf(CheckRun *run, const char *path, RcSeverity severity, const char *format, ...) _printf_(4, 5);
static int add_unreadf(CheckRun *run, const char *path, RcSeverity severity, const char *format, ...)
{
        _cleanup_free_ char *message = NULL;
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(&message, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return add_unread(run, path, severity, message);
}

static int add_unread_errno(CheckRun *run, const char *path, const char *what, int error)
{
        return add_unreadf(run, path, RC_SEVERITY_ERROR, "%s: %s", what, strerror(abs(error)));
}

/* Reads and parses the regular file name below dir_fd; shown as path. */
static int check_file(CheckRun *run, int dir_fd, const char *name, const char *path)
{
        static const RcSyntaxOptions syntax = { 0 };
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        size_t size;
        RcFile *f;
        int r;

        fd = openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return add_unread_errno(run, path, "cannot be read", -errno);

        r = read_full_fd(fd, RC_FILE_SIZE_MAX, &text, &size);
        if (r == -ENOMEM)
                return r;
        if (r == -EFBIG)
                return add_unreadf(run, path, RC_SEVERITY_ERROR, "larger than %u bytes, not read", RC_FILE_SIZE_MAX);
        if (r == -EBADFD) /* replaced since we looked at it */
                return add_unread(run, path, RC_SEVERITY_ERROR, "not a regular file");
        if (r < 0)
                return add_unread_errno(run, path, "cannot be read", r);

        r = rc_file_parse(path, text, size, &syntax, &f);
        if (r < 0)
                return r;
        return add_file(run, f);
}

static int compare_names(const void *a, const void *b)
{
        /* strcoll() in the "C" locale, the daemon's default Collation=. */
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void free_names(char ***names)
{
        for (char **n = *names; n && *n; n++)
                free(*n);
        free(*names);
}

/* The names in d (without "." and ".."), at most RC_DIR_NAMES_MAX, sorted; NULL-terminated. */
static int read_names(DIR *d, char ***ret, size_t *ret_n, bool *ret_truncated)
{
        _cleanup_(free_names) char **names = NULL;
        size_t n = 0, allocated = 0;
        struct dirent *de;

        *ret_truncated = false;
        while ((errno = 0, de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n >= RC_DIR_NAMES_MAX) {
                        *ret_truncated = true;
                        break;
                }
                if (GREEDY_REALLOC(names, allocated, n + 2) < 0)
                        return -ENOMEM;
                names[n] = strdup(de->d_name);
                if (!names[n])
                        return -ENOMEM;
                names[++n] = NULL;
        }
        if (errno != 0)
                return -errno;

        qsort_safe(names, n, sizeof(char *), compare_names);
        *ret = TAKE_PTR(names);
        *ret_n = n;
        return 0;
}

/* One entry of an rc.d directory: a regular file, or a link to one, is read (the first
 * RC_DIR_FILES_MAX of them); anything else is ignored by the driver, and said so. */
static int check_directory_entry(CheckRun *run, int dir_fd, const char *name, const char *path, size_t *n_read)
{
        struct stat st;

        if (fstatat(dir_fd, name, &st, 0) < 0) {
                struct stat lst;

                if (errno == ENOENT && fstatat(dir_fd, name, &lst, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(lst.st_mode))
                        return add_unread(run, path, RC_SEVERITY_NOTE, "dangling symbolic link, ignored");
                return add_unread_errno(run, path, "cannot be examined", -errno);
        }
        if (S_ISDIR(st.st_mode))
                return add_unread(run, path, RC_SEVERITY_NOTE, "directory, ignored (rc.d is not recursive)");
        if (!S_ISREG(st.st_mode))
                return add_unread(run, path, RC_SEVERITY_NOTE, "not a regular file, ignored");
        if (*n_read >= RC_DIR_FILES_MAX)
                return add_unreadf(run, path, RC_SEVERITY_WARNING,
                                "beyond the first %u files of the directory, ignored", (unsigned) RC_DIR_FILES_MAX);
        (*n_read)++;
        return check_file(run, dir_fd, name, path);
}

/* An rc.d directory, as the driver reads it. */
static int check_directory(CheckRun *run, const char *path)
{
        _cleanup_(free_names) char **names = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        size_t n_names = 0, n_read = 0;
        bool truncated;
        int r;

        d = opendir(path);
        if (!d)
                return add_unread_errno(run, path, "directory cannot be read", -errno);
        r = read_names(d, &names, &n_names, &truncated);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return add_unread_errno(run, path, "directory cannot be read", r);

        for (size_t i = 0; i < n_names; i++) {
                _cleanup_free_ char *p = path_join(path, names[i]);

                if (!p)
                        return -ENOMEM;
                r = check_directory_entry(run, dirfd(d), names[i], p, &n_read);
                if (r < 0)
                        return r;
        }

        if (truncated)
                return add_unreadf(run, path, RC_SEVERITY_WARNING,
                                "more than %u entries: only the first %u read are considered", RC_DIR_NAMES_MAX,
                                RC_DIR_NAMES_MAX);
        return 0;
}

/* A path given on the command line, or an entry of the search path. missing_ok: the search path's
 * entries are all optional. */
static int check_path(CheckRun *run, const char *path, bool missing_ok)
{
        struct stat st;

        if (stat(path, &st) < 0) {
                if (errno == ENOENT && missing_ok)
                        return 0;
                return add_unread_errno(run, path, "cannot be checked", -errno);
        }
        if (S_ISDIR(st.st_mode))
                return check_directory(run, path);
        if (S_ISREG(st.st_mode))
                return check_file(run, AT_FDCWD, path, path);
        if (missing_ok) /* the driver ignores a fifo or device on its search path */
                return add_unread(run, path, RC_SEVERITY_NOTE, "neither a regular file nor a directory, ignored");
        return add_unread(run, path, RC_SEVERITY_ERROR, "neither a regular file nor a directory");
}

static int check_search_path(CheckRun *run)
{
        _cleanup_close_ int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int sys_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *version = NULL;
        const char *home = getenv("HOME");
        int r;

        (void) rc_driver_version_detect(proc_fd, sys_fd, &version);

        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                _cleanup_free_ char *path = NULL;

                r = rc_entry_path(k, home, version, &path);
                if (r == -ENOENT || r == -EINVAL) /* no $HOME or driver: the driver skips the entry too */
                        continue;
                if (r < 0)
                        return r;
                r = check_path(run, path, true);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void diagnostics_json(struct json_object *list, const char *path, const RcDiagnostics *d)
{
        for (size_t i = 0; i < d->n_items; i++) {
                const RcDiagnostic *x = &d->items[i];
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "file", json_object_new_string(x->path ? x->path : path));
                json_object_object_add(o, "line", json_object_new_int64(x->line));
                json_object_object_add(o, "column", json_object_new_int64(x->column));
                json_object_object_add(o, "severity", json_object_new_string(rc_severity_to_string(x->severity)));
                json_object_object_add(o, "message", json_object_new_string(x->message));
                json_object_array_add(list, o);
        }
}

static void diagnostics_text(const char *path, const RcDiagnostics *d)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        for (size_t i = 0; i < d->n_items; i++) {
                const RcDiagnostic *x = &d->items[i];

                print_diagnostic(stderr, x->path ? x->path : path, x->line, x->column,
                                rc_severity_to_string(x->severity), x->message, NULL);
        }
        if (d->n_dropped > 0) {
                if (*path)
                        fprintf(stderr, "%s: ", esc(&e, path));
                fprintf(stderr, "... and %zu more\n", d->n_dropped);
        }
}

static void print_json(const RcConfig *config, size_t n_errors)
{
        _cleanup_(json_object_putp) struct json_object *out = json_object_new_object();
        struct json_object *files = json_object_new_array(), *diagnostics = json_object_new_array();

        json_object_object_add(out, "files", files);
        json_object_object_add(out, "diagnostics", diagnostics);
        for (size_t i = 0; i < config->n_files; i++) {
                const RcFile *f = config->files[i];
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "file", json_object_new_string(f->path));
                json_object_object_add(o, "state", json_object_new_string(rc_file_state_to_string(f->state)));
                json_object_object_add(o, "rules", json_object_new_int64((int64_t) f->n_rules));
                json_object_object_add(o, "profiles", json_object_new_int64((int64_t) f->n_profiles));
                json_object_array_add(files, o);
                diagnostics_json(diagnostics, f->path, &f->diagnostics);
        }
        diagnostics_json(diagnostics, "", &config->diagnostics);
        json_object_object_add(out, "errors", json_object_new_int64((int64_t) n_errors));
        (void) json_print_document("check", NULL, out);
}

/* Files that were read (loaded or broken), not the records of what was not. */
static size_t count_read(const RcConfig *config)
{
        size_t n = 0;

        for (size_t i = 0; i < config->n_files; i++)
                n += config->files[i]->state != RC_FILE_SKIPPED;
        return n;
}

int verb_check(int argc, char *argv[])
{
        _cleanup_(check_run_done) CheckRun run = { 0 };
        _cleanup_(rc_config_unrefp) RcConfig *config = NULL;
        size_t n_errors;
        int r;

        if (argc > 1) {
                for (int i = 1; i < argc; i++) {
                        r = check_path(&run, argv[i], false);
                        if (r < 0)
                                return log_error_errno(r, "Failed to check the files");
                }
        } else {
                r = check_search_path(&run);
                if (r < 0)
                        return log_error_errno(r, "Failed to check the search path");
        }

        r = rc_config_new_from_files(run.files, run.n_files, &config);
        if (r < 0)
                return log_error_errno(r, "Failed to check the files as one configuration");

        n_errors = rc_config_count_errors(config);

        if (arg.json != JSON_OFF)
                print_json(config, n_errors);
        else {
                for (size_t i = 0; i < config->n_files; i++)
                        diagnostics_text(config->files[i]->path, &config->files[i]->diagnostics);
                diagnostics_text("", &config->diagnostics);
                if (arg.legend)
                        printf("%zu files checked, %zu rules, %zu profiles, %zu errors.\n", count_read(config),
                                        config->n_rules, config->n_profiles, n_errors);
        }
        return n_errors > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
