/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "rc-env.h"
#include "rc-resolve.h"
#include "strv.h"
#include "string-util.h"

#define DELETED_SUFFIX " (deleted)"

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* argv[0] with leading directories removed, splitting on both separators (Wine: "C:\Games\foo.exe"). */
static const char *cmdline_basename(const char *argv0)
{
        const char *p = argv0;

        for (const char *s = argv0; *s; s++)
                if (*s == '/' || *s == '\\')
                        p = s + 1;
        return p;
}

int rc_match_facts_init(RcMatchFacts *m, const RcProcessFacts *facts)
{
        size_t n;

        assert(m);
        assert(facts);

        *m = (RcMatchFacts){
                .root_fd = facts->root_fd,
                .creds = facts->creds,
                .exe_dir_fd = -EBADF,
                .exe_dir_files = facts->exe_dir_files,
        };

        if (facts->exe) {
                const char *base = path_basename(facts->exe);
                size_t len = strlen(base);

                /* After an upgrade the link reads "/usr/bin/foo (deleted)"; the driver saw "foo". */
                if (endswith(base, DELETED_SUFFIX))
                        len -= strlen(DELETED_SUFFIX);
                if (len < sizeof(m->procname_buf)) {
                        memcpy(m->procname_buf, base, len);
                        m->procname_buf[len] = '\0';
                        m->procname = m->procname_buf;
                }

                const char *slash = strrchr(facts->exe, '/');
                if (slash) {
                        m->exe_dir = strndup(facts->exe, (size_t) (slash - facts->exe) + 1);
                        if (!m->exe_dir)
                                return -ENOMEM;
                }
        }

        if (facts->comm) {
                /* TASK_COMM_LEN is 16 with the NUL; the kernel truncates. */
                size_t len = strnlen(facts->comm, sizeof(m->comm) - 1);
                memcpy(m->comm, facts->comm, len);
                m->comm[len] = '\0';
                m->has_comm = true;
        }

        if (facts->argv && facts->argv[0])
                m->cmdline = cmdline_basename(facts->argv[0]);

        n = strv_length(facts->dsos);
        if (n > 0) {
                m->dso_names = calloc(n, sizeof(char *));
                if (!m->dso_names)
                        return -ENOMEM;
                STRV_FOREACH(d, facts->dsos)
                        m->dso_names[m->n_dso_names++] = path_basename(*d);
                qsort_safe(m->dso_names, m->n_dso_names, sizeof(char *), compare_strings);
        }
        return 0;
}

void rc_match_facts_done(RcMatchFacts *m)
{
        if (!m)
                return;
        free(m->dso_names);
        free(m->exe_dir);
        /* Only what it opened: a RcMatchFacts never initialized holds 0 there. */
        if (m->exe_dir_opened)
                safe_close(m->exe_dir_fd);
        *m = (RcMatchFacts){ .exe_dir_fd = -EBADF };
}

/* Prefix match against sorted names: all names with a given prefix sit together from the lower bound. */
static bool dso_matches(const RcMatchFacts *m, const char *prefix)
{
        size_t lo = 0, hi = m->n_dso_names, len = strlen(prefix);

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(m->dso_names[mid], prefix) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < m->n_dso_names && strncmp(m->dso_names[lo], prefix, len) == 0;
}

/* A name findfile can find: one directory entry of the executable's directory, nothing else. */
static bool findfile_name_is_plain(const char *name, size_t len)
{
        return len > 0 && len <= NAME_MAX && !memchr(name, '/', len) && !(len == 1 && name[0] == '.') &&
                        !(len == 2 && strneq(name, "..", 2));
}

static bool listed_in_exe_dir(const RcMatchFacts *m, const char *name, size_t len)
{
        STRV_FOREACH(f, m->exe_dir_files)
                if (strlen(*f) == len && strneq(*f, name, len))
                        return true;
        return false;
}

typedef struct FindfileLookup {
        RcMatchFacts *m;
        const char *list;
} FindfileLookup;

/* Runs with the process owner's access (user_creds_run()), so that findfile tells nobody more than the
 * owner's own ls would. The executable's directory is opened once per resolution, below the process's root
 * (a container's own files count, never the host's) and through no symbolic link: the exe link's text is
 * the kernel's, which names none, so a link on the way is a change made since exec (the directory swapped
 * for a link elsewhere), and refusing it bounds the open to one walk of the path's components. Each name is
 * then one lookup of one entry of that directory, not following a link either (a link counts as present,
 * as ls shows it), so that no name costs a chain of links. 1: every name is there. */
static int findfile_lookup(void *userdata)
{
        FindfileLookup *l = userdata;
        RcMatchFacts *m = l->m;

        if (!m->exe_dir_opened) {
                m->exe_dir_opened = true;
                m->exe_dir_fd = open_in_root_no_symlinks(m->root_fd, m->exe_dir, O_PATH | O_DIRECTORY);
        }
        if (m->exe_dir_fd < 0)
                return 0;

        for (const char *p = l->list;;) {
                size_t len = strcspn(p, ":");
                char name[NAME_MAX + 1];
                struct stat st;

                if (!findfile_name_is_plain(p, len))
                        return 0;
                memcpy(name, p, len);
                name[len] = '\0';
                if (fstatat(m->exe_dir_fd, name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) < 0)
                        return 0;
                if (!p[len])
                        return 1;
                p += len + 1;
        }
}

static bool findfile_matches(RcMatchFacts *m, const char *list)
{
        FindfileLookup l = { m, list };

        if (m->root_fd < 0) {
                for (const char *p = list;;) {
                        size_t len = strcspn(p, ":");

                        if (!findfile_name_is_plain(p, len) || !listed_in_exe_dir(m, p, len))
                                return false;
                        if (!p[len])
                                return true;
                        p += len + 1;
                }
        }
        if (!m->exe_dir)
                return false;
        /* Not being able to act as the owner (-EPERM) finds nothing. */
        return user_creds_run(m->creds, findfile_lookup, &l) > 0;
}

bool rc_pattern_matches(const RcPattern *p, RcMatchFacts *m)
{
        assert(p);
        assert(m);

        switch (p->kind) {
        case RC_PATTERN_MATCH:
                switch (p->feature) {
                case RC_FEATURE_TRUE:
                        return true;
                case RC_FEATURE_PROCNAME:
                        return m->procname && streq(m->procname, p->matches);
                case RC_FEATURE_COMMNAME:
                        return m->has_comm && streq(m->comm, p->matches);
                case RC_FEATURE_CMDLINE:
                        return m->cmdline && streq(m->cmdline, p->matches);
                case RC_FEATURE_DSO:
                        return dso_matches(m, p->matches);
                case RC_FEATURE_FINDFILE:
                        return findfile_matches(m, p->matches);
                case RC_FEATURE_UNKNOWN:
                        return false;
                case _RC_FEATURE_MAX:
                        break;
                }
                assert(false);
                return false;
        case RC_PATTERN_AND:
                for (size_t i = 0; i < p->n_sub; i++)
                        if (!rc_pattern_matches(&p->sub[i], m))
                                return false;
                return true;
        case RC_PATTERN_OR:
                for (size_t i = 0; i < p->n_sub; i++)
                        if (rc_pattern_matches(&p->sub[i], m))
                                return true;
                return false;
        case RC_PATTERN_NOT:
                /* README: any number of operands other than one makes the pattern fail. */
                return p->n_sub == 1 && !rc_pattern_matches(&p->sub[0], m);
        case RC_PATTERN_UNKNOWN_OP:
                return false;
        case _RC_PATTERN_KIND_MAX:
                break;
        }
        assert(false);
        return false;
}

static RcProfilesState profiles_state(const RcConfig *c, char *const *env)
{
        const char *v = strv_env_get(env, RC_ENV_APPLICATION_PROFILE);

        if (v && streq(v, "0"))
                return RC_PROFILES_DISABLED_BY_ENVIRONMENT;
        if (v && streq(v, "1"))
                return c->globals_enabled ? RC_PROFILES_ENABLED : RC_PROFILES_ENABLED_BY_ENVIRONMENT;
        return c->globals_enabled ? RC_PROFILES_ENABLED : RC_PROFILES_DISABLED_BY_GLOBALS;
}

static int add_shadow(RcEffectiveSetting *e, const RcRuleRef *ref, const RcSetting *s)
{
        RcShadowed *n = reallocarray(e->shadowed, e->n_shadowed + 1, sizeof(RcShadowed));
        if (!n)
                return -ENOMEM;
        e->shadowed = n;
        e->shadowed[e->n_shadowed++] = (RcShadowed){ ref, s };
        return 0;
}

int rc_resolve(RcConfig *config, const RcProcessFacts *facts, RcResolution **ret)
{
        _cleanup_(rc_resolution_freep) RcResolution *res = NULL;
        _cleanup_(rc_match_facts_done) RcMatchFacts m = { 0 };
        _cleanup_free_ int32_t *winner = NULL;
        size_t n_keys;
        int r;

        assert(config);
        assert(facts);
        assert(ret);

        res = calloc(1, sizeof(RcResolution));
        if (!res)
                return -ENOMEM;
        res->config = rc_config_ref(config);
        res->state = profiles_state(config, facts->environ);

        r = rc_match_facts_init(&m, facts);
        if (r < 0)
                return r;

        res->rules = calloc(MAX(config->n_rules, (size_t) 1), sizeof(RcRuleResult));
        n_keys = config->keys.n_keys;
        winner = malloc(MAX(n_keys, (size_t) 1) * sizeof(int32_t));
        /* At most one effective setting per distinct key. */
        res->settings = calloc(MAX(n_keys, (size_t) 1), sizeof(RcEffectiveSetting));
        if (!res->rules || !winner || !res->settings)
                return -ENOMEM;
        for (size_t k = 0; k < n_keys; k++)
                winner[k] = -1;

        for (size_t i = 0; i < config->n_rules; i++) {
                const RcRuleRef *ref = &config->rules[i];
                RcRuleResult *rr = &res->rules[res->n_rules++];

                rr->ref = ref;
                rr->matched = !ref->findfile_over_bound && rc_pattern_matches(&ref->rule->pattern, &m);
                if (ref->rule->uses_dso)
                        res->depends_on_dsos = true;
                if (!rr->matched)
                        continue;
                res->n_matched++;
                if (!ref->profile)
                        continue;

                for (size_t k = 0; k < ref->profile->n_settings; k++) {
                        const RcSetting *s = &ref->profile->settings[k];
                        uint32_t id = ref->key_ids[k];

                        if (winner[id] >= 0) {
                                r = add_shadow(&res->settings[winner[id]], ref, s);
                                if (r < 0)
                                        return r;
                                continue;
                        }

                        RcEffectiveSetting *e = &res->settings[res->n_settings];
                        winner[id] = (int32_t) res->n_settings++;
                        *e = (RcEffectiveSetting){
                                .setting = s,
                                .ref = ref,
                                .env_variable = rc_key_env_variable(s->key),
                        };
                        if (e->env_variable)
                                e->env_value = strv_env_get(facts->environ, e->env_variable);
                }
        }

        *ret = TAKE_PTR(res);
        return 0;
}

RcResolution *rc_resolution_free(RcResolution *r)
{
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_settings; i++)
                free(r->settings[i].shadowed);
        free(r->settings);
        free(r->rules);
        rc_config_unref(r->config);
        return mfree(r);
}

const char *rc_profiles_state_to_string(RcProfilesState s)
{
        switch (s) {
        case RC_PROFILES_ENABLED:
                return "enabled";
        case RC_PROFILES_DISABLED_BY_GLOBALS:
                return "disabled-by-globals-file";
        case RC_PROFILES_DISABLED_BY_ENVIRONMENT:
                return "disabled-by-environment";
        case RC_PROFILES_ENABLED_BY_ENVIRONMENT:
                return "enabled-by-environment";
        case _RC_PROFILES_STATE_MAX:
                break;
        }
        return NULL;
}
