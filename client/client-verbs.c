/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every verb and command of nvprofilectl: its arguments, its help, and the options it takes. */

#include <limits.h>

#include "client-args.h"

#define OPTIONS(...) ((const OptionId[]){ __VA_ARGS__, _OPT_MAX })
#define NO_OPTIONS ((const OptionId[]){ _OPT_MAX })
#define COMMANDS(c) .commands = c, .n_commands = ELEMENTSOF(c)

#define RESOLVE_OPTIONS OPT_ALL, OPT_EXE, OPT_ARGV, OPT_COMM, OPT_DSO, OPT_ENV, OPT_HOME, OPT_EXE_DIR_FILE
#define PATTERN_OPTIONS \
        OPT_PROCNAME, OPT_COMMNAME, OPT_CMDLINE, OPT_DSO, OPT_FINDFILE, OPT_TRUE, OPT_OR, OPT_NOT, OPT_PATTERN

static const VerbSpec rules_commands[] = {
        {
                        "add",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Add a rule to your own rc.d file, or the system's",
                        "Add a rule (a pattern, and --setting KEY=VALUE... or --profile NAME) to your own rc.d file "
                        "(--file NAME, default 50-nvprofilectl), or with --system to the system's (through the daemon, "
                        "as polkit allows); at --position N (0: first in the file; default last). Only the rule's "
                        "bytes are written; the file is replaced atomically. Prints what changes for running processes "
                        "once the daemon has reloaded",
                        OPTIONS(PATTERN_OPTIONS, OPT_SETTING, OPT_PROFILE, OPT_SYSTEM, OPT_FILE, OPT_POSITION,
                                        OPT_DRY_RUN, OPT_HOME),
        },
        {
                        "set",
                        "RULE",
                        "a rule: FILE:LINE, or the id \"rules\" prints",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Change a rule",
                        "Change a rule's pattern, settings or profile (RULE: FILE:LINE, or the id \"rules\" prints)",
                        OPTIONS(PATTERN_OPTIONS, OPT_SETTING, OPT_UNSET, OPT_PROFILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        "remove",
                        "RULE",
                        "a rule: FILE:LINE, or the id \"rules\" prints",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Remove a rule",
                        "Remove a rule (RULE: FILE:LINE, or the id \"rules\" prints)",
                        OPTIONS(OPT_DRY_RUN, OPT_HOME),
        },
        {
                        "move",
                        "RULE",
                        "a rule: FILE:LINE, or the id \"rules\" prints",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Move a rule within its file or to another",
                        "Move a rule to --position N within its file, or to another file (--file) of the same owner "
                        "(yours, or the system's)",
                        OPTIONS(OPT_POSITION, OPT_FILE, OPT_SYSTEM, OPT_DRY_RUN, OPT_HOME),
        },
};

static const VerbSpec profiles_commands[] = {
        {
                        "add",
                        "NAME",
                        "the profile's name",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Add a named profile",
                        "Add a named profile with --setting KEY=VALUE... to your own rc.d file (--file, --system as "
                        "for rules add)",
                        OPTIONS(OPT_SETTING, OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        "set",
                        "NAME",
                        "the profile's name",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Change a named profile",
                        "Change a named profile's settings (--setting KEY=VALUE..., --unset KEY...)",
                        OPTIONS(OPT_SETTING, OPT_UNSET, OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        "remove",
                        "NAME",
                        "the profile's name",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Remove a named profile",
                        "Remove a named profile",
                        OPTIONS(OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
};

#define PAGE_OPTIONS OPT_LOCAL, OPT_OUTPUT, OPT_CSV

static const VerbSpec report_commands[] = {
        {
                        "summary",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "One line per kernel of a report",
                        "An Nsight Compute report (.ncu-rep, .ncu-repz): one line per kernel with its name, grid and "
                        "block, duration and top rule findings with their estimated speedups",
                        OPTIONS(OPT_LOCAL),
        },
        {
                        "json",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "The whole report as one JSON document",
                        "The whole report as one JSON document (schema io.github.nvprofiled.ncu-report, version 1; see "
                        "nvprofilectl(1))",
                        OPTIONS(OPT_LOCAL),
        },
        {
                        "details",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "ncu's details page",
                        "ncu's details page: every section of every kernel with its rule results, byte for byte as ncu "
                        "prints it on import (text, or CSV with --csv). Prints the exact bytes to a pipe, a file or "
                        "--output, and escapes them on a terminal",
                        OPTIONS(PAGE_OPTIONS, OPT_PRINT_UNITS, OPT_PRINT_DETAILS, OPT_PRINT_METRIC_INSTANCES,
                                        OPT_PRINT_SUMMARY),
        },
        {
                        "raw",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "ncu's raw page",
                        "ncu's raw page: every metric of every kernel (text, or with --csv one row per kernel, one "
                        "column per metric). Prints the exact bytes to a pipe, a file or --output, and escapes them on "
                        "a terminal",
                        OPTIONS(PAGE_OPTIONS, OPT_PRINT_UNITS, OPT_PRINT_METRIC_INSTANCES),
        },
        {
                        "session",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "ncu's session page",
                        "ncu's session page: the command line, host and target systems, processes and devices of the "
                        "report. Prints the exact bytes to a pipe, a file or --output, and escapes them on a terminal",
                        OPTIONS(PAGE_OPTIONS),
        },
        {
                        "rules",
                        "FILE",
                        "a report file",
                        1,
                        1,
                        COMPLETE_FILES,
                        "Apply Nsight Compute rule files",
                        "Apply Nsight Compute rule files (Python, see --rules-dir) to the report, in a process of "
                        "yours, and print what each rule says, like ncu's details page",
                        OPTIONS(OPT_RULES_DIR, OPT_RULE, OPT_ALL_SECTIONS),
        },
        {
                        "diff",
                        "BASELINE FILE",
                        "a baseline report and a report to compare with it",
                        2,
                        2,
                        COMPLETE_FILES,
                        "Compare the metrics of two reports",
                        "Every metric the paired actions of two reports both have: baseline, current, change, relative "
                        "change, unit, grouped by section and sorted by the size of the change; with --fail-above, a "
                        "check that fails when a metric got worse by more than allowed",
                        OPTIONS(OPT_LOCAL, OPT_ACTION, OPT_FAIL_ABOVE, OPT_METRIC, OPT_JUNIT),
        },
};

static const VerbSpec sections_commands[] = {
        {
                        "list",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "List the Nsight Compute sections the daemon reads",
                        "List the Nsight Compute sections the daemon reads (identifier, display name, enabled by "
                        "default, order, sets, file) and every section file with an error",
                        NO_OPTIONS,
        },
        { "sets", NULL, NULL, 0, 0, COMPLETE_NOTHING, "List the section sets",
                        "List the section sets and their sections", NO_OPTIONS },
        { "show", "ID", "a section identifier (sections list prints them)", 1, 1, COMPLETE_NOTHING,
                        "Show one section in full", "Show one section in full (JSON)", NO_OPTIONS },
        {
                        "metrics",
                        "ID",
                        "a section identifier (sections list prints them)",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "The metrics a section collects",
                        "The metrics a section collects on compute capability --arch=CC (such as 86) in collection "
                        "scope launch (default), range or cmdlist",
                        OPTIONS(OPT_ARCH, OPT_SCOPE),
        },
        {
                        "check",
                        "PATH...",
                        "at least one .section or .chart file or folder",
                        1,
                        UINT_MAX,
                        COMPLETE_FILES,
                        "Check section files locally",
                        "Check .section and .chart files, and folders of .section files (with their subfolders), "
                        "locally without the daemon; every error with FILE:LINE:COLUMN. Fails when one has an error",
                        OPTIONS(OPT_SCHEMA),
        },
        { "reload", NULL, NULL, 0, 0, COMPLETE_NOTHING, "Make the daemon re-read its section folders",
                        "Make the daemon re-read its section folders now (root, or as polkit allows)", NO_OPTIONS },
};

const VerbSpec client_verbs[] = {
        {
                        "status",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "The daemon's state",
                        "Show the daemon's version, the NVIDIA driver version whose shipped profiles are read, how "
                        "processes are watched, how many are tracked and matched, the configuration generation, and "
                        "the state of each system rc file",
                        NO_OPTIONS,
                        .run = verb_status,
        },
        {
                        "processes",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "List the processes a rule matched",
                        "List the processes a rule matched: PID, user, executable, number of effective settings, "
                        "profiles. With --all, every tracked process. Other users' processes show only what /proc shows "
                        "everyone, unless the caller is root",
                        OPTIONS(OPT_ALL),
                        .run = verb_processes,
        },
        {
                        "explain",
                        "PID",
                        "a process ID",
                        1,
                        1,
                        COMPLETE_NOTHING,
                        "Explain one process",
                        "Explain one process: the facts matched against (procname, commname, cmdline, HOME, mapped "
                        "libraries), every matched rule (--all: every rule) with file:line:column, each effective "
                        "setting with the rule that set it, the rules it shadowed, and the __GL_* environment variable "
                        "that overrides it. Only the caller's own processes, unless the caller is root",
                        OPTIONS(OPT_ALL),
                        .run = verb_explain,
        },
        {
                        "resolve",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Explain a process that is not running",
                        "The same as explain for a process that is not running, described by --exe, --argv, --comm, "
                        "--dso, --env, --home and --exe-dir-file (at least one of --exe, --argv, --comm, --dso)",
                        OPTIONS(RESOLVE_OPTIONS),
                        .run = verb_resolve,
        },
        {
                        "rules",
                        "[COMMAND]",
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "List or edit the rules",
                        "List every rule in precedence order with file:line:column, its pattern and its profile. --home "
                        "DIR adds the per-user rc files of that home. With a command, edit them",
                        OPTIONS(OPT_HOME),
                        COMMANDS(rules_commands),
                        .commands_optional = true,
                        .run = verb_rules,
        },
        {
                        "profiles",
                        "[COMMAND]",
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "List or edit the profiles",
                        "List every profile definition in effect with its settings (--home DIR likewise). With a "
                        "command, edit them",
                        OPTIONS(OPT_HOME),
                        COMMANDS(profiles_commands),
                        .commands_optional = true,
                        .run = verb_profiles,
        },
        {
                        "errors",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "List the problems in the daemon's rc files",
                        "List the problems in the rc files the daemon reads: FILE:LINE:COLUMN: SEVERITY: MESSAGE, or "
                        "FILE: SEVERITY: MESSAGE when a message is about a whole file",
                        NO_OPTIONS,
                        .run = verb_errors,
        },
        {
                        "check",
                        "[PATH...]",
                        NULL,
                        0,
                        UINT_MAX,
                        COMPLETE_FILES,
                        "Check rc files locally",
                        "Check rc files locally, without the daemon, as the driver reads them. The paths are read as "
                        "one configuration, in the order given; a directory is read as an rc.d directory: its regular "
                        "files (or symbolic links to them) in \"C\" collation order, its subdirectories and other "
                        "entries reported as ignored. A path that does not exist, cannot be read, or is larger than 1 "
                        "MiB is an error. Without paths, the search path of this machine for this user ($HOME) is "
                        "checked",
                        NO_OPTIONS,
                        .run = verb_check,
        },
        {
                        "settings",
                        "[KEY]",
                        NULL,
                        0,
                        1,
                        COMPLETE_NOTHING,
                        "The keys of application profiles",
                        "The keys of application profiles known to nvprofiled: values, __GL_* variable and meaning "
                        "(edits are checked against them)",
                        NO_OPTIONS,
                        .run = verb_settings,
        },
        {
                        "monitor",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Print each change until interrupted",
                        "Print a line for each change until interrupted: a process's result changed (with its profiles "
                        "and settings when the caller may see them), a process went away, a reload",
                        NO_OPTIONS,
                        .run = verb_monitor,
        },
        { "reload", NULL, NULL, 0, 0, COMPLETE_NOTHING, "Make the daemon re-read its rc files",
                        "Make the daemon re-read its rc files now (root, or as polkit allows)", NO_OPTIONS,
                        .run = verb_reload },
        { "version", NULL, NULL, 0, 0, COMPLETE_NOTHING, "Show the client's and the daemon's versions",
                        "Show the client's and the daemon's versions", NO_OPTIONS, .run = verb_version },
        {
                        "fdinfo",
                        "FILE...",
                        "at least one saved /proc/PID/fdinfo/FD file",
                        1,
                        UINT_MAX,
                        COMPLETE_FILES,
                        "Parse saved fdinfo dumps locally",
                        "Parse saved /proc/PID/fdinfo/FD dumps locally, without the daemon, and show what the daemon "
                        "takes from each: driver, PCI slot, client id and name, engines (busy ns, cycles, total cycles, "
                        "max. frequency in Hz, capacity), memory regions in bytes, other keys, and each rejected key "
                        "with its line. With --interval and two dumps of one client, the utilisation between them. "
                        "Fails when a file is not DRM usage fdinfo",
                        OPTIONS(OPT_INTERVAL),
                        .run = verb_fdinfo,
        },
        {
                        "report",
                        "COMMAND FILE",
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Read Nsight Compute reports",
                        "Read Nsight Compute reports (.ncu-rep, .ncu-repz): a summary, JSON, ncu's pages, rule results "
                        "and comparisons. The daemon's confined worker parses the file unless --local",
                        NO_OPTIONS,
                        COMMANDS(report_commands),
                        .run = verb_report,
        },
        {
                        "top",
                        NULL,
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Show GPU usage refreshing, like top",
                        "Show GPU usage refreshing, like top: each device with a bar per engine and its memory, then "
                        "each process using a GPU (those the caller may see) with its busiest engine, its memory, the "
                        "profile that applied to it and its command. Keys: g, m, p, c, r sort by GPU, memory, PID, "
                        "command, profile; q quits. While it runs the daemon samples every --interval",
                        OPTIONS(OPT_INTERVAL, OPT_ONCE, OPT_SORT, OPT_GROUP),
                        .run = verb_top,
        },
        {
                        "sections",
                        "COMMAND",
                        NULL,
                        0,
                        0,
                        COMPLETE_NOTHING,
                        "Nsight Compute sections",
                        "The Nsight Compute sections the daemon reads, and a local check of section files",
                        NO_OPTIONS,
                        COMMANDS(sections_commands),
                        .run = verb_sections,
        },
        {
                        "help",
                        "[VERB [COMMAND]]",
                        NULL,
                        0,
                        2,
                        COMPLETE_NOTHING,
                        "Show the help of a verb",
                        "Show the help of a verb or command, or without one, of nvprofilectl",
                        NO_OPTIONS,
                        .run = verb_help,
        },
};

const size_t client_n_verbs = ELEMENTSOF(client_verbs);

bool verb_spec_takes(const VerbSpec *v, OptionId id)
{
        assert(v);

        if (id < _OPT_GLOBAL_MAX)
                return true;
        for (const OptionId *o = v->options; *o != _OPT_MAX; o++)
                if (*o == id)
                        return true;
        return false;
}

const VerbSpec *verb_spec_find(const VerbSpec *specs, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (streq(specs[i].name, name))
                        return &specs[i];
        return NULL;
}
