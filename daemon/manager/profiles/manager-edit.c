/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "rc-config-slots.h"
#include "manager-edit.h"
#include "rc-edit-transaction.h"
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

/* The entry of the search path that path is, if it is a file the daemon writes: the system's rc file
 * or a file of its rc.d directory. */
static int system_entry_kind_of(const char *path, RcEntryKind *ret, char **ret_message)
{
        _cleanup_free_ char *file = NULL, *dir = NULL;
        const char *rest;
        int r;

        assert(path);
        assert(ret);

        /* Before anything quotes it back: a caller's path is bounded as every other argument. */
        if (strlen(path) > PATH_MAX)
                return say(ret_message, -E2BIG, "a path is longer than %u bytes", PATH_MAX);
        r = rc_entry_path(RC_ENTRY_SYSTEM_FILE, NULL, NULL, &file);
        if (r < 0)
                return r;
        r = rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &dir);
        if (r < 0)
                return r;

        if (streq(path, file)) {
                *ret = RC_ENTRY_SYSTEM_FILE;
                return 0;
        }
        rest = after_prefix(path, dir);
        if (rest && rest[0] == '/' && file_name_is_plain(rest + 1)) {
                *ret = RC_ENTRY_SYSTEM_DIR;
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

static const UserCreds root_creds = { .uid = 0, .gid = 0 };

/* Whose access writes use: root's file access (fsuid 0; under the unit with no capability that grants
 * writing, CAP_DAC_OVERRIDE being none of ours: only what root's own files and directories allow), or, for
 * a daemon that cannot switch (an unprivileged instance, as in tests), its own. */
static const UserCreds *write_creds(void)
{
        return user_creds_can_switch() ? &root_creds : NULL;
}

static int parse_text(Manager *m, const char *path, const char *text, size_t size, RcFile **ret)
{
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };

        if (!text)
                return rc_file_parse(path, "{}", 2, &syntax, ret);
        return rc_file_parse(path, text, size, &syntax, ret);
}

/* The system file holding the rule with this id, among the files the writer may read, read as the edit
 * will read them (an rc edit transaction). Ids are computable by anyone (a hash of path, pattern,
 * profile and occurrence), so a rule in a file the caller cannot read is answered exactly as one that
 * does not exist: finding it, or naming its file, would confirm a guess about a file the caller may not
 * read. */
static int find_rule_file(Manager *m, const RcEditWriter *writer, const char *id, char **ret_path)
{
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };
        const RcConfig *c = m->profiles->system_config;

        if (!c)
                return -ENOENT;
        for (size_t i = 0; i < c->n_files; i++) {
                _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
                const char *path = c->files[i]->path;
                size_t index;
                int r;

                rc_edit_transaction_init(&t, writer, &syntax);
                r = rc_edit_transaction_open(&t, path);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 || !t.source.text)
                        continue; /* not the caller's to read (or gone): none of its rules is theirs to find */
                r = rc_edit_transaction_find_rule(&t, id, &index);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                *ret_path = strdup(path);
                return *ret_path ? 0 : -ENOMEM;
        }
        return -ENOENT;
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
        for (size_t i = 0; i < m->profiles->n_configs; i++)
                if (m->profiles->configs[i].config == c)
                        return &m->profiles->configs[i];
        return NULL;
}

static int preview(Manager *m, uid_t caller_uid, const char *home, const PreviewFile *files, size_t n_files,
                ManagerEditChanges *ret)
{
        Process *p;
        int r;

        for (size_t i = 0; intmap_next(&m->profiles->processes, &i, NULL, (void **) &p);) {
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

/* What the files (paths, of the entry kinds, holding texts) change for the processes. */
static int preview_texts(Manager *m, uid_t caller_uid, const char *home, const char *const *paths,
                const RcEntryKind *kinds, const char *const *texts, const size_t *sizes, size_t n,
                ManagerEditChanges *ret)
{
        RcFile *files[2] = { 0 };
        PreviewFile pf[2];
        int r = 0;

        assert(n <= 2);

        for (size_t i = 0; i < n && r >= 0; i++) {
                r = parse_text(m, paths[i], texts[i], sizes[i], &files[i]);
                pf[i] = (PreviewFile){ .kind = kinds[i], .file = files[i] };
        }
        if (r >= 0)
                r = preview(m, caller_uid, home, pf, n, ret);
        for (size_t i = 0; i < n; i++)
                rc_file_unref(files[i]);
        return r;
}

/* A system edit's preview, for rc_edit_transaction_preview(). */
typedef struct SystemPreview {
        Manager *m;
        uid_t caller_uid;
        ManagerEditChanges *changes;
} SystemPreview;

static int preview_system_files(const RcEditFile *const *files, size_t n, void *userdata)
{
        SystemPreview *sp = userdata;
        const char *paths[2], *texts[2];
        RcEntryKind kinds[2];
        size_t sizes[2];
        int r;

        assert(n <= 2);

        for (size_t i = 0; i < n; i++) {
                r = system_entry_kind_of(files[i]->path, &kinds[i], NULL);
                if (r < 0)
                        return r;
                paths[i] = files[i]->path;
                texts[i] = files[i]->new_text;
                sizes[i] = files[i]->new_size;
        }
        return preview_texts(sp->m, sp->caller_uid, NULL, paths, kinds, texts, sizes, n, sp->changes);
}

static void log_edit(const UserCreds *creds, const ManagerEditRequest *req, const char *path, const char *rule_id)
{
        char uidf[32];
        _cleanup_free_ char *filef = NULL, *rulef = NULL, *opf = NULL;
        const char *op = req->move ? "move-rule"
                        : req->edit.operation == _RC_EDIT_OPERATION_MAX
                        ? "revert"
                        : rc_edit_operation_to_string(req->edit.operation);

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

/* The path of the system file the request's rule is in. */
static int rule_source_path(Manager *m, const RcEditWriter *writer, const ManagerEditRequest *req, char **ret_path,
                char **ret_address, char **ret_message)
{
        _cleanup_free_ char *path = NULL, *address = NULL;
        int r;

        if (isempty(req->rule))
                return say(ret_message, -EINVAL, "no rule named");
        r = rc_rule_address_split(req->rule, &path, &address);
        if (r == -EINVAL)
                return say(ret_message, r, "%s is neither FILE:LINE nor a rule id", req->rule);
        if (r < 0)
                return r;
        if (!path) {
                r = find_rule_file(m, writer, address, &path);
                if (r == -ENOENT)
                        return say(ret_message, r, "no rule %s in the system's rc files", address);
                if (r < 0)
                        return r;
        }
        *ret_path = TAKE_PTR(path);
        *ret_address = TAKE_PTR(address);
        return 0;
}

/* Why rc_edit_transaction_prepare() failed, in words. */
static int say_prepare_failure(const RcEditTransaction *t, int error, const char *address, char **ret_message)
{
        const char *path = t->failed_path;

        switch (t->failed_step) {
        case RC_EDIT_STEP_READ:
                return say(ret_message, error, "%s: cannot read: %s", path, strerror(-error));
        case RC_EDIT_STEP_FIND_RULE:
                if (error == -ENOENT && !t->source.text)
                        return say(ret_message, error, "%s does not exist", path);
                if (error == -EBADMSG)
                        return say_diagnostics(ret_message, error, path, &t->diagnostics);
                if (error == -ENOENT)
                        return say(ret_message, error, "%s has no rule %s", path, address);
                if (error == -ENOTUNIQ)
                        return say(ret_message, error, "several rules of %s start on line %s: name one by its id", path,
                                        address);
                return say(ret_message, error, "%s: bad rule address %s", path, address);
        case RC_EDIT_STEP_EDIT:
        case _RC_EDIT_STEP_MAX:
                break;
        }
        return say_diagnostics(ret_message, error, path, &t->diagnostics);
}

static int commit(RcEditTransaction *t, char **ret_message)
{
        const char *path = NULL;
        int r;

        r = rc_edit_transaction_commit(t, &path);
        if (r == -ESTALE)
                return say(ret_message, r, "%s changed since it was read: nothing was written, try again", path);
        if (r < 0)
                return say(ret_message, r, "%s: cannot write: %s (the file is unchanged)", strna(path), strerror(-r));
        return 0;
}

/* A prepared edit's diff and preview, then (unless a dry run) its write, journal entry and reload. */
static int finish(Manager *m, const UserCreds *creds, const ManagerEditRequest *req, RcEditTransaction *t,
                ManagerEditResult *ret, char **ret_message)
{
        _cleanup_free_ char *diff = NULL;
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        SystemPreview sp = { .m = m, .caller_uid = creds->uid, .changes = &changes };
        int r;

        r = rc_edit_transaction_diff(t, &diff);
        if (r < 0)
                return r;
        r = rc_edit_transaction_preview(t, preview_system_files, &sp);
        if (r < 0)
                return r;

        if (!req->dry_run) {
                r = commit(t, ret_message);
                if (r < 0)
                        return r;
                log_edit(creds, req, t->destination.path ? t->destination.path : t->source.path, t->rule_id);
                r = manager_reload(m);
                if (r < 0)
                        log_warning_errno(r, "Reloading after an edit failed");
        }

        *ret = (ManagerEditResult){
                .rule_id = TAKE_PTR(t->rule_id),
                .diff = TAKE_PTR(diff),
                .changes = changes,
        };
        changes = (ManagerEditChanges){ 0 };
        return 0;
}

int manager_edit_system(Manager *m, const UserCreds *creds, const ManagerEditRequest *req, ManagerEditResult *ret,
                char **ret_message)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        _cleanup_free_ char *source_path = NULL, *address = NULL;
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };
        RcEditWriter writer = { .root_fd = m->root_fd };
        RcEditRequest edit;
        RcEntryKind kind;
        bool rule_op;
        int r;

        assert(m);
        assert(creds);
        assert(req);
        assert(ret);

        r = manager_edit_check_request(req, ret_message);
        if (r < 0)
                return r;

        /* A dry run shows the caller only what it may read itself; a write is authorised already. */
        writer.creds = req->dry_run ? creds : write_creds();
        rc_edit_transaction_init(&t, &writer, &syntax);
        rule_op = req->move || IN_SET(req->edit.operation, RC_EDIT_UPDATE_RULE, RC_EDIT_REMOVE_RULE);

        if (rule_op)
                r = rule_source_path(m, &writer, req, &source_path, &address, ret_message);
        else if (isempty(req->file))
                r = say(ret_message, -EINVAL, "no file named");
        else {
                source_path = strdup(req->file);
                r = source_path ? 0 : -ENOMEM;
        }
        if (r < 0)
                return r;

        r = system_entry_kind_of(source_path, &kind, ret_message);
        if (r < 0)
                return r;
        if (req->move && !isempty(req->file)) {
                r = system_entry_kind_of(req->file, &kind, ret_message);
                if (r < 0)
                        return r;
        }
        edit = (RcEditRequest){
                .path = source_path,
                .rule = rule_op ? address : NULL,
                .move = req->move,
                .destination = req->move && !isempty(req->file) ? req->file : NULL,
                .position = req->edit.index,
                .edit = req->edit,
        };
        r = rc_edit_transaction_prepare(&t, &edit);
        if (r < 0)
                return say_prepare_failure(&t, r, address, ret_message);

        return finish(m, creds, req, &t, ret, ret_message);
}

int manager_edit_revert(Manager *m, const UserCreds *creds, const char *path, const char *written, size_t written_size,
                const char *previous, size_t previous_size, bool dry_run, ManagerEditResult *ret, char **ret_message)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };
        RcEditWriter writer = { .root_fd = m->root_fd, .creds = dry_run ? creds : write_creds() };
        ManagerEditRequest logged = { .edit.operation = _RC_EDIT_OPERATION_MAX, .dry_run = dry_run };
        RcEntryKind kind;
        int r;

        assert(m);
        assert(creds);
        assert(path);
        assert(written);
        assert(ret);

        if (written_size > RC_FILE_SIZE_MAX || previous_size > RC_FILE_SIZE_MAX)
                return say(ret_message, -E2BIG, "an rc file is at most %u bytes", RC_FILE_SIZE_MAX);
        r = system_entry_kind_of(path, &kind, ret_message);
        if (r < 0)
                return r;

        rc_edit_transaction_init(&t, &writer, &syntax);
        r = rc_edit_transaction_revert(&t, path, written, written_size, previous, previous_size);
        if (r == -ESTALE)
                return say(ret_message, r, "%s changed since the edit: it is not reverted", path);
        if (r == -EBADMSG)
                return say_diagnostics(ret_message, r, path, &t.diagnostics);
        if (r < 0)
                return say(ret_message, r, "%s: cannot revert: %s", path, strerror(-r));

        return finish(m, creds, &logged, &t, ret, ret_message);
}

int manager_edit_read_system_file(Manager *m, const UserCreds *creds, const char *path, char **ret_text,
                size_t *ret_size, char **ret_message)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        RcSyntaxOptions syntax = { .accept_trailing_commas = m->config.accept_trailing_commas };
        /* With the caller's own access, as a dry run: it shows nobody a file they could not read. */
        RcEditWriter writer = { .root_fd = m->root_fd, .creds = creds };
        const RcEditFile *f = &t.source;
        RcEntryKind kind;
        int r;

        assert(m);
        assert(creds);
        assert(path);
        assert(ret_text);
        assert(ret_size);

        r = system_entry_kind_of(path, &kind, ret_message);
        if (r < 0)
                return r;

        rc_edit_transaction_init(&t, &writer, &syntax);
        r = rc_edit_transaction_open(&t, path);
        if (r == -EFBIG)
                return say(ret_message, r, "%s is larger than an rc file may be (%u bytes)", path, RC_FILE_SIZE_MAX);
        if (r < 0)
                return say(ret_message, r, "%s: cannot read: %s", path, strerror(-r));
        if (f->text && (memchr(f->text, 0, f->size) || !utf8_is_valid_n(f->text, f->size)))
                return say(ret_message, -EBADMSG, "%s is not UTF-8 text", path);

        *ret_size = f->text ? f->size : 0;
        *ret_text = TAKE_PTR(t.source.text);
        return 0;
}

int manager_edit_preview(Manager *m, const UserCreds *creds, const char *home, const char *path, const char *text,
                size_t size, ManagerEditChanges *ret, char **ret_message)
{
        _cleanup_free_ char *entry = NULL;
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        RcEntryKind kind;
        int r;

        assert(m);
        assert(creds);
        assert(path);
        assert(ret);

        if (size > RC_FILE_SIZE_MAX)
                return say(ret_message, -E2BIG, "an rc file is at most %u bytes", RC_FILE_SIZE_MAX);

        /* Which entry of the search path the file belongs to: only those can be previewed. */
        if (home) {
                const char *rest;

                r = rc_entry_path(RC_ENTRY_USER_FILE, home, NULL, &entry);
                if (r < 0)
                        return say(ret_message, r, "%s is not a usable home", home);
                if (streq(path, entry))
                        kind = RC_ENTRY_USER_FILE;
                else {
                        entry = mfree(entry);
                        r = rc_entry_path(RC_ENTRY_USER_DIR, home, NULL, &entry);
                        if (r < 0)
                                return r;
                        rest = after_prefix(path, entry);
                        if (!rest || rest[0] != '/' || !file_name_is_plain(rest + 1))
                                return say(ret_message, -EINVAL, "%s is not an rc file of %s", path, home);
                        kind = RC_ENTRY_USER_DIR;
                }
        } else {
                r = system_entry_kind_of(path, &kind, ret_message);
                if (r < 0)
                        return r;
        }

        r = preview_texts(m, creds->uid, home, &path, &kind, &text, &size, 1, &changes);
        if (r < 0)
                return r;
        *ret = changes;
        changes = (ManagerEditChanges){ 0 };
        return 0;
}
