/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The RESOLUTION struct (see the D-Bus XML) as JSON, and its human-readable form. */

#include <inttypes.h>

#include "bus-signatures.h"
#include "client.h"
#include "log.h"
#include "strv.h"

static int read_facts(sd_bus_message *m, struct json_object *facts)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        for (;;) {
                _cleanup_(json_object_putp) struct json_object *v = NULL;
                const char *key;

                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = read_variant_json(m, &v);
                if (r < 0)
                        return r;
                if (v)
                        json_object_object_add(facts, key, TAKE_PTR(v));
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(m);
}

static struct json_object *location(const char *file, uint32_t line, uint32_t column)
{
        struct json_object *o = json_object_new_object();

        json_object_object_add(o, "file", json_object_new_string(file));
        json_object_object_add(o, "line", json_object_new_int64(line));
        json_object_object_add(o, "column", json_object_new_int64(column));
        return o;
}

static int read_rules(sd_bus_message *m, struct json_object *rules)
{
        const char *file, *pattern, *profile;
        uint32_t line, column;
        int matched, r;

        r = sd_bus_message_enter_container(m, 'a', "(" BUS_RULE_RESULT_FIELDS ")");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(" BUS_RULE_RESULT_FIELDS ")", &file, &line, &column, &pattern, &profile,
                                &matched)) > 0) {
                struct json_object *o = location(file, line, column);

                json_object_object_add(o, "pattern", json_object_new_string(pattern));
                json_object_object_add(o, "profile", json_object_new_string(profile));
                json_object_object_add(o, "matched", json_object_new_boolean(matched));
                json_object_array_add(rules, o);
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* BUS_SHADOWED_FIELDS: a value a later rule set and lost. */
static int read_shadowed(sd_bus_message *m, void *userdata)
{
        _cleanup_(json_object_putp) struct json_object *value = NULL;
        struct json_object *shadowed = userdata, *o;
        const char *profile, *file;
        uint32_t line, column;
        int r;

        r = read_variant_json(m, &value);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ssuu", &profile, &file, &line, &column);
        if (r < 0)
                return r;
        o = location(file, line, column);
        json_object_object_add(o, "value", TAKE_PTR(value));
        json_object_object_add(o, "profile", json_object_new_string(profile));
        json_object_array_add(shadowed, o);
        return 0;
}

/* BUS_SETTING_FIELDS: one effective setting. */
static int read_setting(sd_bus_message *m, void *userdata)
{
        _cleanup_(json_object_putp) struct json_object *value = NULL, *shadowed = NULL;
        struct json_object *settings = userdata, *o;
        const char *key, *profile, *file, *env_var, *env_value;
        uint32_t line, column;
        int r;

        r = sd_bus_message_read(m, "s", &key);
        if (r < 0)
                return r;
        r = read_variant_json(m, &value);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ssuuss", &profile, &file, &line, &column, &env_var, &env_value);
        if (r < 0)
                return r;
        shadowed = json_object_new_array();
        r = client_read_struct_array(m, BUS_SHADOWED_FIELDS, read_shadowed, shadowed);
        if (r < 0)
                return r;

        o = json_object_new_object();
        json_object_array_add(settings, o);
        json_object_object_add(o, "key", json_object_new_string(key));
        json_object_object_add(o, "value", TAKE_PTR(value));
        json_object_object_add(o, "profile", json_object_new_string(profile));
        json_object_object_add(o, "rule", location(file, line, column));
        json_object_object_add(o, "env_variable", *env_var ? json_object_new_string(env_var) : NULL);
        json_object_object_add(o, "env_value", *env_value ? json_object_new_string(env_value) : NULL);
        json_object_object_add(o, "overridden", json_object_new_boolean(*env_value != '\0'));
        json_object_object_add(o, "shadowed", TAKE_PTR(shadowed));
        return 0;
}

static int read_notes(sd_bus_message *m, struct json_object *notes)
{
        _cleanup_strv_free_ char **l = NULL;
        int r;

        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        STRV_FOREACH(s, l)
                json_object_array_add(notes, json_object_new_string(*s));
        return 0;
}

static int read_resolution(sd_bus_message *m, struct json_object *res)
{
        struct json_object *facts = json_object_new_object(), *rules = json_object_new_array(),
                           *settings = json_object_new_array(), *notes = json_object_new_array();
        const char *state;
        int r;

        /* Owned by res from here on, whatever happens. */
        json_object_object_add(res, "facts", facts);
        json_object_object_add(res, "rules", rules);
        json_object_object_add(res, "settings", settings);
        json_object_object_add(res, "notes", notes);

        r = sd_bus_message_enter_container(m, 'r', BUS_RESOLUTION_FIELDS);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "s", &state);
        if (r < 0)
                return r;
        json_object_object_add(res, "state", json_object_new_string(state));
        r = read_facts(m, facts);
        if (r < 0)
                return r;
        r = read_rules(m, rules);
        if (r < 0)
                return r;
        r = client_read_struct_array(m, BUS_SETTING_FIELDS, read_setting, settings);
        if (r < 0)
                return r;
        r = read_notes(m, notes);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int resolution_read(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *res = NULL;
        int r;

        assert(m);
        assert(ret);

        res = json_object_new_object();
        if (!res)
                return log_oom();
        r = read_resolution(m, res);
        if (r < 0)
                return log_error_errno(r, "Failed to read the daemon's reply");
        *ret = TAKE_PTR(res);
        return 0;
}

static const char *str(struct json_object *o, const char *key)
{
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

static int64_t num(struct json_object *o, const char *key)
{
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static struct json_object *get(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        (void) json_object_object_get_ex(o, key, &v);
        return v;
}

/* Absent members are empty arrays. */
static size_t array_length(struct json_object *o)
{
        return json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

/* A fact, escaped, or what its absence means. */
static const char *fact(EscapePool *e, struct json_object *facts, const char *key, const char *unknown)
{
        const char *s = str(facts, key);

        return *s ? esc(e, s) : unknown;
}

static void print_rules(EscapePool *e, struct json_object *rules)
{
        size_t n_rules = array_length(rules), n_matched = 0;

        for (size_t i = 0; i < n_rules; i++)
                n_matched += json_object_get_boolean(get(json_object_array_get_idx(rules, i), "matched"));

        printf("\nMatched rules: %zu of %zu\n", n_matched, n_rules);
        for (size_t i = 0; i < n_rules; i++) {
                struct json_object *r = json_object_array_get_idx(rules, i);
                bool matched = json_object_get_boolean(get(r, "matched"));

                if (!matched && !arg.all)
                        continue;
                printf("  %s %s:%" PRIi64 ":%" PRIi64 "  %s  -> %s\n", matched ? "*" : " ", esc(e, str(r, "file")),
                                num(r, "line"), num(r, "column"), esc(e, str(r, "pattern")),
                                *str(r, "profile") ? esc(e, str(r, "profile")) : "(profile defined nowhere)");
        }
}

static void print_settings(EscapePool *e, struct json_object *settings, const char *state)
{
        size_t n = array_length(settings);

        printf("\nEffective settings: %zu%s\n", n,
                        streq(state, "enabled") || streq(state, "enabled-by-environment")
                                        ? ""
                                        : " (would apply; profiles are disabled)");
        for (size_t i = 0; i < n; i++) {
                struct json_object *s = json_object_array_get_idx(settings, i), *rule = get(s, "rule"),
                                   *shadowed = get(s, "shadowed");

                printf("  %s = %s\n", esc(e, str(s, "key")), value_text(e, get(s, "value")));
                printf("      from profile \"%s\", rule %s:%" PRIi64 ":%" PRIi64 "\n", esc(e, str(s, "profile")),
                                esc(e, str(rule, "file")), num(rule, "line"), num(rule, "column"));
                if (json_object_get_boolean(get(s, "overridden")))
                        printf("      overridden by the environment: %s=%s\n", esc(e, str(s, "env_variable")),
                                        esc(e, str(s, "env_value")));
                else if (*str(s, "env_variable"))
                        printf("      (%s in the environment would override it)\n", esc(e, str(s, "env_variable")));
                for (size_t j = 0; j < array_length(shadowed); j++) {
                        struct json_object *sh = json_object_array_get_idx(shadowed, j);

                        printf("      shadows %s from \"%s\" at %s:%" PRIi64 ":%" PRIi64 "\n",
                                        value_text(e, get(sh, "value")), esc(e, str(sh, "profile")),
                                        esc(e, str(sh, "file")), num(sh, "line"), num(sh, "column"));
                }
        }
}

void resolution_print(struct json_object *res, const char *title)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        struct json_object *facts = get(res, "facts"), *notes = get(res, "notes"), *dsos = get(facts, "dsos");

        printf("%s\n", title);
        printf("    procname: %s\n", fact(&e, facts, "procname", "(unknown)"));
        printf("    commname: %s\n", fact(&e, facts, "commname", "(unknown)"));
        printf("     cmdline: %s\n", fact(&e, facts, "cmdline", "(unknown)"));
        printf("        HOME: %s\n", fact(&e, facts, "home", "(unset: no per-user rc files)"));
        printf("   libraries: %zu mapped\n", array_length(dsos));
        printf("    profiles: %s\n", esc(&e, str(res, "state")));

        print_rules(&e, get(res, "rules"));
        print_settings(&e, get(res, "settings"), str(res, "state"));

        if (array_length(notes) > 0) {
                printf("\nNotes:\n");
                for (size_t i = 0; i < array_length(notes); i++)
                        printf("  - %s\n", esc(&e, json_object_get_string(json_object_array_get_idx(notes, i))));
        }
}
