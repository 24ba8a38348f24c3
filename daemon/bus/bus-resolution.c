/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "bus-common.h"
#include "rc-format.h"
#include "string-util.h"
#include "strv.h"

int bus_append_rc_value(sd_bus_message *m, const RcValue *v)
{
        switch (v->type) {
        case RC_VALUE_STRING:
                return sd_bus_message_append(m, "v", "s", v->string);
        case RC_VALUE_INTEGER:
                return sd_bus_message_append(m, "v", "x", v->integer);
        case RC_VALUE_UNSIGNED:
                return sd_bus_message_append(m, "v", "t", v->unsigned_integer);
        case RC_VALUE_REAL:
                return sd_bus_message_append(m, "v", "d", v->real);
        case RC_VALUE_BOOLEAN:
                return sd_bus_message_append(m, "v", "b", (int) v->boolean);
        case _RC_VALUE_TYPE_MAX:
                break;
        }
        assert_not_reached();
}

int bus_append_struct_array(
                sd_bus_message *m, const char *contents, size_t n, BusAppendFields append_fields, const void *userdata)
{
        char element[256]; /* D-Bus signatures are at most 255 bytes */
        int r;

        assert(m);
        assert(contents);
        assert(append_fields);

        if (snprintf(element, sizeof(element), "(%s)", contents) >= (int) sizeof(element))
                return -EINVAL;
        r = sd_bus_message_open_container(m, 'a', element);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = sd_bus_message_open_container(m, 'r', contents);
                if (r < 0)
                        return r;
                r = append_fields(m, i, userdata);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static const char *profile_label(const RcRuleRef *ref)
{
        if (!ref->profile)
                return "";
        return ref->profile->name ? ref->profile->name : "(inline)";
}

/* The names the driver's GL/EGL/CUDA components map: once one is there, dso results are final. */
static bool gl_driver_mapped(const RcMatchFacts *mf)
{
        static const char *const prefixes[] = { "libnvidia-glcore", "libGLX_nvidia", "libEGL_nvidia", "libcuda.so",
                "libnvidia-eglcore" };

        for (size_t i = 0; i < mf->n_dso_names; i++)
                for (size_t j = 0; j < ELEMENTSOF(prefixes); j++)
                        if (startswith(mf->dso_names[i], prefixes[j]))
                                return true;
        return false;
}

static int append_string_array(sd_bus_message *m, const char *const *l, size_t n)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "s");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = sd_bus_message_append(m, "s", l[i]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static int append_facts(sd_bus_message *m, const RcMatchFacts *mf, const RcProcessFacts *facts,
                const BusResolutionSubject *subject)
{
        const char *home = strv_env_get(facts->environ, "HOME");
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "{sv}{sv}{sv}", "procname", "s", strempty(mf->procname), "commname", "s",
                        mf->has_comm ? mf->comm : "", "home", "s", strempty(home));
        if (r < 0)
                return r;

        /* A tracked result keeps no command line or mapped files: say nothing rather than "none". */
        if (!subject->tracked_only) {
                r = sd_bus_message_append(m, "{sv}", "cmdline", "s", strempty(mf->cmdline));
                if (r < 0)
                        return r;
                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(m, "s", "dsos");
                if (r < 0)
                        return r;
                r = sd_bus_message_open_container(m, 'v', "as");
                if (r < 0)
                        return r;
                r = append_string_array(m, mf->dso_names, mf->n_dso_names);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }

        if (subject->id) {
                r = sd_bus_message_append(m, "{sv}{sv}{sv}", "pid", "u", (uint32_t) subject->id->pid, "start_time", "t",
                                subject->id->start_time, "uid", "u", (uint32_t) subject->uid);
                if (r < 0)
                        return r;
                if (!subject->tracked_only) {
                        r = sd_bus_message_append(m, "{sv}", "container", "b", (int) subject->container);
                        if (r < 0)
                                return r;
                }
        }
        return sd_bus_message_close_container(m);
}

static int append_rules(sd_bus_message *m, const RcResolution *res)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "(" BUS_RULE_RESULT_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; i < res->n_rules; i++) {
                const RcRuleResult *rr = &res->rules[i];
                const RcRule *rule = rr->ref->rule;
                _cleanup_free_ char *pattern = NULL;

                r = rc_pattern_format(&rule->pattern, &pattern);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(m, "(" BUS_RULE_RESULT_FIELDS ")", rule->location.file->path,
                                rule->location.line, rule->location.column, pattern,
                                rule->inline_profile ? profile_label(rr->ref)
                                                     : (rr->ref->profile ? rule->profile_name : ""),
                                (int) rr->matched);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static int append_shadowed_fields(sd_bus_message *m, size_t i, const void *userdata)
{
        const RcEffectiveSetting *s = userdata;
        const RcShadowed *sh = &s->shadowed[i];
        int r;

        r = bus_append_rc_value(m, &sh->setting->value);
        if (r < 0)
                return r;
        return sd_bus_message_append(m, "ssuu", profile_label(sh->ref), sh->ref->rule->location.file->path,
                        sh->ref->rule->location.line, sh->ref->rule->location.column);
}

static int append_setting_fields(sd_bus_message *m, size_t i, const void *userdata)
{
        const RcResolution *res = userdata;
        const RcEffectiveSetting *s = &res->settings[i];
        const RcRule *rule = s->ref->rule;
        int r;

        r = sd_bus_message_append(m, "s", s->setting->key);
        if (r < 0)
                return r;
        r = bus_append_rc_value(m, &s->setting->value);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ssuuss", profile_label(s->ref), rule->location.file->path, rule->location.line,
                        rule->location.column, strempty(s->env_variable), strempty(s->env_value));
        if (r < 0)
                return r;
        return bus_append_struct_array(m, BUS_SHADOWED_FIELDS, s->n_shadowed, append_shadowed_fields, s);
}

static int append_notes(sd_bus_message *m, const RcResolution *res, const RcMatchFacts *mf, bool tracked_only)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "s");
        if (r < 0)
                return r;

        switch (res->state) {
        case RC_PROFILES_DISABLED_BY_GLOBALS:
                r = sd_bus_message_append(m, "s",
                                "Application profiles are disabled by ~/.nv/nvidia-application-profile-globals-rc; "
                                "the settings listed would apply otherwise.");
                break;
        case RC_PROFILES_DISABLED_BY_ENVIRONMENT:
                r = sd_bus_message_append(m, "s",
                                "Application profiles are disabled by __GL_APPLICATION_PROFILE=0 in the process's "
                                "environment; the settings listed would apply otherwise.");
                break;
        case RC_PROFILES_ENABLED_BY_ENVIRONMENT:
                r = sd_bus_message_append(m, "s",
                                "__GL_APPLICATION_PROFILE=1 enables profiles although the globals file disables them.");
                break;
        case RC_PROFILES_ENABLED:
                break;
        case _RC_PROFILES_STATE_MAX:
                assert_not_reached();
        }
        if (r < 0)
                return r;

        if (res->depends_on_dsos && !tracked_only && !gl_driver_mapped(mf)) {
                r = sd_bus_message_append(m, "s",
                                "dso rules were evaluated against the libraries mapped now; the NVIDIA driver is not "
                                "loaded in this process yet, and reads its profiles when it loads, so dso results "
                                "may still change.");
                if (r < 0)
                        return r;
        }

        for (size_t i = 0; i < res->n_rules; i++) {
                const RcRuleResult *rr = &res->rules[i];
                _cleanup_free_ char *note = NULL;

                if (!rr->matched || rr->ref->profile)
                        continue;
                if (asprintf(&note, "The rule at %s:%u:%u matches, but its profile \"%s\" is defined nowhere.",
                                    rr->ref->rule->location.file->path, rr->ref->rule->location.line,
                                    rr->ref->rule->location.column, strempty(rr->ref->rule->profile_name)) < 0)
                        return -ENOMEM;
                r = sd_bus_message_append(m, "s", note);
                if (r < 0)
                        return r;
        }

        /* Files that exist and do not count for this process: unreadable by its user (the driver reads
         * them inside the process), or beyond the user's budget. */
        for (size_t i = 0; i < res->config->n_files; i++) {
                const RcFile *f = res->config->files[i];
                _cleanup_free_ char *note = NULL;

                if (f->state != RC_FILE_SKIPPED || f->diagnostics.n_items == 0 ||
                                f->diagnostics.items[0].severity != RC_SEVERITY_WARNING)
                        continue;
                if (asprintf(&note, "%s: %s", f->path, f->diagnostics.items[0].message) < 0)
                        return -ENOMEM;
                r = sd_bus_message_append(m, "s", note);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

int bus_append_resolution(sd_bus_message *reply, const RcResolution *res, const RcProcessFacts *facts,
                const BusResolutionSubject *subject)
{
        _cleanup_(rc_match_facts_done) RcMatchFacts mf = { 0 };
        int r;

        r = rc_match_facts_init(&mf, facts);
        if (r < 0)
                return r;

        r = sd_bus_message_open_container(reply, 'r', BUS_RESOLUTION_FIELDS);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", rc_profiles_state_to_string(res->state));
        if (r < 0)
                return r;
        r = append_facts(reply, &mf, facts, subject);
        if (r < 0)
                return r;
        r = append_rules(reply, res);
        if (r < 0)
                return r;
        r = bus_append_struct_array(reply, BUS_SETTING_FIELDS, res->n_settings, append_setting_fields, res);
        if (r < 0)
                return r;
        r = append_notes(reply, res, &mf, subject->tracked_only);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}
