/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Keys and values (rc-doctor.h): unknown keys with the closest known one, obsolete keys, values the driver
 * would not read as meant; the table is rc-settings.c's. */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "rc-doctor-internal.h"
#include "rc-settings.h"
#include "string-util.h"

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

static char *setting_fix(Doctor *d, const Holder *h, const char *unset, const char *key, const char *value)
{
        Command c;

        if (h->ref)
                c = doctor_rule_command(d, h->ref, "set");
        else
                c = doctor_profile_command(d, "set", h->profile->name);
        if (unset)
                doctor_command_addf(&c, "--unset=%s", unset);
        doctor_command_addf(&c, "--setting=%s=%s", key, value);
        if (!h->ref)
                doctor_command_add_profile_file(d, &c, h->file);
        return doctor_command_finish(d, &c, h->file);
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
        return doctor_add_finding(d, kind, h->file, s->location.line, s->location.column, TAKE_PTR(m), TAKE_PTR(fix));
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

                if (dist < best_distance && doctor_names_close(key, known[i].key)) {
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
                        return doctor_add_finding(d, RC_DOCTOR_UNKNOWN_KEY, h->file, line, column,
                                        doctor_sentence("Unknown key \"%s\": the driver reads it as written, but no known "
                                                        "key is spelled like it.",
                                                        s->key),
                                        NULL);
                return add_rename(d, RC_DOCTOR_UNKNOWN_KEY, h, s, to,
                                doctor_sentence("Unknown key \"%s\": did you mean \"%s\" (%s)?", s->key, to->key,
                                                to->meaning));
        }

        if (info->replaced_by) {
                to = rc_setting_lookup(info->replaced_by);
                assert(to);
                return add_rename(d, RC_DOCTOR_OBSOLETE_KEY, h, s, to,
                                doctor_sentence("%s is obsolete: current drivers read %s instead (%s).", s->key,
                                                to->key, to->meaning));
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
        return doctor_add_finding(d, RC_DOCTOR_WRONG_VALUE, h->file, line, column,
                        doctor_sentence("%s (%s): %s.", s->key, info->meaning,
                                        message ? message : "the value is refused"),
                        TAKE_PTR(fix));
}

int doctor_check_profile_settings(Doctor *d, const Holder *h, const RcProfile *p)
{
        int r;

        for (size_t i = 0; i < p->n_settings; i++) {
                r = check_setting(d, h, &p->settings[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}
