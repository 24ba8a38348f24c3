/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile doctor (rc-doctor.h). Evidence for each kind: ../shared/docs/appprofiles.md §1.5 (features),
 * §4 (files in the wild), appprofile-settings.md (keys). */

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "json-util.h"
#include "rc-doctor.h"
#include "rc-edit-transaction.h"
#include "rc-format.h"
#include "rc-resolve.h"
#include "rc-rule-id.h"
#include "rc-settings.h"
#include "string-util.h"

#define COMM_MAX 15u /* the kernel's TASK_COMM_LEN less its NUL */
#define NAME_DISTANCE_MAX 2u

typedef struct Item {
        RcFinding finding;
        size_t file, seq;
} Item;

typedef struct Doctor {
        const RcConfig *c;
        const RcDoctorOptions *o;
        RcEntryKind *kinds; /* per file; _RC_ENTRY_KIND_MAX: no entry of the search path */
        char (**ids)[RC_RULE_ID_LENGTH + 1]; /* per file, for loaded files */
        char **patterns; /* per rule of c->rules, as rc_pattern_format() writes it */
        RcMatchFacts *facts; /* per process of o->processes */
        size_t n_facts;
        Item *items;
        size_t n_items, allocated;
} Doctor;

static const char *const kind_names[_RC_DOCTOR_KIND_MAX] = {
        [RC_DOCTOR_NEAR_MISS] = "near-miss",
        [RC_DOCTOR_DUPLICATE_RULE] = "duplicate-rule",
        [RC_DOCTOR_DEAD_RULE] = "dead-rule",
        [RC_DOCTOR_MISSING_PROFILE] = "missing-profile",
        [RC_DOCTOR_UNUSED_PROFILE] = "unused-profile",
        [RC_DOCTOR_UNKNOWN_KEY] = "unknown-key",
        [RC_DOCTOR_WRONG_VALUE] = "wrong-value",
        [RC_DOCTOR_OBSOLETE_KEY] = "obsolete-key",
        [RC_DOCTOR_NOT_PORTABLE] = "not-portable",
        [RC_DOCTOR_BROKEN_FILE] = "broken-file",
        [RC_DOCTOR_INSTALLED_FILE] = "installed-file",
};

const char *rc_doctor_kind_to_string(RcDoctorKind k)
{
        return k >= 0 && k < _RC_DOCTOR_KIND_MAX ? kind_names[k] : NULL;
}

/* Who writes files into rc.d directories on their own: ../shared/docs/appprofiles.md §4 and
 * appprofile-settings.md §2.1, §2.2. A name ending in '*' is a prefix. */
static const struct {
        const char *name, *origin;
} origins[] = {
        { "10-gsr-*", "gpu-screen-recorder, which writes it when it starts" },
        { "10-container.conf", "libnvidia-container, inside containers" },
        { "limit-vram-usage", "CachyOS's nvidia-utils package" },
        { "limit-vram-buffer", "CachyOS-Settings" },
        { "cuda-no-stable-perf-limit", "CachyOS's nvidia-utils or Pop!_OS's NVIDIA driver package" },
        { "vram-limit", "Pop!_OS's NVIDIA driver package" },
        { "limit-buffer-pool-in-wayland-compositors", "Pop!_OS's NVIDIA driver package" },
        { "50-limit-free-buffer-pool-in-wayland-compositors.json",
                        "a copy of NVIDIA's workaround in egl-wayland#126 (the niri wiki's)" },
};

const char *rc_doctor_file_origin(const char *name)
{
        assert(name);
        for (size_t i = 0; i < ELEMENTSOF(origins); i++) {
                size_t len = strlen(origins[i].name);

                if (origins[i].name[len - 1] == '*' ? strneq(name, origins[i].name, len - 1)
                                                    : streq(name, origins[i].name))
                        return origins[i].origin;
        }
        return NULL;
}

char *rc_doctor_shell_quote(const char *s)
{
        size_t n = 0;
        char *buf;
        bool plain = *s != '\0';

        assert(s);
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("@%+=:,./-_", *p))
                        plain = false;
        if (plain)
                return strdup(s);

        buf = malloc(strlen(s) * 4 + 3);
        if (!buf)
                return NULL;
        buf[n++] = '\'';
        for (const char *p = s; *p; p++) {
                if (*p == '\'') {
                        memcpy(buf + n, "'\\''", 4);
                        n += 4;
                } else
                        buf[n++] = *p;
        }
        buf[n++] = '\'';
        buf[n] = '\0';
        return buf;
}

/* --- findings ------------------------------------------------------------------------------------------ */

static int add_finding(
                Doctor *d, RcDoctorKind kind, size_t file, uint32_t line, uint32_t column, char *message, char *fix)
{
        _cleanup_free_ char *m = message, *f = fix;

        if (!m)
                return -ENOMEM;
        if (GREEDY_REALLOC(d->items, d->allocated, d->n_items + 1) < 0)
                return -ENOMEM;
        d->items[d->n_items] = (Item){
                .finding = { .kind = kind,
                                .path = d->c->files[file]->path,
                                .line = line,
                                .column = column,
                                .message = TAKE_PTR(m),
                                .fix = TAKE_PTR(f) },
                .file = file,
                .seq = d->n_items,
        };
        d->n_items++;
        return 0;
}

static char *sentence(const char *fmt, ...) _printf_(1, 2);
static char *sentence(const char *fmt, ...)
{
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

/* A command line built argument by argument, each quoted. */
typedef struct Command {
        char *text;
        bool oom;
} Command;

static void command_add(Command *c, const char *arg)
{
        _cleanup_free_ char *q = NULL;
        char *joined;

        if (c->oom)
                return;
        q = rc_doctor_shell_quote(arg);
        if (!q || asprintf(&joined, "%s%s%s", strempty(c->text), c->text ? " " : "", q) < 0) {
                c->oom = true;
                return;
        }
        free(c->text);
        c->text = joined;
}

static void command_addf(Command *c, const char *fmt, ...) _printf_(2, 3);
static void command_addf(Command *c, const char *fmt, ...)
{
        _cleanup_free_ char *s = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0) {
                c->oom = true;
                return;
        }
        command_add(c, s);
}

/* Ends the command with the options that say whose files: --system, or --home for a user's. Returns the
 * text (NULL on OOM). */
static char *command_finish(Doctor *d, Command *c, size_t file)
{
        RcEntryKind k = d->kinds[file];

        if (IN_SET(k, RC_ENTRY_SYSTEM_FILE, RC_ENTRY_SYSTEM_DIR))
                command_add(c, "--system");
        else if (d->o->home_option)
                command_addf(c, "--home=%s", d->o->home_option);
        if (c->oom) {
                c->text = mfree(c->text);
                return NULL;
        }
        return TAKE_PTR(c->text);
}

static Command rule_command(Doctor *d, const RcRuleRef *ref, const char *verb)
{
        Command c = { 0 };

        command_add(&c, "nvprofilectl");
        command_add(&c, "rules");
        command_add(&c, verb);
        command_add(&c, d->ids[ref->file_index][ref->rule->index]);
        return c;
}

/* "--file=" for a named profile's file, as "profiles set/remove" finds it: a name in the rc.d directory
 * (none for nvprofilectl's own file, the default), or the single file's path. */
static void command_add_profile_file(Doctor *d, Command *c, size_t file)
{
        const char *path = d->c->files[file]->path;

        if (IN_SET(d->kinds[file], RC_ENTRY_USER_DIR, RC_ENTRY_SYSTEM_DIR)) {
                if (!streq(path_basename(path), RC_EDIT_DEFAULT_FILE_NAME))
                        command_addf(c, "--file=%s", path_basename(path));
        } else
                command_addf(c, "--file=%s", path);
}

static Command profile_command(Doctor *d, const char *verb, const char *name)
{
        Command c = { 0 };

        command_add(&c, "nvprofilectl");
        command_add(&c, "profiles");
        command_add(&c, verb);
        command_add(&c, name);
        return c;
}

/* --- which files ----------------------------------------------------------------------------------------- */

static RcEntryKind file_entry_kind(const RcConfig *c, const RcFile *f)
{
        for (RcEntryKind k = 0; k < _RC_ENTRY_KIND_MAX; k++) {
                _cleanup_free_ char *computed = NULL;
                const char *path = c->entries[k].path;
                size_t len;

                if (!path && rc_entry_path(k, c->home, c->driver_version, &computed) >= 0)
                        path = computed;
                if (!path)
                        continue;
                if (streq(f->path, path))
                        return k;
                len = strlen(path);
                if (IN_SET(k, RC_ENTRY_USER_DIR, RC_ENTRY_SYSTEM_DIR) && strneq(f->path, path, len) &&
                                f->path[len] == '/' && f->path[len + 1] && !strchr(f->path + len + 1, '/'))
                        return k;
        }
        return _RC_ENTRY_KIND_MAX;
}

static bool speaks_about(const Doctor *d, size_t file)
{
        switch (d->kinds[file]) {
        case RC_ENTRY_USER_FILE:
        case RC_ENTRY_USER_DIR:
                return d->o->user_files;
        case RC_ENTRY_SYSTEM_FILE:
        case RC_ENTRY_SYSTEM_DIR:
                return d->o->system_files;
        default:
                return false;
        }
}

/* --- names ------------------------------------------------------------------------------------------------ */

static bool names_close(const char *a, const char *b)
{
        size_t dist = string_distance(a, b, true), len = MIN(strlen(a), strlen(b));

        return dist <= NAME_DISTANCE_MAX && dist * 3 <= len;
}

/* A registry id, such as "0x166c5e" or "10572898": no spelling is close to another. */
static bool key_is_opaque(const char *key)
{
        const char *p = key;

        if (startswith(p, "0x") || startswith(p, "0X"))
                p += 2;
        if (!*p)
                return false;
        for (; *p; p++)
                if (!isxdigit((unsigned char) *p))
                        return false;
        return true;
}

/* --- near misses ------------------------------------------------------------------------------------------- */

static const char *process_value(const RcDoctorProcess *p, RcFeature f)
{
        switch (f) {
        case RC_FEATURE_PROCNAME:
                return p->procname;
        case RC_FEATURE_COMMNAME:
                return p->comm;
        case RC_FEATURE_CMDLINE:
                return p->cmdline;
        default:
                return NULL;
        }
}

static int match_facts_init(const RcDoctorProcess *p, RcMatchFacts *ret)
{
        char *argv[2] = { (char *) p->cmdline, NULL };
        RcProcessFacts facts = {
                .exe = p->procname,
                .comm = p->comm,
                .argv = p->cmdline ? argv : NULL,
                .root_fd = -EBADF,
        };

        return rc_match_facts_init(ret, &facts);
}

/* name without NixOS's wrapping: leading dots and trailing "-wrapped", as often as they are there. */
static void unwrap(const char *name, char *buf, size_t size)
{
        size_t len;

        while (*name == '.')
                name++;
        snprintf(buf, size, "%s", name);
        for (;;) {
                len = strlen(buf);
                if (len > strlen("-wrapped") && endswith(buf, "-wrapped"))
                        buf[len - strlen("-wrapped")] = '\0';
                else if (buf[0] == '.')
                        memmove(buf, buf + 1, len);
                else
                        break;
        }
}

typedef struct Suggestion {
        RcFeature feature;
        const char *value;
        const char *why;
        const RcDoctorProcess *process;
} Suggestion;

static bool close_name(const RcPattern *p, const RcDoctorProcess *proc, Suggestion *ret)
{
        const char *seen = process_value(proc, p->feature), *m = p->matches;
        char a[256], b[256];

        if (seen && !streq(seen, m)) {
                unwrap(seen, a, sizeof(a));
                unwrap(m, b, sizeof(b));
                if (streq(a, b)) {
                        *ret = (Suggestion){ p->feature, seen, "NixOS runs wrapped programs under such names", proc };
                        return true;
                }
                if (strchr(m, '/') && streq(path_basename(m), seen)) {
                        *ret = (Suggestion){ p->feature, seen, "the driver compares the name without its directories",
                                proc };
                        return true;
                }
                if (strcasecmp(m, seen) == 0) {
                        *ret = (Suggestion){ p->feature, seen, "the driver compares names with their case", proc };
                        return true;
                }
                if (p->feature == RC_FEATURE_COMMNAME && strlen(m) > COMM_MAX && strlen(seen) == COMM_MAX &&
                                strneq(m, seen, COMM_MAX)) {
                        *ret = (Suggestion){ p->feature, seen, "the kernel keeps only 15 characters of commname",
                                proc };
                        return true;
                }
        }
        if (proc->flatpak_id && seen && !streq(seen, m)) {
                const char *last = strrchr(proc->flatpak_id, '.');

                if (strcasecmp(m, proc->flatpak_id) == 0 || (last && strcasecmp(m, last + 1) == 0)) {
                        *ret = (Suggestion){ p->feature, seen, "Flatpak apps run under their own program names", proc };
                        return true;
                }
        }
        if (p->feature == RC_FEATURE_PROCNAME && proc->cmdline && streq(proc->cmdline, m) &&
                        !streq_ptr(proc->procname, m)) {
                *ret = (Suggestion){ RC_FEATURE_CMDLINE, m,
                        "only its argv[0] has that name (Wine runs Windows programs so), which cmdline matches", proc };
                return true;
        }
        return false;
}

static bool feature_has_option(RcFeature f)
{
        return IN_SET(f, RC_FEATURE_PROCNAME, RC_FEATURE_COMMNAME, RC_FEATURE_CMDLINE, RC_FEATURE_DSO,
                        RC_FEATURE_FINDFILE);
}

static const RcPattern *find_close(const RcPattern *p, const RcDoctorOptions *o, Suggestion *ret)
{
        if (p->kind == RC_PATTERN_MATCH) {
                if (!p->matches || !IN_SET(p->feature, RC_FEATURE_PROCNAME, RC_FEATURE_COMMNAME, RC_FEATURE_CMDLINE))
                        return NULL;
                for (size_t i = 0; i < o->n_processes; i++)
                        if (close_name(p, &o->processes[i], ret))
                                return p;
                return NULL;
        }
        /* Under "not", another name would make the rule match less, not more. */
        if (!IN_SET(p->kind, RC_PATTERN_AND, RC_PATTERN_OR))
                return NULL;
        for (size_t i = 0; i < p->n_sub; i++) {
                const RcPattern *q = find_close(&p->sub[i], o, ret);
                if (q)
                        return q;
        }
        return NULL;
}

static struct json_object *match_json(const char *feature, const char *matches)
{
        struct json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        json_object_object_add(o, "feature", json_object_new_string(feature));
        json_object_object_add(o, "matches", json_object_new_string(matches));
        return o;
}

static const char *op_name(const RcPattern *p)
{
        switch (p->kind) {
        case RC_PATTERN_AND:
                return "and";
        case RC_PATTERN_OR:
                return "or";
        case RC_PATTERN_NOT:
                return "not";
        default:
                return p->op_name ? p->op_name : "";
        }
}

/* p as rc JSON, with target replaced by "or" of itself and the suggestion. */
static struct json_object *pattern_json(const RcPattern *p, const RcPattern *target, const Suggestion *s)
{
        struct json_object *o, *sub;

        if (p->kind == RC_PATTERN_MATCH) {
                const char *feature = p->feature_name ? p->feature_name : rc_feature_to_string(p->feature);

                o = match_json(feature, strempty(p->matches));
                if (!o || p != target)
                        return o;
                sub = json_object_new_array();
                json_object_array_add(sub, o);
                json_object_array_add(sub, match_json(rc_feature_to_string(s->feature), s->value));
                o = json_object_new_object();
                json_object_object_add(o, "op", json_object_new_string("or"));
                json_object_object_add(o, "sub", sub);
                return o;
        }
        o = json_object_new_object();
        sub = json_object_new_array();
        if (!o || !sub) {
                json_object_put(o);
                json_object_put(sub);
                return NULL;
        }
        json_object_object_add(o, "op", json_object_new_string(op_name(p)));
        for (size_t i = 0; i < p->n_sub; i++)
                json_object_array_add(sub, pattern_json(&p->sub[i], target, s));
        json_object_object_add(o, "sub", sub);
        return o;
}

static char *describe_process(const RcDoctorProcess *p)
{
        const char *name = p->procname ? p->procname : p->comm ? p->comm : strempty(p->cmdline);
        char date[64] = "before";
        time_t t = (time_t) (p->last_seen_usec / 1000000);
        struct tm tm;

        if (p->pid > 0)
                return sentence("%s (pid %" PRIi64 ") runs", name, (int64_t) p->pid);
        if (p->last_seen_usec > 0 && gmtime_r(&t, &tm))
                (void) strftime(date, sizeof(date), "on %Y-%m-%d %H:%M UTC", &tm);
        return sentence("%s ran (last seen %s)", name, date);
}

static int check_near_miss(Doctor *d, const RcRuleRef *ref)
{
        const RcRule *rule = ref->rule;
        _cleanup_free_ char *primitive = NULL, *process = NULL, *fix = NULL;
        const RcPattern *p;
        Suggestion s;
        Command c;
        int r;

        for (size_t i = 0; i < d->n_facts; i++)
                if (rc_pattern_matches(&rule->pattern, &d->facts[i]))
                        return 0;
        p = find_close(&rule->pattern, d->o, &s);
        if (!p)
                return 0;

        r = rc_pattern_format(p, &primitive);
        if (r < 0)
                return r;
        process = describe_process(s.process);
        if (!process)
                return -ENOMEM;

        c = rule_command(d, ref, "set");
        if (p == &rule->pattern) {
                command_add(&c, "--or");
                command_addf(&c, "--%s=%s", rc_feature_to_string(p->feature), p->matches);
                command_addf(&c, "--%s=%s", rc_feature_to_string(s.feature), s.value);
        } else {
                _cleanup_(json_object_putp) struct json_object *j = pattern_json(&rule->pattern, p, &s);

                if (!j)
                        c.oom = true;
                else
                        command_addf(&c, "--pattern=%s",
                                        json_object_to_json_string_ext(
                                                        j, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        }
        assert(feature_has_option(p->feature) && feature_has_option(s.feature));
        fix = command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;

        return add_finding(d, RC_DOCTOR_NEAR_MISS, ref->file_index, p->location.line, p->location.column,
                        sentence("%s matches no process seen, but %s: %s; match %s \"%s\" as well.", primitive, process,
                                        s.why, rc_feature_to_string(s.feature), s.value),
                        TAKE_PTR(fix));
}

/* --- duplicate and dead rules ---------------------------------------------------------------------------------- */

static int setting_value_equal(const RcSetting *a, const RcSetting *b, bool *ret)
{
        _cleanup_free_ char *x = NULL, *y = NULL;

        if (!streq(a->key, b->key)) {
                *ret = false;
                return 0;
        }
        if (rc_value_format(&a->value, &x) < 0 || rc_value_format(&b->value, &y) < 0)
                return -ENOMEM;
        *ret = streq(x, y);
        return 0;
}

static int same_profile(const RcRule *a, const RcRule *b, bool *ret)
{
        *ret = false;
        if (a->profile_name || b->profile_name) {
                *ret = a->profile_name && b->profile_name && streq(a->profile_name, b->profile_name);
                return 0;
        }
        if (!a->inline_profile || !b->inline_profile || a->inline_profile->n_settings != b->inline_profile->n_settings)
                return 0;
        for (size_t i = 0; i < a->inline_profile->n_settings; i++) {
                bool eq;

                if (setting_value_equal(&a->inline_profile->settings[i], &b->inline_profile->settings[i], &eq) < 0)
                        return -ENOMEM;
                if (!eq)
                        return 0;
        }
        *ret = true;
        return 0;
}

static bool matches_everything(const RcPattern *p)
{
        return (p->kind == RC_PATTERN_MATCH && p->feature == RC_FEATURE_TRUE) ||
                        (p->kind == RC_PATTERN_AND && p->n_sub == 0);
}

/* Whether every process a matches, b matches too: only what follows from the form, never a guess. */
static bool pattern_implies(const RcPattern *a, const RcPattern *b)
{
        _cleanup_free_ char *fa = NULL, *fb = NULL;

        if (matches_everything(b))
                return true;
        if (rc_pattern_format(a, &fa) >= 0 && rc_pattern_format(b, &fb) >= 0 && streq(fa, fb))
                return true;
        if (b->kind == RC_PATTERN_OR)
                for (size_t i = 0; i < b->n_sub; i++)
                        if (pattern_implies(a, &b->sub[i]))
                                return true;
        if (a->kind == RC_PATTERN_AND)
                for (size_t i = 0; i < a->n_sub; i++)
                        if (pattern_implies(&a->sub[i], b))
                                return true;
        if (a->kind == RC_PATTERN_OR && a->n_sub > 0) {
                bool all = true;

                for (size_t i = 0; i < a->n_sub && all; i++)
                        all = pattern_implies(&a->sub[i], b);
                if (all)
                        return true;
        }
        if (b->kind == RC_PATTERN_AND && b->n_sub > 0) {
                bool all = true;

                for (size_t i = 0; i < b->n_sub && all; i++)
                        all = pattern_implies(a, &b->sub[i]);
                if (all)
                        return true;
        }
        return false;
}

static bool profile_sets_key(const RcRuleRef *ref, uint32_t key_id)
{
        if (!ref->profile)
                return false;
        for (size_t i = 0; i < ref->profile->n_settings; i++)
                if (ref->key_ids[i] == key_id)
                        return true;
        return false;
}

static int where(const Doctor *d, const RcRuleRef *ref, char **ret)
{
        return asprintf(ret, "%s:%" PRIu32, d->c->files[ref->file_index]->path, ref->rule->location.line) < 0 ? -ENOMEM
                                                                                                              : 0;
}

static int check_duplicate(Doctor *d, size_t j, bool *ret_duplicate)
{
        const RcRuleRef *ref = &d->c->rules[j];
        _cleanup_free_ char *earlier = NULL, *fix = NULL;
        Command c;
        int r;

        *ret_duplicate = false;
        for (size_t i = 0; i < j; i++) {
                bool same;

                if (!streq(d->patterns[i], d->patterns[j]))
                        continue;
                r = same_profile(d->c->rules[i].rule, ref->rule, &same);
                if (r < 0)
                        return r;
                if (!same)
                        continue;

                *ret_duplicate = true;
                r = where(d, &d->c->rules[i], &earlier);
                if (r < 0)
                        return r;
                c = rule_command(d, ref, "remove");
                fix = command_finish(d, &c, ref->file_index);
                if (!fix)
                        return -ENOMEM;
                return add_finding(d, RC_DOCTOR_DUPLICATE_RULE, ref->file_index, ref->rule->location.line,
                                ref->rule->location.column,
                                sentence("This rule repeats the rule at %s: the same pattern and profile.", earlier),
                                TAKE_PTR(fix));
        }
        return 0;
}

static int check_dead(Doctor *d, size_t j)
{
        const RcRuleRef *ref = &d->c->rules[j];
        _cleanup_free_ char *list = NULL, *fix = NULL;
        Command c;

        if (!ref->profile || ref->profile->n_settings == 0 || ref->findfile_over_bound)
                return 0;
        for (size_t k = 0; k < ref->profile->n_settings; k++) {
                const RcRuleRef *by = NULL;
                _cleanup_free_ char *at = NULL;
                char *joined;

                for (size_t i = 0; i < j && !by; i++) {
                        const RcRuleRef *e = &d->c->rules[i];

                        if (!e->findfile_over_bound && profile_sets_key(e, ref->key_ids[k]) &&
                                        pattern_implies(&ref->rule->pattern, &e->rule->pattern))
                                by = e;
                }
                if (!by)
                        return 0;
                if (where(d, by, &at) < 0 ||
                                asprintf(&joined, "%s%s%s by %s", strempty(list), list ? ", " : "",
                                                ref->profile->settings[k].key, at) < 0)
                        return -ENOMEM;
                free(list);
                list = joined;
        }

        c = rule_command(d, ref, "remove");
        fix = command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;
        return add_finding(d, RC_DOCTOR_DEAD_RULE, ref->file_index, ref->rule->location.line,
                        ref->rule->location.column,
                        sentence("This rule changes nothing: earlier rules that match every process it matches set "
                                 "each of its keys first (%s).",
                                        list),
                        TAKE_PTR(fix));
}

/* --- profiles ------------------------------------------------------------------------------------------------- */

static int check_missing_profile(Doctor *d, const RcRuleRef *ref)
{
        const char *name = ref->rule->profile_name, *best = NULL;
        _cleanup_free_ char *fix = NULL;
        size_t best_distance = SIZE_MAX;

        if (ref->profile || !name)
                return 0;
        for (size_t i = 0; i < d->c->n_profiles; i++) {
                const char *other = d->c->profiles_by_id[i] ? d->c->profiles_by_id[i]->name : NULL;
                size_t dist;

                if (!other)
                        continue;
                dist = string_distance(name, other, true);
                if (dist < best_distance && names_close(name, other)) {
                        best = other;
                        best_distance = dist;
                }
        }
        if (!best)
                return add_finding(d, RC_DOCTOR_MISSING_PROFILE, ref->file_index, ref->rule->location.line,
                                ref->rule->location.column,
                                sentence("This rule names profile \"%s\", which no file defines: it sets nothing.",
                                                name),
                                NULL);

        Command c = rule_command(d, ref, "set");
        command_addf(&c, "--profile=%s", best);
        fix = command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;
        return add_finding(d, RC_DOCTOR_MISSING_PROFILE, ref->file_index, ref->rule->location.line,
                        ref->rule->location.column,
                        sentence("This rule names profile \"%s\", which no file defines: did you mean \"%s\"?", name,
                                        best),
                        TAKE_PTR(fix));
}

static int check_unused_profile(Doctor *d, size_t file, const RcProfile *p)
{
        _cleanup_free_ char *fix = NULL;
        Command c;

        if (!p->name || p->is_inline)
                return 0;
        for (size_t i = 0; i < d->c->n_rules; i++)
                if (streq_ptr(d->c->rules[i].rule->profile_name, p->name))
                        return 0;

        c = profile_command(d, "remove", p->name);
        command_add_profile_file(d, &c, file);
        fix = command_finish(d, &c, file);
        if (!fix)
                return -ENOMEM;
        return add_finding(d, RC_DOCTOR_UNUSED_PROFILE, file, p->location.line, p->location.column,
                        sentence("No rule names profile \"%s\": it applies to no process.", p->name), TAKE_PTR(fix));
}

/* --- keys and values --------------------------------------------------------------------------------------------- */

/* v as info's type would have it, as rc text, when that follows from v (the string "1" is true); NULL when
 * nothing does. */
static int convert_value(const RcSettingInfo *info, const RcValue *v, char **ret)
{
        _cleanup_free_ char *text = NULL;
        const char *s = v->type == RC_VALUE_STRING ? v->string : NULL;

        *ret = NULL;
        if (info->type == RC_SETTING_BOOLEAN && s) {
                if (streq(s, "1") || strcasecmp(s, "true") == 0)
                        text = strdup("true");
                else if (streq(s, "0") || strcasecmp(s, "false") == 0)
                        text = strdup("false");
                else
                        return 0;
        } else if (info->type == RC_SETTING_INTEGER && s) {
                char *end;
                long long n;

                errno = 0;
                n = strtoll(s, &end, 0);
                if (errno != 0 || end == s || *end)
                        return 0;
                if (asprintf(&text, "%lld", n) < 0)
                        return -ENOMEM;
        } else if (rc_value_format(v, &text) < 0)
                return -ENOMEM;
        if (!text)
                return -ENOMEM;
        if (rc_setting_check(info->key, text, NULL) != 0)
                return 0;
        *ret = TAKE_PTR(text);
        return 0;
}

/* Where a setting lives, for its fix: a rule's inline profile, or a named profile. */
typedef struct Holder {
        size_t file;
        const RcRuleRef *ref; /* inline */
        const RcProfile *profile; /* named */
} Holder;

static const RcRuleRef *rule_ref_of(const Doctor *d, const RcRule *rule)
{
        for (size_t i = 0; i < d->c->n_rules; i++)
                if (d->c->rules[i].rule == rule)
                        return &d->c->rules[i];
        return NULL;
}

static char *setting_fix(Doctor *d, const Holder *h, const char *unset, const char *key, const char *value)
{
        Command c;

        if (h->ref)
                c = rule_command(d, h->ref, "set");
        else
                c = profile_command(d, "set", h->profile->name);
        if (unset)
                command_addf(&c, "--unset=%s", unset);
        command_addf(&c, "--setting=%s=%s", key, value);
        if (!h->ref)
                command_add_profile_file(d, &c, h->file);
        return command_finish(d, &c, h->file);
}

/* A finding whose fix renames setting s to key to, keeping its value where to's type allows it. */
static int add_rename(Doctor *d, RcDoctorKind kind, const Holder *h, const RcSetting *s, const RcSettingInfo *to,
                char *message)
{
        _cleanup_free_ char *m = message, *converted = NULL, *fix = NULL;
        int r;

        if (!m)
                return -ENOMEM;
        r = convert_value(to, &s->value, &converted);
        if (r < 0)
                return r;
        if (converted) {
                fix = setting_fix(d, h, s->key, to->key, converted);
                if (!fix)
                        return -ENOMEM;
        }
        return add_finding(d, kind, h->file, s->location.line, s->location.column, TAKE_PTR(m), TAKE_PTR(fix));
}

static const RcSettingInfo *closest_key(const char *key)
{
        const RcSettingInfo *known, *best = NULL;
        size_t n, best_distance = SIZE_MAX;

        if (key_is_opaque(key))
                return NULL;
        known = rc_settings_known(&n);
        for (size_t i = 0; i < n; i++) {
                size_t dist = string_distance(key, known[i].key, true);

                if (dist < best_distance && names_close(key, known[i].key)) {
                        best = &known[i];
                        best_distance = dist;
                }
        }
        return best;
}

static int check_setting(Doctor *d, const Holder *h, const RcSetting *s)
{
        const RcSettingInfo *info = rc_setting_lookup(s->key), *to;
        _cleanup_free_ char *value = NULL, *converted = NULL, *fix = NULL, *message = NULL;
        uint32_t line = s->location.line, column = s->location.column;
        int r;

        if (rc_value_format(&s->value, &value) < 0)
                return -ENOMEM;

        if (!info) {
                to = rc_setting_lookup_profile_name(s->key);
                if (!to)
                        to = rc_setting_lookup_any_case(s->key);
                if (!to)
                        to = closest_key(s->key);
                if (!to)
                        return add_finding(d, RC_DOCTOR_UNKNOWN_KEY, h->file, line, column,
                                        sentence("Unknown key \"%s\": the driver reads it as written, but no known "
                                                 "key is spelled like it.",
                                                        s->key),
                                        NULL);
                return add_rename(d, RC_DOCTOR_UNKNOWN_KEY, h, s, to,
                                sentence("Unknown key \"%s\": did you mean \"%s\" (%s)?", s->key, to->key,
                                                to->meaning));
        }

        if (info->replaced_by) {
                to = rc_setting_lookup(info->replaced_by);
                assert(to);
                return add_rename(d, RC_DOCTOR_OBSOLETE_KEY, h, s, to,
                                sentence("%s is obsolete: current drivers read %s instead (%s).", s->key, to->key,
                                                to->meaning));
        }

        r = rc_setting_check(s->key, value, &message);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                return 0;
        r = convert_value(info, &s->value, &converted);
        if (r < 0)
                return r;
        if (converted) {
                fix = setting_fix(d, h, NULL, info->key, converted);
                if (!fix)
                        return -ENOMEM;
        }
        return add_finding(d, RC_DOCTOR_WRONG_VALUE, h->file, line, column,
                        sentence("%s (%s): %s.", s->key, info->meaning, message ? message : "the value is refused"),
                        TAKE_PTR(fix));
}

static int check_profile_settings(Doctor *d, const Holder *h, const RcProfile *p)
{
        int r;

        for (size_t i = 0; i < p->n_settings; i++) {
                r = check_setting(d, h, &p->settings[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --- files ------------------------------------------------------------------------------------------------------ */

static int check_file(Doctor *d, size_t i)
{
        const RcFile *f = d->c->files[i];
        int r;

        if (IN_SET(d->kinds[i], RC_ENTRY_USER_DIR, RC_ENTRY_SYSTEM_DIR) &&
                        !streq(path_basename(f->path), RC_EDIT_DEFAULT_FILE_NAME)) {
                const char *origin = rc_doctor_file_origin(path_basename(f->path));

                r = add_finding(d, RC_DOCTOR_INSTALLED_FILE, i, 0, 0,
                                origin ? sentence("Installed by %s, not by nvprofilectl.", origin)
                                       : sentence("Not written by nvprofilectl: installed by a program, a package "
                                                  "or by hand."),
                                NULL);
                if (r < 0)
                        return r;
        }

        if (f->state == RC_FILE_BROKEN) {
                for (size_t k = 0; k < f->diagnostics.n_items; k++) {
                        const RcDiagnostic *e = &f->diagnostics.items[k];

                        if (e->severity == RC_SEVERITY_ERROR)
                                return add_finding(d, RC_DOCTOR_BROKEN_FILE, i, e->line, e->column,
                                                sentence("%s: the file contributes nothing.", e->message), NULL);
                }
                return add_finding(d, RC_DOCTOR_BROKEN_FILE, i, 0, 0,
                                sentence("The file has errors: it contributes nothing."), NULL);
        }
        if (f->state != RC_FILE_LOADED)
                return 0;

        if (f->portability.trailing_comma_line > 0) {
                r = add_finding(d, RC_DOCTOR_NOT_PORTABLE, i, f->portability.trailing_comma_line,
                                f->portability.trailing_comma_column,
                                sentence("A trailing comma: nvidia-settings cannot read this file (strict JSON); "
                                         "remove the comma."),
                                NULL);
                if (r < 0)
                        return r;
        }
        if (f->portability.single_quote_line > 0) {
                r = add_finding(d, RC_DOCTOR_NOT_PORTABLE, i, f->portability.single_quote_line,
                                f->portability.single_quote_column,
                                sentence("A member name in single quotes: nvidia-settings cannot read this file "
                                         "(strict JSON); write it in double quotes."),
                                NULL);
                if (r < 0)
                        return r;
        }

        for (size_t k = 0; k < f->n_profiles; k++) {
                Holder h = { .file = i, .profile = &f->profiles[k] };

                if (f->profiles[k].is_inline)
                        continue;
                r = check_unused_profile(d, i, &f->profiles[k]);
                if (r < 0)
                        return r;
                r = check_profile_settings(d, &h, &f->profiles[k]);
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < f->n_rules; k++) {
                const RcRuleRef *ref = rule_ref_of(d, &f->rules[k]);
                Holder h = { .file = i, .ref = ref };

                if (!ref || !f->rules[k].inline_profile)
                        continue;
                r = check_profile_settings(d, &h, f->rules[k].inline_profile);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int compare_items(const void *a, const void *b)
{
        const Item *x = a, *y = b;

        if (x->file != y->file)
                return x->file < y->file ? -1 : 1;
        if (x->finding.line != y->finding.line)
                return x->finding.line < y->finding.line ? -1 : 1;
        if (x->finding.column != y->finding.column)
                return x->finding.column < y->finding.column ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void doctor_done(Doctor *d)
{
        for (size_t i = 0; d->ids && i < d->c->n_files; i++)
                free(d->ids[i]);
        free(d->ids);
        for (size_t i = 0; d->patterns && i < d->c->n_rules; i++)
                free(d->patterns[i]);
        free(d->patterns);
        free(d->kinds);
        for (size_t i = 0; i < d->n_facts; i++)
                rc_match_facts_done(&d->facts[i]);
        free(d->facts);
        for (size_t i = 0; i < d->n_items; i++) {
                free(d->items[i].finding.message);
                free(d->items[i].finding.fix);
        }
        free(d->items);
}

static int doctor_prepare(Doctor *d)
{
        const RcConfig *c = d->c;
        int r;

        d->kinds = calloc(MAX(c->n_files, (size_t) 1), sizeof(RcEntryKind));
        d->ids = calloc(MAX(c->n_files, (size_t) 1), sizeof(*d->ids));
        d->patterns = calloc(MAX(c->n_rules, (size_t) 1), sizeof(char *));
        if (!d->kinds || !d->ids || !d->patterns)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_files; i++) {
                d->kinds[i] = file_entry_kind(c, c->files[i]);
                if (c->files[i]->state == RC_FILE_LOADED) {
                        r = rc_file_rule_ids(c->files[i], &d->ids[i]);
                        if (r < 0)
                                return r;
                }
        }
        for (size_t i = 0; i < c->n_rules; i++) {
                r = rc_pattern_format(&c->rules[i].rule->pattern, &d->patterns[i]);
                if (r < 0)
                        return r;
        }
        /* What each process presents to the rules, once. */
        d->facts = calloc(MAX(d->o->n_processes, (size_t) 1), sizeof(RcMatchFacts));
        if (!d->facts)
                return -ENOMEM;
        for (; d->n_facts < d->o->n_processes; d->n_facts++) {
                r = match_facts_init(&d->o->processes[d->n_facts], &d->facts[d->n_facts]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int rc_doctor_run(const RcConfig *c, const RcDoctorOptions *o, RcFindings *ret)
{
        _cleanup_(doctor_done) Doctor d = { .c = c, .o = o };
        size_t n;
        int r;

        assert(c);
        assert(o);
        assert(o->processes || o->n_processes == 0);
        assert(ret);

        r = doctor_prepare(&d);
        if (r < 0)
                return r;

        for (size_t i = 0; i < c->n_files; i++)
                if (speaks_about(&d, i)) {
                        r = check_file(&d, i);
                        if (r < 0)
                                return r;
                }

        for (size_t j = 0; j < c->n_rules; j++) {
                const RcRuleRef *ref = &c->rules[j];
                bool duplicate;

                if (!speaks_about(&d, ref->file_index) || !d.ids[ref->file_index])
                        continue;
                r = check_near_miss(&d, ref);
                if (r < 0)
                        return r;
                r = check_duplicate(&d, j, &duplicate);
                if (r < 0)
                        return r;
                if (!duplicate) {
                        r = check_dead(&d, j);
                        if (r < 0)
                                return r;
                }
                r = check_missing_profile(&d, ref);
                if (r < 0)
                        return r;
        }

        qsort_safe(d.items, d.n_items, sizeof(Item), compare_items);
        n = MIN(d.n_items, (size_t) RC_FINDINGS_MAX);
        *ret = (RcFindings){ .items = calloc(MAX(n, (size_t) 1), sizeof(RcFinding)), .n_dropped = d.n_items - n };
        if (!ret->items)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                ret->items[i] = d.items[i].finding;
                d.items[i].finding = (RcFinding){ 0 };
        }
        ret->n_items = n;
        return 0;
}

void rc_findings_done(RcFindings *f)
{
        if (!f)
                return;
        for (size_t i = 0; i < f->n_items; i++) {
                free(f->items[i].message);
                free(f->items[i].fix);
        }
        free(f->items);
        *f = (RcFindings){ 0 };
}
