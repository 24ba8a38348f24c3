/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdio.h>
#include <stdlib.h>

#include "parse-util.h"
#include "rc-format.h"
#include "rc-rule-id.h"
#include "string-util.h"

const char *rc_rule_profile_label(const RcRule *rule)
{
        assert(rule);

        if (rule->inline_profile)
                return rule->inline_profile->name ? rule->inline_profile->name : "(inline)";
        return strempty(rule->profile_name);
}

/* FNV-1a, 64 bits: stable across builds and architectures, which is all an id needs (it guards against
 * nothing: whoever may edit a file may name any of its rules). */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                h ^= (uint8_t) s[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

void rc_rule_id(const char *path, const char *pattern, const char *profile, unsigned occurrence,
                char ret[static RC_RULE_ID_LENGTH + 1])
{
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        char occ[16];

        assert(path);
        assert(pattern);
        assert(profile);

        /* Each field with its terminating NUL, so no two field lists hash alike by shifting bytes. */
        h = fnv1a(h, path, strlen(path) + 1);
        h = fnv1a(h, pattern, strlen(pattern) + 1);
        h = fnv1a(h, profile, strlen(profile) + 1);
        snprintf(occ, sizeof(occ), "%u", occurrence);
        h = fnv1a(h, occ, strlen(occ) + 1);
        snprintf(ret, RC_RULE_ID_LENGTH + 1, "%012" PRIx64, h & UINT64_C(0xffffffffffff));
}

bool rc_rule_id_is_valid(const char *s)
{
        if (!s || strlen(s) != RC_RULE_ID_LENGTH)
                return false;
        for (const char *p = s; *p; p++)
                if (!strchr("0123456789abcdef", *p))
                        return false;
        return true;
}

int rc_file_rule_ids(const RcFile *f, char (**ret)[RC_RULE_ID_LENGTH + 1])
{
        _cleanup_free_ char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;
        _cleanup_free_ char **patterns = NULL;
        int r = 0;

        assert(f);
        assert(ret);

        ids = calloc(MAX(f->n_rules, 1u), sizeof(*ids));
        patterns = calloc(MAX(f->n_rules, 1u), sizeof(char *));
        if (!ids || !patterns)
                return -ENOMEM;

        for (size_t i = 0; i < f->n_rules && r >= 0; i++)
                r = rc_pattern_format(&f->rules[i].pattern, &patterns[i]);

        for (size_t i = 0; i < f->n_rules && r >= 0; i++) {
                const char *label = rc_rule_profile_label(&f->rules[i]);
                unsigned occurrence = 0;

                /* Quadratic, on at most a few thousand rules of one file, and only when editing. */
                for (size_t j = 0; j < i; j++)
                        if (streq(patterns[j], patterns[i]) && streq(rc_rule_profile_label(&f->rules[j]), label))
                                occurrence++;
                rc_rule_id(f->path, patterns[i], label, occurrence, ids[i]);
        }

        for (size_t i = 0; i < f->n_rules; i++)
                free(patterns[i]);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ids);
        return 0;
}

int rc_file_find_rule(const RcFile *f, const char *address, size_t *ret_index)
{
        size_t found = SIZE_MAX;
        int r;

        assert(f);
        assert(address);
        assert(ret_index);

        if (rc_rule_id_is_valid(address)) {
                _cleanup_free_ char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;

                r = rc_file_rule_ids(f, &ids);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < f->n_rules; i++)
                        if (streq(ids[i], address)) {
                                *ret_index = i;
                                return 0;
                        }
                return -ENOENT;
        }

        {
                uint32_t line;

                r = safe_atou32(address, &line);
                if (r < 0 || line == 0)
                        return -EINVAL;
                for (size_t i = 0; i < f->n_rules; i++)
                        if (f->rules[i].location.line == line) {
                                if (found != SIZE_MAX)
                                        return -ENOTUNIQ;
                                found = i;
                        }
        }
        if (found == SIZE_MAX)
                return -ENOENT;
        *ret_index = found;
        return 0;
}

int rc_rule_address_split(const char *address, char **ret_file, char **ret_rest)
{
        _cleanup_free_ char *file = NULL, *rest = NULL;
        const char *colon;

        assert(address);
        assert(ret_file);
        assert(ret_rest);

        if (rc_rule_id_is_valid(address)) {
                rest = strdup(address);
                if (!rest)
                        return -ENOMEM;
                *ret_file = NULL;
                *ret_rest = TAKE_PTR(rest);
                return 0;
        }

        /* FILE:LINE: the last colon, since paths may hold colons and lines cannot. */
        colon = strrchr(address, ':');
        if (!colon || colon == address || colon[1] == '\0' || address[0] != '/')
                return -EINVAL;
        for (const char *p = colon + 1; *p; p++)
                if (*p < '0' || *p > '9')
                        return -EINVAL;
        file = strndup(address, colon - address);
        rest = strdup(colon + 1);
        if (!file || !rest)
                return -ENOMEM;
        *ret_file = TAKE_PTR(file);
        *ret_rest = TAKE_PTR(rest);
        return 0;
}
