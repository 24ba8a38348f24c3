/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include "arena.h"
#include "rc-diagnostic.h"
#include "rc-reader.h"

/* The application-profile model: what one rc file says, with where it says it.
 * Grammar: NVIDIA README "Application Profiles"; decisions: docs in rc-file.c. */

typedef struct RcFile RcFile;

typedef struct RcLocation {
        const RcFile *file;
        uint32_t line, column;
} RcLocation;

typedef enum RcValueType {
        RC_VALUE_STRING,
        RC_VALUE_INTEGER, /* fits in int64 */
        RC_VALUE_UNSIGNED, /* above INT64_MAX, fits in uint64 */
        RC_VALUE_REAL,
        RC_VALUE_BOOLEAN,
        _RC_VALUE_TYPE_MAX,
} RcValueType;

typedef struct RcValue {
        RcValueType type;
        union {
                const char *string;
                int64_t integer;
                uint64_t unsigned_integer;
                double real;
                bool boolean;
        };
} RcValue;

typedef struct RcSetting {
        const char *key; /* opaque: the driver accepts any key, e.g. registry ids like "0x528ab3" */
        RcValue value;
        RcLocation location; /* of the key */
} RcSetting;

typedef struct RcProfile {
        const char *name; /* NULL for an unnamed inline profile */
        RcSetting *settings;
        size_t n_settings;
        RcLocation location;
        bool is_inline;
} RcProfile;

typedef enum RcFeature {
        RC_FEATURE_TRUE,
        RC_FEATURE_PROCNAME,
        RC_FEATURE_COMMNAME,
        RC_FEATURE_CMDLINE,
        RC_FEATURE_DSO,
        RC_FEATURE_FINDFILE,
        RC_FEATURE_UNKNOWN, /* never matches, reported when loading */
        _RC_FEATURE_MAX,
} RcFeature;

typedef enum RcPatternKind {
        RC_PATTERN_MATCH, /* {"feature": ..., "matches": ...}, or a string (procname shorthand) */
        RC_PATTERN_AND, /* {"op": "and"}, or a pattern array (implicit and) */
        RC_PATTERN_OR,
        RC_PATTERN_NOT, /* true iff exactly one operand and it does not match */
        RC_PATTERN_UNKNOWN_OP, /* never matches, reported when loading */
        _RC_PATTERN_KIND_MAX,
} RcPatternKind;

typedef struct RcPattern RcPattern;
struct RcPattern {
        RcPatternKind kind;
        RcFeature feature;
        const char *feature_name; /* as written, for RC_PATTERN_MATCH */
        const char *op_name; /* as written, for ops */
        const char *matches; /* NULL only for "true" without "matches" */
        RcPattern *sub;
        size_t n_sub;
        RcLocation location;
        bool shorthand; /* written as a string or as an array */
};

/* findfile looks names up in the file system, on the daemon's main loop, with the process owner's access:
 * bounded so that no rc file, and no previewed text, can make a resolution slow. A rule whose findfile
 * lists name more than RC_FINDFILE_RULE_NAMES_MAX files never matches (its file says why in a warning);
 * neither does a rule whose names would take the configuration past RC_FINDFILE_NAMES_MAX, counting every
 * rule's findfile names in precedence order, which is the most one resolution looks up (the configuration
 * says why). NVIDIA's shipped rules name one file each. */
#define RC_FINDFILE_RULE_NAMES_MAX 16u
#define RC_FINDFILE_NAMES_MAX 64u

typedef struct RcRule {
        RcPattern pattern;
        const char *profile_name; /* a reference by name, or NULL */
        RcProfile *inline_profile; /* or a profile written in the rule */
        RcLocation location;
        uint32_t index; /* 0-based, within its file */
        bool uses_dso; /* some primitive tests "dso": the result may change once libraries are mapped */
        uint32_t n_findfile_names; /* names in all its findfile lists together (saturating) */
} RcRule;

typedef enum RcFileState {
        RC_FILE_LOADED, /* parsed; may have warnings */
        RC_FILE_BROKEN, /* has errors; contributes nothing */
        RC_FILE_SKIPPED, /* not read: not a regular file, unreadable, too many entries... */
        _RC_FILE_STATE_MAX,
} RcFileState;

struct RcFile {
        unsigned n_ref;
        char *path; /* as the target process sees it */
        RcFileState state;
        Arena arena;
        RcRule *rules;
        size_t n_rules;
        RcProfile *profiles;
        size_t n_profiles;
        RcDiagnostics diagnostics;
        RcPortability portability; /* what other programs cannot read (loaded files only) */

        /* What was read, to tell whether the file changed. */
        dev_t dev;
        ino_t ino;
        int64_t mtime_nsec;
        uint64_t size;
        /* Who may read it: the daemon serves a file's last good version only to users who may read the
         * file as it is now, with the same owner and mode. */
        uid_t owner;
        gid_t group;
        mode_t mode;
};

/* A new, empty record for path in state RC_FILE_LOADED. */
RcFile *rc_file_new(const char *path);

/* Parses text as the rc file at path. Returns 0 with *ret set, also when the file is broken (its state
 * and diagnostics say so); negative only on OOM. */
int rc_file_parse(const char *path, const char *text, size_t size, const RcSyntaxOptions *options, RcFile **ret);

/* Creates a file record that was not parsed (RC_FILE_SKIPPED or RC_FILE_BROKEN) with one diagnostic. */
int rc_file_new_unread(const char *path, RcFileState state, RcSeverity severity, const char *message, RcFile **ret);

RcFile *rc_file_ref(RcFile *f);
RcFile *rc_file_unref(RcFile *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(RcFile *, rc_file_unref);

/* What was read, to tell whether the file changed since: device, inode, size, mtime. */
void rc_file_set_identity(RcFile *f, const struct stat *st);
bool rc_file_same_identity(const RcFile *f, const struct stat *st) _pure_;
/* Whether st has the owner, group and mode f had when read. */
bool rc_file_same_access(const RcFile *f, const struct stat *st) _pure_;

/* Formats a value the way rc files write it: true, 3, 0.5, "DP-3". */
int rc_value_format(const RcValue *v, char **ret);

const char *rc_feature_to_string(RcFeature f) _const_;
RcFeature rc_feature_from_string(const char *s) _pure_;
const char *rc_file_state_to_string(RcFileState s) _const_;
const char *rc_value_type_to_string(RcValueType t) _const_;
