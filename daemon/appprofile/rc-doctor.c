/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile doctor (rc-doctor.h). Evidence for each kind: ../shared/docs/appprofiles.md §1.5 (features),
 * §4 (files in the wild), appprofile-settings.md (keys). */

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rc-doctor-internal.h"
#include "rc-edit-transaction.h"
#include "rc-format.h"
#include "string-util.h"

#define NAME_DISTANCE_MAX 2u

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

int doctor_add_finding(
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

char *doctor_sentence(const char *fmt, ...)
{
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

void doctor_command_add(Command *c, const char *arg)
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

void doctor_command_addf(Command *c, const char *fmt, ...)
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
        doctor_command_add(c, s);
}

/* Ends the command with the options that say whose files: --system, or --home for a user's. Returns the
 * text (NULL on OOM). */
char *doctor_command_finish(Doctor *d, Command *c, size_t file)
{
        RcEntryKind k = d->kinds[file];

        if (IN_SET(k, RC_ENTRY_SYSTEM_FILE, RC_ENTRY_SYSTEM_DIR))
                doctor_command_add(c, "--system");
        else if (d->o->home_option)
                doctor_command_addf(c, "--home=%s", d->o->home_option);
        if (c->oom) {
                c->text = mfree(c->text);
                return NULL;
        }
        return TAKE_PTR(c->text);
}

Command doctor_rule_command(Doctor *d, const RcRuleRef *ref, const char *verb)
{
        Command c = { 0 };

        doctor_command_add(&c, "nvprofilectl");
        doctor_command_add(&c, "rules");
        doctor_command_add(&c, verb);
        doctor_command_add(&c, d->ids[ref->file_index][ref->rule->index]);
        return c;
}

/* "--file=" for a named profile's file, as "profiles set/remove" finds it: a name in the rc.d directory
 * (none for nvprofilectl's own file, the default), or the single file's path. */
void doctor_command_add_profile_file(Doctor *d, Command *c, size_t file)
{
        const char *path = d->c->files[file]->path;

        if (IN_SET(d->kinds[file], RC_ENTRY_USER_DIR, RC_ENTRY_SYSTEM_DIR)) {
                if (!streq(path_basename(path), RC_EDIT_DEFAULT_FILE_NAME))
                        doctor_command_addf(c, "--file=%s", path_basename(path));
        } else
                doctor_command_addf(c, "--file=%s", path);
}

Command doctor_profile_command(Doctor *d, const char *verb, const char *name)
{
        Command c = { 0 };

        doctor_command_add(&c, "nvprofilectl");
        doctor_command_add(&c, "profiles");
        doctor_command_add(&c, verb);
        doctor_command_add(&c, name);
        return c;
}

/* --- which files ----------------------------------------------------------------------------------------- */

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

bool doctor_names_close(const char *a, const char *b)
{
        size_t dist = string_distance(a, b, true), len = MIN(strlen(a), strlen(b));

        return dist <= NAME_DISTANCE_MAX && dist * 3 <= len;
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

bool doctor_spend(Doctor *d, uint64_t steps)
{
        if (d->steps_left < steps) {
                d->steps_left = 0;
                d->incomplete = true;
                return false;
        }
        d->steps_left -= steps;
        return true;
}

/* Whether every process a matches, b matches too: only what follows from the form, never a guess (nor once
 * the run's work is spent: nested operators would make this exponential in their depth). */
static bool pattern_implies(Doctor *d, const RcPattern *a, const RcPattern *b)
{
        _cleanup_free_ char *fa = NULL, *fb = NULL;

        if (!doctor_spend(d, 1))
                return false;
        if (matches_everything(b))
                return true;
        if (rc_pattern_format(a, &fa) >= 0 && rc_pattern_format(b, &fb) >= 0 &&
                        doctor_spend(d, (strlen(fa) + strlen(fb)) / 8) && streq(fa, fb))
                return true;
        if (b->kind == RC_PATTERN_OR)
                for (size_t i = 0; i < b->n_sub; i++)
                        if (pattern_implies(d, a, &b->sub[i]))
                                return true;
        if (a->kind == RC_PATTERN_AND)
                for (size_t i = 0; i < a->n_sub; i++)
                        if (pattern_implies(d, &a->sub[i], b))
                                return true;
        if (a->kind == RC_PATTERN_OR && a->n_sub > 0) {
                bool all = true;

                for (size_t i = 0; i < a->n_sub && all; i++)
                        all = pattern_implies(d, &a->sub[i], b);
                if (all)
                        return true;
        }
        if (b->kind == RC_PATTERN_AND && b->n_sub > 0) {
                bool all = true;

                for (size_t i = 0; i < b->n_sub && all; i++)
                        all = pattern_implies(d, a, &b->sub[i]);
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

                if (!doctor_spend(d, 1))
                        return 0;
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
                c = doctor_rule_command(d, ref, "remove");
                fix = doctor_command_finish(d, &c, ref->file_index);
                if (!fix)
                        return -ENOMEM;
                return doctor_add_finding(d, RC_DOCTOR_DUPLICATE_RULE, ref->file_index, ref->rule->location.line,
                                ref->rule->location.column,
                                doctor_sentence("This rule repeats the rule at %s: the same pattern and profile.",
                                                earlier),
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

                        if (!doctor_spend(d, 1))
                                return 0;
                        if (!e->findfile_over_bound && profile_sets_key(e, ref->key_ids[k]) &&
                                        pattern_implies(d, &ref->rule->pattern, &e->rule->pattern))
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

        c = doctor_rule_command(d, ref, "remove");
        fix = doctor_command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;
        return doctor_add_finding(d, RC_DOCTOR_DEAD_RULE, ref->file_index, ref->rule->location.line,
                        ref->rule->location.column,
                        doctor_sentence("This rule changes nothing: earlier rules that match every process it matches set "
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
                if (dist < best_distance && doctor_names_close(name, other)) {
                        best = other;
                        best_distance = dist;
                }
        }
        if (!best)
                return doctor_add_finding(d, RC_DOCTOR_MISSING_PROFILE, ref->file_index, ref->rule->location.line,
                                ref->rule->location.column,
                                doctor_sentence("This rule names profile \"%s\", which no file defines: it sets nothing.",
                                                name),
                                NULL);

        Command c = doctor_rule_command(d, ref, "set");
        doctor_command_addf(&c, "--profile=%s", best);
        fix = doctor_command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;
        return doctor_add_finding(d, RC_DOCTOR_MISSING_PROFILE, ref->file_index, ref->rule->location.line,
                        ref->rule->location.column,
                        doctor_sentence("This rule names profile \"%s\", which no file defines: did you mean \"%s\"?",
                                        name, best),
                        TAKE_PTR(fix));
}

static int check_unused_profile(Doctor *d, size_t file, const RcProfile *p)
{
        _cleanup_free_ char *fix = NULL;
        Command c;

        if (!p->name || p->is_inline)
                return 0;
        /* Unsure once the work is spent: then nothing is said. */
        if (!doctor_spend(d, 1 + d->c->n_rules / 16))
                return 0;
        for (size_t i = 0; i < d->c->n_rules; i++)
                if (streq_ptr(d->c->rules[i].rule->profile_name, p->name))
                        return 0;

        c = doctor_profile_command(d, "remove", p->name);
        doctor_command_add_profile_file(d, &c, file);
        fix = doctor_command_finish(d, &c, file);
        if (!fix)
                return -ENOMEM;
        return doctor_add_finding(d, RC_DOCTOR_UNUSED_PROFILE, file, p->location.line, p->location.column,
                        doctor_sentence("No rule names profile \"%s\": it applies to no process.", p->name),
                        TAKE_PTR(fix));
}

/* --- files ------------------------------------------------------------------------------------------------------ */

static int check_file(Doctor *d, size_t i)
{
        const RcFile *f = d->c->files[i];
        int r;

        /* Only files the driver reads for this user: not one the user may not read (of which it is not to
         * be told more than a listing says), nor a directory or fifo skipped in rc.d. */
        if (IN_SET(d->kinds[i], RC_ENTRY_USER_DIR, RC_ENTRY_SYSTEM_DIR) && f->state != RC_FILE_SKIPPED &&
                        !streq(path_basename(f->path), RC_EDIT_DEFAULT_FILE_NAME)) {
                const char *origin = rc_doctor_file_origin(path_basename(f->path));

                r = doctor_add_finding(d, RC_DOCTOR_INSTALLED_FILE, i, 0, 0,
                                origin ? doctor_sentence("Installed by %s, not by nvprofilectl.", origin)
                                       : doctor_sentence("Not written by nvprofilectl: installed by a program, a package "
                                                         "or by hand."),
                                NULL);
                if (r < 0)
                        return r;
        }

        if (f->state == RC_FILE_BROKEN) {
                for (size_t k = 0; k < f->diagnostics.n_items; k++) {
                        const RcDiagnostic *e = &f->diagnostics.items[k];

                        if (e->severity == RC_SEVERITY_ERROR)
                                return doctor_add_finding(d, RC_DOCTOR_BROKEN_FILE, i, e->line, e->column,
                                                doctor_sentence("%s: the file contributes nothing.", e->message), NULL);
                }
                return doctor_add_finding(d, RC_DOCTOR_BROKEN_FILE, i, 0, 0,
                                doctor_sentence("The file has errors: it contributes nothing."), NULL);
        }
        if (f->state != RC_FILE_LOADED)
                return 0;

        if (f->portability.trailing_comma_line > 0) {
                r = doctor_add_finding(d, RC_DOCTOR_NOT_PORTABLE, i, f->portability.trailing_comma_line,
                                f->portability.trailing_comma_column,
                                doctor_sentence("A trailing comma: nvidia-settings cannot read this file (strict JSON); "
                                                "remove the comma."),
                                NULL);
                if (r < 0)
                        return r;
        }
        if (f->portability.single_quote_line > 0) {
                r = doctor_add_finding(d, RC_DOCTOR_NOT_PORTABLE, i, f->portability.single_quote_line,
                                f->portability.single_quote_column,
                                doctor_sentence("A member name in single quotes: nvidia-settings cannot read this file "
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
                r = doctor_check_profile_settings(d, &h, &f->profiles[k]);
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
        /* Files are in precedence order, entry after entry (RcEntry.n_files); a configuration made from files
         * (rc_config_new_from_files()) has no entries, and the doctor says nothing of its files. */
        for (size_t i = 0; i < c->n_files; i++)
                d->kinds[i] = _RC_ENTRY_KIND_MAX;
        for (size_t k = 0, first = 0; k < _RC_ENTRY_KIND_MAX; first += c->entries[k++].n_files)
                for (size_t i = first; i < first + c->entries[k].n_files && i < c->n_files; i++)
                        d->kinds[i] = (RcEntryKind) k;
        for (size_t i = 0; i < c->n_files; i++) {
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
                r = doctor_match_facts_init(&d->o->processes[d->n_facts], &d->facts[d->n_facts]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int rc_doctor_run(const RcConfig *c, const RcDoctorOptions *o, RcFindings *ret)
{
        _cleanup_(doctor_done) Doctor d = {
                .c = c, .o = o, .steps_left = o->steps_max > 0 ? o->steps_max : RC_DOCTOR_STEPS_MAX
        };
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
                r = doctor_check_near_miss(&d, ref);
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
                if (ref->rule->inline_profile) {
                        Holder h = { .file = ref->file_index, .ref = ref };

                        r = doctor_check_profile_settings(&d, &h, ref->rule->inline_profile);
                        if (r < 0)
                                return r;
                }
        }

        qsort_safe(d.items, d.n_items, sizeof(Item), compare_items);
        n = MIN(d.n_items, (size_t) RC_FINDINGS_MAX);
        *ret = (RcFindings){ .items = calloc(MAX(n, (size_t) 1), sizeof(RcFinding)),
                .n_dropped = d.n_items - n,
                .incomplete = d.incomplete };
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
