/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-env.h"
#include "rc-settings.h"

const char *rc_key_env_variable(const char *key)
{
        const RcSettingInfo *info;

        assert(key);

        /* The documented keys' variables, which README 580 ranks above profiles; not an obsolete key's. */
        info = rc_setting_lookup(key);
        return info && info->documented ? info->variable : NULL;
}
