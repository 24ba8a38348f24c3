/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "client.h"

static const char *home_arg(void)
{
        return arg.home ? arg.home : "";
}

int verb_rules(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        struct json_object *list = json_object_new_array();
        const char *file, *pattern, *profile, *where;
        uint32_t line, column;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "ListRules", &reply, "s", home_arg());
        if (r < 0)
                goto finish;
        r = sd_bus_message_enter_container(reply, 'a', "(suusss)");
        while (r >= 0 &&
                        (r = sd_bus_message_read(
                                         reply, "(suusss)", &file, &line, &column, &pattern, &profile, &where)) > 0) {
                struct json_object *o = json_object_new_object();
                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "line", json_object_new_int64(line));
                json_object_object_add(o, "column", json_object_new_int64(column));
                json_object_object_add(o, "pattern", json_object_new_string(pattern));
                json_object_object_add(o, "profile", json_object_new_string(profile));
                json_object_object_add(o, "profile_location", *where ? json_object_new_string(where) : NULL);
                json_object_array_add(list, o);
                if (arg.json == JSON_OFF)
                        printf("%s:%" PRIu32 ":%" PRIu32 "  %s  -> %s%s\n", file, line, column, pattern, profile,
                                        *where ? "" : "  (profile defined nowhere)");
        }
        if (r < 0) {
                fprintf(stderr, "Malformed reply: %s\n", strerror(-r));
                goto finish;
        }
        if (arg.json != JSON_OFF)
                json_print(list);
        else if (arg.legend)
                printf("\n%zu rules, in precedence order.\n", json_object_array_length(list));
        r = 0;
finish:
        json_object_put(list);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

int verb_profiles(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        struct json_object *list = json_object_new_array();
        const char *name, *file;
        uint32_t line, column;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "ListProfiles", &reply, "s", home_arg());
        if (r < 0)
                goto finish;
        r = sd_bus_message_enter_container(reply, 'a', "(ssuua(sv))");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "ssuua(sv)")) > 0) {
                struct json_object *o = json_object_new_object(), *settings = json_object_new_array();

                r = sd_bus_message_read(reply, "ssuu", &name, &file, &line, &column);
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'a', "(sv)");
                if (arg.json == JSON_OFF && r >= 0)
                        printf("%s  (%s:%" PRIu32 ":%" PRIu32 ")\n", name, file, line, column);
                while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "sv")) > 0) {
                        const char *key;
                        struct json_object *v = NULL, *s = json_object_new_object();
                        r = sd_bus_message_read(reply, "s", &key);
                        if (r >= 0)
                                r = read_variant_json(reply, &v);
                        if (r >= 0)
                                r = sd_bus_message_exit_container(reply);
                        json_object_object_add(s, "key", json_object_new_string(key));
                        json_object_object_add(s, "value", v);
                        if (arg.json == JSON_OFF && r >= 0)
                                printf("    %s = %s\n", key, v ? json_object_to_json_string(v) : "?");
                        json_object_array_add(settings, s);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                json_object_object_add(o, "name", json_object_new_string(name));
                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "line", json_object_new_int64(line));
                json_object_object_add(o, "column", json_object_new_int64(column));
                json_object_object_add(o, "settings", settings);
                json_object_array_add(list, o);
        }
        if (r < 0) {
                fprintf(stderr, "Malformed reply: %s\n", strerror(-r));
                goto finish;
        }
        if (arg.json != JSON_OFF)
                json_print(list);
        r = 0;
finish:
        json_object_put(list);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

int verb_errors(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        struct json_object *list = json_object_new_array();
        const char *file, *state, *severity, *message;
        uint32_t line, column;
        size_t n_errors = 0;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "ListErrors", &reply, NULL);
        if (r < 0)
                goto finish;
        r = sd_bus_message_enter_container(reply, 'a', "(sssuus)");
        while (r >= 0 &&
                        (r = sd_bus_message_read(
                                         reply, "(sssuus)", &file, &state, &severity, &line, &column, &message)) > 0) {
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
                        printf("%s:%" PRIu32 ":%" PRIu32 ": %s: %s%s\n", file, line, column, severity, message,
                                        streq(state, "stale") ? " [last good version in force]" : "");
        }
        if (r < 0) {
                fprintf(stderr, "Malformed reply: %s\n", strerror(-r));
                goto finish;
        }
        if (arg.json != JSON_OFF)
                json_print(list);
        else if (arg.legend && n_errors == 0)
                printf("No errors.\n");
        /* Like check: scripts and monitoring can test the status. */
        r = n_errors > 0 ? -EBADMSG : 0;
finish:
        json_object_put(list);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}
