/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "macro.h"

/* nvprofilectl: a thin client. Verbs talk to nvprofiled over D-Bus, except "check", which lints rc
 * files locally. Exit status: 0 success, 1 failure, 2 usage error. */

#define EXIT_USAGE 2

typedef enum JsonMode {
        JSON_OFF,
        JSON_SHORT,
        JSON_PRETTY,
} JsonMode;

typedef struct ClientOptions {
        JsonMode json;
        bool legend;
        bool all;
        const char *bus_address; /* NULL: the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured) */
        bool session;
        /* resolve */
        const char *exe, *comm, *home;
        char **argv_facts, **dsos, **env, **exe_dir_files;
} ClientOptions;

extern ClientOptions arg;

/* Connects to the daemon's bus; prints why not on failure. */
int client_connect(sd_bus **ret);

/* Calls a Manager method; on error prints a clear message (daemon not running, access denied, ...)
 * and returns negative. */
int client_call(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...);

/* Decodes a RESOLUTION struct into JSON and prints it as text. */
int resolution_read(sd_bus_message *m, struct json_object **ret);
void resolution_print(struct json_object *res, const char *title);

/* Prints a JSON document per arg.json. */
void json_print(struct json_object *o);

/* Reads a variant holding s, x, t, d, b, i or u as JSON. */
int read_variant_json(sd_bus_message *m, struct json_object **ret);

int verb_status(int argc, char *argv[]);
int verb_processes(int argc, char *argv[]);
int verb_explain(int argc, char *argv[]);
int verb_resolve(int argc, char *argv[]);
int verb_rules(int argc, char *argv[]);
int verb_profiles(int argc, char *argv[]);
int verb_errors(int argc, char *argv[]);
int verb_check(int argc, char *argv[]);
int verb_monitor(int argc, char *argv[]);
int verb_reload(int argc, char *argv[]);
int verb_version(int argc, char *argv[]);
