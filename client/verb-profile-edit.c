/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "rules add|set|remove|move" and "profiles add|set|remove": edits of rc files.
 *
 * A user's own files (~/.nv) are edited here, as the user, by an rc edit transaction
 * (daemon/appprofile/rc-edit-transaction.h: read, edit, diff, compare and replace); the daemon only
 * previews what the edit changes for the user's running processes (PreviewEdit) and reloads on its own
 * when the file changes (inotify). The system's files (--system, /etc/nvidia) are edited by the daemon,
 * which polkit authorises (the Profiles interface), with the same transaction, so a dry run shows
 * exactly what a write does. */

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "log.h"
#include "rc-edit-transaction.h"
#include "rc-model.h"
#include "rc-rule-id.h"
#include "rc-searchpath.h"
#include "rc-settings.h"
#include "string-util.h"
#include "strv.h"

#define EDIT_FLAG_DRY_RUN UINT64_C(1)
#define RELOAD_WAIT_USEC (10 * UINT64_C(1000000))

/* What the options ask for, checked. */
typedef struct EditPlan {
        RcEdit edit;
        bool move;
        char *pattern; /* built from --procname... or --pattern */
        char **keys, **values; /* --setting, as checked key and rc text */
        RcEditSetting *settings;
} EditPlan;

static void edit_plan_done(EditPlan *p)
{
        free(p->pattern);
        strv_free(p->keys);
        strv_free(p->values);
        free(p->settings);
}

/* --- building a pattern from the options ------------------------------------------------------------- */

static int add_matches(struct json_object *list, const char *feature, char **values)
{
        STRV_FOREACH(v, values) {
                struct json_object *o = json_object_new_object();

                if (!o)
                        return -ENOMEM;
                json_object_object_add(o, "feature", json_object_new_string(feature));
                json_object_object_add(o, "matches", json_object_new_string(*v));
                json_object_array_add(list, o);
        }
        return 0;
}

static bool pattern_options_given(void)
{
        return arg.procnames || arg.commnames || arg.cmdlines || arg.dsos || arg.findfiles || arg.match_true ||
                        arg.pattern;
}

static int build_pattern(char **ret)
{
        _cleanup_(json_object_putp) struct json_object *list = NULL, *pattern = NULL;
        const char *text;

        if (arg.pattern) {
                if (arg.procnames || arg.commnames || arg.cmdlines || arg.dsos || arg.findfiles || arg.match_true ||
                                arg.match_or || arg.match_not) {
                        log_error("--pattern gives the whole pattern: it does not combine with --procname, "
                                  "--commname, --cmdline, --dso, --findfile, --true, --or or --not.");
                        return -EINVAL;
                }
                *ret = strdup(arg.pattern);
                return *ret ? 0 : -ENOMEM;
        }

        list = json_object_new_array();
        if (!list)
                return -ENOMEM;
        if (add_matches(list, "procname", arg.procnames) < 0 || add_matches(list, "commname", arg.commnames) < 0 ||
                        add_matches(list, "cmdline", arg.cmdlines) < 0 || add_matches(list, "dso", arg.dsos) < 0 ||
                        add_matches(list, "findfile", arg.findfiles) < 0)
                return -ENOMEM;
        if (arg.match_true) {
                /* With "matches", which nvidia-settings requires of every pattern (the driver ignores it). */
                char *empty[] = { (char *) "", NULL };

                if (add_matches(list, "true", empty) < 0)
                        return -ENOMEM;
        }

        if (json_object_array_length(list) == 1)
                pattern = json_object_get(json_object_array_get_idx(list, 0));
        else {
                pattern = json_object_new_object();
                json_object_object_add(pattern, "op", json_object_new_string(arg.match_or ? "or" : "and"));
                json_object_object_add(pattern, "sub", TAKE_PTR(list));
        }
        if (arg.match_not) {
                struct json_object *not = json_object_new_object(), *sub = json_object_new_array();

                json_object_array_add(sub, TAKE_PTR(pattern));
                json_object_object_add(not, "op", json_object_new_string("not"));
                json_object_object_add(not, "sub", sub);
                pattern = not ;
        }

        text = json_object_to_json_string_ext(pattern, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
        *ret = strdup(text);
        return *ret ? 0 : -ENOMEM;
}

/* --- settings ----------------------------------------------------------------------------------------- */

static int check_settings(EditPlan *p)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        size_t n = strv_length(arg.settings);

        p->settings = calloc(MAX(n, 1u), sizeof(RcEditSetting));
        if (!p->settings)
                return -ENOMEM;

        STRV_FOREACH(s, arg.settings) {
                _cleanup_free_ char *key = NULL, *value = NULL, *message = NULL;
                int r;

                r = rc_setting_parse_assignment(*s, &key, &value, &message);
                if (r < 0) {
                        log_error("--setting %s: %s", esc(&e, *s), message ? esc(&e, message) : "invalid");
                        return -EINVAL;
                }
                if (r > 0 && message)
                        log_warning("--setting %s: %s", esc(&e, *s), esc(&e, message));
                if (strv_consume(&p->keys, TAKE_PTR(key)) < 0 || strv_consume(&p->values, TAKE_PTR(value)) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                p->settings[i] = (RcEditSetting){ p->keys[i], p->values[i] };
        p->edit.settings = p->settings;
        p->edit.n_settings = n;
        p->edit.unset = arg.unset;
        p->edit.n_unset = strv_length(arg.unset);
        return 0;
}

/* --- where the edit goes ------------------------------------------------------------------------------ */

typedef struct EditFile {
        char *path; /* as the daemon and the driver name it */
        char *dir; /* its directory, and its name there */
        const char *name;
        bool system; /* /etc/nvidia: the daemon's to write */
} EditFile;

static void edit_file_done(EditFile *f)
{
        f->path = mfree(f->path);
        f->dir = mfree(f->dir);
}

/* Whose files an edit writes: --home's (as for the listings), else $HOME's. The edit is done as this
 * user, so it reaches only what the user may write anyway. */
static const char *home_dir(void)
{
        const char *home = arg.home ? arg.home : getenv("HOME");

        return home && home[0] == '/' ? home : NULL;
}

static int edit_file_from_path(const char *path, EditFile *ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *sys_dir = NULL, *sys_file = NULL, *user_dir = NULL, *user_file = NULL;
        const char *home = home_dir(), *slash;

        if (rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &sys_dir) < 0 ||
                        rc_entry_path(RC_ENTRY_SYSTEM_FILE, NULL, NULL, &sys_file) < 0)
                return -ENOMEM;
        if (home &&
                        (rc_entry_path(RC_ENTRY_USER_DIR, home, NULL, &user_dir) < 0 ||
                                        rc_entry_path(RC_ENTRY_USER_FILE, home, NULL, &user_file) < 0))
                return -ENOMEM;

        slash = strrchr(path, '/');
        if (!slash || slash[1] == '\0') {
                log_error("%s is not a file path.", esc(&e, path));
                return -EINVAL;
        }
        *ret = (EditFile){ .path = strdup(path), .dir = strndup(path, slash - path) };
        if (!ret->path || !ret->dir)
                return -ENOMEM;
        ret->name = ret->path + (slash - path) + 1;

        if (streq(path, sys_file) || streq(ret->dir, sys_dir)) {
                ret->system = true;
                return 0;
        }
        if (user_file && (streq(path, user_file) || streq(ret->dir, user_dir)))
                return 0;
        if (startswith(path, "/usr/share/nvidia/"))
                log_error("%s is the driver's file and is never edited: add an override with --system (it goes "
                          "into %s/, which precedes it) or into your own files.",
                                esc(&e, path), sys_dir);
        else
                log_error("%s is not an rc file nvprofilectl edits: %s, a file of %s/, or your own %s and files "
                          "of %s/.",
                                esc(&e, path), sys_file, sys_dir, strna(user_file), strna(user_dir));
        edit_file_done(ret);
        return -EPERM;
}

/* --file NAME (in the rc.d directory), --file PATH, or the default, for the user or --system. */
static int edit_file_from_options(EditFile *ret)
{
        _cleanup_free_ char *dir = NULL, *path = NULL;
        const char *home = home_dir();
        int r;

        if (arg.edit_file && arg.edit_file[0] == '/')
                return edit_file_from_path(arg.edit_file, ret);

        if (arg.system)
                r = rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &dir);
        else if (!home) {
                log_error("$HOME is not set to an absolute path: whose files to edit? (--system edits the "
                          "system's)");
                return -EINVAL;
        } else
                r = rc_entry_path(RC_ENTRY_USER_DIR, home, NULL, &dir);
        if (r < 0)
                return r;
        if (asprintf(&path, "%s/%s", dir, arg.edit_file ? arg.edit_file : RC_EDIT_DEFAULT_FILE_NAME) < 0)
                return -ENOMEM;
        if (arg.edit_file && (strchr(arg.edit_file, '/') || arg.edit_file[0] == '.' || arg.edit_file[0] == '\0')) {
                _cleanup_(escape_pool_done) EscapePool e = { 0 };

                log_error("--file= takes a plain file name (not starting with '.') or an absolute path, not \"%s\".",
                                esc(&e, arg.edit_file));
                return -EINVAL;
        }
        return edit_file_from_path(path, ret);
}

/* --- the user's own files, edited here ------------------------------------------------------------------ */

/* The user's files are read and written as the home's owner (rc-edit-writer.h). */
static RcEditWriter user_writer(void)
{
        assert(home_dir());
        return (RcEditWriter){ .home = home_dir(), .root_fd = -EBADF };
}

/* Why a user's file could not be read or written (what: "read" or "write"). */
static int log_user_file_error(int error, const char *what, const char *path)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        if (error == -ELOOP) {
                log_error("Cannot %s %s: it, or a directory on its way in another user's home, is a symbolic link, "
                          "which is not followed (another user's files are edited as that user, and only below "
                          "the home).",
                                what, esc(&e, path));
                return error;
        }
        return log_error_errno(error, "Cannot %s %s", what, esc(&e, path));
}

static int find_user_rule(const char *id, EditFile *ret)
{
        _cleanup_free_ char *user_dir = NULL, *user_file = NULL;
        _cleanup_strv_free_ char **candidates = NULL, **names = NULL;
        const char *home = home_dir();
        RcEditWriter writer;
        int r;

        if (!home)
                return -ENOENT;
        writer = user_writer();
        if (rc_entry_path(RC_ENTRY_USER_FILE, home, NULL, &user_file) < 0 ||
                        rc_entry_path(RC_ENTRY_USER_DIR, home, NULL, &user_dir) < 0)
                return -ENOMEM;
        if (strv_extend(&candidates, user_file) < 0)
                return -ENOMEM;
        if (rc_edit_writer_list(&writer, user_dir, &names) >= 0)
                STRV_FOREACH(n, names) {
                        _cleanup_free_ char *p = NULL;

                        if (asprintf(&p, "%s/%s", user_dir, *n) < 0 || strv_consume(&candidates, TAKE_PTR(p)) < 0)
                                return -ENOMEM;
                }

        STRV_FOREACH(c, candidates) {
                _cleanup_(edit_file_done) EditFile f = { 0 };
                _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
                size_t index;

                r = edit_file_from_path(*c, &f);
                if (r < 0)
                        continue;
                rc_edit_transaction_init(&t, &writer, NULL);
                if (rc_edit_transaction_open(&t, f.path) < 0 || !t.source.text)
                        continue;
                if (rc_edit_transaction_find_rule(&t, id, &index) == 0) {
                        *ret = f;
                        f = (EditFile){ 0 };
                        return 0;
                }
        }
        return -ENOENT;
}

/* --- output ------------------------------------------------------------------------------------------- */

static void print_change(
                EscapePool *e, uint32_t pid, const char *comm, const char *key, const char *before, const char *after)
{
        if (!*before)
                printf("  %" PRIu32 " %s: %s = %s (new)\n", pid, esc(e, comm), esc(e, key), esc(e, after));
        else if (!*after)
                printf("  %" PRIu32 " %s: %s unset (was %s)\n", pid, esc(e, comm), esc(e, key), esc(e, before));
        else
                printf("  %" PRIu32 " %s: %s %s -> %s\n", pid, esc(e, comm), esc(e, key), esc(e, before),
                                esc(e, after));
}

/* Reads the a(uussss) of changes into out["changes"]. */
static int read_changes(sd_bus_message *reply, struct json_object *out)
{
        struct json_object *list = json_object_new_array();
        const char *comm, *key, *before, *after;
        uint32_t pid, uid;
        int r;

        if (!list)
                return -ENOMEM;
        json_object_object_add(out, "changes", list);
        r = sd_bus_message_enter_container(reply, 'a', "(uussss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(uussss)", &pid, &uid, &comm, &key, &before, &after)) > 0) {
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "pid", json_object_new_int64(pid));
                json_object_object_add(o, "uid", json_object_new_int64(uid));
                json_object_object_add(o, "comm", json_object_new_string(comm));
                json_object_object_add(o, "key", json_object_new_string(key));
                json_object_object_add(o, "before", *before ? json_object_new_string(before) : NULL);
                json_object_object_add(o, "after", *after ? json_object_new_string(after) : NULL);
                json_object_array_add(list, o);
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

/* A unified diff (rc_edit_diff()), line by line. Its lines quote the file, escaped like any text from
 * outside; the markers that start them (" ", "+", "-", "@@", "--- a/", "+++ b/") are printable and
 * unchanged by escaping, so escaping the whole line escapes exactly the file's part. diff's note on a
 * missing last newline is ours alone, and its backslash would be doubled: it is printed as it is. */
static void print_diff(const char *diff)
{
        static const char no_newline[] = "\\ No newline at end of file";

        for (const char *line = diff; *line;) {
                size_t n = strcspn(line, "\n");

                if (n == strlen(no_newline) && memcmp(line, no_newline, n) == 0)
                        fputs(no_newline, stdout);
                else {
                        _cleanup_free_ char *escaped = terminal_escape_n(line, n);

                        fputs(escaped ? escaped : "(out of memory)", stdout);
                }
                putchar('\n');
                line += n + (line[n] == '\n');
        }
}

static void print_result(struct json_object *out, bool dry_run)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        struct json_object *changes = NULL, *diff = NULL, *file = NULL, *rule = NULL;
        size_t n;

        if (arg.json != JSON_OFF) {
                (void) json_print_document("edit", NULL, out);
                return;
        }
        json_object_object_get_ex(out, "changes", &changes);
        json_object_object_get_ex(out, "diff", &diff);
        json_object_object_get_ex(out, "file", &file);
        json_object_object_get_ex(out, "rule", &rule);

        if (dry_run) {
                const char *d = json_object_get_string(diff);

                if (*strempty(d))
                        print_diff(d);
                else
                        puts("No change to the file.");
        } else if (file) {
                printf("Edited %s", esc(&e, json_object_get_string(file)));
                if (rule && *json_object_get_string(rule))
                        printf(" (rule %s)", esc(&e, json_object_get_string(rule)));
                printf(".\n");
                escape_pool_done(&e);
        }

        n = changes ? json_object_array_length(changes) : 0;
        if (!changes)
                printf("%s\n", "Running processes: not known (the daemon did not answer).");
        else if (n == 0)
                printf("No running process %s its settings.\n", dry_run ? "would change" : "changed");
        else
                printf("%s:\n", dry_run ? "Running processes that would change" : "Running processes changed");
        for (size_t i = 0; i < n; i++) {
                struct json_object *o = json_object_array_get_idx(changes, i), *v;
                const char *comm = "", *key = "", *before = "", *after = "";
                uint32_t pid = 0;

                if (json_object_object_get_ex(o, "pid", &v))
                        pid = (uint32_t) json_object_get_int64(v);
                if (json_object_object_get_ex(o, "comm", &v))
                        comm = json_object_get_string(v);
                if (json_object_object_get_ex(o, "key", &v))
                        key = json_object_get_string(v);
                if (json_object_object_get_ex(o, "before", &v) && v)
                        before = json_object_get_string(v);
                if (json_object_object_get_ex(o, "after", &v) && v)
                        after = json_object_get_string(v);
                print_change(&e, pid, comm, key, before, after);
                escape_pool_done(&e);
        }
}

/* --- the daemon ---------------------------------------------------------------------------------------- */

static int generation(sd_bus *bus, uint64_t *ret)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        return sd_bus_get_property_trivial(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ConfigGeneration", &error, 't', ret);
}

/* Waits until the daemon has reloaded past before (it watches the files with inotify), so that what is
 * printed next is in force. */
static int wait_for_reload(sd_bus *bus, uint64_t before)
{
        uint64_t g = 0;

        for (uint64_t waited = 0; waited < RELOAD_WAIT_USEC; waited += 20000) {
                if (generation(bus, &g) >= 0 && g > before)
                        return 0;
                (void) nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
        }
        log_warning("nvprofiled did not reload within %" PRIu64 " s; the edit is written.", RELOAD_WAIT_USEC / 1000000);
        return -ETIMEDOUT;
}

static int preview_user_edit(sd_bus *bus, const char *path, const char *text, struct json_object *out)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "PreviewEdit", &error, &reply,
                        "sss", home_dir(), path, text);
        if (r < 0) {
                log_bus_call_error("PreviewEdit", &error, r);
                return r;
        }
        return read_changes(reply, out);
}

static int call_system_edit(sd_bus *bus, const char *method, const EditPlan *p, const char *file, const char *rule,
                bool dry_run, struct json_object *out)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *rule_id, *diff;
        int32_t position = p->edit.index == SIZE_MAX ? -1 : (int32_t) p->edit.index;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, method);
        if (r < 0)
                return r;
        /* Edits that ask polkit may wait for the user to authenticate. */
        (void) sd_bus_message_set_allow_interactive_authorization(m, true);

        if (streq(method, "AddRule"))
                r = sd_bus_message_append(
                                m, "siss", file, position, strempty(p->edit.pattern), strempty(p->edit.profile));
        else if (streq(method, "UpdateRule"))
                r = sd_bus_message_append(m, "sss", rule, strempty(p->edit.pattern), strempty(p->edit.profile));
        else if (streq(method, "RemoveRule"))
                r = sd_bus_message_append(m, "s", rule);
        else if (streq(method, "MoveRule"))
                r = sd_bus_message_append(m, "ssi", rule, strempty(file), position);
        else
                r = sd_bus_message_append(m, "ss", file, p->edit.profile);
        if (r < 0)
                return r;
        if (streq(method, "AddRule") || streq(method, "UpdateRule") || streq(method, "AddProfile") ||
                        streq(method, "UpdateProfile")) {
                r = sd_bus_message_open_container(m, 'a', "(ss)");
                for (size_t i = 0; r >= 0 && i < p->edit.n_settings; i++)
                        r = sd_bus_message_append(m, "(ss)", p->edit.settings[i].key, p->edit.settings[i].value);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }
        if (streq(method, "UpdateRule") || streq(method, "UpdateProfile")) {
                char *none[] = { NULL };

                r = sd_bus_message_append_strv(m, p->edit.unset ? (char **) p->edit.unset : none);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_append(m, "t", dry_run ? EDIT_FLAG_DRY_RUN : 0);
        if (r < 0)
                return r;

        r = client_send(bus, m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "ss", &rule_id, &diff);
        if (r < 0)
                return r;
        json_object_object_add(out, "rule", json_object_new_string(rule_id));
        json_object_object_add(out, "diff", json_object_new_string(diff));
        return read_changes(reply, out);
}

/* --- one edit --------------------------------------------------------------------------------------------- */

/* Says why an edit of path failed: its errors as a compiler does, or the errno. */
static void print_edit_diagnostics(const char *path, const RcDiagnostics *d, int error)
{
        bool said = false;

        for (size_t i = 0; i < d->n_items; i++)
                if (d->items[i].severity == RC_SEVERITY_ERROR) {
                        print_diagnostic(stderr, d->items[i].path ? d->items[i].path : path, d->items[i].line,
                                        d->items[i].column, "error", d->items[i].message, NULL);
                        said = true;
                }
        if (!said)
                log_error_errno(error, "Cannot edit %s", path);
}

/* The daemon's preview of a user's edit. A move between two files is previewed as its larger half: the
 * file it goes into (the last file). */
typedef struct UserPreview {
        sd_bus *bus;
        struct json_object *out;
} UserPreview;

static int preview_user_files(const RcEditFile *const *files, size_t n, void *userdata)
{
        UserPreview *up = userdata;

        assert(n > 0);
        return preview_user_edit(up->bus, files[n - 1]->path, files[n - 1]->new_text, up->out);
}

/* Why rc_edit_transaction_prepare() failed, in words. */
static int log_prepare_failure(const RcEditTransaction *t, int error, const char *address)
{
        const char *path = t->failed_path;

        switch (t->failed_step) {
        case RC_EDIT_STEP_READ:
                return log_user_file_error(error, "read", path);
        case RC_EDIT_STEP_FIND_RULE:
                if (error == -ENOENT && !t->source.text)
                        return log_error_errno(error, "%s does not exist.", path);
                if (error == -EBADMSG)
                        break;
                if (error == -ENOTUNIQ)
                        return log_error_errno(error,
                                        "Several rules of %s start on line %s: name one by its id (see "
                                        "nvprofilectl rules).",
                                        path, address);
                return log_error_errno(error, "%s has no rule %s.", path, address);
        case RC_EDIT_STEP_EDIT:
        case _RC_EDIT_STEP_MAX:
                break;
        }
        print_edit_diagnostics(path, &t->diagnostics, error);
        return error;
}

static int commit_user_edit(const RcEditTransaction *t)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *path = NULL;
        int r;

        r = rc_edit_transaction_commit(t, &path);
        if (r == -ESTALE)
                return log_error_errno(
                                r, "%s changed since it was read: nothing was written, try again.", esc(&e, path));
        if (r < 0)
                return log_user_file_error(r, "write", strna(path));
        return 0;
}

static int run_user_edit(EditPlan *p, EditFile *source, EditFile *dest, const char *address, struct json_object *out)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        _cleanup_free_ char *diff = NULL;
        RcEditWriter writer = user_writer();
        RcEditRequest req;
        uint64_t before = 0;
        bool have_daemon;
        int r;

        rc_edit_transaction_init(&t, &writer, NULL);
        req = (RcEditRequest){
                .path = source->path,
                .rule = address,
                .move = p->move,
                .destination = dest ? dest->path : NULL,
                .position = arg.position < 0 ? SIZE_MAX : (size_t) arg.position,
                .edit = p->edit,
        };
        r = rc_edit_transaction_prepare(&t, &req);
        if (r < 0)
                return log_prepare_failure(&t, r, address);

        r = rc_edit_transaction_diff(&t, &diff);
        if (r < 0)
                return r;
        json_object_object_add(
                        out, "file", json_object_new_string(t.destination.path ? t.destination.path : t.source.path));
        json_object_object_add(out, "rule", t.rule_id ? json_object_new_string(t.rule_id) : NULL);
        json_object_object_add(out, "diff", json_object_new_string(diff));

        /* The preview: what the running processes would get (the daemon resolves them). */
        have_daemon = client_connect(&bus) >= 0;
        if (have_daemon && generation(bus, &before) < 0)
                have_daemon = false;
        if (have_daemon && rc_edit_transaction_preview(&t, preview_user_files, &(UserPreview){ bus, out }) < 0)
                have_daemon = false;

        if (!arg.dry_run) {
                r = commit_user_edit(&t);
                if (r < 0)
                        return r;
                if (have_daemon)
                        (void) wait_for_reload(bus, before);
        }
        json_object_object_add(out, "written", json_object_new_boolean(!arg.dry_run));
        print_result(out, arg.dry_run);
        return 0;
}

static int run_system_edit(const char *method, EditPlan *p, const char *file, const char *rule, struct json_object *out)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        uint64_t before = 0;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return r;
        (void) generation(bus, &before);
        r = call_system_edit(bus, method, p, file, rule, arg.dry_run, out);
        if (r < 0)
                return r;
        if (file)
                json_object_object_add(out, "file", json_object_new_string(file));
        json_object_object_add(out, "written", json_object_new_boolean(!arg.dry_run));
        print_result(out, arg.dry_run);
        return 0;
}

/* --- the verbs ---------------------------------------------------------------------------------------------- */

static int check_edit_options(const char *verb, bool takes_pattern, bool takes_settings, bool takes_position)
{
        if (!takes_pattern && (pattern_options_given() || arg.match_or || arg.match_not)) {
                log_error("%s takes no pattern options.", verb);
                return -EINVAL;
        }
        if (!takes_settings && (arg.settings || arg.unset || arg.profile)) {
                log_error("%s takes no --setting, --unset or --profile.", verb);
                return -EINVAL;
        }
        if (!takes_position && arg.position >= 0) {
                log_error("%s takes no --position.", verb);
                return -EINVAL;
        }
        return 0;
}

/* "FILE:LINE" or an id: the file holding the rule, and how to find it there. */
static int locate_rule(const char *address, EditFile *ret_file, char **ret_rest)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *file = NULL, *rest = NULL;
        int r;

        r = rc_rule_address_split(address, &file, &rest);
        if (r == -EINVAL) {
                log_error("\"%s\" is neither FILE:LINE nor a rule id (nvprofilectl rules prints them).",
                                esc(&e, address));
                return r;
        }
        if (r < 0)
                return r;
        if (file)
                r = edit_file_from_path(file, ret_file);
        else {
                /* An id: the user's own files first, then the daemon looks in the system's. */
                r = arg.system ? -ENOENT : find_user_rule(rest, ret_file);
                if (r == -ENOENT) {
                        *ret_file = (EditFile){ .system = true };
                        r = 0;
                }
        }
        if (r < 0)
                return r;
        *ret_rest = TAKE_PTR(rest);
        return 0;
}

int verb_rules_edit(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *out = json_object_new_object();
        _cleanup_(edit_plan_done) EditPlan p = { 0 };
        _cleanup_(edit_file_done) EditFile file = { 0 }, dest = { 0 };
        _cleanup_free_ char *rest = NULL;
        const char *sub = argv[1];
        int r;

        assert(argc >= 2);

        if (!out)
                return log_oom();
        p.edit.index = arg.position < 0 ? SIZE_MAX : (size_t) arg.position;

        if (streq(sub, "add")) {
                if (argc != 2)
                        return log_error_errno(-EINVAL, "rules add takes options only (see nvprofilectl --help)."),
                               EXIT_USAGE;
                if (check_edit_options("rules add", true, true, true) < 0)
                        return EXIT_USAGE;
                if (!pattern_options_given()) {
                        log_error("rules add needs a pattern: --procname, --commname, --cmdline, --dso, --findfile, "
                                  "--true or --pattern.");
                        return EXIT_USAGE;
                }
                if (!arg.profile == !arg.settings) {
                        log_error("rules add needs either --profile NAME or --setting KEY=VALUE.");
                        return EXIT_USAGE;
                }
                if (arg.unset) {
                        log_error("rules add takes no --unset.");
                        return EXIT_USAGE;
                }
                p.edit.operation = RC_EDIT_ADD_RULE;
                r = build_pattern(&p.pattern);
                if (r < 0)
                        return r == -EINVAL ? EXIT_USAGE : r;
                p.edit.pattern = p.pattern;
                p.edit.profile = arg.profile;
                r = check_settings(&p);
                if (r < 0)
                        return r == -EINVAL ? EXIT_USAGE : r;
                r = edit_file_from_options(&file);
                if (r < 0)
                        return r == -EINVAL ? EXIT_USAGE : r;
                if (file.system)
                        return run_system_edit("AddRule", &p, file.path, NULL, out);
                return run_user_edit(&p, &file, NULL, NULL, out);
        }

        if (argc != 3) {
                log_error("rules %s takes one rule: FILE:LINE or an id.", sub);
                return EXIT_USAGE;
        }
        r = locate_rule(argv[2], &file, &rest);
        if (r < 0)
                return r == -EINVAL ? EXIT_USAGE : r;

        if (streq(sub, "set")) {
                if (check_edit_options("rules set", true, true, false) < 0)
                        return EXIT_USAGE;
                if (!pattern_options_given() && !arg.settings && !arg.unset && !arg.profile) {
                        log_error("rules set needs something to change: a pattern, --profile, --setting or --unset.");
                        return EXIT_USAGE;
                }
                p.edit.operation = RC_EDIT_UPDATE_RULE;
                if (pattern_options_given()) {
                        r = build_pattern(&p.pattern);
                        if (r < 0)
                                return r == -EINVAL ? EXIT_USAGE : r;
                        p.edit.pattern = p.pattern;
                }
                p.edit.profile = arg.profile;
                r = check_settings(&p);
                if (r < 0)
                        return r == -EINVAL ? EXIT_USAGE : r;
                if (file.system)
                        return run_system_edit("UpdateRule", &p, NULL, argv[2], out);
                return run_user_edit(&p, &file, NULL, rest, out);
        }
        if (streq(sub, "remove")) {
                if (check_edit_options("rules remove", false, false, false) < 0)
                        return EXIT_USAGE;
                p.edit.operation = RC_EDIT_REMOVE_RULE;
                if (file.system)
                        return run_system_edit("RemoveRule", &p, NULL, argv[2], out);
                return run_user_edit(&p, &file, NULL, rest, out);
        }
        if (streq(sub, "move")) {
                if (check_edit_options("rules move", false, false, true) < 0)
                        return EXIT_USAGE;
                if (arg.position < 0 && !arg.edit_file) {
                        log_error("rules move needs --position N (0: first in the file) or --file.");
                        return EXIT_USAGE;
                }
                p.move = true;
                if (arg.edit_file) {
                        r = edit_file_from_options(&dest);
                        if (r < 0)
                                return r == -EINVAL ? EXIT_USAGE : r;
                        if (dest.system != file.system) {
                                log_error("A rule moves between the system's files or between your own: to copy "
                                          "one across, add it there and remove it here.");
                                return EXIT_USAGE;
                        }
                }
                if (file.system)
                        return run_system_edit("MoveRule", &p, dest.path, argv[2], out);
                return run_user_edit(&p, &file, dest.path ? &dest : NULL, rest, out);
        }

        log_error("Unknown rules verb \"%s\": add, set, remove or move.", sub);
        return EXIT_USAGE;
}

int verb_profiles_edit(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *out = json_object_new_object();
        _cleanup_(edit_plan_done) EditPlan p = { 0 };
        _cleanup_(edit_file_done) EditFile file = { 0 };
        const char *sub = argv[1], *method;
        int r;

        assert(argc >= 2);

        if (!out)
                return log_oom();
        if (argc != 3) {
                log_error("profiles %s takes the profile's name.", sub);
                return EXIT_USAGE;
        }
        if (streq(sub, "add")) {
                p.edit.operation = RC_EDIT_ADD_PROFILE;
                method = "AddProfile";
                if (!arg.settings || arg.unset) {
                        log_error("profiles add needs --setting KEY=VALUE (and takes no --unset).");
                        return EXIT_USAGE;
                }
        } else if (streq(sub, "set")) {
                p.edit.operation = RC_EDIT_UPDATE_PROFILE;
                method = "UpdateProfile";
                if (!arg.settings && !arg.unset) {
                        log_error("profiles set needs --setting KEY=VALUE or --unset KEY.");
                        return EXIT_USAGE;
                }
        } else if (streq(sub, "remove")) {
                p.edit.operation = RC_EDIT_REMOVE_PROFILE;
                method = "RemoveProfile";
                if (arg.settings || arg.unset) {
                        log_error("profiles remove takes no --setting or --unset.");
                        return EXIT_USAGE;
                }
        } else {
                log_error("Unknown profiles verb \"%s\": add, set or remove.", sub);
                return EXIT_USAGE;
        }
        if (pattern_options_given() || arg.match_or || arg.match_not || arg.profile || arg.position >= 0) {
                log_error("profiles %s takes --setting, --unset, --file, --system and --dry-run only.", sub);
                return EXIT_USAGE;
        }
        p.edit.profile = argv[2];
        r = check_settings(&p);
        if (r < 0)
                return r == -EINVAL ? EXIT_USAGE : r;
        r = edit_file_from_options(&file);
        if (r < 0)
                return r == -EINVAL ? EXIT_USAGE : r;
        if (file.system)
                return run_system_edit(method, &p, file.path, NULL, out);
        return run_user_edit(&p, &file, NULL, NULL, out);
}
