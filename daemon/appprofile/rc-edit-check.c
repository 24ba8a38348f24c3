/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What an edit inserts is checked with the same reader that reads the file, before it is inserted; and
 * the file after an edit is compared with the model the edit intends, in a canonical form. */

#include <stdio.h>

#include "rc-edit-text.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

int rc_edit_quote(const char *s, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len, n = 0;

        assert(s);
        assert(ret);

        len = strlen(s);
        if (len == 0 || !utf8_is_valid_n(s, len))
                return -EINVAL;
        if (len > RC_FILE_SIZE_MAX)
                return -E2BIG;

        buf = malloc(len * 6 + 3); /* every byte escaped as \u00XX at worst */
        if (!buf)
                return -ENOMEM;
        buf[n++] = '"';
        for (const char *p = s; *p; p++) {
                unsigned char c = (unsigned char) *p;

                if (c == '"' || c == '\\') {
                        buf[n++] = '\\';
                        buf[n++] = (char) c;
                } else if (c < 0x20 || c == 0x7f)
                        n += (size_t) snprintf(buf + n, 7, "\\u%04x", c);
                else
                        buf[n++] = (char) c;
        }
        buf[n++] = '"';
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char *rc_edit_strip(const char *text)
{
        size_t start = 0, end = strlen(text);

        while (start < end && is_space(text[start]))
                start++;
        while (end > start && is_space(text[end - 1]))
                end--;
        return strndup(text + start, end - start);
}

int rc_edit_check_value(const char *path, const char *text, const char *kind, RcDiagnostics *diags, char **ret)
{
        static const char prefix[] = "{\"v\": ";
        _cleanup_free_ char *stripped = NULL, *wrapped = NULL;
        RcDiagnostics inner = { 0 };
        RcDocument doc;
        size_t len;
        int r;

        assert(text);
        assert(ret);

        stripped = rc_edit_strip(text);
        if (!stripped)
                return -ENOMEM;
        len = strlen(stripped);
        if (len == 0 || len > RC_FILE_SIZE_MAX) {
                r = rc_diagnostics_add_at(diags, path, RC_SEVERITY_ERROR, 0, 0, "%s is empty or too long", kind);
                return r < 0 ? r : -EINVAL;
        }
        if (asprintf(&wrapped, "%s%s\n}", prefix, stripped) < 0)
                return -ENOMEM;

        r = rc_document_parse(wrapped, strlen(wrapped), NULL, &inner, &doc);
        if (r == -ENOMEM) {
                rc_diagnostics_done(&inner);
                return r;
        }
        if (r >= 0) {
                const RcNode *v = rc_node_first_child(&doc, &doc.nodes[0]);
                /* Exactly one member, whose value is all of the text. */
                bool exact = v && !rc_node_next(&doc, v) && v->offset == sizeof(prefix) - 1 &&
                                v->end == sizeof(prefix) - 1 + len;
                rc_document_done(&doc);
                if (!exact)
                        r = -EINVAL;
        }
        if (r < 0) {
                /* The reader's positions are in the wrapped text; the message is what matters here. */
                for (size_t i = 0; i < inner.n_items; i++) {
                        r = rc_diagnostics_add_at(diags, path, RC_SEVERITY_ERROR, 0, 0, "%s %s: %s", kind, stripped,
                                        inner.items[i].message);
                        if (r < 0)
                                break;
                }
                if (r != -ENOMEM && inner.n_items == 0)
                        r = rc_diagnostics_add_at(diags, path, RC_SEVERITY_ERROR, 0, 0,
                                        "%s %s is not one rc value: it has text before or after it", kind, stripped);
                rc_diagnostics_done(&inner);
                return r == -ENOMEM ? r : -EINVAL;
        }
        rc_diagnostics_done(&inner);
        *ret = TAKE_PTR(stripped);
        return 0;
}

int rc_edit_parse_wrapped(const char *path, const char *what, const char *wrapped, size_t n_rules, size_t n_profiles,
                RcDiagnostics *diags, RcFile **ret)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        r = rc_file_parse(path, wrapped, strlen(wrapped), NULL, &f);
        if (r < 0)
                return r;
        if (f->state == RC_FILE_LOADED && f->n_rules == n_rules && f->n_profiles == n_profiles) {
                *ret = TAKE_PTR(f);
                return 0;
        }
        for (size_t i = 0; i < f->diagnostics.n_items; i++) {
                const RcDiagnostic *d = &f->diagnostics.items[i];
                if (d->severity != RC_SEVERITY_ERROR)
                        continue;
                r = rc_diagnostics_add_at(diags, path, RC_SEVERITY_ERROR, 0, 0, "%s: %s", what, d->message);
                if (r < 0)
                        return r;
        }
        if (f->diagnostics.n_errors == 0) {
                r = rc_diagnostics_add_at(diags, path, RC_SEVERITY_ERROR, 0, 0, "%s: not one %s", what,
                                n_rules > 0 ? "rule" : "profile");
                if (r < 0)
                        return r;
        }
        return -EINVAL;
}

int rc_edit_canon_setting(const RcSetting *s, char **ret)
{
        _cleanup_free_ char *key = NULL, *value = NULL;
        int r;

        r = rc_edit_quote(s->key, &key);
        if (r == -EINVAL) /* an empty key: still a canonical form */
                key = strdup("\"\"");
        else if (r < 0)
                return r;
        if (!key)
                return -ENOMEM;
        r = rc_value_format(&s->value, &value);
        if (r < 0)
                return r;
        return asprintf(ret, "%s=%s", key, value) < 0 ? -ENOMEM : 0;
}

int rc_edit_canon_settings(const RcProfile *p, char ***ret)
{
        _cleanup_strv_free_ char **l = NULL;
        int r;

        /* An empty vector, not NULL, so that callers can tell "no settings" from "not an inline profile". */
        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_settings; i++) {
                char *s;

                r = rc_edit_canon_setting(&p->settings[i], &s);
                if (r < 0)
                        return r;
                r = strv_consume(&l, s);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int rc_edit_canon_profile(const char *name, char *const *settings, char **ret)
{
        _cleanup_free_ char *joined = strv_join(settings, "; ");

        if (!joined)
                return -ENOMEM;
        return asprintf(ret, "{name %s: %s}", name ? name : "(none)", joined) < 0 ? -ENOMEM : 0;
}

int rc_edit_canon_rule_profile(const RcRule *rule, char **ret)
{
        _cleanup_strv_free_ char **settings = NULL;
        int r;

        if (!rule->inline_profile)
                return rc_edit_canon_reference(rule->profile_name, ret);
        r = rc_edit_canon_settings(rule->inline_profile, &settings);
        if (r < 0)
                return r;
        return rc_edit_canon_profile(rule->inline_profile->name, settings, ret);
}

int rc_edit_canon_rule(const RcRule *rule, char **ret)
{
        _cleanup_free_ char *pattern = NULL, *profile = NULL;
        int r;

        r = rc_pattern_format(&rule->pattern, &pattern);
        if (r < 0)
                return r;
        r = rc_edit_canon_rule_profile(rule, &profile);
        if (r < 0)
                return r;
        return rc_edit_canon_rule_of(pattern, profile, ret);
}

int rc_edit_canon_reference(const char *name, char **ret)
{
        return asprintf(ret, "@%s", name) < 0 ? -ENOMEM : 0;
}

int rc_edit_canon_rule_of(const char *pattern, const char *profile, char **ret)
{
        return asprintf(ret, "%s -> %s", pattern, profile) < 0 ? -ENOMEM : 0;
}

int rc_edit_canon_file(const RcFile *f, char ***ret_rules, char ***ret_profiles)
{
        _cleanup_strv_free_ char **rules = NULL, **profiles = NULL;
        int r;

        rules = calloc(1, sizeof(char *));
        profiles = calloc(1, sizeof(char *));
        if (!rules || !profiles)
                return -ENOMEM;
        for (size_t i = 0; i < f->n_rules; i++) {
                char *s;

                r = rc_edit_canon_rule(&f->rules[i], &s);
                if (r < 0)
                        return r;
                r = strv_consume(&rules, s);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < f->n_profiles; i++) {
                _cleanup_strv_free_ char **settings = NULL;
                char *s;

                r = rc_edit_canon_settings(&f->profiles[i], &settings);
                if (r < 0)
                        return r;
                r = rc_edit_canon_profile(f->profiles[i].name, settings, &s);
                if (r < 0)
                        return r;
                r = strv_consume(&profiles, s);
                if (r < 0)
                        return r;
        }
        *ret_rules = TAKE_PTR(rules);
        *ret_profiles = TAKE_PTR(profiles);
        return 0;
}
