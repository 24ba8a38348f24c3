/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "client.h"
#include "parse-util.h"
#include "strv.h"

static int show(sd_bus_message *reply, const char *title)
{
        struct json_object *res = NULL;
        int r;

        r = resolution_read(reply, &res);
        if (r < 0)
                return r;
        if (arg.json != JSON_OFF)
                json_print(res);
        else
                resolution_print(res, title);
        json_object_put(res);
        return 0;
}

int verb_explain(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        char title[128];
        uint32_t pid;
        int r;

        if (argc != 2) {
                fprintf(stderr, "explain takes exactly one PID.\n");
                return EXIT_USAGE;
        }
        if (safe_atou32(argv[1], &pid) < 0 || pid == 0 || pid > INT32_MAX) {
                fprintf(stderr, "Invalid PID '%s'.\n", argv[1]);
                return EXIT_USAGE;
        }

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "ExplainProcess", &reply, "ut", pid, UINT64_C(0));
        if (r >= 0) {
                snprintf(title, sizeof(title), "Process %" PRIu32 ":", pid);
                r = show(reply, title);
        }
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

static int append_strv_fact(sd_bus_message *m, const char *key, char **l)
{
        int r;

        if (!l)
                return 0;
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "as");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, l);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

int verb_resolve(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char **env = NULL;
        int r;

        if (argc != 1) {
                fprintf(stderr, "resolve takes options only (--exe, --argv, --comm, --dso, --env, --home).\n");
                return EXIT_USAGE;
        }
        if (!arg.exe && !arg.argv_facts && !arg.comm && !arg.dsos) {
                fprintf(stderr, "resolve needs at least one of --exe, --argv, --comm, --dso.\n");
                return EXIT_USAGE;
        }

        env = strv_copy(arg.env);
        if (arg.home) {
                char *h;
                if (asprintf(&h, "HOME=%s", arg.home) < 0 || strv_consume(&env, h) < 0)
                        return 1;
        }

        r = client_connect(&bus);
        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, &m, BUS_NAME,
                                BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                "Resolve");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && arg.exe)
                r = sd_bus_message_append(m, "{sv}", "exe", "s", arg.exe);
        if (r >= 0 && arg.comm)
                r = sd_bus_message_append(m, "{sv}", "comm", "s", arg.comm);
        if (r >= 0)
                r = append_strv_fact(m, "argv", arg.argv_facts);
        if (r >= 0)
                r = append_strv_fact(m, "dsos", arg.dsos);
        if (r >= 0)
                r = append_strv_fact(m, "environ", env);
        if (r >= 0)
                r = append_strv_fact(m, "exe_dir_files", arg.exe_dir_files);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0) {
                r = sd_bus_call(bus, m, 0, &error, &reply);
                if (r < 0)
                        fprintf(stderr, "%s\n",
                                        sd_bus_error_has_names(&error, "org.freedesktop.DBus.Error.ServiceUnknown",
                                                        "org.freedesktop.DBus.Error.NameHasNoOwner")
                                                        ? "nvprofiled is not running."
                                                        : (error.message ? error.message : strerror(-r)));
        }
        if (r >= 0)
                r = show(reply, "Hypothetical process:");

        strv_free(env);
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}
