/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "json-util.h"
#include "macro.h"
#include "terminal-escape.h"

/* nvprofilectl: a thin client. Verbs talk to nvprofiled over D-Bus, except "check", which lints rc
 * files locally. Exit status: 0 success, 1 failure, 2 usage error. A verb returns a negative errno when
 * it failed (having said why: exit status 1), or the exit status itself (1 when check or errors found
 * errors, EXIT_USAGE). */

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
        /* resolve; home also for rules and profiles */
        const char *exe, *comm, *home; /* point into argv */
        char **argv_facts, **dsos, **env, **exe_dir_files;
        uint64_t interval_usec; /* fdinfo --interval=; 0: not given */
        /* report raw|details|session: --csv, and --print-units=, --print-details=, --print-metric-instances=,
         * --print-summary= (an NcuPrintUnits, NcuPrintDetails, NcuPrintInstances, NcuPrintSummary; -1: not
         * given, ncu's default) */
        bool csv;
        int print_units, print_details, print_metric_instances, print_summary;
        bool local; /* report --local: parse in this process, not in the daemon's worker */
        const char *output; /* report raw|details --output=FILE (points into argv) */
        /* report rules / report diff */
        char **rules_dirs, **rule_ids, **actions;
        bool all_sections;
        /* report diff --fail-above=PCT, --metric=NAME[:increase|:decrease], --junit=FILE (point into argv but
         * metrics); checked by verb-report-diff-check.c */
        const char *fail_above, *junit;
        char **metrics;
        bool once; /* top --once */
        int top_sort; /* top --sort= (a TopSort); -1: not given */
        int top_group; /* top --group= (a TopGroup); -1: not given */
        const char *arch, *scope, *schema; /* sections: --arch=, --scope=, --schema= (point into argv) */
        /* rules add|set|remove|move, profiles add|set|remove (verb-profile-edit.c): the pattern (--procname=,
         * --commname=, --cmdline=, --findfile=, --dso= (dsos, above), --true, --or, --not, or --pattern=), the
         * profile (--profile=, --setting=KEY=VALUE, --unset=KEY), where (--system, --file=, --position=) and
         * --dry-run */
        char **procnames, **commnames, **cmdlines, **findfiles, **settings, **unset;
        bool match_true, match_or, match_not, system, dry_run;
        const char *pattern, *profile, *edit_file;
        int position; /* -1: not given */
} ClientOptions;

#define CLIENT_OPTIONS_INIT                                                                              \
        {                                                                                                \
                .legend = true, .top_sort = -1, .top_group = -1, .print_units = -1, .print_details = -1, \
                .print_metric_instances = -1, .print_summary = -1, .position = -1,                       \
        }

extern ClientOptions arg;

/* Parses the options into arg. Returns 1 to go on with the verb at argv[optind], 0 when done (--help,
 * --version), -EINVAL on a usage error (already explained on stderr), -ENOMEM. */
int parse_argv(int argc, char *argv[]);

/* Frees what parse_argv() stored and restores the defaults. */
void client_options_done(ClientOptions *o);

/* Runs the verb argv[0] with its arguments; returns the exit status (usage errors included). */
int dispatch_verb(int argc, char *argv[]);

/* All of nvprofilectl but the logging set-up: parses argv, runs the verb, returns the exit status. */
int client_run(int argc, char *argv[]);

/* "the system bus", "the session bus" or "the bus at ADDRESS" (escaped, owned by pool), for messages. */
const char *bus_description(EscapePool *pool);

/* Connects to the bus the options select; says why not on failure. */
int client_connect(sd_bus **ret);

/* Calls a Manager method; on error says why (daemon not running, access denied, ...) and returns
 * negative. */
int client_call(sd_bus *bus, const char *method, sd_bus_message **ret_reply, const char *types, ...);

/* The same for a method of another of the daemon's interfaces on the root object. */
int client_call_interfacev(sd_bus *bus, const char *interface, const char *method, sd_bus_message **ret_reply,
                const char *types, va_list ap);

/* Sends m (a method call to the daemon) and says why it failed, like client_call(). */
int client_send(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply);

/* The same, saying "Could not REQUEST: ..." with the caller's words (such as "explain process 42") instead
 * of the method's. */
int client_call_request(sd_bus *bus, const char *method, const char *request, sd_bus_message **ret_reply,
                const char *types, ...);
int client_send_request(sd_bus *bus, sd_bus_message *m, const char *request, sd_bus_message **ret_reply);

/* What a person asked for when the client called method, in words ("list the rules"); NULL for a method
 * the client does not know. */
const char *bus_request_words(const char *method);

/* Says why a request to the daemon failed, in words: "Could not REQUEST: WHY", where why is that the
 * daemon is not running, permission denied, or its own message; never a D-Bus method or error name.
 * log_bus_call_error() words the request from the method's name (bus_request_words()). */
void log_bus_request_error(const char *request, const sd_bus_error *error, int r);
/* When error (or, without one, r) means a state of the service (service-state.h: not running, denied by
 * the bus, unreachable), says its words and next step and returns true; false otherwise, having said
 * nothing. */
bool log_service_state_error(const sd_bus_error *error, int r);
void log_bus_call_error(const char *method, const sd_bus_error *error, int r);

/* Reads an array of structs whose contents are "contents" (the signature inside the parentheses): enters
 * each struct and has read_fields read its fields. */
int client_read_struct_array(sd_bus_message *m, const char *contents,
                int (*read_fields)(sd_bus_message *m, void *userdata), void *userdata);

/* What a listing verb does before it prints: calls method (with home as its argument, or none when NULL)
 * and has read_list read the reply into a new JSON array, *ret. Says why on failure. */
int client_list(const char *method, const char *home,
                int (*read_list)(sd_bus_message *reply, struct json_object *list, void *userdata), void *userdata,
                struct json_object **ret);

/* Decodes a RESOLUTION struct into JSON and prints it as text. */
int resolution_read(sd_bus_message *m, struct json_object **ret);
void resolution_print(struct json_object *res, const char *title);

/* Where a verb's exact bytes go (client-exact-output.c). With a path (--output=FILE): a new file beside it,
 * created with its final mode (0666 less the umask), renamed over FILE by exact_output_commit() and
 * removed by exact_output_done() otherwise, so FILE is never seen half written. Without: standard output,
 * byte for byte when that is a pipe or a file, and escaped for the terminal (terminal_write_escaped_lines())
 * when it is a terminal. Write to f between open and commit. */
typedef struct ExactOutput {
        FILE *f;
        char *buffer; /* a terminal's bytes, until commit */
        size_t size;
        int dir_fd; /* FILE's directory... */
        char *name, *temp_name; /* ...FILE's name in it, and the new file's */
} ExactOutput;

int exact_output_open(const char *path, ExactOutput *ret);
int exact_output_commit(ExactOutput *o);
void exact_output_done(ExactOutput *o);

/* Prints a JSON document per arg.json, as it is (report json, which names its own schema). */
void json_print(struct json_object *o);

/* Every other --json document names its schema: an object whose first members are "schema"
 * ("io.github.nvprofiled." name) and "schema_version", described by client/json-schemas/NAME.json
 * (installed to share/nvprofiled/json-schemas, and nvprofilectl(1), "JSON OUTPUT"). A list is the
 * member items_key of that object (items_key NULL: o is an object, whose members follow). o is not
 * consumed. Unknown values are null in every schema. */
#define JSON_SCHEMA_PREFIX "io.github.nvprofiled."
#define JSON_SCHEMA_VERSION 1
int json_print_document(const char *name, const char *items_key, struct json_object *o);

/* A setting value for a human: a string in quotes, escaped for the terminal; numbers and booleans as
 * JSON writes them. Owned by pool. */
const char *value_text(EscapePool *pool, struct json_object *v);

/* Prints one rc diagnostic the way compilers do: "file:line:column: severity: message", without the
 * position when it has none (line 0), and without the file when it is about no file ("" or NULL).
 * Everything from outside is escaped. suffix (ours, may be NULL) is appended as it is. */
void print_diagnostic(FILE *f, const char *file, uint32_t line, uint32_t column, const char *severity,
                const char *message, const char *suffix);

/* Reads a variant holding s, x, t, d, b, i, u or as as JSON; other types are skipped (*ret = NULL). */
int read_variant_json(sd_bus_message *m, struct json_object **ret);

/* The user name of uid, or the number. */
const char *user_name(uint32_t uid, char buf[static 16]);

/* The daemon's section folders and what each gave (Sections.ListFolders) as a JSON array of {path,
 * recursive, state, files, problem}; and as text, one line a folder, the first after first, the others
 * after indent. Strings are escaped for the terminal. */
int sections_read_folders(sd_bus *bus, struct json_object **ret);
void sections_print_folders(FILE *f, EscapePool *e, struct json_object *folders, const char *first, const char *indent);

int verb_status(int argc, char *argv[]);
int verb_processes(int argc, char *argv[]);
int verb_explain(int argc, char *argv[]);
int verb_resolve(int argc, char *argv[]);
int verb_rules(int argc, char *argv[]);
int verb_profiles(int argc, char *argv[]);
int verb_rules_edit(int argc, char *argv[]);
int verb_profiles_edit(int argc, char *argv[]);
int verb_errors(int argc, char *argv[]);
int verb_check(int argc, char *argv[]);
int verb_doctor(int argc, char *argv[]);
int verb_settings(int argc, char *argv[]);
int verb_monitor(int argc, char *argv[]);
int verb_reload(int argc, char *argv[]);
int verb_version(int argc, char *argv[]);
int verb_fdinfo(int argc, char *argv[]);
int verb_report(int argc, char *argv[]);
int verb_top(int argc, char *argv[]);
int verb_sections(int argc, char *argv[]);
