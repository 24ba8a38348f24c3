/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* nvprofilectl's command line as tables: every option once (client-options.c), every verb and its
 * commands with the options each takes (client-verbs.c). Parsing, usage errors, help, shell completion
 * and the man page's check all read these tables, so they cannot disagree. */

#include <stdbool.h>
#include <stddef.h>

#include "client.h"

typedef enum OptionId {
        OPT_HELP,
        OPT_VERSION,
        OPT_JSON,
        OPT_NO_LEGEND,
        OPT_BUS,
        OPT_USER,
        _OPT_GLOBAL_MAX, /* the options above belong to every verb */
        OPT_ALL = _OPT_GLOBAL_MAX,
        OPT_EXE,
        OPT_ARGV,
        OPT_COMM,
        OPT_DSO,
        OPT_ENV,
        OPT_HOME,
        OPT_EXE_DIR_FILE,
        OPT_INTERVAL,
        OPT_ONCE,
        OPT_SORT,
        OPT_GROUP,
        OPT_CSV,
        OPT_PRINT_UNITS,
        OPT_PRINT_DETAILS,
        OPT_PRINT_METRIC_INSTANCES,
        OPT_PRINT_SUMMARY,
        OPT_LOCAL,
        OPT_OUTPUT,
        OPT_RULES_DIR,
        OPT_RULE,
        OPT_ALL_SECTIONS,
        OPT_ACTION,
        OPT_FAIL_ABOVE,
        OPT_METRIC,
        OPT_JUNIT,
        OPT_ARCH,
        OPT_SCOPE,
        OPT_SCHEMA,
        OPT_PROCNAME,
        OPT_COMMNAME,
        OPT_CMDLINE,
        OPT_FINDFILE,
        OPT_TRUE,
        OPT_OR,
        OPT_NOT,
        OPT_PATTERN,
        OPT_SETTING,
        OPT_UNSET,
        OPT_PROFILE,
        OPT_SYSTEM,
        OPT_FILE,
        OPT_POSITION,
        OPT_DRY_RUN,
        _OPT_MAX,
} OptionId;

/* Where an option's value goes in ClientOptions, and so also how to tell that it was given. */
typedef enum OptionStore {
        STORE_NONE, /* --help, --version: acted on while parsing */
        STORE_TRUE, /* a bool set to true */
        STORE_FALSE, /* a bool set to false (--no-legend) */
        STORE_STRING, /* a const char * pointing into argv */
        STORE_STRV, /* appended to a char ** (the option repeats) */
        STORE_ENUM, /* an int from enum_from_string(), -1 when not given */
        STORE_SECONDS, /* a uint64_t of microseconds, 0 when not given */
        STORE_JSON, /* a JsonMode */
} OptionStore;

typedef enum ValueCompletion {
        COMPLETE_NOTHING,
        COMPLETE_FILES,
        COMPLETE_DIRECTORIES,
} ValueCompletion;

typedef struct ClientOption {
        const char *name; /* without the "--" */
        char short_name; /* 0: none */
        int has_arg; /* no_argument, required_argument or optional_argument (getopt.h) */
        const char *metavar; /* "FILE" in --output=FILE */
        const char *help; /* what it does, wrapped by the help printer */
        OptionStore store;
        size_t offset; /* of the field in ClientOptions */
        /* A value is refused unless it passes valid() (STORE_STRING, STORE_STRV), or is one of values
         * (STORE_ENUM: its index is stored, the enum's value, which tests/client/test-nvprofilectl-help.c
         * checks against the enum's own parser) or enum_from_string() gives a number >= 0 for it:
         * "--NAME= takes TAKES, not "VALUE"." */
        bool (*valid)(const char *value);
        int (*enum_from_string)(const char *value);
        const char *takes;
        const char *const *values; /* the values offered by completion, NULL: none */
        ValueCompletion complete;
} ClientOption;

extern const ClientOption client_options[_OPT_MAX];

/* getopt_long()'s number for client_options[i]: OPTION_BASE + i, above every short option. */
#define OPTION_BASE 0x100

/* "nvprofilectl: MESSAGE" on stderr; returns -EINVAL. */
int usage_error(const char *format, ...) _printf_(1, 2);

/* A verb, or a command of a verb ("report summary"). */
typedef struct VerbSpec VerbSpec;
struct VerbSpec {
        const char *name;
        const char *args; /* in usage lines: "FILE", "[PATH...]"; NULL: none */
        const char *needs; /* in words, when arguments are missing: "a report file" */
        unsigned min_args, max_args;
        ValueCompletion complete_args;
        const char *summary; /* one line in the overview */
        const char *help; /* the whole description */
        const OptionId *options; /* those it takes besides the global ones, ending in _OPT_MAX; NULL: none */
        /* Commands ("report summary"): the verb's first argument names one. commands_optional: without
         * an argument the verb itself runs ("rules" lists, "rules add" edits). */
        const VerbSpec *commands;
        size_t n_commands;
        bool commands_optional;
        int (*run)(int argc, char *argv[]);
};

extern const VerbSpec client_verbs[];
extern const size_t client_n_verbs;

const ClientOption *client_option_by_name(const char *name);
bool client_option_given(const ClientOption *o, const ClientOptions *options);
bool verb_spec_takes(const VerbSpec *v, OptionId id);
const VerbSpec *verb_spec_find(const VerbSpec *specs, size_t n, const char *name);

/* The closest of names (n of them, or NULL-terminated when n is SIZE_MAX) to word by edit distance, when it
 * is close enough to be what was meant; NULL otherwise. */
const char *closest_name(const char *word, const char *const *names, size_t n);

/* Help (client-help.c): the overview, or one verb's or command's. words: the verb and command named
 * ("report", "summary"); says why and returns -EINVAL when they name none. */
int client_help(char **words, size_t n_words);
int verb_help(int argc, char *argv[]);

/* Prints the completions of the last of words (the words after "nvprofilectl", the last being the one
 * completed, possibly ""), one a line; "@files" or "@directories" when the shell should offer paths. */
int client_complete(int n_words, char **words);
