/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "fileio.h"
#include "rc-config.h"
#include "string-util.h"

/* What open_for_reading_as()'s -EBADFD means: a fifo, a device, a socket, or a file on procfs, sysfs or
 * another pseudo file system, none of which the daemon reads for anyone. */
#define NOT_REGULAR_MESSAGE "not a regular file on a regular file system, ignored"

/* Why a file could not be read, as users read it. */
static int unread_message(int error, const UserCreds *creds, char **ret)
{
        int r;

        if (error == -EFBIG)
                r = asprintf(ret, "file larger than %u bytes, not read", RC_FILE_SIZE_MAX);
        else if (error == -EBADFD)
                r = asprintf(ret, NOT_REGULAR_MESSAGE);
        else if (IN_SET(error, -EACCES, -EPERM) && creds)
                r = asprintf(ret, "not readable by uid %u: does not apply to its processes", (unsigned) creds->uid);
        else
                r = asprintf(ret, "cannot read: %s", strerror(-error));
        return r < 0 ? -ENOMEM : 0;
}

/* A skipped file whose only content is why it could not be read (error). */
static int unread_file_new(const char *path, int error, const UserCreds *creds, RcFile **ret)
{
        _cleanup_free_ char *msg = NULL;
        int r;

        r = unread_message(error, creds, &msg);
        if (r < 0)
                return r;
        return rc_file_new_unread(path, RC_FILE_SKIPPED, RC_SEVERITY_WARNING, msg, ret);
}

int rc_file_load_fd(int root_fd, int fd, const struct stat *st, const char *path, const RcSyntaxOptions *syntax,
                void *userdata, RcFile **ret)
{
        _cleanup_free_ char *text = NULL;
        size_t size;
        RcFile *f;
        int r;

        (void) root_fd;
        (void) userdata;
        assert(fd >= 0);
        assert(st);
        assert(path);
        assert(ret);

        r = read_full_fd(fd, RC_FILE_SIZE_MAX, &text, &size);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return unread_file_new(path, r, NULL, ret);

        r = rc_file_parse(path, text, size, syntax, &f);
        if (r < 0)
                return r;
        rc_file_set_identity(f, st);
        *ret = f;
        return 0;
}

int rc_file_load(int root_fd, const char *path, const RcSyntaxOptions *syntax, void *userdata, RcFile **ret)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = open_for_reading_as(NULL, root_fd, path, &st);
        if (fd >= 0 && !S_ISREG(st.st_mode))
                fd = safe_close(fd), fd = -EBADFD;
        if (fd < 0)
                return unread_file_new(path, fd, NULL, ret);
        return rc_file_load_fd(root_fd, fd, &st, path, syntax, userdata, ret);
}

uint64_t rc_file_cost(const RcFile *f)
{
        return f->size + f->arena.total;
}

static RcConfig *config_new(void)
{
        RcConfig *c = calloc(1, sizeof(RcConfig));
        if (!c)
                return NULL;
        c->n_ref = 1;
        c->globals_enabled = true;
        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++)
                c->entries[k] = (RcEntry){ .kind = k, .type = RC_ENTRY_NOT_APPLICABLE };
        return c;
}

/* Takes file, also on failure. */
static int config_add_file(RcConfig *c, RcFile *file, size_t *allocated)
{
        _cleanup_(rc_file_unrefp) RcFile *f = file;

        if (GREEDY_REALLOC(c->files, *allocated, c->n_files + 1) < 0)
                return -ENOMEM;
        c->files[c->n_files++] = TAKE_PTR(f);
        return 0;
}

static int add_unread(RcConfig *c, size_t *allocated, const char *path, RcSeverity severity, const char *why)
{
        RcFile *f;
        int r;

        r = rc_file_new_unread(path, RC_FILE_SKIPPED, severity, why, &f);
        if (r < 0)
                return r;
        return config_add_file(c, f, allocated);
}

/* Lists path as not read, saying why (error) as users read it. */
static int add_unreadable(RcConfig *c, size_t *allocated, const char *path, int error, const UserCreds *creds)
{
        RcFile *f;
        int r;

        r = unread_file_new(path, error, creds, &f);
        if (r < 0)
                return r;
        return config_add_file(c, f, allocated);
}

typedef struct DirName {
        char *name;
} DirName;

typedef struct DirNames {
        DirName *items;
        size_t n, allocated;
} DirNames;

static void dir_names_freep(DirNames *names)
{
        for (size_t i = 0; i < names->n; i++)
                free(names->items[i].name);
        free(names->items);
}

static int dir_name_compare(const void *a, const void *b, void *userdata)
{
        const DirName *x = a, *y = b;
        locale_t collation = userdata;

        return collation ? strcoll_l(x->name, y->name, collation) : strcmp(x->name, y->name);
}

/* Loads the regular file at path, opened (with the user's access) as fd, unless the budget for per-user
 * entries is spent. */
static int load_regular(RcConfig *c, size_t *allocated, const RcLoadOptions *o, RcEntryKind kind, int fd,
                const struct stat *st, const char *path)
{
        bool charged = o->user_bytes_max > 0 && rc_entry_kind_is_user(kind) &&
                        !(o->user_file_is_held && o->user_file_is_held(st, o->user_file_is_held_userdata));
        RcFile *f;
        int r;

        /* The size says what reading would cost at least; refuse before reading. */
        if (charged && c->user_bytes + (uint64_t) st->st_size > o->user_bytes_max)
                return add_unread(c, allocated, path, RC_SEVERITY_WARNING,
                                "beyond this user's memory budget for rc files (Limits: UserRcBytesMax=), not read");

        r = o->load_file(o->root_fd, fd, st, path, &o->syntax, o->load_file_userdata, &f);
        if (r < 0)
                return r;
        if (charged)
                c->user_bytes += rc_file_cost(f);
        return config_add_file(c, f, allocated);
}

/* Reads an rc.d directory: regular files (or links to them) in strcoll order; anything else is listed as
 * skipped with the reason, so "why was my file not read?" has an answer. Every entry is opened with the
 * user's access, like the directory itself. */
static int load_directory(RcConfig *c, size_t *allocated, const RcLoadOptions *o, RcEntryKind kind, int dir_fd,
                const char *path, size_t *ret_n)
{
        _cleanup_close_ int owned_dir_fd = dir_fd;
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_(dir_names_freep) DirNames names = { 0 };
        size_t n_before = c->n_files, n_loaded = 0;
        bool truncated = false;
        struct dirent *de;
        int r;

        d = fdopendir(owned_dir_fd);
        if (!d)
                return -errno;
        TAKE_FD(owned_dir_fd); /* d owns it now */

        while ((errno = 0, de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (names.n >= RC_DIR_NAMES_MAX) {
                        truncated = true;
                        break;
                }
                if (GREEDY_REALLOC(names.items, names.allocated, names.n + 1) < 0)
                        return -ENOMEM;
                names.items[names.n].name = strdup(de->d_name);
                if (!names.items[names.n].name)
                        return -ENOMEM;
                names.n++;
        }

        if (names.n > 1)
                qsort_r(names.items, names.n, sizeof(DirName), dir_name_compare, o->collation);

        for (size_t i = 0; i < names.n; i++) {
                _cleanup_free_ char *p = path_join(path, names.items[i].name);
                _cleanup_close_ int fd = -EBADF;
                struct stat st;

                if (!p)
                        return -ENOMEM;

                fd = open_for_reading_as(o->creds, o->root_fd, p, &st);
                if (fd == -ENOENT)
                        r = add_unread(c, allocated, p, RC_SEVERITY_NOTE, "dangling symlink, ignored");
                else if (fd == -EBADFD)
                        r = add_unread(c, allocated, p, RC_SEVERITY_NOTE, NOT_REGULAR_MESSAGE);
                else if (fd >= 0 && S_ISDIR(st.st_mode))
                        r = add_unread(c, allocated, p, RC_SEVERITY_NOTE, "directory, ignored (rc.d is not recursive)");
                else if (fd < 0)
                        r = add_unreadable(c, allocated, p, fd, o->creds);
                else if (n_loaded >= RC_DIR_FILES_MAX)
                        r = add_unread(c, allocated, p, RC_SEVERITY_WARNING,
                                        "beyond the first " STRINGIFY(
                                                        RC_DIR_FILES_MAX) " files of the directory, ignored");
                else {
                        r = load_regular(c, allocated, o, kind, fd, &st, p);
                        n_loaded++;
                }
                if (r < 0)
                        return r;
        }

        if (truncated) {
                r = rc_diagnostics_add(&c->diagnostics, RC_SEVERITY_WARNING, 0, 0,
                                "%s: more than %u entries; only the first %u read are considered", path,
                                RC_DIR_NAMES_MAX, RC_DIR_NAMES_MAX);
                if (r < 0)
                        return r;
        }

        *ret_n = c->n_files - n_before;
        return 0;
}

static int load_entry(RcConfig *c, size_t *allocated, const RcLoadOptions *o, RcEntry *e)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        r = rc_entry_path(e->kind, o->home, o->driver_version, &e->path);
        if (r == -ENOENT || r == -EINVAL) {
                e->type = RC_ENTRY_NOT_APPLICABLE;
                return 0;
        }
        if (r < 0)
                return r;

        fd = open_for_reading_as(o->creds, o->root_fd, e->path, &st);
        if (fd == -ENOENT) {
                e->type = RC_ENTRY_MISSING;
                return 0;
        }
        if (fd == -EBADFD) {
                /* Said where users look, as for an rc.d entry: "why is my file not read?" */
                e->type = RC_ENTRY_OTHER;
                r = add_unread(c, allocated, e->path, RC_SEVERITY_NOTE, NOT_REGULAR_MESSAGE);
                if (r < 0)
                        return r;
                e->n_files = 1; /* the record just added */
                return 0;
        }
        if (fd < 0) {
                e->type = RC_ENTRY_UNREADABLE;
                e->error = fd;
                if (!IN_SET(fd, -EACCES, -EPERM))
                        return 0;
                /* Say so where users look: the file (or directory) exists, and does not count. */
                r = add_unreadable(c, allocated, e->path, fd, o->creds);
                if (r < 0)
                        return r;
                e->n_files = 1;
                return 0;
        }

        if (S_ISREG(st.st_mode)) {
                e->type = RC_ENTRY_FILE;
                r = load_regular(c, allocated, o, e->kind, fd, &st, e->path);
                if (r < 0)
                        return r;
                e->n_files = 1;
                return 0;
        }

        e->type = RC_ENTRY_DIRECTORY;
        r = load_directory(c, allocated, o, e->kind, TAKE_FD(fd), e->path, &e->n_files);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                e->type = RC_ENTRY_UNREADABLE;
                e->error = r;
        }
        return 0;
}

/* Reads the globals file opened as fd (a negative fd is why it could not be opened). */
static int read_globals(int fd, const struct stat *st, char **ret_text, size_t *ret_size)
{
        if (fd < 0)
                return fd;
        if (!S_ISREG(st->st_mode))
                return -EBADFD;
        return read_full_fd(fd, RC_GLOBALS_SIZE_MAX, ret_text, ret_size);
}

/* The globals file: a JSON object whose "enabled" is true or false. Missing or unreadable means enabled
 * (README). We read it with the rc reader, so '#' comments work; nvidia-settings reads it as plain JSON. */
static int load_globals(RcConfig *c, const RcLoadOptions *o)
{
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        struct json_object *enabled;
        RcDocument doc;
        struct stat st;
        size_t size;
        int r;

        if (!o->home || o->home[0] != '/')
                return 0;

        path = path_join(o->home, RC_GLOBALS_FILE_NAME);
        if (!path)
                return -ENOMEM;

        fd = open_for_reading_as(o->creds, o->root_fd, path, &st);
        if (fd == -ENOENT)
                return 0;
        r = read_globals(fd, &st, &text, &size);
        if (r == -ENOMEM)
                return r;

        f = rc_file_new(path);
        if (!f)
                return -ENOMEM;

        if (r < 0) {
                _cleanup_free_ char *msg = NULL;

                f->state = RC_FILE_SKIPPED;
                r = unread_message(r, o->creds, &msg);
                if (r < 0)
                        return r;
                r = rc_diagnostics_add(&f->diagnostics, RC_SEVERITY_WARNING, 0, 0,
                                "%s; application profiles stay enabled", msg);
        } else {
                r = rc_document_parse(text, size, &o->syntax, &f->diagnostics, &doc);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        f->state = RC_FILE_BROKEN;
                        r = rc_diagnostics_add(&f->diagnostics, RC_SEVERITY_NOTE, 0, 0,
                                        "unparsable globals file: application profiles stay enabled");
                } else {
                        if (json_object_object_get_ex(doc.root, "enabled", &enabled)) {
                                if (json_object_is_type(enabled, json_type_boolean))
                                        c->globals_enabled = json_object_get_boolean(enabled);
                                else {
                                        const RcNode *n = rc_node_member(&doc, &doc.nodes[0], "enabled", NULL);
                                        f->state = RC_FILE_BROKEN;
                                        r = rc_diagnostics_add(&f->diagnostics, RC_SEVERITY_ERROR, n ? n->line : 0,
                                                        n ? n->column : 0,
                                                        "\"enabled\" must be true or false; application "
                                                        "profiles stay enabled");
                                }
                        }
                        rc_document_done(&doc);
                }
        }
        if (r < 0)
                return r;

        c->globals = TAKE_PTR(f);
        return 0;
}

typedef struct ProfileDef {
        const RcProfile *profile;
        uint32_t file_index;
} ProfileDef;

static int profile_def_compare(const void *a, const void *b)
{
        const ProfileDef *x = a, *y = b;

        if (x->file_index != y->file_index)
                return x->file_index < y->file_index ? -1 : 1;
        if (x->profile->location.line != y->profile->location.line)
                return x->profile->location.line < y->profile->location.line ? -1 : 1;
        if (x->profile->location.column != y->profile->location.column)
                return x->profile->location.column < y->profile->location.column ? -1 : 1;
        return 0;
}

/* Profile names are global across files: first definition in precedence order wins, as in nvidia-settings
 * (which renames later copies to <name>_duplicate_<n>). Named inline profiles define names too, as in
 * nvidia-settings. */
static int collect_profiles(RcConfig *c)
{
        _cleanup_free_ ProfileDef *defs = NULL;
        size_t n = 0, allocated = 0;
        int r;

        for (size_t i = 0; i < c->n_files; i++) {
                const RcFile *f = c->files[i];

                if (f->state != RC_FILE_LOADED)
                        continue;
                for (size_t j = 0; j < f->n_profiles; j++) {
                        if (GREEDY_REALLOC(defs, allocated, n + 1) < 0)
                                return -ENOMEM;
                        defs[n++] = (ProfileDef){ &f->profiles[j], (uint32_t) i };
                }
                for (size_t j = 0; j < f->n_rules; j++) {
                        const RcProfile *p = f->rules[j].inline_profile;
                        if (!p || !p->name)
                                continue;
                        if (GREEDY_REALLOC(defs, allocated, n + 1) < 0)
                                return -ENOMEM;
                        defs[n++] = (ProfileDef){ p, (uint32_t) i };
                }
        }

        qsort_safe(defs, n, sizeof(ProfileDef), profile_def_compare);

        c->profiles_by_id = calloc(MAX(n, (size_t) 1), sizeof(RcProfile *));
        if (!c->profiles_by_id)
                return -ENOMEM;

        for (size_t i = 0; i < n; i++) {
                const RcProfile *p = defs[i].profile;
                bool is_new;

                r = strtable_put(&c->profile_names, p->name, &is_new);
                if (r < 0)
                        return r;
                if (is_new) {
                        c->profiles_by_id[r] = p;
                        continue;
                }

                const RcProfile *first = c->profiles_by_id[r];
                r = rc_diagnostics_add_at(&c->diagnostics, p->location.file->path, RC_SEVERITY_WARNING,
                                p->location.line, p->location.column,
                                "profile \"%s\" is already defined at %s:%u:%u, which takes precedence; this "
                                "definition is ignored",
                                p->name, first->location.file->path, first->location.line, first->location.column);
                if (r < 0)
                        return r;
        }
        c->n_profiles = c->profile_names.n_keys;
        return 0;
}

/* Marks the rules whose findfile names go past a bound (rc-model.h), in precedence order: what is left
 * is at most RC_FINDFILE_NAMES_MAX lookups for any resolution. */
static int bound_findfile(RcConfig *c)
{
        uint32_t total = 0;
        int r;

        for (size_t i = 0; i < c->n_rules; i++) {
                RcRuleRef *ref = &c->rules[i];
                const RcRule *rule = ref->rule;

                if (rule->n_findfile_names == 0)
                        continue;
                /* Its own file already says why. */
                if (rule->n_findfile_names > RC_FINDFILE_RULE_NAMES_MAX) {
                        ref->findfile_over_bound = true;
                        continue;
                }
                if (rule->n_findfile_names <= RC_FINDFILE_NAMES_MAX - total) {
                        total += rule->n_findfile_names;
                        continue;
                }
                ref->findfile_over_bound = true;
                r = rc_diagnostics_add_at(&c->diagnostics, c->files[ref->file_index]->path, RC_SEVERITY_WARNING,
                                rule->location.line, rule->location.column,
                                "rule's findfile names take the rules before it past %u names in all; the rule "
                                "never matches",
                                RC_FINDFILE_NAMES_MAX);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int resolve_rules(RcConfig *c)
{
        size_t n = 0;
        int r;

        for (size_t i = 0; i < c->n_files; i++)
                if (c->files[i]->state == RC_FILE_LOADED)
                        n += c->files[i]->n_rules;

        c->rules = calloc(MAX(n, (size_t) 1), sizeof(RcRuleRef));
        if (!c->rules)
                return -ENOMEM;

        for (size_t i = 0; i < c->n_files; i++) {
                const RcFile *f = c->files[i];

                if (f->state != RC_FILE_LOADED)
                        continue;

                for (size_t j = 0; j < f->n_rules; j++) {
                        const RcRule *rule = &f->rules[j];
                        RcRuleRef *ref = &c->rules[c->n_rules++];

                        *ref = (RcRuleRef){ .rule = rule, .file_index = (uint32_t) i };
                        ref->profile = rule->inline_profile ? rule->inline_profile
                                                            : rc_config_find_profile(c, rule->profile_name);
                        if (!ref->profile) {
                                r = rc_diagnostics_add_at(&c->diagnostics, f->path, RC_SEVERITY_WARNING,
                                                rule->location.line, rule->location.column,
                                                "rule refers to profile \"%s\", which no file in the search path "
                                                "defines; the rule contributes nothing",
                                                rule->profile_name);
                                if (r < 0)
                                        return r;
                                continue;
                        }

                        ref->key_ids = calloc(MAX(ref->profile->n_settings, (size_t) 1), sizeof(uint32_t));
                        if (!ref->key_ids)
                                return -ENOMEM;
                        for (size_t k = 0; k < ref->profile->n_settings; k++) {
                                r = strtable_put(&c->keys, ref->profile->settings[k].key, NULL);
                                if (r < 0)
                                        return r;
                                ref->key_ids[k] = (uint32_t) r;
                        }
                }
        }
        return bound_findfile(c);
}

static int config_finish(RcConfig *c)
{
        int r;

        r = collect_profiles(c);
        if (r < 0)
                return r;
        return resolve_rules(c);
}

static int note_shipped(RcConfig *c, const RcLoadOptions *o)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        bool unversioned;

        fd = open_in_root(o->root_fd, RC_SHIPPED_UNVERSIONED, O_PATH);
        unversioned = fd >= 0 && fstat(fd, &st) >= 0 && S_ISREG(st.st_mode);

        if (!o->driver_version)
                return rc_diagnostics_add(&c->diagnostics, RC_SEVERITY_NOTE, 0, 0,
                                "NVIDIA driver version unknown: the shipped profiles "
                                "(/usr/share/nvidia/nvidia-application-profiles-<version>-rc) are not read%s",
                                unversioned ? "; " RC_SHIPPED_UNVERSIONED " exists but the driver never reads "
                                              "the unversioned name"
                                            : "");
        if (unversioned)
                return rc_diagnostics_add_at(&c->diagnostics, RC_SHIPPED_UNVERSIONED, RC_SEVERITY_NOTE, 0, 0,
                                "not read: the driver only reads the versioned name %s",
                                c->entries[RC_ENTRY_SHIPPED].path ? c->entries[RC_ENTRY_SHIPPED].path
                                                                  : "(invalid version)");
        return 0;
}

int rc_config_load(const RcLoadOptions *options, RcConfig **ret)
{
        _cleanup_(rc_config_unrefp) RcConfig *c = NULL;
        RcLoadOptions o;
        size_t allocated = 0;
        int r;

        assert(options);
        assert(ret);

        o = *options;
        if (!o.load_file)
                o.load_file = rc_file_load_fd;
        if (o.root_fd < 0)
                return -EBADF;

        c = config_new();
        if (!c)
                return -ENOMEM;

        if (o.home) {
                c->home = strdup(o.home);
                if (!c->home)
                        return -ENOMEM;
        }
        if (o.driver_version) {
                c->driver_version = strdup(o.driver_version);
                if (!c->driver_version)
                        return -ENOMEM;
        }

        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                r = load_entry(c, &allocated, &o, &c->entries[k]);
                if (r < 0)
                        return r;
        }

        r = load_globals(c, &o);
        if (r < 0)
                return r;
        r = note_shipped(c, &o);
        if (r < 0)
                return r;
        r = config_finish(c);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(c);
        return 0;
}

int rc_config_new_from_files(RcFile *const *files, size_t n_files, RcConfig **ret)
{
        _cleanup_(rc_config_unrefp) RcConfig *c = NULL;
        size_t allocated = 0;
        int r;

        assert(files || n_files == 0);
        assert(ret);

        c = config_new();
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n_files; i++) {
                r = config_add_file(c, rc_file_ref(files[i]), &allocated);
                if (r < 0)
                        return r;
        }
        r = config_finish(c);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(c);
        return 0;
}

static size_t file_name_offset(const char *path)
{
        const char *slash = strrchr(path, '/');

        return slash ? (size_t) (slash - path) + 1 : 0;
}

int rc_config_with_file(const RcConfig *c, RcEntryKind kind, RcFile *file, locale_t collation, RcConfig **ret)
{
        _cleanup_free_ RcFile **files = NULL;
        _cleanup_(rc_config_unrefp) RcConfig *copy = NULL;
        size_t n = 0, first = 0, at;
        bool present = false;
        int r;

        assert(c);
        assert(kind >= 0 && kind < _RC_ENTRY_KIND_MAX);
        assert(file);
        assert(ret);

        files = calloc(c->n_files + 1, sizeof(RcFile *));
        if (!files)
                return -ENOMEM;

        /* Files are in precedence order, entry after entry: where kind's files begin. */
        for (RcEntryKind k = 0; k < kind; k++)
                first += c->entries[k].n_files;
        first = MIN(first, c->n_files);
        at = first;
        if (kind == RC_ENTRY_USER_DIR || kind == RC_ENTRY_SYSTEM_DIR) {
                const char *name = file->path + file_name_offset(file->path);

                /* A new file of a directory goes where the driver's strcoll() order puts it. */
                for (size_t i = first; i < first + c->entries[kind].n_files && i < c->n_files; i++) {
                        const char *other = c->files[i]->path + file_name_offset(c->files[i]->path);

                        if ((collation ? strcoll_l(other, name, collation) : strcmp(other, name)) < 0)
                                at = i + 1;
                }
        }

        for (size_t i = 0; i < c->n_files; i++)
                if (streq(c->files[i]->path, file->path))
                        present = true;
        for (size_t i = 0; i < c->n_files; i++) {
                if (!present && i == at)
                        files[n++] = file;
                files[n++] = present && streq(c->files[i]->path, file->path) ? file : c->files[i];
        }
        if (!present && at == c->n_files)
                files[n++] = file;

        r = rc_config_new_from_files(files, n, &copy);
        if (r < 0)
                return r;
        copy->globals_enabled = c->globals_enabled;
        copy->globals = rc_file_ref(c->globals);
        *ret = TAKE_PTR(copy);
        return 0;
}

RcConfig *rc_config_ref(RcConfig *c)
{
        if (c)
                c->n_ref++;
        return c;
}

RcConfig *rc_config_unref(RcConfig *c)
{
        if (!c)
                return NULL;
        assert(c->n_ref > 0);
        if (--c->n_ref > 0)
                return NULL;

        for (size_t i = 0; i < c->n_rules; i++)
                free(c->rules[i].key_ids);
        free(c->rules);
        free(c->profiles_by_id);
        strtable_done(&c->profile_names);
        strtable_done(&c->keys);
        rc_diagnostics_done(&c->diagnostics);
        for (size_t i = 0; i < c->n_files; i++)
                rc_file_unref(c->files[i]);
        free(c->files);
        rc_file_unref(c->globals);
        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++)
                free(c->entries[k].path);
        free(c->home);
        free(c->driver_version);
        return mfree(c);
}

const RcProfile *rc_config_find_profile(const RcConfig *c, const char *name)
{
        int id;

        assert(c);

        if (!name)
                return NULL;
        id = strtable_get(&c->profile_names, name);
        return id < 0 ? NULL : c->profiles_by_id[id];
}

size_t rc_config_count_errors(const RcConfig *c)
{
        size_t n = c->diagnostics.n_errors;

        for (size_t i = 0; i < c->n_files; i++)
                n += c->files[i]->diagnostics.n_errors;
        if (c->globals)
                n += c->globals->diagnostics.n_errors;
        return n;
}

const char *rc_entry_type_to_string(RcEntryType t)
{
        switch (t) {
        case RC_ENTRY_NOT_APPLICABLE:
                return "not-applicable";
        case RC_ENTRY_MISSING:
                return "missing";
        case RC_ENTRY_FILE:
                return "file";
        case RC_ENTRY_DIRECTORY:
                return "directory";
        case RC_ENTRY_OTHER:
                return "other";
        case RC_ENTRY_UNREADABLE:
                return "unreadable";
        case _RC_ENTRY_TYPE_MAX:
                break;
        }
        return NULL;
}
