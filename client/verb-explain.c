/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "explain PID" and "resolve": a resolution, for a live process or a described one. */

#include <inttypes.h>

#include "client.h"
#include "log.h"
#include "parse-util.h"
#include "strv.h"

static int show(sd_bus_message *reply, const char *title)
{
        _cleanup_(json_object_putp) struct json_object *res = NULL;
        int r;

        r = resolution_read(reply, &res);
        if (r < 0)
                return r;
        if (arg.json != JSON_OFF)
                return json_print_document("resolution", NULL, res);
        resolution_print(res, title);
        return 0;
}

int verb_explain(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        char title[64], request[64];
        uint32_t pid;
        int r;

        assert(argc == 2);

        if (safe_atou32(argv[1], &pid) < 0 || pid == 0 || pid > INT32_MAX) {
                log_error("Invalid PID \"%s\".", esc(&e, argv[1]));
                return EXIT_USAGE;
        }

        r = client_connect(&bus);
        if (r < 0)
                return r;
        snprintf(request, sizeof(request), "explain process %" PRIu32, pid);
        r = client_call_request(bus, "ExplainProcess", request, &reply, "ut", pid, UINT64_C(0));
        if (r < 0)
                return r;

        snprintf(title, sizeof(title), "Process %" PRIu32 ":", pid);
        return show(reply, title);
}

static int append_string_fact(sd_bus_message *m, const char *key, const char *value)
{
        if (!value)
                return 0;
        return sd_bus_message_append(m, "{sv}", key, "s", value);
}

static int append_strv_fact(sd_bus_message *m, const char *key, char **l)
{
        int r;

        if (!l)
                return 0;
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "s", key);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'v', "as");
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(m, l);
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

static int append_facts(sd_bus_message *m, char **env)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = append_string_fact(m, "exe", arg.exe);
        if (r < 0)
                return r;
        r = append_string_fact(m, "comm", arg.comm);
        if (r < 0)
                return r;
        r = append_strv_fact(m, "argv", arg.argv_facts);
        if (r < 0)
                return r;
        r = append_strv_fact(m, "dsos", arg.dsos);
        if (r < 0)
                return r;
        r = append_strv_fact(m, "environ", env);
        if (r < 0)
                return r;
        r = append_strv_fact(m, "exe_dir_files", arg.exe_dir_files);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

int verb_resolve(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_strv_free_ char **env = NULL;
        int r;

        assert(argc == 1);

        if (!arg.exe && !arg.argv_facts && !arg.comm && !arg.dsos) {
                log_error("resolve needs at least one of --exe, --argv, --comm, --dso.");
                return EXIT_USAGE;
        }

        /* --home is the process's $HOME, which is how the daemon learns it. */
        if (arg.env) {
                env = strv_copy(arg.env);
                if (!env)
                        return log_oom();
        }
        if (arg.home) {
                char *h;

                if (asprintf(&h, "HOME=%s", arg.home) < 0 || strv_consume(&env, h) < 0)
                        return log_oom();
        }

        r = client_connect(&bus);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Resolve");
        if (r < 0)
                return log_error_errno(r, "Could not resolve the described process");
        r = append_facts(m, env);
        if (r < 0)
                return log_error_errno(r, "Failed to append the facts to resolve");
        r = client_send(bus, m, &reply);
        if (r < 0)
                return r;

        return show(reply, "Hypothetical process:");
}
