/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <locale.h>

#include "rc-model.h"
#include "rc-searchpath.h"
#include "strtable.h"
#include "user-creds.h"

/* A loaded configuration: every file of the search path as one process (one $HOME) sees it, with
 * cross-file profile references resolved. Immutable once loaded and reference counted, so resolutions
 * and bus replies can keep it alive across a reload. */

#define RC_DIR_NAMES_MAX 4096u /* names read from one rc.d directory */
#define RC_DIR_FILES_MAX 1024 /* regular files loaded from one rc.d directory, in collation order */
#define RC_GLOBALS_SIZE_MAX (64u * 1024u)

/* Loads one regular file from fd, already open for reading (st: its fstat(); path: where it is below
 * root_fd). The default,
 * rc_file_load_fd(), reads and parses it; the daemon passes its own to reuse unchanged files and keep the
 * last good state of broken ones. Returns negative only on OOM. */
typedef int (*RcLoadFileFunc)(int root_fd, int fd, const struct stat *st, const char *path,
                const RcSyntaxOptions *syntax, void *userdata, RcFile **ret);

typedef struct RcLoadOptions {
        int root_fd; /* the directory that is "/" for every configuration path */
        const char *home; /* $HOME of the target process; NULL when unset */
        const char *driver_version; /* NULL when unknown: the shipped file is skipped */
        RcSyntaxOptions syntax;
        locale_t collation; /* order of rc.d entries, strcoll(3); (locale_t) 0 means "C" */
        RcLoadFileFunc load_file;
        void *load_file_userdata;
        /* Whose access every file is opened with (user-creds.h): the target process's credentials, or a
         * D-Bus caller's. A file that user could not read does not count, system files included, since
         * the driver reads them inside the user's process. NULL: our own. */
        const UserCreds *creds;
        /* Bytes (text and model) the per-user entries of this configuration may take; 0: no limit. A file
         * beyond it is listed as skipped, never read. */
        uint64_t user_bytes_max;
        /* Whether the file with identity st is already held for this user (by another configuration of
         * the same user, sharing the parsed file): it then costs nothing against user_bytes_max. */
        bool (*user_file_is_held)(const struct stat *st, void *userdata);
        void *user_file_is_held_userdata;
} RcLoadOptions;

typedef enum RcEntryType {
        RC_ENTRY_NOT_APPLICABLE, /* no $HOME, or no driver version */
        RC_ENTRY_MISSING,
        RC_ENTRY_FILE,
        RC_ENTRY_DIRECTORY,
        RC_ENTRY_OTHER, /* fifo, socket, device: ignored */
        RC_ENTRY_UNREADABLE, /* see error */
        _RC_ENTRY_TYPE_MAX,
} RcEntryType;

typedef struct RcEntry {
        RcEntryKind kind;
        char *path; /* NULL when not applicable */
        RcEntryType type;
        int error; /* negative errno for RC_ENTRY_UNREADABLE */
        size_t n_files; /* records in RcConfig.files from this entry */
} RcEntry;

/* A rule in precedence order, with its profile resolved. */
typedef struct RcRuleRef {
        const RcRule *rule;
        const RcProfile *profile; /* NULL: the name resolves nowhere, the rule contributes nothing */
        uint32_t *key_ids; /* per setting of profile, into RcConfig.keys */
        uint32_t file_index;
        bool findfile_over_bound; /* its findfile names go past a bound (RC_FINDFILE_NAMES_MAX): never matches */
} RcRuleRef;

typedef struct RcConfig {
        unsigned n_ref;
        char *home, *driver_version;

        RcEntry entries[_RC_ENTRY_KIND_MAX];
        RcFile **files; /* every file read, skipped or broken, in precedence order */
        size_t n_files;
        RcFile *globals; /* NULL when $HOME is unset or the globals file does not exist */
        bool globals_enabled;

        RcRuleRef *rules; /* rules of loaded files, in precedence order */
        size_t n_rules, n_profiles;
        StrTable profile_names; /* name -> index into profiles_by_id */
        const RcProfile **profiles_by_id;
        StrTable keys; /* every setting key, interned */

        RcDiagnostics diagnostics; /* about the whole: duplicate names, dangling references, notes */
        uint64_t user_bytes; /* text and model of the files of per-user entries that were charged */
} RcConfig;

/* The default RcLoadFileFunc. */
int rc_file_load_fd(int root_fd, int fd, const struct stat *st, const char *path, const RcSyntaxOptions *syntax,
                void *userdata, RcFile **ret);

/* Opens path below root_fd with our own access and loads it: for tools and tests. A file that cannot be
 * read gives a record in state RC_FILE_SKIPPED saying why. */
int rc_file_load(int root_fd, const char *path, const RcSyntaxOptions *syntax, void *userdata, RcFile **ret);

/* Memory a loaded file takes: its text and its model. */
uint64_t rc_file_cost(const RcFile *f) _pure_;

/* Loads the configuration. Returns negative only on OOM or if root_fd is not usable; bad files are
 * recorded in the configuration, never fatal. */
int rc_config_load(const RcLoadOptions *options, RcConfig **ret);

/* Builds a configuration from files already loaded, in precedence order (for tests, and for "check"). */
int rc_config_new_from_files(RcFile *const *files, size_t n_files, RcConfig **ret);

/* A copy of c in which file takes the place of the file with its path, or, where c has none, is added among
 * the files of entry kind (in an rc.d directory, where collation puts its name): what c would be if that
 * file held what file holds. For previews of an edit. */
int rc_config_with_file(const RcConfig *c, RcEntryKind kind, RcFile *file, locale_t collation, RcConfig **ret);

RcConfig *rc_config_ref(RcConfig *c);
RcConfig *rc_config_unref(RcConfig *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(RcConfig *, rc_config_unref);

/* The profile named name, first definition in precedence order, or NULL. */
const RcProfile *rc_config_find_profile(const RcConfig *c, const char *name);

size_t rc_config_count_errors(const RcConfig *c);

const char *rc_entry_type_to_string(RcEntryType t) _const_;
