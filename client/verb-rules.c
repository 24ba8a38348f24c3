/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "rules", "profiles", "errors": listings of the daemon's configuration. */

#include <inttypes.h>

#include "client.h"
#include "log.h"
#include "rc-rule-id.h"

static const char *home_arg(void)
{
        return arg.home ? arg.home : "";
}

static int read_rules(sd_bus_message *reply, struct json_object *list, void *userdata)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        /* How many rules with the same file, pattern and profile came before: part of each rule's id. */
        _cleanup_(json_object_putp) struct json_object *seen = json_object_new_object();
        const char *file, *pattern, *profile, *where;
        uint32_t line, column;
        int r;

        if (!seen)
                return -ENOMEM;

        r = sd_bus_message_enter_container(reply, 'a', "(suusss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(suusss)", &file, &line, &column, &pattern, &profile, &where)) > 0) {
                struct json_object *o = json_object_new_object(), *count = NULL;
                _cleanup_free_ char *key = NULL;
                char id[RC_RULE_ID_LENGTH + 1];
                unsigned occurrence = 0;

                if (asprintf(&key, "%s%c%s%c%s", file, 0x1f, pattern, 0x1f, profile) < 0)
                        return -ENOMEM;
                if (json_object_object_get_ex(seen, key, &count))
                        occurrence = (unsigned) json_object_get_int64(count);
                json_object_object_add(seen, key, json_object_new_int64(occurrence + 1));
                rc_rule_id(file, pattern, profile, occurrence, id);

                json_object_object_add(o, "id", json_object_new_string(id));
                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "line", json_object_new_int64(line));
                json_object_object_add(o, "column", json_object_new_int64(column));
                json_object_object_add(o, "pattern", json_object_new_string(pattern));
                json_object_object_add(o, "profile", json_object_new_string(profile));
                json_object_object_add(o, "profile_location", *where ? json_object_new_string(where) : NULL);
                json_object_array_add(list, o);
                if (arg.json == JSON_OFF)
                        printf("%s  %s:%" PRIu32 ":%" PRIu32 "  %s  -> %s%s\n", id, esc(&e, file), line, column,
                                        esc(&e, pattern), esc(&e, profile),
                                        *where ? "" : "  (profile defined nowhere)");
                escape_pool_done(&e);
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

int verb_rules(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *list = NULL;
        int r;

        if (argc > 1)
                return verb_rules_edit(argc, argv);
        if (arg.settings || arg.unset || arg.profile || arg.system || arg.edit_file || arg.position >= 0 ||
                        arg.dry_run || arg.procnames || arg.commnames || arg.cmdlines || arg.findfiles || arg.dsos ||
                        arg.match_true || arg.match_or || arg.match_not || arg.pattern) {
                log_error("Options of edits need a verb: rules add|set|remove|move.");
                return EXIT_USAGE;
        }

        r = client_list("ListRules", home_arg(), read_rules, NULL, &list);
        if (r < 0)
                return r;

        if (arg.json != JSON_OFF)
                return json_print_document("rules", "rules", list);
        if (arg.legend)
                printf("\n%zu rules, in precedence order.\n", json_object_array_length(list));
        return 0;
}

/* (sv): one setting of a profile. */
static int read_profile_setting(sd_bus_message *reply, void *userdata)
{
        struct json_object *settings = userdata;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(json_object_putp) struct json_object *value = NULL;
        struct json_object *s;
        const char *key;
        int r;

        r = sd_bus_message_read(reply, "s", &key);
        if (r < 0)
                return r;
        r = read_variant_json(reply, &value);
        if (r < 0)
                return r;
        if (arg.json == JSON_OFF)
                printf("    %s = %s\n", esc(&e, key), value_text(&e, value));

        s = json_object_new_object();
        json_object_object_add(s, "key", json_object_new_string(key));
        json_object_object_add(s, "value", TAKE_PTR(value));
        json_object_array_add(settings, s);
        return 0;
}

/* (ssuua(sv)): one profile definition. */
static int read_profile(sd_bus_message *reply, void *userdata)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        struct json_object *list = userdata, *o, *settings;
        const char *name, *file;
        uint32_t line, column;
        int r;

        r = sd_bus_message_read(reply, "ssuu", &name, &file, &line, &column);
        if (r < 0)
                return r;
        o = json_object_new_object();
        json_object_array_add(list, o);
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "file", json_object_new_string(file));
        json_object_object_add(o, "line", json_object_new_int64(line));
        json_object_object_add(o, "column", json_object_new_int64(column));
        settings = json_object_new_array();
        json_object_object_add(o, "settings", settings);
        if (arg.json == JSON_OFF)
                printf("%s  (%s:%" PRIu32 ":%" PRIu32 ")\n", esc(&e, name), esc(&e, file), line, column);

        return client_read_struct_array(reply, "sv", read_profile_setting, settings);
}

static int read_profiles(sd_bus_message *reply, struct json_object *list, void *userdata)
{
        return client_read_struct_array(reply, "ssuua(sv)", read_profile, list);
}

int verb_profiles(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *list = NULL;
        int r;

        if (argc > 1)
                return verb_profiles_edit(argc, argv);
        if (arg.settings || arg.unset || arg.system || arg.edit_file || arg.dry_run) {
                log_error("Options of edits need a verb: profiles add|set|remove.");
                return EXIT_USAGE;
        }

        r = client_list("ListProfiles", home_arg(), read_profiles, NULL, &list);
        if (r < 0)
                return r;

        if (arg.json != JSON_OFF)
                return json_print_document("profiles", "profiles", list);
        if (arg.legend)
                printf("\n%zu profiles.\n", json_object_array_length(list));
        return 0;
}

/* Reads ListErrors' reply into list, printing each as text unless JSON; counts the errors in *userdata
 * (a size_t). */
static int read_errors(sd_bus_message *reply, struct json_object *list, void *userdata)
{
        size_t *ret_n_errors = userdata;
        const char *file, *state, *severity, *message;
        uint32_t line, column;
        size_t n_errors = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sssuus)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(sssuus)", &file, &state, &severity, &line, &column, &message)) > 0) {
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "state", json_object_new_string(state));
                json_object_object_add(o, "severity", json_object_new_string(severity));
                json_object_object_add(o, "line", json_object_new_int64(line));
                json_object_object_add(o, "column", json_object_new_int64(column));
                json_object_object_add(o, "message", json_object_new_string(message));
                json_object_array_add(list, o);
                n_errors += streq(severity, "error");
                if (arg.json == JSON_OFF)
                        print_diagnostic(stdout, file, line, column, severity, message,
                                        streq(state, "stale") ? " [last good version in force]" : NULL);
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        *ret_n_errors = n_errors;
        return 0;
}

int verb_errors(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *list = NULL;
        size_t n_errors = 0;
        int r;

        assert(argc == 1);

        r = client_list("ListErrors", NULL, read_errors, &n_errors, &list);
        if (r < 0)
                return r;

        if (arg.json != JSON_OFF) {
                r = json_print_document("errors", "errors", list);
                if (r < 0)
                        return r;
        } else if (arg.legend && n_errors == 0)
                printf("No errors.\n");
        /* Like check: scripts and monitoring can test the status. */
        return n_errors > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
