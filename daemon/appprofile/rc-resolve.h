/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-config.h"
#include "user-creds.h"

/* Which rules match a process and which settings take effect, and why.
 *
 * Features (README "Supported Features"; ../shared/docs/appprofiles.md §1.5 for the evidence):
 *   procname  basename of the executable (/proc/<pid>/exe), " (deleted)" stripped;
 *   commname  /proc/<pid>/comm (at most 15 characters);
 *   cmdline   argv[0] with leading directories removed, split on '/' and '\' (Wine paths);
 *   dso       basenames of the mapped files, PREFIX match: NVIDIA's own rules name "libmutter" for
 *             libmutter-15.so.0 and "libcogl.so" for libcogl.so.20, so equality cannot be what the driver
 *             does; prefix is the weakest rule all shipped names agree with (substring is unverified);
 *   findfile  every ':'-separated name exists in the executable's directory, inside the process's root, as the
 *             process's owner sees it (its access, no link followed: rc-resolve.c says why), bounded in
 *             names per rule and per resolution (RC_FINDFILE_*_MAX, rc-model.h);
 *   true      always.
 * Precedence: every matching rule contributes; for each key the first rule in precedence order wins.
 * Environment variables outrank profiles; __GL_APPLICATION_PROFILE=0/1 overrides the globals file. */

typedef struct RcProcessFacts {
        const char *exe; /* executable path; may end in " (deleted)"; NULL if unknown */
        const char *comm; /* NULL if unknown */
        char **argv; /* NULL if unknown */
        char **dsos; /* mapped file paths (or basenames); NULL if unknown */
        char **environ; /* "NAME=value"; NULL if unknown */
        int root_fd; /* the process's root (/proc/<pid>/root) for findfile; negative: use exe_dir_files */
        const UserCreds *creds; /* whose access findfile looks with below root_fd: the process's owner (its
                                 * file credentials); NULL: our own, for tools and tests */
        char **exe_dir_files; /* for hypothetical processes: names present in the executable's directory */
} RcProcessFacts;

typedef enum RcProfilesState {
        RC_PROFILES_ENABLED,
        RC_PROFILES_DISABLED_BY_GLOBALS, /* globals file says "enabled": false */
        RC_PROFILES_DISABLED_BY_ENVIRONMENT, /* __GL_APPLICATION_PROFILE=0 */
        RC_PROFILES_ENABLED_BY_ENVIRONMENT, /* __GL_APPLICATION_PROFILE=1 despite the globals file */
        _RC_PROFILES_STATE_MAX,
} RcProfilesState;

typedef struct RcRuleResult {
        const RcRuleRef *ref;
        bool matched;
} RcRuleResult;

/* A later rule that also set the key, and lost. */
typedef struct RcShadowed {
        const RcRuleRef *ref;
        const RcSetting *setting;
} RcShadowed;

typedef struct RcEffectiveSetting {
        const RcSetting *setting; /* key, value and where they are written */
        const RcRuleRef *ref; /* the rule (and profile) that set it */
        const char *env_variable; /* the __GL_* variable for this key, or NULL */
        const char *env_value; /* its value in the process's environment; NULL if unset */
        RcShadowed *shadowed;
        size_t n_shadowed;
} RcEffectiveSetting;

typedef struct RcResolution {
        RcConfig *config; /* keeps every pointer below valid */
        RcProfilesState state;
        RcRuleResult *rules; /* every rule in precedence order */
        size_t n_rules, n_matched;
        RcEffectiveSetting *settings; /* in the order keys were first set */
        size_t n_settings;
        bool depends_on_dsos; /* a dso rule was evaluated: the result may change once libraries load */
} RcResolution;

int rc_resolve(RcConfig *config, const RcProcessFacts *facts, RcResolution **ret);
RcResolution *rc_resolution_free(RcResolution *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(RcResolution *, rc_resolution_free);

/* Whether the settings take effect (they are still computed when profiles are disabled, for "would
 * apply" diagnostics). */
static inline bool rc_resolution_is_effective(const RcResolution *r)
{
        return r->state == RC_PROFILES_ENABLED || r->state == RC_PROFILES_ENABLED_BY_ENVIRONMENT;
}

/* The feature values a process presents, as the driver would compute them. Exposed for explain output
 * and tests. procname/cmdline point into facts or buf; comm is truncated to 15 characters. */
typedef struct RcMatchFacts {
        const char *procname;
        char procname_buf[256];
        char comm[16];
        bool has_comm;
        const char *cmdline;
        const char **dso_names; /* sorted basenames */
        size_t n_dso_names;
        char *exe_dir;
        int root_fd;
        const UserCreds *creds;
        int exe_dir_fd; /* opened at the first findfile lookup (exe_dir_opened), negative if it failed */
        bool exe_dir_opened;
        char **exe_dir_files;
} RcMatchFacts;

int rc_match_facts_init(RcMatchFacts *m, const RcProcessFacts *facts);
void rc_match_facts_done(RcMatchFacts *m);
/* Non-const: findfile opens the executable's directory once, at its first lookup. */
bool rc_pattern_matches(const RcPattern *p, RcMatchFacts *m);

const char *rc_profiles_state_to_string(RcProfilesState s) _const_;
