/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every verb and command of nvprofilectl: its arguments, its help, and the options it takes. */

#include <limits.h>

#include "client-args.h"

#define OPTIONS(...) ((const OptionId[]){ __VA_ARGS__, _OPT_MAX })
#define COMMANDS(c) .commands = c, .n_commands = ELEMENTSOF(c)
/* The one argument of many commands. */
#define REPORT_FILE \
        .args = "FILE", .needs = "a report file", .min_args = 1, .max_args = 1, .complete_args = COMPLETE_FILES
#define RULE_ARG .args = "RULE", .needs = "a rule: FILE:LINE, or the id \"rules\" prints", .min_args = 1, .max_args = 1
#define PROFILE_NAME_ARG .args = "NAME", .needs = "the profile's name", .min_args = 1, .max_args = 1
#define SECTION_ID_ARG \
        .args = "ID", .needs = "a section identifier (sections list prints them)", .min_args = 1, .max_args = 1

#define RESOLVE_OPTIONS OPT_ALL, OPT_EXE, OPT_ARGV, OPT_COMM, OPT_DSO, OPT_ENV, OPT_HOME, OPT_EXE_DIR_FILE
#define PATTERN_OPTIONS \
        OPT_PROCNAME, OPT_COMMNAME, OPT_CMDLINE, OPT_DSO, OPT_FINDFILE, OPT_TRUE, OPT_OR, OPT_NOT, OPT_PATTERN

static const VerbSpec rules_commands[] = {
        {
                        .name = "add",
                        .summary = "Add a rule to your own rc.d file, or the system's",
                        .help = "Add a rule (a pattern, and --setting KEY=VALUE... or --profile NAME) to your own "
                                "rc.d file (--file NAME, default 50-nvprofilectl), or with --system to the system's "
                                "(through the daemon, as polkit allows); at --position N (0: first in the file; "
                                "default last). Only the rule's bytes are written; the file is replaced atomically. "
                                "Prints what changes for running processes once the daemon has reloaded",
                        .options = OPTIONS(PATTERN_OPTIONS, OPT_SETTING, OPT_PROFILE, OPT_SYSTEM, OPT_FILE,
                                        OPT_POSITION, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        .name = "set",
                        RULE_ARG,
                        .summary = "Change a rule",
                        .help = "Change a rule's pattern, settings or profile (RULE: FILE:LINE, or the id \"rules\" "
                                "prints)",
                        .options = OPTIONS(PATTERN_OPTIONS, OPT_SETTING, OPT_UNSET, OPT_PROFILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        .name = "remove",
                        RULE_ARG,
                        .summary = "Remove a rule",
                        .help = "Remove a rule (RULE: FILE:LINE, or the id \"rules\" prints)",
                        .options = OPTIONS(OPT_DRY_RUN, OPT_HOME),
        },
        {
                        .name = "move",
                        RULE_ARG,
                        .summary = "Move a rule within its file or to another",
                        .help = "Move a rule to --position N within its file, or to another file (--file) of the "
                                "same owner (yours, or the system's)",
                        .options = OPTIONS(OPT_POSITION, OPT_FILE, OPT_SYSTEM, OPT_DRY_RUN, OPT_HOME),
        },
};

static const VerbSpec profiles_commands[] = {
        {
                        .name = "add",
                        PROFILE_NAME_ARG,
                        .summary = "Add a named profile",
                        .help = "Add a named profile with --setting KEY=VALUE... to your own rc.d file (--file, "
                                "--system as for rules add)",
                        .options = OPTIONS(OPT_SETTING, OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        .name = "set",
                        PROFILE_NAME_ARG,
                        .summary = "Change a named profile",
                        .help = "Change a named profile's settings (--setting KEY=VALUE..., --unset KEY...)",
                        .options = OPTIONS(OPT_SETTING, OPT_UNSET, OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
        {
                        .name = "remove",
                        PROFILE_NAME_ARG,
                        .summary = "Remove a named profile",
                        .help = "Remove a named profile",
                        .options = OPTIONS(OPT_SYSTEM, OPT_FILE, OPT_DRY_RUN, OPT_HOME),
        },
};

/* ncu's pages take the same options; which apply to which page is ncu_page_options_valid()'s to say,
 * for the daemon too. */
#define PAGE_OPTIONS                                                                                    \
        OPT_LOCAL, OPT_OUTPUT, OPT_CSV, OPT_PRINT_UNITS, OPT_PRINT_DETAILS, OPT_PRINT_METRIC_INSTANCES, \
                        OPT_PRINT_SUMMARY

static const VerbSpec report_commands[] = {
        {
                        .name = "summary",
                        REPORT_FILE,
                        .summary = "One line per kernel of a report",
                        .help = "An Nsight Compute report (.ncu-rep, .ncu-repz): one line per kernel with its name, "
                                "grid and block, duration and top rule findings with their estimated speedups",
                        .options = OPTIONS(OPT_LOCAL),
        },
        {
                        .name = "json",
                        REPORT_FILE,
                        .summary = "The whole report as one JSON document",
                        .help = "The whole report as one JSON document (schema io.github.nvprofiled.ncu-report, "
                                "version 1; see nvprofilectl(1))",
                        .options = OPTIONS(OPT_LOCAL),
        },
        {
                        .name = "raw",
                        REPORT_FILE,
                        .summary = "ncu's raw page",
                        .help = "ncu's raw page: every metric of every kernel (text, or with --csv one row per "
                                "kernel, one column per metric). Prints the exact bytes to a pipe, a file or "
                                "--output, and escapes them on a terminal",
                        .options = OPTIONS(PAGE_OPTIONS),
        },
        {
                        .name = "details",
                        REPORT_FILE,
                        .summary = "ncu's details page",
                        .help = "ncu's details page: every section of every kernel with its rule results, byte for "
                                "byte as ncu prints it on import (text, or CSV with --csv). Prints the exact bytes "
                                "to a pipe, a file or --output, and escapes them on a terminal",
                        .options = OPTIONS(PAGE_OPTIONS),
        },
        {
                        .name = "session",
                        REPORT_FILE,
                        .summary = "ncu's session page",
                        .help = "ncu's session page: the command line, host and target systems, processes and "
                                "devices of the report. Prints the exact bytes to a pipe, a file or --output, and "
                                "escapes them on a terminal",
                        .options = OPTIONS(PAGE_OPTIONS),
        },
        {
                        .name = "rules",
                        REPORT_FILE,
                        .summary = "Apply Nsight Compute rule files",
                        .help = "Apply Nsight Compute rule files (Python, see --rules-dir) to the report, in a "
                                "process of yours, and print what each rule says, like ncu's details page",
                        .options = OPTIONS(OPT_RULES_DIR, OPT_RULE, OPT_ALL_SECTIONS),
        },
        {
                        .name = "diff",
                        .args = "BASELINE FILE",
                        .needs = "a baseline report and a report to compare with it",
                        .min_args = 2,
                        .max_args = 2,
                        .complete_args = COMPLETE_FILES,
                        .summary = "Compare the metrics of two reports",
                        .help = "Every metric the paired actions of two reports both have: baseline, current, "
                                "change, relative change, unit, grouped by section and sorted by the size of the "
                                "change; with --fail-above, a check that fails when a metric got worse by more than "
                                "allowed",
                        .options = OPTIONS(OPT_LOCAL, OPT_ACTION, OPT_FAIL_ABOVE, OPT_METRIC, OPT_JUNIT),
        },
};

static const VerbSpec sections_commands[] = {
        {
                        .name = "list",
                        .summary = "List the Nsight Compute sections the daemon reads",
                        .help = "List the Nsight Compute sections the daemon reads (identifier, display name, "
                                "enabled by default, order, sets, file) and every section file with an error",
        },
        {
                        .name = "sets",
                        .summary = "List the section sets",
                        .help = "List the section sets and their sections",
        },
        {
                        .name = "show",
                        SECTION_ID_ARG,
                        .summary = "Show one section in full",
                        .help = "Show one section in full (JSON)",
        },
        {
                        .name = "metrics",
                        SECTION_ID_ARG,
                        .summary = "The metrics a section collects",
                        .help = "The metrics a section collects on compute capability --arch=CC (such as 86) in "
                                "collection scope launch (default), range or cmdlist",
                        .options = OPTIONS(OPT_ARCH, OPT_SCOPE),
        },
        {
                        .name = "check",
                        .args = "PATH...",
                        .needs = "at least one .section or .chart file or folder",
                        .min_args = 1,
                        .max_args = UINT_MAX,
                        .complete_args = COMPLETE_FILES,
                        .summary = "Check section files locally",
                        .help = "Check .section and .chart files, and folders of .section files (with their "
                                "subfolders), locally without the daemon; every error with FILE:LINE:COLUMN. Fails "
                                "when one has an error",
                        .options = OPTIONS(OPT_SCHEMA),
        },
        {
                        .name = "reload",
                        .summary = "Make the daemon re-read its section folders",
                        .help = "Make the daemon re-read its section folders now (root, or as polkit allows)",
        },
};

const VerbSpec client_verbs[] = {
        {
                        .name = "status",
                        .summary = "The daemon's state",
                        .help = "Show the daemon's version, the NVIDIA driver version whose shipped profiles are "
                                "read, how processes are watched, how many are tracked and matched, the "
                                "configuration generation, and the state of each system rc file",
                        .run = verb_status,
        },
        {
                        .name = "processes",
                        .summary = "List the processes a rule matched",
                        .help = "List the processes a rule matched: PID, user, executable, number of effective "
                                "settings, profiles. With --all, every tracked process. Other users' processes show "
                                "only what /proc shows everyone, unless the caller is root",
                        .options = OPTIONS(OPT_ALL),
                        .run = verb_processes,
        },
        {
                        .name = "explain",
                        .args = "PID",
                        .needs = "a process ID",
                        .min_args = 1,
                        .max_args = 1,
                        .summary = "Explain one process",
                        .help = "Explain one process: the facts matched against (procname, commname, cmdline, HOME, "
                                "mapped libraries), every matched rule (--all: every rule) with file:line:column, "
                                "each effective setting with the rule that set it, the rules it shadowed, and the "
                                "__GL_* environment variable that overrides it. Only the caller's own processes, "
                                "unless the caller is root",
                        .options = OPTIONS(OPT_ALL),
                        .run = verb_explain,
        },
        {
                        .name = "resolve",
                        .summary = "Explain a process that is not running",
                        .help = "The same as explain for a process that is not running, described by --exe, --argv, "
                                "--comm, --dso, --env, --home and --exe-dir-file (at least one of --exe, --argv, "
                                "--comm, --dso)",
                        .options = OPTIONS(RESOLVE_OPTIONS),
                        .run = verb_resolve,
        },
        {
                        .name = "rules",
                        .args = "[COMMAND]",
                        .summary = "List the rules; with a command, edit them",
                        .help = "List every rule in precedence order with file:line:column, its pattern and its "
                                "profile. --home DIR adds the per-user rc files of that home. With a command, edit "
                                "them",
                        .options = OPTIONS(OPT_HOME),
                        COMMANDS(rules_commands),
                        .commands_optional = true,
                        .run = verb_rules,
        },
        {
                        .name = "profiles",
                        .args = "[COMMAND]",
                        .summary = "List the profiles; with a command, edit them",
                        .help = "List every profile definition in effect with its settings (--home DIR likewise). "
                                "With a command, edit them",
                        .options = OPTIONS(OPT_HOME),
                        COMMANDS(profiles_commands),
                        .commands_optional = true,
                        .run = verb_profiles,
        },
        {
                        .name = "errors",
                        .summary = "List the problems in the daemon's rc files",
                        .help = "List the problems in the rc files the daemon reads: FILE:LINE:COLUMN: SEVERITY: "
                                "MESSAGE, or FILE: SEVERITY: MESSAGE when a message is about a whole file",
                        .run = verb_errors,
        },
        {
                        .name = "doctor",
                        .summary = "Find why a profile does not apply, and the fix",
                        .help = "Find why a profile may not do what its author meant: a rule whose name no process "
                                "had while one with a close name ran (NixOS's .X-wrapped, a path, the case, comm's "
                                "15 characters, Flatpak, argv[0]), duplicate and dead rules, missing and unused "
                                "profiles, unknown keys with the right spelling, wrong values, obsolete keys, files "
                                "other programs cannot read, broken files, and files programs installed on their "
                                "own. Each finding is FILE:LINE:COLUMN: KIND: MESSAGE, with the nvprofilectl "
                                "command that fixes it (try it with --dry-run first). It looks at the system's files "
                                "and your own ($HOME, or --home), at the system's alone with --system, at every "
                                "user's with --all (root). Names are compared with your processes, running and "
                                "remembered by the daemon",
                        .options = OPTIONS(OPT_HOME, OPT_SYSTEM, OPT_ALL),
                        .run = verb_doctor,
        },
        {
                        .name = "check",
                        .args = "[PATH...]",
                        .max_args = UINT_MAX,
                        .complete_args = COMPLETE_FILES,
                        .summary = "Check rc files locally",
                        .help = "Check rc files locally, without the daemon, as the driver reads them. The paths are "
                                "read as one configuration, in the order given; a directory is read as an rc.d "
                                "directory: its regular files (or symbolic links to them) in \"C\" collation order, "
                                "its subdirectories and other entries reported as ignored. A path that does not "
                                "exist, cannot be read, or is larger than 1 MiB is an error. Without paths, the "
                                "search path of this machine for this user ($HOME) is checked",
                        .run = verb_check,
        },
        {
                        .name = "settings",
                        .args = "[KEY]",
                        .max_args = 1,
                        .summary = "The keys of application profiles",
                        .help = "The keys of application profiles known to nvprofiled: values, __GL_* variable and "
                                "meaning (edits are checked against them)",
                        .run = verb_settings,
        },
        {
                        .name = "monitor",
                        .summary = "Print each change until interrupted",
                        .help = "Print a line for each change until interrupted: a process's result changed (with "
                                "its profiles and settings when the caller may see them), a process went away, a "
                                "reload",
                        .run = verb_monitor,
        },
        {
                        .name = "reload",
                        .summary = "Make the daemon re-read its rc files",
                        .help = "Make the daemon re-read its rc files now (root, or as polkit allows)",
                        .run = verb_reload,
        },
        {
                        .name = "version",
                        .summary = "Show the client's and the daemon's versions",
                        .help = "Show the client's and the daemon's versions",
                        .run = verb_version,
        },
        {
                        .name = "fdinfo",
                        .args = "FILE...",
                        .needs = "at least one saved /proc/PID/fdinfo/FD file",
                        .min_args = 1,
                        .max_args = UINT_MAX,
                        .complete_args = COMPLETE_FILES,
                        .summary = "Parse saved fdinfo dumps locally",
                        .help = "Parse saved /proc/PID/fdinfo/FD dumps locally, without the daemon, and show what "
                                "the daemon takes from each: driver, PCI slot, client id and name, engines (busy ns, "
                                "cycles, total cycles, max. frequency in Hz, capacity), memory regions in bytes, "
                                "other keys, and each rejected key with its line. With --interval and two dumps of "
                                "one client, the utilisation between them. Fails when a file is not DRM usage fdinfo",
                        .options = OPTIONS(OPT_INTERVAL),
                        .run = verb_fdinfo,
        },
        {
                        .name = "report",
                        .args = "COMMAND FILE",
                        .summary = "Read Nsight Compute reports",
                        .help = "Read Nsight Compute reports (.ncu-rep, .ncu-repz): a summary, JSON, ncu's pages, "
                                "rule results and comparisons. The daemon's confined worker parses the file unless "
                                "--local",
                        COMMANDS(report_commands),
                        .run = verb_report,
        },
        {
                        .name = "top",
                        .summary = "Show GPU usage refreshing, like top",
                        .help = "Show GPU usage refreshing, like top: each device with a bar per engine and its "
                                "memory, then each process using a GPU (those the caller may see) with its busiest "
                                "engine, its memory, the profile that applied to it and its command. Keys: g, m, p, "
                                "c, r sort by GPU, memory, PID, command, profile; q quits. While it runs the daemon "
                                "samples every --interval",
                        .options = OPTIONS(OPT_INTERVAL, OPT_ONCE, OPT_SORT, OPT_GROUP),
                        .run = verb_top,
        },
        {
                        .name = "sections",
                        .args = "COMMAND",
                        .summary = "Nsight Compute sections",
                        .help = "The Nsight Compute sections the daemon reads, and a local check of section files",
                        COMMANDS(sections_commands),
                        .run = verb_sections,
        },
        {
                        .name = "help",
                        .args = "[VERB [COMMAND]]",
                        .max_args = 2,
                        .summary = "Show the help of a verb",
                        .help = "Show the help of a verb or command, or without one, of nvprofilectl",
                        .run = verb_help,
        },
};

const size_t client_n_verbs = ELEMENTSOF(client_verbs);

bool verb_spec_takes(const VerbSpec *v, OptionId id)
{
        assert(v);

        if (id < _OPT_GLOBAL_MAX)
                return true;
        for (const OptionId *o = v->options; o && *o != _OPT_MAX; o++)
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
