/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "monitor": streams what changes, one line (or one JSON object) per event, until interrupted. */

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "client.h"


static void emit(struct json_object *o, const char *text)
{
        if (arg.json != JSON_OFF)
                json_print(o);
        else
                printf("%s\n", text);
        fflush(stdout);
        json_object_put(o);
}

static int on_process_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        sd_bus *bus = userdata;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *object;
        uint32_t pid, uid;
        uint64_t start;
        struct json_object *o, *res = NULL;
        char text[512];
        int r;

        r = sd_bus_message_read(m, "outu", &object, &pid, &start, &uid);
        if (r < 0)
                return 0;

        o = json_object_new_object();
        json_object_object_add(o, "event", json_object_new_string("process-changed"));
        json_object_object_add(o, "pid", json_object_new_int64(pid));
        json_object_object_add(o, "start_time", json_object_new_uint64(start));
        json_object_object_add(o, "uid", json_object_new_int64(uid));
        snprintf(text, sizeof(text), "process %" PRIu32 " (uid %" PRIu32 "): result changed", pid, uid);

        /* Details when we may see them; other users' processes stay a bare notification. */
        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ExplainProcess", &e, &reply, "ut", pid, start);
        if (r >= 0 && resolution_read(reply, &res) >= 0) {
                struct json_object *facts = json_object_object_get(res, "facts"),
                                   *settings = json_object_object_get(res, "settings"),
                                   *rules = json_object_object_get(res, "rules");
                char profiles[256] = "";
                size_t n = 0;

                for (size_t i = 0; i < json_object_array_length(rules); i++) {
                        struct json_object *rr = json_object_array_get_idx(rules, i);
                        if (!json_object_get_boolean(json_object_object_get(rr, "matched")))
                                continue;
                        if (n++ > 0)
                                strncat(profiles, ", ", sizeof(profiles) - strlen(profiles) - 1);
                        strncat(profiles, json_object_get_string(json_object_object_get(rr, "profile")),
                                        sizeof(profiles) - strlen(profiles) - 1);
                }
                snprintf(text, sizeof(text), "process %" PRIu32 " (%s): %s; %zu settings (%s)", pid,
                                json_object_get_string(json_object_object_get(facts, "procname")),
                                *profiles ? profiles : "no rule matches", json_object_array_length(settings),
                                json_object_get_string(json_object_object_get(res, "state")));
                json_object_object_add(o, "resolution", res);
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        emit(o, text);
        return 0;
}

static int on_reloaded(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        uint64_t generation = 0;
        struct json_object *o = json_object_new_object();
        char text[128];

        (void) sd_bus_message_read(m, "t", &generation);
        json_object_object_add(o, "event", json_object_new_string("reloaded"));
        json_object_object_add(o, "generation", json_object_new_uint64(generation));
        snprintf(text, sizeof(text), "configuration reloaded (generation %" PRIu64 ")", generation);
        emit(o, text);
        return 0;
}

static int on_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *path;
        struct json_object *o;
        char text[300];

        if (sd_bus_message_read(m, "o", &path) < 0)
                return 0;
        o = json_object_new_object();
        json_object_object_add(o, "event", json_object_new_string("process-removed"));
        json_object_object_add(o, "object", json_object_new_string(path));
        snprintf(text, sizeof(text), "gone: %s", path);
        emit(o, text);
        return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *name, *old, *new;

        if (sd_bus_message_read(m, "sss", &name, &old, &new) >= 0 && streq(name, BUS_NAME) && !*new) {
                fprintf(stderr, "nvprofiled went away.\n");
                sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), 1);
        }
        return 0;
}

int verb_monitor(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_event *e = NULL;
        sigset_t mask;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return 1;

        /* Fail now, clearly, if there is nobody to monitor. */
        {
                sd_bus_message *reply = NULL;
                r = client_call(bus, "ListErrors", &reply, NULL);
                sd_bus_message_unref(reply);
                if (r < 0)
                        goto finish;
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&e);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_bus_attach_event(bus, e, 0);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ProcessChanged",
                                on_process_changed, bus);
        if (r >= 0)
                r = sd_bus_match_signal(
                                bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reloaded", on_reloaded, bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                                "InterfacesRemoved", on_removed, bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", on_owner_changed, bus);
        if (r < 0) {
                fprintf(stderr, "Cannot subscribe: %s\n", strerror(-r));
                goto finish;
        }
        if (arg.json == JSON_OFF)
                fprintf(stderr, "Monitoring nvprofiled; Ctrl-C to stop.\n");
        r = sd_event_loop(e);
finish:
        sd_bus_flush_close_unref(bus);
        sd_event_unref(e);
        return r < 0 || r == 1 ? 1 : 0;
}
