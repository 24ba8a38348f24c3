/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "processes": the tracked processes, as a table or JSON. */

#include <inttypes.h>

#include "client.h"
#include "log.h"
#include "strv.h"

/* One (outussasu) entry as JSON, or NULL (*ret) when it is not listed: without --all, only processes a
 * rule matched. */
static int read_process(sd_bus_message *reply, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = NULL, *profiles = NULL;
        _cleanup_strv_free_ char **l = NULL;
        const char *object, *comm, *exe;
        uint32_t pid, uid, settings;
        uint64_t start;
        char ubuf[16];
        int r;

        r = sd_bus_message_read(reply, "outuss", &object, &pid, &start, &uid, &comm, &exe);
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(reply, &l);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "u", &settings);
        if (r < 0)
                return r;

        if (!arg.all && strv_length(l) == 0 && streq(object, "/")) {
                *ret = NULL;
                return 0;
        }

        profiles = json_object_new_array();
        o = json_object_new_object();
        if (!profiles || !o)
                return -ENOMEM;
        STRV_FOREACH(p, l)
                json_object_array_add(profiles, json_object_new_string(*p));

        json_object_object_add(o, "pid", json_object_new_int64(pid));
        json_object_object_add(o, "start_time", json_object_new_uint64(start));
        json_object_object_add(o, "uid", json_object_new_int64(uid));
        json_object_object_add(o, "user", json_object_new_string(user_name(uid, ubuf)));
        json_object_object_add(o, "comm", json_object_new_string(comm));
        /* Another user's process's executable is not shown: not known to the caller. */
        json_object_object_add(o, "executable", *exe ? json_object_new_string(exe) : NULL);
        json_object_object_add(o, "profiles", TAKE_PTR(profiles));
        json_object_object_add(o, "settings", json_object_new_int64(settings));
        json_object_object_add(o, "object", streq(object, "/") ? NULL : json_object_new_string(object));
        *ret = TAKE_PTR(o);
        return 0;
}

static int read_process_into(sd_bus_message *reply, void *userdata)
{
        struct json_object *list = userdata, *o;
        int r;

        r = read_process(reply, &o);
        if (r < 0)
                return r;
        if (o)
                json_object_array_add(list, o);
        return 0;
}

static int read_processes(sd_bus_message *reply, struct json_object *list, void *userdata)
{
        return client_read_struct_array(reply, "outussasu", read_process_into, list);
}

static const char *get_string(struct json_object *o, const char *key)
{
        return json_object_get_string(json_object_object_get(o, key));
}

/* The executable, or the name when the executable is not shown (another user's process). */
static const char *process_name(struct json_object *o)
{
        const char *exe = get_string(o, "executable");

        return exe ? exe : get_string(o, "comm");
}

/* The profiles joined by ", ", escaped, in the pool; "-" for none. */
static const char *profiles_text(EscapePool *e, struct json_object *profiles)
{
        _cleanup_free_ char *joined = NULL;
        size_t n = json_object_array_length(profiles), size = 1;

        if (n == 0)
                return "-";
        for (size_t k = 0; k < n; k++)
                size += strlen(json_object_get_string(json_object_array_get_idx(profiles, k))) + 2;
        joined = calloc(size, 1);
        if (!joined)
                return "(out of memory)";
        for (size_t k = 0; k < n; k++) {
                if (k > 0)
                        strcat(joined, ", ");
                strcat(joined, json_object_get_string(json_object_array_get_idx(profiles, k)));
        }
        return esc(e, joined);
}

static void print_table(struct json_object *list)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        size_t n = json_object_array_length(list), w_user = 4, w_exe = 10;

        /* Columns as wide as their widest (escaped) cell, systemd-style. */
        for (size_t i = 0; i < n; i++) {
                struct json_object *o = json_object_array_get_idx(list, i);

                w_user = MAX(w_user, strlen(esc(&e, get_string(o, "user"))));
                w_exe = MAX(w_exe, strlen(esc(&e, process_name(o))));
        }
        escape_pool_done(&e);

        if (arg.legend)
                printf("%-8s %-*s %-*s %-8s %s\n", "PID", (int) w_user, "USER", (int) w_exe, "EXECUTABLE", "SETTINGS",
                                "PROFILES");
        for (size_t i = 0; i < n; i++) {
                struct json_object *o = json_object_array_get_idx(list, i);

                printf("%-8" PRIi64 " %-*s %-*s %-8" PRIi64 " %s\n",
                                json_object_get_int64(json_object_object_get(o, "pid")), (int) w_user,
                                esc(&e, get_string(o, "user")), (int) w_exe, esc(&e, process_name(o)),
                                json_object_get_int64(json_object_object_get(o, "settings")),
                                profiles_text(&e, json_object_object_get(o, "profiles")));
        }
        if (arg.legend)
                printf("\n%zu processes listed%s.\n", n, arg.all ? "" : " (those a rule matched; --all for every one)");
}

int verb_processes(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *list = NULL;
        int r;

        assert(argc == 1);

        r = client_list("ListProcesses", NULL, read_processes, NULL, &list);
        if (r < 0)
                return r;

        if (arg.json != JSON_OFF)
                return json_print_document("processes", "processes", list);
        print_table(list);
        return 0;
}
