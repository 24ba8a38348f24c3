/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Builds the model of one rc file from the parsed document.
 *
 * Any structural error drops the whole file, as nvidia-settings (and, we infer, the driver) does; other
 * files still load. Unlike nvidia-settings we keep going after the first error, so one "check" run shows
 * them all. Decisions where the README is silent (../shared/docs/appprofiles.md §1.3, §8):
 *   - "true" without "matches" is accepted (the feature ignores "matches"; nvidia-settings rejects it);
 *   - "not" with other than one operand never matches, with a warning (README);
 *   - "and" with "sub": [] always matches and "or" with "sub": [] never does, with a warning;
 *   - unknown features and ops never match, with a warning: newer drivers may add features;
 *   - a settings array is read in the form of its first element (as nvidia-settings does); mixing
 *     forms is an error;
 *   - a setting object takes "key" before "k" and "value" before "v";
 *   - unknown members are ignored with a warning; duplicate members keep the last one (as JSON
 *     parsers do) with a warning, because a real file lost two of three rules that way;
 *   - strings with an embedded NUL ("\u0000") are errors: nothing downstream can represent them. */

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "rc-model.h"
#include "string-util.h"

typedef struct Builder {
        RcFile *file;
        const RcDocument *doc;
        int oom; /* set once an allocation failed */
} Builder;

static int diagv(Builder *b, RcSeverity severity, uint32_t line, uint32_t column, const char *fmt, va_list ap)
                _printf_(5, 0);
static int diagv(Builder *b, RcSeverity severity, uint32_t line, uint32_t column, const char *fmt, va_list ap)
{
        _cleanup_free_ char *m = NULL;
        int r;

        if (vasprintf(&m, fmt, ap) < 0)
                return (b->oom = -ENOMEM);

        r = rc_diagnostics_add(&b->file->diagnostics, severity, line, column, "%s", m);
        if (r < 0)
                return (b->oom = r);
        return severity == RC_SEVERITY_ERROR ? -EBADMSG : 0;
}

/* A diagnostic at a value. */
static int diag(Builder *b, RcSeverity severity, const RcNode *n, const char *fmt, ...) _printf_(4, 5);
static int diag(Builder *b, RcSeverity severity, const RcNode *n, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = diagv(b, severity, n ? n->line : 0, n ? n->column : 0, fmt, ap);
        va_end(ap);
        return r;
}

/* A warning at a member's name. */
static void warn_member(Builder *b, const RcNode *n, const char *fmt, ...) _printf_(3, 4);
static void warn_member(Builder *b, const RcNode *n, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        (void) diagv(b, RC_SEVERITY_WARNING, n->key_line, n->key_column, fmt, ap);
        va_end(ap);
}

#define error(b, n, ...) diag(b, RC_SEVERITY_ERROR, n, __VA_ARGS__)
#define warning(b, n, ...) diag(b, RC_SEVERITY_WARNING, n, __VA_ARGS__)

static RcLocation location(Builder *b, const RcNode *n)
{
        return (RcLocation){ .file = b->file, .line = n->line, .column = n->column };
}

static void *alloc_array(Builder *b, size_t n, size_t size)
{
        void *p = arena_alloc_array(&b->file->arena, MAX(n, (size_t) 1), size);
        if (!p)
                b->oom = -ENOMEM;
        return p;
}

#define MEMBERS_MAX 4

/* The members of one object that its kind knows, found in one pass over the index. */
typedef struct Members {
        struct json_object *object;
        const RcNode *node;
        const RcNode *found[MEMBERS_MAX]; /* the last occurrence: the one json-c keeps */
} Members;

/* Scans an object's members against the names its kind knows (known[i] lands in m->found[i]), and warns
 * about unknown and repeated ones. */
static void scan_members(Builder *b, struct json_object *jo, const RcNode *obj, const char *what,
                const char *const *known, Members *m)
{
        unsigned count[MEMBERS_MAX] = { 0 };
        size_t len[MEMBERS_MAX], n_known = 0;

        *m = (Members){ .object = jo, .node = obj };
        for (; known[n_known]; n_known++) {
                assert(n_known < MEMBERS_MAX);
                len[n_known] = strlen(known[n_known]);
        }

        for (const RcNode *c = rc_node_first_child(b->doc, obj); c; c = rc_node_next(b->doc, c)) {
                size_t k;

                for (k = 0; k < n_known; k++)
                        if (c->key_escaped ? rc_node_key_equals(b->doc, c, known[k])
                                           : c->key_length == len[k] &&
                                                                        memcmp(b->doc->text + c->key_offset, known[k],
                                                                                        len[k]) == 0)
                                break;
                if (k == n_known) {
                        warn_member(b, c, "unknown member \"%.*s\" in %s ignored", (int) MIN(c->key_length, 64u),
                                        b->doc->text + c->key_offset, what);
                        continue;
                }
                count[k]++;
                m->found[k] = c;
        }

        /* Reported once, at the last (winning) occurrence. */
        for (size_t k = 0; k < n_known; k++)
                if (count[k] > 1)
                        warn_member(b, m->found[k],
                                        "member \"%s\" appears %u times in this %s; only this last one is used "
                                        "(JSON keeps the last), the others are lost; split them into separate "
                                        "objects",
                                        known[k], count[k], what);
}

/* Gets known member k (named name) as json-c value and index node. Returns false when absent. */
static bool member(const Members *m, size_t k, const char *name, struct json_object **ret_jo, const RcNode **ret_node)
{
        assert(k < MEMBERS_MAX);

        if (!m->found[k])
                return false;
        if (!json_object_object_get_ex(m->object, name, ret_jo))
                return false; /* cannot happen with a consistent index */
        *ret_node = m->found[k];
        return true;
}

static int get_string(Builder *b, struct json_object *jo, const RcNode *n, const char *what, const char **ret)
{
        const char *s;
        int len;

        if (!json_object_is_type(jo, json_type_string))
                return error(b, n, "%s must be a string", what);

        s = json_object_get_string(jo);
        len = json_object_get_string_len(jo);
        if (len < 0 || memchr(s, '\0', (size_t) len))
                return error(b, n, "%s contains a NUL character", what);
        /* The raw bytes were checked while scanning; this catches escapes such as a lone \ud800. */
        if (!utf8_is_valid_n(s, (size_t) len))
                return error(b, n, "%s is not valid UTF-8 once its escapes are decoded", what);

        *ret = arena_strndup(&b->file->arena, s, (size_t) len);
        if (!*ret)
                return (b->oom = -ENOMEM);
        return 0;
}

static int build_value(Builder *b, struct json_object *jo, const RcNode *n, RcValue *ret)
{
        switch (json_object_get_type(jo)) {
        case json_type_string:
                ret->type = RC_VALUE_STRING;
                return get_string(b, jo, n, "a setting value", &ret->string);
        case json_type_int: {
                int64_t i = json_object_get_int64(jo);
                uint64_t u;

                /* json-c saturates at INT64_MAX when the value is stored unsigned. */
                if (i == INT64_MAX && (u = json_object_get_uint64(jo)) > (uint64_t) INT64_MAX) {
                        ret->type = RC_VALUE_UNSIGNED;
                        ret->unsigned_integer = u;
                } else {
                        ret->type = RC_VALUE_INTEGER;
                        ret->integer = i;
                }
                return 0;
        }
        case json_type_double:
                ret->type = RC_VALUE_REAL;
                ret->real = json_object_get_double(jo);
                return 0;
        case json_type_boolean:
                ret->type = RC_VALUE_BOOLEAN;
                ret->boolean = json_object_get_boolean(jo);
                return 0;
        case json_type_null:
        case json_type_object:
        case json_type_array:
                break;
        }
        return error(b, n, "a setting value must be a string, number, true or false, not %s",
                        json_type_to_name(json_object_get_type(jo)));
}

static int build_setting_object(Builder *b, struct json_object *jo, const RcNode *n, RcSetting *ret)
{
        static const char *const known[] = { "key", "k", "value", "v", NULL };
        struct json_object *k = NULL, *v = NULL;
        const RcNode *kn = NULL, *vn = NULL;
        Members m;
        int r;

        if (!json_object_is_type(jo, json_type_object))
                return error(b, n,
                                "settings must all be objects {\"key\": ..., \"value\": ...} or all be flat "
                                "key/value pairs, not a mix");
        scan_members(b, jo, n, "setting", known, &m);

        if (!member(&m, 0, "key", &k, &kn) && !member(&m, 1, "k", &k, &kn))
                return error(b, n, "setting has no \"key\" (or \"k\")");
        if (!member(&m, 2, "value", &v, &vn) && !member(&m, 3, "v", &v, &vn))
                return error(b, n, "setting has no \"value\" (or \"v\")");
        if (m.found[0] && m.found[1])
                (void) warning(b, n, "setting has both \"key\" and \"k\"; \"key\" is used");
        if (m.found[2] && m.found[3])
                (void) warning(b, n, "setting has both \"value\" and \"v\"; \"value\" is used");

        r = get_string(b, k, kn, "a setting key", &ret->key);
        if (r < 0)
                return r;
        ret->location = location(b, kn);
        return build_value(b, v, vn, &ret->value);
}

static int build_settings(Builder *b, struct json_object *jo, const RcNode *n, RcProfile *profile)
{
        size_t len;
        const RcNode *c;
        int r, ret = 0;

        if (!json_object_is_type(jo, json_type_array))
                return error(b, n, "\"settings\" must be an array");

        len = json_object_array_length(jo);
        if (len == 0)
                return 0;

        c = rc_node_first_child(b->doc, n);
        if (json_object_is_type(json_object_array_get_idx(jo, 0), json_type_object)) {
                profile->settings = alloc_array(b, len, sizeof(RcSetting));
                if (!profile->settings)
                        return -ENOMEM;
                for (size_t i = 0; i < len; i++, c = rc_node_next(b->doc, c)) {
                        r = build_setting_object(b, json_object_array_get_idx(jo, i), c ? c : n,
                                        &profile->settings[profile->n_settings]);
                        if (r < 0)
                                ret = r;
                        else
                                profile->n_settings++;
                }
                return ret;
        }

        if (len % 2 != 0)
                return error(b, n,
                                "flat settings array has an odd number of elements (%zu): keys and values "
                                "must come in pairs",
                                len);

        profile->settings = alloc_array(b, len / 2, sizeof(RcSetting));
        if (!profile->settings)
                return -ENOMEM;
        for (size_t i = 0; i < len; i += 2) {
                const RcNode *kn = c ? c : n, *vn;
                RcSetting *s = &profile->settings[profile->n_settings];
                struct json_object *k = json_object_array_get_idx(jo, i);

                c = rc_node_next(b->doc, c);
                vn = c ? c : n;
                c = rc_node_next(b->doc, c);

                if (json_object_is_type(k, json_type_object)) {
                        ret = error(b, kn, "settings must all be objects or all be flat key/value pairs, not a mix");
                        continue;
                }
                r = get_string(b, k, kn, "a setting key", &s->key);
                if (r < 0) {
                        ret = r;
                        continue;
                }
                r = build_value(b, json_object_array_get_idx(jo, i + 1), vn, &s->value);
                if (r < 0) {
                        ret = r;
                        continue;
                }
                s->location = location(b, kn);
                profile->n_settings++;
        }
        return ret;
}

static int build_profile_object(Builder *b, struct json_object *jo, const RcNode *n, bool is_inline, RcProfile *ret)
{
        static const char *const known[] = { "name", "settings", NULL };
        struct json_object *v;
        const RcNode *vn;
        Members m;
        int r, ret_r = 0;

        scan_members(b, jo, n, "profile", known, &m);
        *ret = (RcProfile){ .location = location(b, n), .is_inline = is_inline };

        if (member(&m, 0, "name", &v, &vn)) {
                r = get_string(b, v, vn, "a profile's \"name\"", &ret->name);
                if (r < 0)
                        ret_r = r;
        } else if (!is_inline)
                ret_r = error(b, n, "profile has no \"name\"");

        if (member(&m, 1, "settings", &v, &vn)) {
                r = build_settings(b, v, vn, ret);
                if (r < 0)
                        ret_r = r;
        } else
                ret_r = error(b, n, "profile has no \"settings\"");

        return ret_r;
}

static int build_pattern(Builder *b, struct json_object *jo, const RcNode *n, RcPattern *ret, RcRule *rule);

static int build_operands(Builder *b, struct json_object *jo, const RcNode *n, RcPattern *p, RcRule *rule)
{
        const RcNode *c;
        size_t len;
        int r, ret = 0;

        if (!json_object_is_type(jo, json_type_array)) {
                /* A single operand. */
                p->sub = alloc_array(b, 1, sizeof(RcPattern));
                if (!p->sub)
                        return -ENOMEM;
                p->n_sub = 1;
                return build_pattern(b, jo, n, &p->sub[0], rule);
        }

        len = json_object_array_length(jo);
        p->sub = alloc_array(b, len, sizeof(RcPattern));
        if (!p->sub)
                return -ENOMEM;
        c = rc_node_first_child(b->doc, n);
        for (size_t i = 0; i < len; i++, c = rc_node_next(b->doc, c)) {
                struct json_object *e = json_object_array_get_idx(jo, i);

                if (json_object_is_type(e, json_type_array)) {
                        ret = error(b, c ? c : n, "a pattern array cannot contain another array");
                        continue;
                }
                r = build_pattern(b, e, c ? c : n, &p->sub[p->n_sub], rule);
                if (r < 0)
                        ret = r;
                else
                        p->n_sub++;
        }
        return ret;
}

/* Warns about names that never exist; returns how many names the list has. */
static uint32_t check_findfile(Builder *b, const RcNode *n, const char *matches)
{
        const char *p = matches;
        uint32_t count = 0;

        for (;; count++) {
                size_t len = strcspn(p, ":");

                if (len == 0)
                        (void) warning(b, n, "findfile list \"%s\" has an empty name, which never exists", matches);
                else if (memchr(p, '/', len) || (len == 1 && p[0] == '.') || (len == 2 && strneq(p, "..", 2)))
                        (void) warning(b, n,
                                        "findfile name \"%.*s\" is not a plain file name; it never matches (only "
                                        "the executable's own directory is searched)",
                                        (int) len, p);
                if (!p[len])
                        return count + 1;
                p += len + 1;
        }
}

enum {
        PATTERN_FEATURE,
        PATTERN_MATCHES,
        PATTERN_OP,
        PATTERN_SUB
};

static int build_primitive(Builder *b, const Members *m, const RcNode *n, RcPattern *p, RcRule *rule)
{
        struct json_object *v;
        const RcNode *vn;
        int r;

        p->kind = RC_PATTERN_MATCH;
        if (!member(m, PATTERN_FEATURE, "feature", &v, &vn))
                return error(b, n, "pattern object has neither \"feature\" nor \"op\"");
        r = get_string(b, v, vn, "\"feature\"", &p->feature_name);
        if (r < 0)
                return r;
        p->feature = rc_feature_from_string(p->feature_name);

        if (member(m, PATTERN_MATCHES, "matches", &v, &vn)) {
                r = get_string(b, v, vn, "\"matches\"", &p->matches);
                if (r < 0)
                        return r;
        } else if (p->feature != RC_FEATURE_TRUE)
                return error(b, n, "pattern for feature \"%s\" has no \"matches\"", p->feature_name);

        switch (p->feature) {
        case RC_FEATURE_UNKNOWN:
                (void) warning(b, n, "unknown feature \"%s\" never matches", p->feature_name);
                break;
        case RC_FEATURE_COMMNAME:
                if (strlen(p->matches) > 15)
                        (void) warning(b, n,
                                        "commname \"%s\" is longer than 15 characters and never matches: the "
                                        "kernel truncates comm to 15",
                                        p->matches);
                break;
        case RC_FEATURE_FINDFILE: {
                uint32_t count = check_findfile(b, n, p->matches);

                rule->n_findfile_names = count > UINT32_MAX - rule->n_findfile_names ? UINT32_MAX
                                                                                     : rule->n_findfile_names + count;
                break;
        }
        case RC_FEATURE_DSO:
                rule->uses_dso = true;
                break;
        case RC_FEATURE_TRUE:
        case RC_FEATURE_PROCNAME:
        case RC_FEATURE_CMDLINE:
                break;
        case _RC_FEATURE_MAX:
                assert(false);
        }
        return 0;
}

static int build_op(Builder *b, const Members *m, const RcNode *n, RcPattern *p, RcRule *rule)
{
        struct json_object *v;
        const RcNode *vn;
        int r;

        if (m->found[PATTERN_FEATURE])
                return error(b, n, "pattern object has both \"op\" and \"feature\"");

        if (!member(m, PATTERN_OP, "op", &v, &vn))
                assert_not_reached(); /* build_pattern() only calls us when "op" is there */
        r = get_string(b, v, vn, "\"op\"", &p->op_name);
        if (r < 0)
                return r;

        if (streq(p->op_name, "and"))
                p->kind = RC_PATTERN_AND;
        else if (streq(p->op_name, "or"))
                p->kind = RC_PATTERN_OR;
        else if (streq(p->op_name, "not"))
                p->kind = RC_PATTERN_NOT;
        else {
                p->kind = RC_PATTERN_UNKNOWN_OP;
                (void) warning(b, vn, "unknown op \"%s\" never matches (known: and, or, not)", p->op_name);
        }

        if (!member(m, PATTERN_SUB, "sub", &v, &vn))
                return error(b, n, "op pattern has no \"sub\"");
        r = build_operands(b, v, vn, p, rule);
        if (r < 0)
                return r;

        if (p->kind == RC_PATTERN_NOT && p->n_sub != 1)
                (void) warning(b, n, "\"not\" with %zu operands never matches (it needs exactly one)", p->n_sub);
        else if ((p->kind == RC_PATTERN_AND || p->kind == RC_PATTERN_OR) && p->n_sub == 0)
                (void) warning(b, n, "\"%s\" with no operands %s", p->op_name,
                                p->kind == RC_PATTERN_AND ? "always matches" : "never matches");
        return 0;
}

static int build_pattern(Builder *b, struct json_object *jo, const RcNode *n, RcPattern *p, RcRule *rule)
{
        static const char *const known[] = { "feature", "matches", "op", "sub", NULL };

        *p = (RcPattern){ .location = location(b, n) };

        switch (json_object_get_type(jo)) {
        case json_type_string:
                p->kind = RC_PATTERN_MATCH;
                p->feature = RC_FEATURE_PROCNAME;
                p->feature_name = "procname";
                p->shorthand = true;
                return get_string(b, jo, n, "a pattern", &p->matches);
        case json_type_array:
                p->kind = RC_PATTERN_AND;
                p->op_name = "and";
                p->shorthand = true;
                return build_operands(b, jo, n, p, rule);
        case json_type_object: {
                Members m;

                scan_members(b, jo, n, "pattern", known, &m);
                if (m.found[PATTERN_OP])
                        return build_op(b, &m, n, p, rule);
                return build_primitive(b, &m, n, p, rule);
        }
        case json_type_null:
        case json_type_boolean:
        case json_type_double:
        case json_type_int:
                break;
        }
        return error(b, n, "a pattern must be a string, an object or an array of objects");
}

static int build_rule(Builder *b, struct json_object *jo, const RcNode *n, RcRule *rule)
{
        static const char *const known[] = { "pattern", "profile", NULL };
        struct json_object *v;
        const RcNode *vn;
        Members m;
        int r = 0, ret = 0;

        if (!json_object_is_type(jo, json_type_object))
                return error(b, n, "a rule must be an object {\"pattern\": ..., \"profile\": ...}");
        scan_members(b, jo, n, "rule", known, &m);
        rule->location = location(b, n);

        if (!member(&m, 0, "pattern", &v, &vn))
                ret = error(b, n, "rule has no \"pattern\"");
        else {
                r = build_pattern(b, v, vn, &rule->pattern, rule);
                if (r < 0)
                        ret = r;
                else if (rule->n_findfile_names > RC_FINDFILE_RULE_NAMES_MAX)
                        (void) warning(b, n,
                                        "rule's findfile lists name %" PRIu32 " files, more than %u; the rule never "
                                        "matches",
                                        rule->n_findfile_names, RC_FINDFILE_RULE_NAMES_MAX);
        }

        if (!member(&m, 1, "profile", &v, &vn))
                return error(b, n, "rule has no \"profile\"");

        switch (json_object_get_type(v)) {
        case json_type_string:
                r = get_string(b, v, vn, "a profile name", &rule->profile_name);
                break;
        case json_type_array:
                rule->inline_profile = alloc_array(b, 1, sizeof(RcProfile));
                if (!rule->inline_profile)
                        return -ENOMEM;
                *rule->inline_profile = (RcProfile){ .location = location(b, vn), .is_inline = true };
                r = build_settings(b, v, vn, rule->inline_profile);
                break;
        case json_type_object:
                rule->inline_profile = alloc_array(b, 1, sizeof(RcProfile));
                if (!rule->inline_profile)
                        return -ENOMEM;
                r = build_profile_object(b, v, vn, true, rule->inline_profile);
                break;
        case json_type_null:
        case json_type_boolean:
        case json_type_double:
        case json_type_int:
                r = error(b, vn, "a rule's \"profile\" must be a profile name, a settings array or a profile object");
        }
        return r < 0 ? r : ret;
}

static int build_array(Builder *b, const Members *root, size_t k, const char *name, bool rules)
{
        struct json_object *a;
        const RcNode *an, *c;
        size_t len;
        int r, ret = 0;

        if (!member(root, k, name, &a, &an))
                return 0;
        if (!json_object_is_type(a, json_type_array))
                return error(b, an, "\"%s\" must be an array", name);

        len = json_object_array_length(a);
        if (rules) {
                b->file->rules = alloc_array(b, len, sizeof(RcRule));
                if (!b->file->rules)
                        return -ENOMEM;
        } else {
                b->file->profiles = alloc_array(b, len, sizeof(RcProfile));
                if (!b->file->profiles)
                        return -ENOMEM;
        }

        c = rc_node_first_child(b->doc, an);
        for (size_t i = 0; i < len; i++, c = rc_node_next(b->doc, c)) {
                struct json_object *e = json_object_array_get_idx(a, i);
                const RcNode *en = c ? c : an;

                if (b->oom)
                        return b->oom;

                if (rules) {
                        RcRule *rule = &b->file->rules[b->file->n_rules];
                        rule->index = (uint32_t) b->file->n_rules;
                        r = build_rule(b, e, en, rule);
                        if (r < 0) {
                                ret = r;
                                continue;
                        }
                        b->file->n_rules++;
                } else {
                        if (!json_object_is_type(e, json_type_object)) {
                                ret = error(b, en, "a profile must be an object {\"name\": ..., \"settings\": [...]}");
                                continue;
                        }
                        r = build_profile_object(b, e, en, false, &b->file->profiles[b->file->n_profiles]);
                        if (r < 0) {
                                ret = r;
                                continue;
                        }
                        b->file->n_profiles++;
                }
        }
        return ret;
}

/* Builds the profiles, then the rules. A malformed profile (-EBADMSG) is already a diagnostic: the rules are
 * still built, so that one pass reports every error of the file. */
static int build_file(Builder *b, const Members *root)
{
        int r, k;

        r = build_array(b, root, 1, "profiles", false);
        if (r < 0 && r != -EBADMSG)
                return r;
        k = build_array(b, root, 0, "rules", true);
        return k < 0 ? k : r;
}

RcFile *rc_file_new(const char *path)
{
        RcFile *f = calloc(1, sizeof(RcFile));
        if (!f)
                return NULL;
        f->n_ref = 1;
        arena_init(&f->arena);
        f->path = strdup(path);
        if (!f->path)
                return mfree(f);
        return f;
}

int rc_file_parse(const char *path, const char *text, size_t size, const RcSyntaxOptions *options, RcFile **ret)
{
        static const char *const known[] = { "rules", "profiles", NULL };
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        RcDocument doc;
        Members root;
        Builder b;
        int r;

        assert(path);
        assert(ret);

        f = rc_file_new(path);
        if (!f)
                return -ENOMEM;

        r = rc_document_parse(text, size, options, &f->diagnostics, &doc);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                f->state = RC_FILE_BROKEN;
                *ret = TAKE_PTR(f);
                return 0;
        }

        f->portability = doc.portability;
        b = (Builder){ .file = f, .doc = &doc };
        scan_members(&b, doc.root, &doc.nodes[0], "root object", known, &root);
        r = build_file(&b, &root);
        rc_document_done(&doc);

        if (b.oom)
                return b.oom;
        if (r == -ENOMEM)
                return r;

        if (f->diagnostics.n_errors > 0) {
                /* A broken file contributes nothing: forget what was built. */
                f->state = RC_FILE_BROKEN;
                f->rules = NULL;
                f->n_rules = 0;
                f->profiles = NULL;
                f->n_profiles = 0;
        }

        *ret = TAKE_PTR(f);
        return 0;
}

int rc_file_new_unread(const char *path, RcFileState state, RcSeverity severity, const char *message, RcFile **ret)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        assert(path);
        assert(message);
        assert(ret);

        f = rc_file_new(path);
        if (!f)
                return -ENOMEM;
        f->state = state;
        r = rc_diagnostics_add(&f->diagnostics, severity, 0, 0, "%s", message);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(f);
        return 0;
}

RcFile *rc_file_ref(RcFile *f)
{
        if (f)
                f->n_ref++;
        return f;
}

RcFile *rc_file_unref(RcFile *f)
{
        if (!f)
                return NULL;
        assert(f->n_ref > 0);
        if (--f->n_ref > 0)
                return NULL;

        rc_diagnostics_done(&f->diagnostics);
        arena_done(&f->arena);
        free(f->path);
        return mfree(f);
}

static int64_t mtime_nsec(const struct stat *st)
{
        return (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

void rc_file_set_identity(RcFile *f, const struct stat *st)
{
        f->dev = st->st_dev;
        f->ino = st->st_ino;
        f->size = (uint64_t) st->st_size;
        f->mtime_nsec = mtime_nsec(st);
        f->owner = st->st_uid;
        f->group = st->st_gid;
        f->mode = st->st_mode;
}

bool rc_file_same_access(const RcFile *f, const struct stat *st)
{
        return f && f->owner == st->st_uid && f->group == st->st_gid && f->mode == st->st_mode;
}

bool rc_file_same_identity(const RcFile *f, const struct stat *st)
{
        return f && f->dev == st->st_dev && f->ino == st->st_ino && f->size == (uint64_t) st->st_size &&
                        f->mtime_nsec == mtime_nsec(st);
}

int rc_value_format(const RcValue *v, char **ret)
{
        int r = -1;

        assert(v);
        assert(ret);

        switch (v->type) {
        case RC_VALUE_STRING:
                r = asprintf(ret, "\"%s\"", v->string);
                break;
        case RC_VALUE_INTEGER:
                r = asprintf(ret, "%" PRIi64, v->integer);
                break;
        case RC_VALUE_UNSIGNED:
                r = asprintf(ret, "%" PRIu64, v->unsigned_integer);
                break;
        case RC_VALUE_REAL:
                r = asprintf(ret, "%.17g", v->real);
                break;
        case RC_VALUE_BOOLEAN:
                *ret = strdup(v->boolean ? "true" : "false");
                return *ret ? 0 : -ENOMEM;
        case _RC_VALUE_TYPE_MAX:
                assert(false);
        }
        return r < 0 ? -ENOMEM : 0;
}

static const char *const feature_names[_RC_FEATURE_MAX] = {
        [RC_FEATURE_TRUE] = "true",
        [RC_FEATURE_PROCNAME] = "procname",
        [RC_FEATURE_COMMNAME] = "commname",
        [RC_FEATURE_CMDLINE] = "cmdline",
        [RC_FEATURE_DSO] = "dso",
        [RC_FEATURE_FINDFILE] = "findfile",
        [RC_FEATURE_UNKNOWN] = "unknown",
};

const char *rc_feature_to_string(RcFeature f)
{
        return f >= 0 && f < _RC_FEATURE_MAX ? feature_names[f] : NULL;
}

RcFeature rc_feature_from_string(const char *s)
{
        assert(s);
        /* Feature names are case-sensitive, as every other name in the format. */
        for (RcFeature f = 0; f < RC_FEATURE_UNKNOWN; f++)
                if (streq(feature_names[f], s))
                        return f;
        return RC_FEATURE_UNKNOWN;
}

const char *rc_file_state_to_string(RcFileState s)
{
        switch (s) {
        case RC_FILE_LOADED:
                return "loaded";
        case RC_FILE_BROKEN:
                return "broken";
        case RC_FILE_SKIPPED:
                return "skipped";
        case _RC_FILE_STATE_MAX:
                break;
        }
        return NULL;
}

const char *rc_value_type_to_string(RcValueType t)
{
        switch (t) {
        case RC_VALUE_STRING:
                return "string";
        case RC_VALUE_INTEGER:
                return "integer";
        case RC_VALUE_UNSIGNED:
                return "unsigned";
        case RC_VALUE_REAL:
                return "real";
        case RC_VALUE_BOOLEAN:
                return "boolean";
        case _RC_VALUE_TYPE_MAX:
                break;
        }
        return NULL;
}
