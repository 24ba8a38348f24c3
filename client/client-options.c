/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every option of nvprofilectl, once: its name, value, help text, where it is stored and how a value is
 * checked. Which verb takes which option is in client-verbs.c. */

#include <getopt.h>
#include <limits.h>

#include "client-args.h"
#include "parse-util.h"

static bool is_nonempty(const char *s)
{
        return s[0] != '\0';
}

static bool is_absolute(const char *s)
{
        return s[0] == '/';
}

static bool is_key_value(const char *s)
{
        return s[0] != '=' && strchr(s, '=');
}

static int position_from_string(const char *s)
{
        unsigned u;

        if (safe_atou(s, &u) < 0 || u > INT32_MAX)
                return -EINVAL;
        return (int) u;
}

#define VALUES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define FIELD(f) offsetof(ClientOptions, f)

const ClientOption client_options[_OPT_MAX] = {
        [OPT_HELP] = { "help", 'h', no_argument, NULL, "Show this help and exit" },
        [OPT_VERSION] = { "version", 0, no_argument, NULL, "Show the client's version and exit" },
        [OPT_JSON] = {
                "json", 'j', optional_argument, "MODE",
                "Print JSON instead of text. MODE is \"pretty\", \"short\" (one line per document) or \"off\"; "
                "without MODE (and with -j), \"pretty\" on a terminal and \"short\" otherwise. JSON strings are "
                "exact; text output escapes control characters and invalid UTF-8 in anything that comes from "
                "processes, files or the daemon (C-style: \\n, \\\\, \\x1b)",
                STORE_JSON, FIELD(json), .takes = "pretty, short or off",
                .values = VALUES("pretty", "short", "off"),
        },
        [OPT_NO_LEGEND] = { "no-legend", 0, no_argument, NULL, "Omit column headers and summary lines",
                STORE_FALSE, FIELD(legend) },
        [OPT_BUS] = {
                "bus", 0, required_argument, "ADDRESS",
                "Talk to the daemon on the D-Bus bus at ADDRESS (a D-Bus address such as "
                "unix:path=/run/x/bus) instead of the system bus",
                STORE_STRING, FIELD(bus_address), is_nonempty, .takes = "a D-Bus address",
        },
        [OPT_USER] = { "user", 0, no_argument, NULL, "Talk to the daemon on the session bus (not with --bus=)",
                STORE_TRUE, FIELD(session) },
        [OPT_ALL] = { "all", 'a', no_argument, NULL, "processes: every tracked process; explain, resolve: every rule, matched or not; doctor: every "
                "user's files (root)", STORE_TRUE,
                FIELD(all) },
        [OPT_EXE] = { "exe", 0, required_argument, "PATH", "The executable's path: the \"procname\" feature",
                STORE_STRING, FIELD(exe), .complete = COMPLETE_FILES },
        [OPT_ARGV] = { "argv", 0, required_argument, "ARG",
                "The next command-line argument, argv[0] first: \"cmdline\" matches argv[0]", STORE_STRV,
                FIELD(argv_facts) },
        [OPT_COMM] = { "comm", 0, required_argument, "NAME",
                "The process's name (/proc/PID/comm): the \"commname\" feature", STORE_STRING, FIELD(comm) },
        [OPT_DSO] = { "dso", 0, required_argument, "NAME",
                "resolve: a mapped shared library's file name (the \"dso\" feature); edits: match a mapped "
                "library whose name starts so; repeats", STORE_STRV, FIELD(dsos) },
        [OPT_ENV] = { "env", 0, required_argument, "NAME=VALUE",
                "An environment variable of the process (__GL_* overrides, __GL_APPLICATION_PROFILE)", STORE_STRV,
                FIELD(env), is_key_value, .takes = "NAME=VALUE" },
        [OPT_HOME] = {
                "home", 0, required_argument, "DIR",
                "A $HOME whose per-user rc files are read too (only one the caller could read itself); for "
                "edits, the home whose files are written",
                STORE_STRING, FIELD(home), is_absolute, .takes = "an absolute path",
                .complete = COMPLETE_DIRECTORIES,
        },
        [OPT_EXE_DIR_FILE] = { "exe-dir-file", 0, required_argument, "NAME",
                "A file present in the executable's directory: the \"findfile\" feature", STORE_STRV,
                FIELD(exe_dir_files) },
        [OPT_INTERVAL] = { "interval", 0, required_argument, "SECONDS",
                "fdinfo: the time between the two dumps given; top: how often to sample and redraw (default 1). A "
                "decimal number of seconds, such as 2 or 0.5", STORE_SECONDS,
                FIELD(interval_usec), .takes = "a number of seconds above 0 (such as 2 or 0.5)" },
        [OPT_ONCE] = { "once", 0, no_argument, NULL,
                "Print one frame as plain text (or one JSON document with --json) after two samples, and exit",
                STORE_TRUE, FIELD(once) },
        [OPT_SORT] = {
                "sort", 0, required_argument, "KEY",
                "Sort processes by gpu (the default), memory, pid, command or profile", STORE_ENUM,
                FIELD(top_sort),
                .takes = "gpu, memory, pid, command or profile",
                .values = VALUES("gpu", "memory", "pid", "command", "profile"),
        },
        [OPT_GROUP] = {
                "group", 0, required_argument, "BY",
                "One row per process (the default), or the daemon's totals per application or user (as the a "
                "and u keys)",
                STORE_ENUM, FIELD(top_group),
                .takes = "process, application or user", .values = VALUES("process", "application", "user"),
        },
        [OPT_CSV] = { "csv", 0, no_argument, NULL, "Print ncu's CSV page instead of its text", STORE_TRUE,
                FIELD(csv) },
        [OPT_PRINT_UNITS] = {
                "print-units", 0, required_argument, "base|dynamic",
                "raw, details: base units, or units scaled to the value as ncu does (usecond, Kbyte, Gbyte/second; the "
                "default)",
                STORE_ENUM, FIELD(print_units),
                .takes = "base or dynamic", .values = VALUES("dynamic", "base"),
        },
        [OPT_PRINT_DETAILS] = {
                "print-details", 0, required_argument, "header|body|all",
                "details: the sections' header metrics (the default), their body items, or both", STORE_ENUM,
                FIELD(print_details),
                .takes = "header, body or all", .values = VALUES("header", "body", "all"),
        },
        [OPT_PRINT_METRIC_INSTANCES] = {
                "print-metric-instances", 0, required_argument, "none|values|details",
                "raw, details: each metric's value alone (the default), followed by its instance "
                "values \"VALUE (I1; I2; "
                "...)\", or by their correlation ids and values \"VALUE (ID1: I1; ...)\"",
                STORE_ENUM, FIELD(print_metric_instances),
                .takes = "none, values or details", .values = VALUES("none", "values", "details"),
        },
        [OPT_PRINT_SUMMARY] = {
                "print-summary", 0, required_argument, "none|per-kernel",
                "details: one table per kernel and launch with each metric's minimum, maximum and average", STORE_ENUM,
                FIELD(print_summary),
                .takes = "none or per-kernel", .values = VALUES("none", "per-kernel"),
        },
        [OPT_LOCAL] = { "local", 0, no_argument, NULL,
                "Parse the file in this process instead of having the daemon's confined worker parse it",
                STORE_TRUE, FIELD(local) },
        [OPT_OUTPUT] = { "output", 0, required_argument, "FILE",
                "Write the exact bytes to FILE (replaced whole once complete, never half written)", STORE_STRING,
                FIELD(output), is_nonempty, .takes = "a file name", .complete = COMPLETE_FILES },
        [OPT_RULES_DIR] = {
                "rules-dir", 0, required_argument, "DIR",
                "A folder of Nsight Compute rule files (.py), repeats; default $NVPROFILED_RULES_PATH, else "
                "~/.config/nvprofiled/rules, else an installed Nsight Compute's sections folder",
                STORE_STRV, FIELD(rules_dirs), .complete = COMPLETE_DIRECTORIES,
        },
        [OPT_RULE] = { "rule", 0, required_argument, "ID", "Apply only this rule (and its parent rules); repeats",
                STORE_STRV, FIELD(rule_ids) },
        [OPT_ALL_SECTIONS] = { "all-sections", 0, no_argument, NULL,
                "Apply rules whose section is not in the report too", STORE_TRUE, FIELD(all_sections) },
        [OPT_ACTION] = { "action", 0, required_argument, "SPEC",
                "Pair these actions (BASE_INDEX:INDEX, INDEX for INDEX:INDEX, or a kernel name); repeats; "
                "default: by kernel name and launch index",
                STORE_STRV, FIELD(actions) },
        [OPT_FAIL_ABOVE] = {
                "fail-above", 0, required_argument, "PCT",
                "Check, for every pair, that each --metric got worse by at most PCT percent of the baseline; "
                "print one line (or with --json, one entry) per pair and metric, PASS or FAIL, and exit with "
                "status 1 when one got worse by more, or could not be checked, or no actions were paired",
                STORE_STRING, FIELD(fail_above),
        },
        [OPT_METRIC] = {
                "metric", 0, required_argument, "NAME[:increase|:decrease]",
                "With --fail-above: a metric to check (repeats; default gpu__time_duration.sum); worse is an "
                "increase, or a decrease with :decrease (throughputs)",
                STORE_STRV, FIELD(metrics),
        },
        [OPT_JUNIT] = { "junit", 0, required_argument, "FILE",
                "With --fail-above: also write the checks to FILE as JUnit XML (replaced whole once complete)",
                STORE_STRING, FIELD(junit), is_nonempty, .takes = "a file name", .complete = COMPLETE_FILES },
        [OPT_ARCH] = { "arch", 0, required_argument, "CC",
                "The GPU's compute capability as major*10+minor (86 for 8.6)", STORE_STRING, FIELD(arch) },
        [OPT_SCOPE] = { "scope", 0, required_argument, "SCOPE", "The collection scope: launch (default), range or "
                "cmdlist",
                STORE_STRING, FIELD(scope), .values = VALUES("launch", "range", "cmdlist") },
        [OPT_SCHEMA] = { "schema", 0, required_argument, "SCHEMA",
                "extended (the default: ncu 2024.1.1's schema and later additions) or 2024.1.1 (exactly that "
                "schema)",
                STORE_STRING, FIELD(schema), .values = VALUES("extended", "2024.1.1") },
        [OPT_PROCNAME] = { "procname", 0, required_argument, "NAME",
                "Match the executable's file name (\"procname\"); repeats", STORE_STRV, FIELD(procnames) },
        [OPT_COMMNAME] = { "commname", 0, required_argument, "NAME", "Match /proc/PID/comm (\"commname\"); repeats",
                STORE_STRV, FIELD(commnames) },
        [OPT_CMDLINE] = { "cmdline", 0, required_argument, "NAME",
                "Match argv[0] without its directories (\"cmdline\"); repeats", STORE_STRV, FIELD(cmdlines) },
        [OPT_FINDFILE] = { "findfile", 0, required_argument, "NAMES",
                "Match when every colon-separated name is in the executable's directory (\"findfile\"); repeats",
                STORE_STRV, FIELD(findfiles) },
        [OPT_TRUE] = { "true", 0, no_argument, NULL, "Match every process (\"true\")", STORE_TRUE,
                FIELD(match_true) },
        [OPT_OR] = { "or", 0, no_argument, NULL, "Combine the patterns with \"or\" instead of \"and\"", STORE_TRUE,
                FIELD(match_or) },
        [OPT_NOT] = { "not", 0, no_argument, NULL, "Negate the pattern", STORE_TRUE, FIELD(match_not) },
        [OPT_PATTERN] = { "pattern", 0, required_argument, "JSON",
                "The whole pattern as rc text, e.g. '{\"op\": \"or\", ...}'", STORE_STRING, FIELD(pattern) },
        [OPT_SETTING] = {
                "setting", 0, required_argument, "KEY=VALUE",
                "Set KEY in the rule's (or profile's) settings; known keys are checked for spelling and type "
                "(GLSyncToVblank=false, GLVidHeapReuseRatio=0), unknown ones accepted with a warning; repeats",
                STORE_STRV, FIELD(settings), is_key_value, .takes = "KEY=VALUE",
        },
        [OPT_UNSET] = { "unset", 0, required_argument, "KEY", "Remove KEY from the settings; repeats", STORE_STRV,
                FIELD(unset) },
        [OPT_PROFILE] = { "profile", 0, required_argument, "NAME",
                "The rule refers to the profile NAME instead of settings", STORE_STRING, FIELD(profile),
                is_nonempty, .takes = "a profile name" },
        [OPT_SYSTEM] = { "system", 0, no_argument, NULL,
                "The system's files in /etc/nvidia: edits write them (through the daemon; root, or as polkit "
                "allows); doctor looks at them alone",
                STORE_TRUE, FIELD(system) },
        [OPT_FILE] = { "file", 0, required_argument, "NAME|PATH",
                "Which file: a name in the rc.d directory (default 50-nvprofilectl), or a full path",
                STORE_STRING, FIELD(edit_file), .complete = COMPLETE_FILES },
        [OPT_POSITION] = { "position", 0, required_argument, "N", "The rule's index in its file (0: first)",
                STORE_ENUM, FIELD(position), .enum_from_string = position_from_string,
                .takes = "a rule's index in its file (0: the first)" },
        [OPT_DRY_RUN] = { "dry-run", 0, no_argument, NULL,
                "Print the file's diff and what would change for running processes, and write nothing",
                STORE_TRUE, FIELD(dry_run) },
};

const ClientOption *client_option_by_name(const char *name)
{
        assert(name);

        for (size_t i = 0; i < _OPT_MAX; i++)
                if (streq(client_options[i].name, name))
                        return &client_options[i];
        return NULL;
}

bool client_option_given(const ClientOption *o, const ClientOptions *options)
{
        const char *field = (const char *) options + o->offset;

        switch (o->store) {
        case STORE_NONE:
                return false;
        case STORE_TRUE:
                return *(const bool *) field;
        case STORE_FALSE:
                return !*(const bool *) field;
        case STORE_STRING:
                return *(const char *const *) field;
        case STORE_STRV:
                return *(char **const *) field;
        case STORE_ENUM:
                return *(const int *) field >= 0;
        case STORE_SECONDS:
                return *(const uint64_t *) field > 0;
        case STORE_JSON:
                return *(const JsonMode *) field != JSON_OFF;
        }
        assert_not_reached();
}
