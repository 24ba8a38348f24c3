/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The RESOLUTION struct (see the D-Bus XML) as JSON, and its human-readable form. */

#include <stdio.h>

#include "client.h"

static int read_facts(sd_bus_message *m, struct json_object *facts)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                struct json_object *v = NULL;
                const char *key;

                r = sd_bus_message_read(m, "s", &key);
                if (r >= 0)
                        r = read_variant_json(m, &v);
                if (r < 0)
                        return r;
                if (v)
                        json_object_object_add(facts, key, v);
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
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

        r = sd_bus_message_enter_container(m, 'a', "(suussb)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(suussb)", &file, &line, &column, &pattern, &profile, &matched)) > 0) {
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

static int read_settings(sd_bus_message *m, struct json_object *settings)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(svssuussa(vssuu))");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'r', "svssuussa(vssuu)")) > 0) {
                const char *key, *profile, *file, *env_var, *env_value;
                struct json_object *o = json_object_new_object(), *value = NULL, *shadowed = json_object_new_array();
                uint32_t line, column;

                r = sd_bus_message_read(m, "s", &key);
                if (r >= 0)
                        r = read_variant_json(m, &value);
                if (r >= 0)
                        r = sd_bus_message_read(m, "ssuuss", &profile, &file, &line, &column, &env_var, &env_value);
                if (r < 0) {
                        json_object_put(o);
                        json_object_put(shadowed);
                        return r;
                }
                json_object_object_add(o, "key", json_object_new_string(key));
                json_object_object_add(o, "value", value);
                json_object_object_add(o, "profile", json_object_new_string(profile));
                json_object_object_add(o, "rule", location(file, line, column));
                json_object_object_add(o, "env_variable", *env_var ? json_object_new_string(env_var) : NULL);
                json_object_object_add(o, "env_value", *env_value ? json_object_new_string(env_value) : NULL);
                json_object_object_add(o, "overridden", json_object_new_boolean(*env_value != '\0'));

                r = sd_bus_message_enter_container(m, 'a', "(vssuu)");
                while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "vssuu")) > 0) {
                        struct json_object *sv = NULL, *so;
                        r = read_variant_json(m, &sv);
                        if (r >= 0)
                                r = sd_bus_message_read(m, "ssuu", &profile, &file, &line, &column);
                        if (r < 0)
                                break;
                        so = location(file, line, column);
                        json_object_object_add(so, "value", sv);
                        json_object_object_add(so, "profile", json_object_new_string(profile));
                        json_object_array_add(shadowed, so);
                        r = sd_bus_message_exit_container(m);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                json_object_object_add(o, "shadowed", shadowed);
                json_object_array_add(settings, o);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int resolution_read(sd_bus_message *m, struct json_object **ret)
{
        struct json_object *res = json_object_new_object(), *facts = json_object_new_object(),
                           *rules = json_object_new_array(), *settings = json_object_new_array(),
                           *notes = json_object_new_array();
        char **l = NULL;
        const char *state;
        int r;

        json_object_object_add(res, "facts", facts);
        json_object_object_add(res, "rules", rules);
        json_object_object_add(res, "settings", settings);
        json_object_object_add(res, "notes", notes);

        r = sd_bus_message_enter_container(m, 'r', "sa{sv}a(suussb)a(svssuussa(vssuu))as");
        if (r >= 0)
                r = sd_bus_message_read(m, "s", &state);
        if (r >= 0) {
                json_object_object_add(res, "state", json_object_new_string(state));
                r = read_facts(m, facts);
        }
        if (r >= 0)
                r = read_rules(m, rules);
        if (r >= 0)
                r = read_settings(m, settings);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &l);
        for (char **s = l; r >= 0 && s && *s; s++)
                json_object_array_add(notes, json_object_new_string(*s));
        for (char **s = l; s && *s; s++)
                free(*s);
        free(l);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0) {
                json_object_put(res);
                fprintf(stderr, "Malformed reply: %s\n", strerror(-r));
                return r;
        }
        *ret = res;
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

static const char *value_text(struct json_object *v)
{
        return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : "?";
}

void resolution_print(struct json_object *res, const char *title)
{
        struct json_object *facts = get(res, "facts"), *rules = get(res, "rules"), *settings = get(res, "settings"),
                           *notes = get(res, "notes"), *dsos = get(facts, "dsos");
        size_t n_rules = json_object_array_length(rules), n_matched = 0;

        printf("%s\n", title);
        printf("    procname: %s\n", *str(facts, "procname") ? str(facts, "procname") : "(unknown)");
        printf("    commname: %s\n", *str(facts, "commname") ? str(facts, "commname") : "(unknown)");
        printf("     cmdline: %s\n", *str(facts, "cmdline") ? str(facts, "cmdline") : "(unknown)");
        printf("        HOME: %s\n", *str(facts, "home") ? str(facts, "home") : "(unset: no per-user rc files)");
        printf("  libraries: %zu mapped\n", dsos ? json_object_array_length(dsos) : (size_t) 0);
        printf("    profiles: %s\n", str(res, "state"));

        for (size_t i = 0; i < n_rules; i++)
                n_matched += json_object_get_boolean(get(json_object_array_get_idx(rules, i), "matched"));

        printf("\nMatched rules: %zu of %zu\n", n_matched, n_rules);
        for (size_t i = 0; i < n_rules; i++) {
                struct json_object *r = json_object_array_get_idx(rules, i);
                bool matched = json_object_get_boolean(get(r, "matched"));

                if (!matched && !arg.all)
                        continue;
                printf("  %s %s:%" PRIi64 ":%" PRIi64 "  %s  -> %s\n", matched ? "*" : " ", str(r, "file"),
                                num(r, "line"), num(r, "column"), str(r, "pattern"),
                                *str(r, "profile") ? str(r, "profile") : "(profile defined nowhere)");
        }

        printf("\nEffective settings: %zu%s\n", json_object_array_length(settings),
                        streq(str(res, "state"), "enabled") || streq(str(res, "state"), "enabled-by-environment")
                                        ? ""
                                        : " (would apply; profiles are disabled)");
        for (size_t i = 0; i < json_object_array_length(settings); i++) {
                struct json_object *s = json_object_array_get_idx(settings, i), *rule = get(s, "rule"),
                                   *shadowed = get(s, "shadowed");

                printf("  %s = %s\n", str(s, "key"), value_text(get(s, "value")));
                printf("      from profile \"%s\", rule %s:%" PRIi64 ":%" PRIi64 "\n", str(s, "profile"),
                                str(rule, "file"), num(rule, "line"), num(rule, "column"));
                if (json_object_get_boolean(get(s, "overridden")))
                        printf("      overridden by the environment: %s=%s\n", str(s, "env_variable"),
                                        str(s, "env_value"));
                else if (*str(s, "env_variable"))
                        printf("      (%s in the environment would override it)\n", str(s, "env_variable"));
                for (size_t j = 0; shadowed && j < json_object_array_length(shadowed); j++) {
                        struct json_object *sh = json_object_array_get_idx(shadowed, j);
                        printf("      shadows %s from \"%s\" at %s:%" PRIi64 ":%" PRIi64 "\n",
                                        value_text(get(sh, "value")), str(sh, "profile"), str(sh, "file"),
                                        num(sh, "line"), num(sh, "column"));
                }
        }

        if (json_object_array_length(notes) > 0) {
                printf("\nNotes:\n");
                for (size_t i = 0; i < json_object_array_length(notes); i++)
                        printf("  - %s\n", json_object_get_string(json_object_array_get_idx(notes, i)));
        }
}
