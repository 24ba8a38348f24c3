/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Near misses (rc-doctor.h): a rule that matches no process the caller may know of, while one with a close
 * name ran or runs. Features as the driver computes them: ../shared/docs/appprofiles.md §1.5. */

#include <stdio.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "json-util.h"
#include "rc-doctor-internal.h"
#include "rc-format.h"
#include "string-util.h"

#define COMM_MAX 15u /* the kernel's TASK_COMM_LEN less its NUL */

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

int doctor_match_facts_init(const RcDoctorProcess *p, RcMatchFacts *ret)
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
                return doctor_sentence("%s (pid %" PRIi64 ") runs", name, (int64_t) p->pid);
        if (p->last_seen_usec > 0 && gmtime_r(&t, &tm))
                (void) strftime(date, sizeof(date), "on %Y-%m-%d %H:%M UTC", &tm);
        return doctor_sentence("%s ran (last seen %s)", name, date);
}

int doctor_check_near_miss(Doctor *d, const RcRuleRef *ref)
{
        const RcRule *rule = ref->rule;
        _cleanup_free_ char *primitive = NULL, *process = NULL, *fix = NULL;
        const RcPattern *p;
        Suggestion s;
        Command c;
        int r;

        /* Each comparison costs about the pattern's size; unsure once the work is spent: nothing said. */
        if (!doctor_spend(d, (1 + strlen(d->patterns[ref - d->c->rules]) / 32) * (d->n_facts + 1)))
                return 0;
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

        c = doctor_rule_command(d, ref, "set");
        if (p == &rule->pattern) {
                doctor_command_add(&c, "--or");
                doctor_command_addf(&c, "--%s=%s", rc_feature_to_string(p->feature), p->matches);
                doctor_command_addf(&c, "--%s=%s", rc_feature_to_string(s.feature), s.value);
        } else {
                _cleanup_(json_object_putp) struct json_object *j = pattern_json(&rule->pattern, p, &s);

                if (!j)
                        c.oom = true;
                else
                        doctor_command_addf(&c, "--pattern=%s",
                                        json_object_to_json_string_ext(
                                                        j, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        }
        assert(feature_has_option(p->feature) && feature_has_option(s.feature));
        fix = doctor_command_finish(d, &c, ref->file_index);
        if (!fix)
                return -ENOMEM;

        return doctor_add_finding(d, RC_DOCTOR_NEAR_MISS, ref->file_index, p->location.line, p->location.column,
                        doctor_sentence("%s matches no process seen, but %s: %s; match %s \"%s\" as well.", primitive,
                                        process, s.why, rc_feature_to_string(s.feature), s.value),
                        TAKE_PTR(fix));
}
