/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "processes": the tracked processes, as a table or JSON. */

#include <inttypes.h>

#include "bus-signatures.h"
#include "client.h"
#include "log.h"
#include "strv.h"
#include "table.h"

/* One BUS_PROCESS_ENTRY_FIELDS entry as JSON, or NULL (*ret) when it is not listed: without --all, only processes a
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
        return client_read_struct_array(reply, BUS_PROCESS_ENTRY_FIELDS, read_process_into, list);
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

/* The profiles joined by ", "; "-" for none. */
static char *profiles_text(struct json_object *profiles)
{
        size_t n = json_object_array_length(profiles), size = 2;
        char *joined;

        if (n == 0)
                return strdup("-");
        for (size_t k = 0; k < n; k++)
                size += strlen(json_object_get_string(json_object_array_get_idx(profiles, k))) + 2;
        joined = calloc(size, 1);
        if (!joined)
                return NULL;
        for (size_t k = 0; k < n; k++) {
                if (k > 0)
                        strcat(joined, ", ");
                strcat(joined, json_object_get_string(json_object_array_get_idx(profiles, k)));
        }
        return joined;
}

static int print_table(struct json_object *list)
{
        static const TableColumn columns[] = {
                { "PID", TABLE_RIGHT },
                { "USER" },
                { "EXECUTABLE" },
                { "SETTINGS", TABLE_RIGHT },
                { "PROFILES" },
        };
        _cleanup_(table_freep) Table *t = table_new(columns, ELEMENTSOF(columns), terminal_escape);
        size_t n = json_object_array_length(list);
        int r = t ? 0 : -ENOMEM;

        for (size_t i = 0; i < n && r >= 0; i++) {
                struct json_object *o = json_object_array_get_idx(list, i);
                _cleanup_free_ char *profiles = profiles_text(json_object_object_get(o, "profiles"));

                if (!profiles ||
                                table_addf(t, "%" PRIi64, json_object_get_int64(json_object_object_get(o, "pid"))) <
                                                0 ||
                                table_add(t, get_string(o, "user")) < 0 || table_add(t, process_name(o)) < 0 ||
                                table_addf(t, "%" PRIi64,
                                                json_object_get_int64(json_object_object_get(o, "settings"))) < 0 ||
                                table_add(t, profiles) < 0)
                        r = -ENOMEM;
        }
        if (r < 0)
                return log_oom();
        r = table_print(t, stdout, arg.legend ? TABLE_HEADER : 0);
        if (r >= 0 && arg.legend)
                printf("\n%zu processes listed%s.\n", n, arg.all ? "" : " (those a rule matched; --all for every one)");
        return r;
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
        return print_table(list);
}
