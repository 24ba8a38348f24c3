/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* What we know of profile keys: every key NVIDIA documents (README 580 "Application Profiles", and R390
 * for the meaning), the keys NVIDIA's shipped files and users' files use outside that list, and obsolete
 * ones. Source: ../shared/docs/appprofile-settings.md §1, §2. The driver accepts any key (NVIDIA ships
 * opaque ones such as "0x528ab3"), so unknown keys are accepted with a warning; a known key in the wrong
 * case or with a value of the wrong type is refused, since the driver would not read it as meant. */

typedef enum RcSettingType {
        RC_SETTING_BOOLEAN, /* true/false (the driver also reads 0/1, which shipped files use) */
        RC_SETTING_INTEGER,
        RC_SETTING_STRING,
        _RC_SETTING_TYPE_MAX,
} RcSettingType;

/* One value of an enumeration: its rc text as written (0, "USLEEP") and what it means. */
typedef struct RcSettingValue {
        const char *value;
        const char *meaning;
} RcSettingValue;

typedef struct RcSettingInfo {
        const char *key;
        const char *variable; /* the __GL_* environment variable, NULL if none */
        RcSettingType type;
        int64_t min, max; /* RC_SETTING_INTEGER: allowed range */
        const char *meaning; /* one line */
        const char *replaced_by; /* obsolete key: its successor; NULL otherwise */
        bool documented; /* in NVIDIA's README list (else: seen in shipped or users' files) */
        const RcSettingValue *values; /* an enumeration: every value the driver reads, NULL-terminated;
                                       * NULL: none (the type and range say what is allowed) */
        const char *profile_name; /* NVIDIA's profile that sets only this opaque key, which users write
                                   * as if it were the key (CudaNoStablePerfLimit for "0x166c5e"); or NULL */
} RcSettingInfo;

/* The enumeration value of info spelled as text (an integer in any spelling the driver reads), or NULL. */
const RcSettingValue *rc_setting_value_lookup(const RcSettingInfo *info, const char *text);

/* Every known key, in the README's order then the others. */
const RcSettingInfo *rc_settings_known(size_t *ret_n);

/* The key spelled exactly so, or NULL. */
const RcSettingInfo *rc_setting_lookup(const char *key) _pure_;

/* The opaque key whose NVIDIA profile is named name (any case), or NULL. */
const RcSettingInfo *rc_setting_lookup_profile_name(const char *name) _pure_;

/* The known key spelled so in any case (the right spelling of a mistyped one), or NULL. */
const RcSettingInfo *rc_setting_lookup_any_case(const char *key) _pure_;

/* Parses one KEY=VALUE as typed on a command line (or sent by an applet) into the key and the rc text
 * of its value, typed by what we know of the key:
 *   - a known key in another case: -EINVAL, *ret_message says the right spelling;
 *   - a boolean key takes true, false, 1 or 0; an integer key decimal, 0x hex or 0 octal within its
 *     range; a string key any text (written as a JSON string unless already "quoted"): else -EINVAL,
 *     *ret_message names the type and the values allowed;
 *   - an unknown key: VALUE as rc text if it is a literal (true, false, a number, a "string"), else as a
 *     string; returns 1 with a warning in *ret_message ("unknown key ...");
 *   - an obsolete key: returns 1 with a warning naming its successor.
 * Returns 0 when all is well (*ret_message NULL). */
int rc_setting_parse_assignment(const char *assignment, char **ret_key, char **ret_value, char **ret_message);

/* Checks a key and the rc text of a value (as in RcEditSetting), with the same rules and results. */
int rc_setting_check(const char *key, const char *value, char **ret_message);

const char *rc_setting_type_to_string(RcSettingType t) _const_;
