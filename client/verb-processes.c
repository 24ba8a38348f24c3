/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>

#include "client.h"

static const char *user_name(uint32_t uid, char buf[static 16])
{
        struct passwd *pw = getpwuid(uid);

        if (pw)
                return pw->pw_name;
        snprintf(buf, 16, "%" PRIu32, uid);
        return buf;
}

int verb_processes(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        struct json_object *list = json_object_new_array();
        const char *object, *comm, *exe;
        uint32_t pid, uid, settings;
        uint64_t start;
        size_t shown = 0;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "ListProcesses", &reply, NULL);
        if (r < 0)
                goto finish;

        r = sd_bus_message_enter_container(reply, 'a', "(outussasu)");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "outussasu")) > 0) {
                char **profiles = NULL;
                struct json_object *o, *pa = json_object_new_array();
                char ubuf[16];

                r = sd_bus_message_read(reply, "outuss", &object, &pid, &start, &uid, &comm, &exe);
                if (r >= 0)
                        r = sd_bus_message_read_strv(reply, &profiles);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "u", &settings);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                for (char **p = profiles; p && *p; p++)
                        json_object_array_add(pa, json_object_new_string(*p));
                for (char **p = profiles; p && *p; p++)
                        free(*p);
                free(profiles);
                if (r < 0) {
                        json_object_put(pa);
                        break;
                }
                /* Only processes a rule matched, unless --all. */
                if (!arg.all && json_object_array_length(pa) == 0 && streq(object, "/")) {
                        json_object_put(pa);
                        continue;
                }
                o = json_object_new_object();
                json_object_object_add(o, "pid", json_object_new_int64(pid));
                json_object_object_add(o, "start_time", json_object_new_uint64(start));
                json_object_object_add(o, "uid", json_object_new_int64(uid));
                json_object_object_add(o, "user", json_object_new_string(user_name(uid, ubuf)));
                json_object_object_add(o, "comm", json_object_new_string(comm));
                json_object_object_add(o, "executable", json_object_new_string(exe));
                json_object_object_add(o, "profiles", pa);
                json_object_object_add(o, "settings", json_object_new_int64(settings));
                json_object_object_add(o, "object", streq(object, "/") ? NULL : json_object_new_string(object));
                json_object_array_add(list, o);
        }
        if (r < 0) {
                fprintf(stderr, "Malformed reply: %s\n", strerror(-r));
                goto finish;
        }

        if (arg.json != JSON_OFF)
                json_print(list);
        else {
                /* Columns as wide as their widest cell, systemd-style. */
                int w_user = 4, w_exe = 10;
                for (size_t i = 0; i < json_object_array_length(list); i++) {
                        struct json_object *o = json_object_array_get_idx(list, i);
                        const char *e = json_object_get_string(json_object_object_get(o, "executable"));
                        w_user = MAX(w_user, (int) strlen(json_object_get_string(json_object_object_get(o, "user"))));
                        w_exe = MAX(w_exe,
                                        (int) strlen(*e ? e
                                                        : json_object_get_string(json_object_object_get(o, "comm"))));
                }
                if (arg.legend)
                        printf("%-8s %-*s %-*s %-8s %s\n", "PID", w_user, "USER", w_exe, "EXECUTABLE", "SETTINGS",
                                        "PROFILES");
                for (size_t i = 0; i < json_object_array_length(list); i++) {
                        struct json_object *o = json_object_array_get_idx(list, i),
                                           *pa = json_object_object_get(o, "profiles");
                        char profiles[256] = "";
                        const char *e = json_object_get_string(json_object_object_get(o, "executable"));

                        for (size_t k = 0; k < json_object_array_length(pa); k++) {
                                if (k > 0)
                                        strncat(profiles, ", ", sizeof(profiles) - strlen(profiles) - 1);
                                strncat(profiles, json_object_get_string(json_object_array_get_idx(pa, k)),
                                                sizeof(profiles) - strlen(profiles) - 1);
                        }
                        printf("%-8" PRIi64 " %-*s %-*s %-8" PRIi64 " %s\n",
                                        json_object_get_int64(json_object_object_get(o, "pid")), w_user,
                                        json_object_get_string(json_object_object_get(o, "user")), w_exe,
                                        *e ? e : json_object_get_string(json_object_object_get(o, "comm")),
                                        json_object_get_int64(json_object_object_get(o, "settings")),
                                        *profiles ? profiles : "-");
                        shown++;
                }
                if (arg.legend)
                        printf("\n%zu processes listed%s.\n", shown,
                                        arg.all ? "" : " (those a rule matched; --all for every one)");
        }
        r = 0;

finish:
        json_object_put(list);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}
