/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "file-replace.h"
#include "fileio.h"
#include "log.h"
#include "rc-config-slots.h"
#include "manager-edit.h"
#include "rc-edit-move.h"
#include "rc-settings.h"
#include "process.h"
#include "string-util.h"

void manager_edit_changes_done(ManagerEditChanges *c)
{
        assert(c);

        for (size_t i = 0; i < c->n_items; i++) {
                free(c->items[i].comm);
                free(c->items[i].key);
                free(c->items[i].before);
                free(c->items[i].after);
        }
        c->items = mfree(c->items);
        c->n_items = c->allocated = 0;
}

void manager_edit_result_done(ManagerEditResult *r)
{
        assert(r);

        r->rule_id = mfree(r->rule_id);
        r->diff = mfree(r->diff);
        manager_edit_changes_done(&r->changes);
}

static int say(char **ret_message, int error, const char *fmt, ...) _printf_(3, 4);
static int say(char **ret_message, int error, const char *fmt, ...)
{
        va_list ap;

        assert(error < 0);

        if (ret_message && !*ret_message) {
                va_start(ap, fmt);
                if (vasprintf(ret_message, fmt, ap) < 0)
                        *ret_message = NULL;
                va_end(ap);
        }
        return error;
}

/* The first error of diags as "file:line:column: message". */
static int say_diagnostics(char **ret_message, int error, const char *path, const RcDiagnostics *d)
{
        for (size_t i = 0; i < d->n_items; i++)
                if (d->items[i].severity == RC_SEVERITY_ERROR)
                        return say(ret_message, error, "%s:%" PRIu32 ":%" PRIu32 ": %s",
                                        d->items[i].path ? d->items[i].path : path, d->items[i].line,
                                        d->items[i].column, d->items[i].message);
        return say(ret_message, error, "%s: %s", path, strerror(-error));
}

/* A file the daemon may write, as (entry kind, directory, name). */
typedef struct EditTarget {
        RcEntryKind kind;
        char *path, *dir;
        const char *name; /* into path */
} EditTarget;

static void edit_target_done(EditTarget *t)
{
        t->path = mfree(t->path);
        t->dir = mfree(t->dir);
}

/* What follows prefix in s, or NULL. */
static const char *after_prefix(const char *s, const char *prefix)
{
        return startswith(s, prefix) ? s + strlen(prefix) : NULL;
}

static bool file_name_is_plain(const char *name)
{
        /* Dotfiles are loaded by the driver too, but a name of ours (the temporary directory) starts with a
         * dot, and so does nothing a user means to edit by name. */
        return !isempty(name) && name[0] != '.' && !strchr(name, '/') && strlen(name) <= NAME_MAX;
}

static int edit_target_from_path(const char *path, EditTarget *ret, char **ret_message)
{
        _cleanup_free_ char *file = NULL, *dir = NULL;
        const char *rest;
        int r;

        assert(path);
        assert(ret);

        r = rc_entry_path(RC_ENTRY_SYSTEM_FILE, NULL, NULL, &file);
        if (r < 0)
                return r;
        r = rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &dir);
        if (r < 0)
                return r;

        if (streq(path, file)) {
                *ret = (EditTarget){ .kind = RC_ENTRY_SYSTEM_FILE, .path = TAKE_PTR(file) };
                ret->dir = strndup(ret->path, strrchr(ret->path, '/') - ret->path);
                if (!ret->dir)
                        return -ENOMEM;
                ret->name = strrchr(ret->path, '/') + 1;
                return 0;
        }
        rest = after_prefix(path, dir);
        if (rest && rest[0] == '/' && file_name_is_plain(rest + 1)) {
                *ret = (EditTarget){ .kind = RC_ENTRY_SYSTEM_DIR, .dir = TAKE_PTR(dir) };
                ret->path = strdup(path);
                if (!ret->path)
                        return -ENOMEM;
                ret->name = ret->path + strlen(ret->dir) + 1;
                return 0;
        }
        if (after_prefix(path, "/usr/share/nvidia/"))
                return say(ret_message, -EPERM,
                                "%s is the driver's file and is never written: add an override in %s/, which "
                                "precedes it",
                                path, dir);
        return say(ret_message, -EPERM, "%s is not a system rc file the daemon writes (%s, or a file of %s/)", path,
                        file, dir);
}

/* File access, run with someone's credentials (user_creds_run()). */
typedef struct FileJob {
        int root_fd;
        const EditTarget *target;
        bool write, create_dir;
        const char *expected; /* write: what the edit was computed from; NULL: a new file */
        size_t expected_size;
        const char *data;
        size_t size;
        char *text; /* read: the content; NULL: no such file */
        size_t text_size;
} FileJob;

static int open_target_dir(FileJob *j)
{
        int fd;

        fd = open_in_root(j->root_fd, j->target->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd == -ENOENT && j->create_dir && j->target->kind == RC_ENTRY_SYSTEM_DIR) {
                _cleanup_close_ int parent = -EBADF;
                const char *base = strrchr(j->target->dir, '/') + 1;
                _cleanup_free_ char *parent_path = strndup(j->target->dir, base - 1 - j->target->dir);

                if (!parent_path)
                        return -ENOMEM;
                parent = open_in_root(j->root_fd, parent_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (parent < 0)
                        return parent;
                /* Only where nothing is: a file of that name is never turned into a directory. */
                if (mkdirat(parent, base, 0755) < 0 && errno != EEXIST)
                        return -errno;
                fd = openat(parent, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                /* Readable by every user's processes, whose driver reads it, whatever our umask. */
                if (fchmod(fd, 0755) < 0) {
                        safe_close(fd);
                        return -errno;
                }
        }
        return fd;
}

static int file_job_run(void *userdata)
{
        FileJob *j = userdata;
        _cleanup_close_ int dir_fd = -EBADF;
        int r;

        dir_fd = open_target_dir(j);
        if (dir_fd == -ENOENT && !j->write)
                return 0; /* no directory, no file: a new one */
        if (dir_fd < 0)
                return dir_fd;

        if (j->write)
                return file_replace(
                                dir_fd, j->target->name, j->expected, j->expected_size, j->data, j->size, 0644, NULL);

        r = file_read_regular(dir_fd, j->target->name, RC_FILE_SIZE_MAX, &j->text, &j->text_size);
        if (r == -ENOENT)
                return 0;
        return r;
}

static const UserCreds root_creds = { .uid = 0, .gid = 0 };

/* Whose access writes use: root's file access (fsuid 0; under the unit with no capability that grants
 * writing, CAP_DAC_OVERRIDE being none of ours: only what root's own files and directories allow), or, for
 * a daemon that cannot switch (an unprivileged instance, as in tests), its own. */
static const UserCreds *write_creds(void)
{
        return user_creds_can_switch() ? &root_creds : NULL;
}

/* The file's text (NULL: it does not exist), read with the access of creds. */
static int read_target(Manager *m, const UserCreds *creds, const EditTarget *t, char **ret, size_t *ret_size,
                char **ret_message)
{
        FileJob j = { .root_fd = m->root_fd, .target = t };
        int r;

        r = user_creds_run(creds, file_job_run, &j);
        if (r < 0) {
                free(j.text);
                return say(ret_message, r, "%s: cannot read: %s", t->path, strerror(-r));
        }
        *ret = j.text;
        *ret_size = j.text_size;
        return 0;
}

static int write_target(Manager *m, const EditTarget *t, const char *expected, size_t expected_size, const char *data,
                size_t size, char **ret_message)
{
        FileJob j = { .root_fd = m->root_fd,
                .target = t,
                .write = true,
                .create_dir = true,
                .expected = expected,
                .expected_size = expected_size,
                .data = data,
                .size = size };
        int r;

        r = user_creds_run(write_creds(), file_job_run, &j);
        if (r == -ESTALE)
                return say(ret_message, r, "%s changed since it was read: nothing was written, try again", t->path);
        if (r < 0)
                return say(ret_message, r, "%s: cannot write: %s (the file is unchanged)", t->path, strerror(-r));
        return 0;
}

static int parse_text(Manager *m, const char *path, const char *text, size_t size, RcFile **ret)
{
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };

        if (!text)
                return rc_file_parse(path, "{}", 2, &syntax, ret);
        return rc_file_parse(path, text, size, &syntax, ret);
}

/* The text of a system file as creds read it (NULL: the daemon's own access). */
static int read_system_file_as(Manager *m, const UserCreds *creds, const char *path, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = open_for_reading_as(creds, m->root_fd, path, &st);
        if (fd < 0)
                return fd;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        return read_full_fd(fd, RC_FILE_SIZE_MAX, ret, ret_size);
}

/* The system file holding the rule with this id, among the files creds may read, as the edit will read
 * them. Ids are computable by anyone (a hash of path, pattern, profile and occurrence), so a rule in a
 * file the caller cannot read is answered exactly as one that does not exist: finding it, or naming its
 * file, would confirm a guess about a file the caller may not read. */
static int find_rule_file(Manager *m, const UserCreds *creds, const char *id, char **ret_path)
{
        const RcConfig *c = m->system_config;

        if (!c)
                return -ENOENT;
        for (size_t i = 0; i < c->n_files; i++) {
                _cleanup_(rc_file_unrefp) RcFile *f = NULL;
                _cleanup_free_ char *text = NULL;
                const char *path = c->files[i]->path;
                size_t size = 0, index;
                int r;

                r = read_system_file_as(m, creds, path, &text, &size);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* not the caller's to read (or gone): none of its rules is theirs to find */
                r = parse_text(m, path, text, size, &f);
                if (r < 0)
                        return r;
                if (f->state != RC_FILE_LOADED || rc_file_find_rule(f, id, &index) < 0)
                        continue;
                *ret_path = strdup(path);
                return *ret_path ? 0 : -ENOMEM;
        }
        return -ENOENT;
}

static int apply(const char *path, const char *text, size_t size, const RcEdit *edit, char **ret, size_t *ret_size,
                char **ret_message)
{
        _cleanup_(rc_diagnostics_done) RcDiagnostics d = { 0 };
        int r;

        r = rc_edit_apply(path, text, size, edit, &d, ret, ret_size);
        if (r < 0)
                return say_diagnostics(ret_message, r, path, &d);
        return 0;
}

static int rule_id_at(Manager *m, const char *path, const char *text, size_t size, size_t index, char **ret)
{
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };

        return rc_text_rule_id(path, text, size, &syntax, index, ret);
}

static int append_diff(
                char **diff, const char *path, const char *old, size_t old_size, const char *new, size_t new_size)
{
        _cleanup_free_ char *d = NULL;
        char *joined;
        int r;

        r = rc_edit_diff(path, old, old_size, new, new_size, &d);
        if (r < 0)
                return r;
        if (asprintf(&joined, "%s%s", strempty(*diff), d) < 0)
                return -ENOMEM;
        free(*diff);
        *diff = joined;
        return 0;
}

/* A file as an edit would leave it, for previews. */
typedef struct PreviewFile {
        RcEntryKind kind;
        RcFile *file;
} PreviewFile;

static int value_text(const RcResolution *res, const char *key, char **ret)
{
        if (rc_resolution_is_effective(res))
                for (size_t i = 0; i < res->n_settings; i++)
                        if (streq(res->settings[i].setting->key, key))
                                return rc_value_format(&res->settings[i].setting->value, ret);
        *ret = NULL;
        return 0;
}

static int add_change(ManagerEditChanges *c, const Process *p, const char *key, char *before, char *after)
{
        _cleanup_free_ char *b = before, *a = after;
        ManagerEditChange *item;

        if (streq_ptr(b, a))
                return 0;
        if (c->n_items >= MANAGER_EDIT_CHANGES_MAX)
                return 0;
        if (GREEDY_REALLOC(c->items, c->allocated, c->n_items + 1) < 0)
                return -ENOMEM;
        item = &c->items[c->n_items];
        *item = (ManagerEditChange){ .pid = p->id.pid, .uid = p->uid, .before = TAKE_PTR(b), .after = TAKE_PTR(a) };
        item->comm = strdup(strempty(p->comm));
        item->key = strdup(key);
        c->n_items++;
        return item->comm && item->key ? 0 : -ENOMEM;
}

static int compare_resolutions(
                ManagerEditChanges *c, const Process *p, const RcResolution *old, const RcResolution *new)
{
        int r;

        /* Keys set now (changed or lost), then keys only the edit sets (gained). */
        for (size_t pass = 0; pass < 2; pass++) {
                const RcResolution *from = pass == 0 ? old : new;

                if (!rc_resolution_is_effective(from))
                        continue;
                for (size_t i = 0; i < from->n_settings; i++) {
                        const char *key = from->settings[i].setting->key;
                        char *before = NULL, *after = NULL;

                        if (pass == 1) {
                                r = value_text(old, key, &before);
                                if (r < 0)
                                        return r;
                                if (before) {
                                        free(before);
                                        continue; /* compared in the first pass */
                                }
                        } else {
                                r = value_text(old, key, &before);
                                if (r < 0)
                                        return r;
                        }
                        r = value_text(new, key, &after);
                        if (r < 0) {
                                free(before);
                                return r;
                        }
                        r = add_change(c, p, key, before, after);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static const ConfigSlot *slot_of(const Manager *m, const RcConfig *c)
{
        for (size_t i = 0; i < m->n_configs; i++)
                if (m->configs[i].config == c)
                        return &m->configs[i];
        return NULL;
}

static int preview(Manager *m, uid_t caller_uid, const char *home, const PreviewFile *files, size_t n_files,
                ManagerEditChanges *ret)
{
        Process *p;
        int r;

        for (size_t i = 0; intmap_next(&m->processes, &i, NULL, (void **) &p);) {
                _cleanup_(proc_facts_done) ProcFacts f = { .root_fd = -EBADF };
                _cleanup_(rc_resolution_freep) RcResolution *old = NULL, *new = NULL;
                _cleanup_(rc_config_unrefp) RcConfig *edited = NULL;
                const ConfigSlot *slot;
                RcConfig *config;

                if (!manager_may_see(caller_uid, p->uid) || !p->resolution)
                        continue;
                config = p->resolution->config;
                /* The host's files only: a container reads its own /etc. */
                slot = slot_of(m, config);
                if (!slot || !config_slot_is_host(m, slot))
                        continue;
                if (home && !streq_ptr(config->home, home))
                        continue;

                edited = rc_config_ref(config);
                for (size_t k = 0; k < n_files; k++) {
                        RcConfig *next = NULL;

                        r = rc_config_with_file(edited, files[k].kind, files[k].file, m->collation, &next);
                        if (r < 0)
                                return r;
                        rc_config_unref(edited);
                        edited = next;
                }

                r = proc_facts_read(m->proc_fd, p->id.pid, &p->id,
                                PROC_FACTS_MAPS | PROC_FACTS_ENVIRON | PROC_FACTS_ROOT, &m->config.proc_limits, &f);
                if (r == -ESRCH || r == -ENOENT || r == -ESTALE)
                        continue; /* gone meanwhile */
                if (r < 0)
                        return r;
                r = process_resolve_in(m, &f, config, &old);
                if (r < 0)
                        return r;
                r = process_resolve_in(m, &f, edited, &new);
                if (r < 0)
                        return r;
                r = compare_resolutions(ret, p, old, new);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int preview_texts(Manager *m, uid_t caller_uid, const char *home, const EditTarget *const *targets,
                char *const *texts, const size_t *sizes, size_t n, ManagerEditChanges *ret)
{
        RcFile *files[2] = { 0 };
        PreviewFile pf[2];
        int r = 0;

        assert(n <= 2);

        for (size_t i = 0; i < n && r >= 0; i++) {
                r = parse_text(m, targets[i]->path, texts[i], sizes[i], &files[i]);
                pf[i] = (PreviewFile){ .kind = targets[i]->kind, .file = files[i] };
        }
        if (r >= 0)
                r = preview(m, caller_uid, home, pf, n, ret);
        for (size_t i = 0; i < n; i++)
                rc_file_unref(files[i]);
        return r;
}

static void log_edit(const UserCreds *creds, const ManagerEditRequest *req, const char *path, const char *rule_id)
{
        char uidf[32];
        _cleanup_free_ char *filef = NULL, *rulef = NULL, *opf = NULL;
        const char *op = req->move ? "move-rule" : rc_edit_operation_to_string(req->edit.operation);

        snprintf(uidf, sizeof(uidf), "NVPROFILED_UID=%u", (unsigned) creds->uid);
        if (asprintf(&filef, "NVPROFILED_FILE=%s", path) < 0 ||
                        asprintf(&rulef, "NVPROFILED_RULE=%s", strempty(rule_id ? rule_id : req->rule)) < 0 ||
                        asprintf(&opf, "NVPROFILED_OPERATION=%s", op) < 0) {
                log_oom();
                return;
        }
        {
                const char *fields[] = { "MESSAGE_ID=" LOG_MESSAGE_PROFILE_EDITED, uidf, filef, rulef, opf, NULL };

                /* An authorised change of the system's files: always recorded, never rate-limited away. */
                log_user_struct(LOG_UID_NONE, LOG_NOTICE, fields, "uid %u: %s %s in %s.", (unsigned) creds->uid, op,
                                strempty(rule_id                            ? rule_id
                                                                : req->rule ? req->rule
                                                                            : req->edit.profile),
                                path);
        }
}

/* The bytes of every string the request names: what it adds to a file at most. */
static size_t request_text_size(const ManagerEditRequest *req)
{
        const RcEdit *e = &req->edit;
        size_t n = strlen(strempty(e->pattern)) + strlen(strempty(e->profile)) + strlen(strempty(req->file)) +
                        strlen(strempty(req->rule));

        for (size_t i = 0; i < e->n_settings; i++)
                n += strlen(e->settings[i].key) + strlen(e->settings[i].value);
        for (size_t i = 0; i < e->n_unset; i++)
                n += strlen(e->unset[i]);
        return n;
}

int manager_edit_check_request(const ManagerEditRequest *req, char **ret_message)
{
        const RcEdit *e = &req->edit;
        int r;

        assert(req);

        if (e->n_settings > MANAGER_EDIT_SETTINGS_MAX || e->n_unset > MANAGER_EDIT_SETTINGS_MAX)
                return say(ret_message, -E2BIG, "at most %u settings per edit", MANAGER_EDIT_SETTINGS_MAX);
        for (size_t i = 0; i < e->n_settings; i++)
                if (strlen(e->settings[i].key) > MANAGER_EDIT_TEXT_MAX ||
                                strlen(e->settings[i].value) > MANAGER_EDIT_TEXT_MAX)
                        return say(ret_message, -E2BIG, "a setting is longer than %u bytes", MANAGER_EDIT_TEXT_MAX);
        for (size_t i = 0; i < e->n_unset; i++)
                if (strlen(e->unset[i]) > MANAGER_EDIT_TEXT_MAX)
                        return say(ret_message, -E2BIG, "a key is longer than %u bytes", MANAGER_EDIT_TEXT_MAX);
        if (strlen(strempty(e->pattern)) > MANAGER_EDIT_TEXT_MAX ||
                        strlen(strempty(e->profile)) > MANAGER_EDIT_TEXT_MAX ||
                        strlen(strempty(req->file)) > PATH_MAX || strlen(strempty(req->rule)) > PATH_MAX)
                return say(ret_message, -E2BIG, "an argument is longer than %u bytes", MANAGER_EDIT_TEXT_MAX);
        /* No edit makes a file larger than an rc file may be. */
        if (request_text_size(req) > RC_FILE_SIZE_MAX)
                return say(ret_message, -E2BIG, "an rc file is at most %u bytes", RC_FILE_SIZE_MAX);
        if (e->rule_text)
                return say(ret_message, -EINVAL, "a rule's text is only moved, never sent");
        /* Applets send rc text: a known key gets the type and spelling nvprofilectl checks before it
         * sends (unknown keys pass, as NVIDIA ships opaque ones). */
        for (size_t i = 0; i < e->n_settings; i++) {
                r = rc_setting_check(e->settings[i].key, e->settings[i].value, ret_message);
                if (r < 0)
                        return r;
                if (ret_message)
                        *ret_message = mfree(*ret_message);
        }
        return 0;
}

int manager_edit_system(Manager *m, const UserCreds *creds, const ManagerEditRequest *req, ManagerEditResult *ret,
                char **ret_message)
{
        _cleanup_(edit_target_done) EditTarget source = { 0 }, dest = { 0 };
        _cleanup_free_ char *source_path = NULL, *address = NULL, *text = NULL, *new_text = NULL, *dest_text = NULL,
                            *dest_new = NULL, *diff = NULL, *rule_id = NULL;
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        size_t size = 0, new_size = 0, dest_size = 0, dest_new_size = 0, index = SIZE_MAX;
        const UserCreds *io_creds;
        bool rule_op;
        RcEdit edit;
        int r;

        assert(m);
        assert(creds);
        assert(req);
        assert(ret);

        r = manager_edit_check_request(req, ret_message);
        if (r < 0)
                return r;

        /* A dry run shows the caller only what it may read itself; a write is authorised already. */
        io_creds = req->dry_run ? creds : write_creds();
        edit = req->edit;
        rule_op = req->move || IN_SET(edit.operation, RC_EDIT_UPDATE_RULE, RC_EDIT_REMOVE_RULE);

        if (rule_op) {
                if (isempty(req->rule))
                        return say(ret_message, -EINVAL, "no rule named");
                r = rc_rule_address_split(req->rule, &source_path, &address);
                if (r == -EINVAL)
                        return say(ret_message, r, "%s is neither FILE:LINE nor a rule id", req->rule);
                if (r < 0)
                        return r;
                if (!source_path) {
                        r = find_rule_file(m, io_creds, address, &source_path);
                        if (r == -ENOENT)
                                return say(ret_message, r, "no rule %s in the system's rc files", address);
                        if (r < 0)
                                return r;
                }
        } else {
                if (isempty(req->file))
                        return say(ret_message, -EINVAL, "no file named");
                source_path = strdup(req->file);
                if (!source_path)
                        return -ENOMEM;
        }

        r = edit_target_from_path(source_path, &source, ret_message);
        if (r < 0)
                return r;
        r = read_target(m, io_creds, &source, &text, &size, ret_message);
        if (r < 0)
                return r;

        if (rule_op) {
                _cleanup_(rc_file_unrefp) RcFile *f = NULL;

                if (!text)
                        return say(ret_message, -ENOENT, "%s does not exist", source.path);
                r = parse_text(m, source.path, text, size, &f);
                if (r < 0)
                        return r;
                if (f->state != RC_FILE_LOADED)
                        return say_diagnostics(ret_message, -EBADMSG, source.path, &f->diagnostics);
                r = rc_file_find_rule(f, address, &index);
                if (r == -ENOENT)
                        return say(ret_message, r, "%s has no rule %s", source.path, address);
                if (r == -ENOTUNIQ)
                        return say(ret_message, r, "several rules of %s start on line %s: name one by its id",
                                        source.path, address);
                if (r < 0)
                        return say(ret_message, r, "%s: bad rule address %s", source.path, address);
                edit.index = index;
        }

        if (req->move) {
                _cleanup_(rc_diagnostics_done) RcDiagnostics d = { 0 };
                _cleanup_(rc_move_result_done) RcMoveResult moved = { 0 };
                bool same = isempty(req->file) || streq(req->file, source.path);

                if (!same) {
                        r = edit_target_from_path(req->file, &dest, ret_message);
                        if (r < 0)
                                return r;
                        r = read_target(m, io_creds, &dest, &dest_text, &dest_size, ret_message);
                        if (r < 0)
                                return r;
                }
                r = rc_edit_move_rule(source.path, text, size, index, dest.path, dest_text, dest_size, req->edit.index,
                                &d, &moved);
                if (r < 0)
                        return say_diagnostics(ret_message, r, source.path, &d);
                new_text = TAKE_PTR(moved.source_text);
                new_size = moved.source_size;
                dest_new = TAKE_PTR(moved.destination_text);
                dest_new_size = moved.destination_size;
                r = rule_id_at(m, dest.path ? dest.path : source.path, dest.path ? dest_new : new_text,
                                dest.path ? dest_new_size : new_size, moved.index, &rule_id);
                if (r < 0 && r != -ENOENT)
                        return r;
        } else {
                r = apply(source.path, text, size, &edit, &new_text, &new_size, ret_message);
                if (r < 0)
                        return r;
                if (IN_SET(edit.operation, RC_EDIT_ADD_RULE, RC_EDIT_UPDATE_RULE)) {
                        r = rule_id_at(m, source.path, new_text, new_size, edit.index, &rule_id);
                        if (r < 0 && r != -ENOENT)
                                return r;
                }
        }

        if (dest.path) {
                r = append_diff(&diff, dest.path, dest_text, dest_size, dest_new, dest_new_size);
                if (r < 0)
                        return r;
        }
        r = append_diff(&diff, source.path, text, size, new_text, new_size);
        if (r < 0)
                return r;

        {
                const EditTarget *targets[2] = { &source, &dest };
                char *texts[2] = { new_text, dest_new };
                size_t sizes[2] = { new_size, dest_new_size };

                r = preview_texts(m, creds->uid, NULL, targets, texts, sizes, dest.path ? 2 : 1, &changes);
                if (r < 0)
                        return r;
        }

        if (!req->dry_run) {
                /* Into the destination first: a failure in between leaves the rule twice, never nowhere. */
                if (dest.path) {
                        r = write_target(m, &dest, dest_text, dest_size, dest_new, dest_new_size, ret_message);
                        if (r < 0)
                                return r;
                }
                r = write_target(m, &source, text, size, new_text, new_size, ret_message);
                if (r < 0)
                        return r;
                log_edit(creds, req, dest.path ? dest.path : source.path, rule_id);
                r = manager_reload(m);
                if (r < 0)
                        log_warning_errno(r, "Reloading after an edit failed");
        }

        *ret = (ManagerEditResult){
                .rule_id = TAKE_PTR(rule_id),
                .diff = diff ? TAKE_PTR(diff) : strdup(""),
                .changes = changes,
        };
        changes = (ManagerEditChanges){ 0 };
        return ret->diff ? 0 : -ENOMEM;
}

int manager_edit_preview(Manager *m, const UserCreds *creds, const char *home, const char *path, const char *text,
                size_t size, ManagerEditChanges *ret, char **ret_message)
{
        _cleanup_free_ char *entry = NULL;
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        EditTarget t = { 0 };
        const EditTarget *targets[1] = { &t };
        char *texts[1];
        size_t sizes[1] = { size };
        int r;

        assert(m);
        assert(creds);
        assert(path);
        assert(ret);

        if (size > RC_FILE_SIZE_MAX)
                return say(ret_message, -E2BIG, "an rc file is at most %u bytes", RC_FILE_SIZE_MAX);

        /* Which entry of the search path the file belongs to: only those can be previewed. */
        t.path = (char *) path;
        if (home) {
                const char *rest;

                r = rc_entry_path(RC_ENTRY_USER_FILE, home, NULL, &entry);
                if (r < 0)
                        return say(ret_message, r, "%s is not a usable home", home);
                if (streq(path, entry))
                        t.kind = RC_ENTRY_USER_FILE;
                else {
                        entry = mfree(entry);
                        r = rc_entry_path(RC_ENTRY_USER_DIR, home, NULL, &entry);
                        if (r < 0)
                                return r;
                        rest = after_prefix(path, entry);
                        if (!rest || rest[0] != '/' || !file_name_is_plain(rest + 1))
                                return say(ret_message, -EINVAL, "%s is not an rc file of %s", path, home);
                        t.kind = RC_ENTRY_USER_DIR;
                }
        } else {
                _cleanup_(edit_target_done) EditTarget s = { 0 };

                r = edit_target_from_path(path, &s, ret_message);
                if (r < 0)
                        return r;
                t.kind = s.kind;
        }

        texts[0] = (char *) text;
        r = preview_texts(m, creds->uid, home, targets, texts, sizes, 1, &changes);
        if (r < 0)
                return r;
        *ret = changes;
        changes = (ManagerEditChanges){ 0 };
        return 0;
}
