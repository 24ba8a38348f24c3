/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's command line: options, verbs and how many arguments each takes. */

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <unistd.h>

#include "client.h"
#include "log.h"
#include "parse-util.h"
#include "report-page.h"
#include "strv.h"
#include "verb-top.h"

ClientOptions arg = CLIENT_OPTIONS_INIT;

static void help(void)
{
        printf("Usage: nvprofilectl [OPTIONS...] VERB [ARGS...]\n"
               "\n"
               "Ask nvprofiled which NVIDIA application-profile rules match running processes, which\n"
               "settings take effect, and why; check rc files without the daemon.\n"
               "\n"
               "Verbs:\n"
               "  status                 Show the daemon's version, the NVIDIA driver version whose\n"
               "                         shipped profiles are read, how processes are watched, how many\n"
               "                         are tracked and matched, the configuration generation, and the\n"
               "                         state of each system rc file\n"
               "  processes              List the processes a rule matched: PID, user, executable,\n"
               "                         number of effective settings, profiles. With --all, every\n"
               "                         tracked process. Other users' processes show only what /proc\n"
               "                         shows everyone, unless the caller is root\n"
               "  explain PID            Explain one process: the facts matched against (procname,\n"
               "                         commname, cmdline, HOME, mapped libraries), every matched rule\n"
               "                         (--all: every rule) with file:line:column, each effective\n"
               "                         setting with the rule that set it, the rules it shadowed, and\n"
               "                         the __GL_* environment variable that overrides it. Only the\n"
               "                         caller's own processes, unless the caller is root\n"
               "  resolve OPTIONS...     The same for a process that is not running, described by\n"
               "                         --exe, --argv, --comm, --dso, --env, --home and --exe-dir-file\n"
               "                         (at least one of --exe, --argv, --comm, --dso)\n"
               "  rules                  List every rule in precedence order with file:line:column,\n"
               "                         its pattern and its profile. --home DIR adds the per-user rc\n"
               "                         files of that home (only one the caller could read itself)\n"
               "  profiles               List every profile definition in effect with its settings\n"
               "                         (--home DIR likewise)\n"
               "  rules add PATTERN (--setting KEY=VALUE... | --profile NAME)\n"
               "                         Add a rule to your own rc.d file (--file NAME, default\n"
               "                         50-nvprofilectl), or with --system to the system's (through\n"
               "                         the daemon, as polkit allows); at --position N (0: first in\n"
               "                         the file; default last). Only the rule's bytes are written;\n"
               "                         the file is replaced atomically. Prints what changes for\n"
               "                         running processes once the daemon has reloaded\n"
               "  rules set RULE [PATTERN] [--setting KEY=VALUE...] [--unset KEY...] [--profile NAME]\n"
               "                         Change a rule (RULE: FILE:LINE, or the id \"rules\" prints)\n"
               "  rules remove RULE      Remove a rule\n"
               "  rules move RULE (--position N | --file NAME)\n"
               "                         Move a rule within its file or to another file of the same\n"
               "                         owner (yours, or the system's)\n"
               "  profiles add|set|remove NAME [--setting KEY=VALUE...] [--unset KEY...]\n"
               "                         Add, change or remove a named profile in a file (--file,\n"
               "                         --system as for rules add)\n");
        printf("  errors                 List the problems in the rc files the daemon reads:\n"
               "                         FILE:LINE:COLUMN: SEVERITY: MESSAGE, or FILE: SEVERITY: MESSAGE\n"
               "                         when a message is about a whole file\n"
               "  check [PATH...]        Check rc files locally, without the daemon, as the driver reads\n"
               "                         them. The paths are read as one configuration, in the order\n"
               "                         given; a directory is read as an rc.d directory: its regular\n"
               "                         files (or symbolic links to them) in \"C\" collation order, its\n"
               "                         subdirectories and other entries reported as ignored. A path\n"
               "                         that does not exist, cannot be read, or is larger than 1 MiB\n"
               "                         is an error. Without paths, the search path of this machine\n"
               "                         for this user ($HOME) is checked\n"
               "  settings [KEY]         The keys of application profiles known to nvprofiled: values,\n"
               "                         __GL_* variable and meaning (edits are checked against them)\n"
               "  monitor                Print a line for each change until interrupted: a process's\n"
               "                         result changed (with its profiles and settings when the\n"
               "                         caller may see them), a process went away, a reload\n"
               "  reload                 Make the daemon re-read its rc files now (root, or as polkit\n"
               "                         allows)\n"
               "  version                Show the client's and the daemon's versions\n"
               "  fdinfo FILE...         Parse saved /proc/PID/fdinfo/FD dumps locally, without the\n"
               "                         daemon, and show what the daemon takes from each: driver,\n"
               "                         PCI slot, client id and name, engines (busy ns, cycles,\n"
               "                         total cycles, max. frequency in Hz, capacity), memory regions\n"
               "                         in bytes, other keys, and each rejected key with its line.\n"
               "                         With --interval and two dumps of one client, the utilisation\n"
               "                         between them. Fails when a file is not DRM usage fdinfo\n");
        printf("  report rules FILE      Apply Nsight Compute rule files (Python, see --rules-dir) to\n"
               "                         the report, in a process of yours, and print what each rule\n"
               "                         says, like ncu's details page\n"
               "  report diff BASELINE FILE  Every metric the paired actions of two reports both\n"
               "                         have: baseline, current, change, relative change, unit,\n"
               "                         grouped by section and sorted by the size of the change\n");
        printf("  report summary FILE    An Nsight Compute report (.ncu-rep, .ncu-repz): one line per\n"
               "                         kernel with its name, grid and block, duration and top rule\n"
               "                         findings with their estimated speedups\n"
               "  report json FILE       The whole report as one JSON document (schema\n"
               "                         io.github.nvprofiled.ncu-report, version 1; see\n"
               "                         nvprofilectl(1))\n"
               "  report details FILE    ncu's details page: every section of every kernel with its\n"
               "                         rule results, byte for byte as ncu prints it on import\n"
               "                         (text, or CSV with --csv; --print-units, --print-details,\n"
               "                         --print-metric-instances, --print-summary as ncu's)\n"
               "  report raw FILE        ncu's raw page: every metric of every kernel (text, or with\n"
               "                         --csv one row per kernel, one column per metric)\n"
               "  report session FILE    ncu's session page: the command line, host and target\n"
               "                         systems, processes and devices of the report. The three\n"
               "                         print the exact bytes to a pipe, a file or --output, and\n"
               "                         escape them on a terminal\n");

        printf("  top                    Show GPU usage refreshing, like top: each device with a bar per\n"
               "                         engine and its memory, then each process using a GPU (those\n"
               "                         the caller may see) with its busiest engine, its memory, the\n"
               "                         profile that applied to it and its command. Keys: g, m, p, c,\n"
               "                         r sort by GPU, memory, PID, command, profile; q quits. While it\n"
               "                         runs the daemon samples every --interval\n");
        printf("  sections list          List the Nsight Compute sections the daemon reads (identifier,\n"
               "                         display name, enabled by default, order, sets, file) and every\n"
               "                         section file with an error\n"
               "  sections sets          List the section sets and their sections\n"
               "  sections show ID       Show one section in full (JSON)\n"
               "  sections metrics ID --arch=CC [--scope=SCOPE]\n"
               "                         The metrics a section collects on compute capability CC (such\n"
               "                         as 86) in collection scope launch (default), range or cmdlist\n"
               "  sections check [--schema=SCHEMA] PATH...\n"
               "                         Check .section and .chart files, and folders of .section files\n"
               "                         (with their subfolders), locally without the daemon; every\n"
               "                         error with FILE:LINE:COLUMN. Fails when one has an error\n"
               "  sections reload        Make the daemon re-read its section folders now (root, or as\n"
               "                         polkit allows)\n");
        printf("\n"
               "Options:\n"
               "  -h --help              Show this help and exit\n"
               "     --version          Show the client's version and exit\n"
               "     --json[=MODE]      Print JSON instead of text. MODE is \"pretty\", \"short\" (one\n"
               "                         line per document) or \"off\"; without MODE, \"pretty\" on a\n"
               "                         terminal and \"short\" otherwise. JSON strings are exact;\n"
               "                         text output escapes control characters and invalid UTF-8 in\n"
               "                         anything that comes from processes, files or the daemon\n"
               "                         (C-style: \\n, \\\\, \\x1b)\n"
               "  -j                     Same as --json\n"
               "     --no-legend        Omit column headers and summary lines\n"
               "  -a --all              processes: every tracked process; explain, resolve: every\n"
               "                         rule, not only the matched ones\n"
               "     --bus=ADDRESS      Talk to the daemon on the D-Bus bus at ADDRESS (a D-Bus\n"
               "                         address such as unix:path=/run/x/bus) instead of the system bus\n"
               "     --user             Talk to the daemon on the session bus (not with --bus=)\n"
               "     --interval=SECONDS fdinfo: the time between the two dumps given (a decimal\n"
               "                         number of seconds, such as 2 or 0.5); top: how often to\n"
               "                         sample and redraw (default 1)\n"
               "     --once             top: print one frame as plain text (or one JSON document with\n"
               "                         --json) after two samples, and exit\n"
               "     --sort=KEY         top: sort processes by gpu (the default), memory, pid,\n"
               "                         command or profile\n"
               "     --group=BY         top: one row per process (the default), or the daemon's\n"
               "                         totals per application or user (as the a and u keys)\n"
               "     --csv              report raw|details|session: print ncu's CSV page instead of\n"
               "                         its text\n"
               "     --print-units=base|dynamic  report raw|details: base units, or units scaled\n"
               "                         to the value as ncu does (usecond, Kbyte, Gbyte/second;\n"
               "                         the default)\n"
               "     --print-details=header|body|all  report details: the sections' header\n"
               "                         metrics (the default), their body items, or both\n"
               "     --print-metric-instances=none|values|details  report raw|details: each\n"
               "                         metric's value alone (the default), followed by its\n"
               "                         instance values \"VALUE (I1; I2; ...)\", or by their\n"
               "                         correlation ids and values \"VALUE (ID1: I1; ...)\"\n"
               "     --print-summary=none|per-kernel  report details: one table per kernel and\n"
               "                         launch with each metric's minimum, maximum and average\n"
               "     --local            report: parse the file in this process instead of having\n"
               "                         the daemon's confined worker parse it\n"
               "     --output=FILE      report raw|details|session: write the exact bytes to FILE\n"
               "                         (replaced whole once complete, never half written)\n"
               "     --arch=CC          sections metrics: the GPU's compute capability as\n"
               "                         major*10+minor (86 for 8.6)\n"
               "     --scope=SCOPE      sections metrics: launch (default), range or cmdlist\n"
               "     --schema=SCHEMA    sections check: extended (default: ncu 2024.1.1's schema and\n"
               "                         later additions) or 2024.1.1 (exactly that schema)\n");
        printf("\n"
               "Options of resolve (each of --argv, --dso, --env, --exe-dir-file may be repeated):\n"
               "     --exe=PATH         The executable's path: the \"procname\" feature\n"
               "     --argv=ARG         The next command-line argument, argv[0] first: \"cmdline\"\n"
               "                         matches argv[0]\n"
               "     --comm=NAME        The process's name (/proc/PID/comm): the \"commname\" feature\n"
               "     --dso=NAME         A mapped shared library's file name: the \"dso\" feature\n"
               "     --env=NAME=VALUE   An environment variable of the process (__GL_* overrides,\n"
               "                         __GL_APPLICATION_PROFILE)\n"
               "     --home=DIR         The process's $HOME: its per-user rc files are read (also for\n"
               "                         rules and profiles, and the home whose files edits write)\n"
               "     --exe-dir-file=NAME  A file present in the executable's directory: the\n"
               "                         \"findfile\" feature\n"
               "\n"
               "Options of rules and profiles edits (PATTERN: one or more of the first six; several\n"
               "are combined with \"and\", with --or with \"or\"; each may be repeated):\n"
               "     --procname=NAME    Match the executable's file name (\"procname\")\n"
               "     --commname=NAME    Match /proc/PID/comm (\"commname\")\n"
               "     --cmdline=NAME     Match argv[0] without its directories (\"cmdline\")\n"
               "     --dso=NAME         Match a mapped library whose name starts so (\"dso\")\n"
               "     --findfile=NAMES   Match when every colon-separated name is in the executable's\n"
               "                         directory (\"findfile\")\n"
               "     --true             Match every process (\"true\")\n"
               "     --or               Combine the patterns with \"or\" instead of \"and\"\n"
               "     --not              Negate the pattern\n"
               "     --pattern=JSON     The whole pattern as rc text, e.g. '{\"op\": \"or\", ...}'\n"
               "     --setting=KEY=VALUE  Set KEY in the rule's (or profile's) settings; known keys\n"
               "                         are checked for spelling and type (GLSyncToVblank=false,\n"
               "                         GLVidHeapReuseRatio=0), unknown ones accepted with a warning\n"
               "     --unset=KEY        Remove KEY from the settings\n"
               "     --profile=NAME     The rule refers to the profile NAME instead of settings\n"
               "     --system           Edit the system's files in /etc/nvidia (the daemon writes\n"
               "                         them; root, or as polkit allows)\n"
               "     --file=NAME|PATH   Which file: a name in the rc.d directory, or a full path\n"
               "     --position=N       rules add, move: the rule's index in its file (0: first)\n"
               "     --dry-run          Print the file's diff and what would change for running\n"
               "                         processes, and write nothing\n"
               "\n"
               "Options of report rules and report diff (--rules-dir, --rule, --action, --metric repeat):\n"
               "     --rules-dir=DIR    rules: a folder of Nsight Compute rule files (.py); default\n"
               "                         $NVPROFILED_RULES_PATH, else ~/.config/nvprofiled/rules,\n"
               "                         else an installed Nsight Compute's sections folder\n"
               "     --rule=ID          rules: apply only this rule (and its parent rules)\n"
               "     --all-sections     rules: apply rules whose section is not in the report too\n"
               "     --action=SPEC      diff: pair these actions (BASE_INDEX:INDEX, INDEX for\n"
               "                         INDEX:INDEX, or a kernel name); default: by kernel name\n"
               "                         and launch index\n");
        printf("     --fail-above=PCT   diff: check, for every pair, that each --metric got worse by\n"
               "                         at most PCT percent of the baseline; print one line (or with\n"
               "                         --json, one entry) per pair and metric, PASS or FAIL, and exit\n"
               "                         with status 1 when one got worse by more, or could not be\n"
               "                         checked, or no actions were paired\n"
               "     --metric=NAME[:increase|:decrease]  diff --fail-above: a metric to check (repeat\n"
               "                         for more; default gpu__time_duration.sum); worse is an increase,\n"
               "                         or a decrease with :decrease (throughputs)\n"
               "     --junit=FILE       diff --fail-above: also write the checks to FILE as JUnit XML\n"
               "                         (replaced whole once complete)\n"
               "\n"
               "Environment:\n"
               "  DBUS_SYSTEM_BUS_ADDRESS, DBUS_SESSION_BUS_ADDRESS  the buses' addresses, as for every\n"
               "                         D-Bus client\n"
               "  HOME                   check without paths: whose per-user rc files are checked\n"
               "  NVPROFILED_PYTHON      report rules: the python3 to run the rules with\n"
               "  NVPROFILED_PYTHON_DIR  report rules: the folder (an absolute path) of\n"
               "                         the nvprofiled Python package; PYTHONPATH is not used\n"
               "\n"
               "Exit status:\n"
               "  0  success\n"
               "  1  failure: the daemon is not running or refused the request, a process does not\n"
               "     exist, or (check, errors) an rc file has errors, or (fdinfo) a file cannot\n"
               "     be read or is not DRM usage fdinfo, or (report diff --fail-above) a metric got\n"
               "     worse by more than allowed\n"
               "  2  usage error: unknown verb or option, missing or extra arguments, options that\n"
               "     cannot be combined\n"
               "\n"
               "See nvprofilectl(1), nvprofiled(8) and nvprofiled.conf(5).\n");
}

static int parse_json_mode(const char *s, JsonMode *ret)
{
        if (!s) /* bare --json */
                *ret = isatty(STDOUT_FILENO) ? JSON_PRETTY : JSON_SHORT;
        else if (streq(s, "pretty"))
                *ret = JSON_PRETTY;
        else if (streq(s, "short"))
                *ret = JSON_SHORT;
        else if (streq(s, "off"))
                *ret = JSON_OFF;
        else
                return -EINVAL;
        return 0;
}

/* "2", "0.5", "1.000001": seconds with at most 6 decimals, above 0 and at most a day, in microseconds. */
static int parse_seconds(const char *s, uint64_t *ret)
{
        uint64_t sec = 0, usec = 0;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                sec = sec * 10 + (uint64_t) (*p - '0');
                if (sec > 86400)
                        return -ERANGE;
        }
        if (*p == '.') {
                p++;
                for (uint64_t unit = 100000; *p >= '0' && *p <= '9'; p++, unit /= 10) {
                        if (unit == 0)
                                return -EINVAL;
                        usec += (uint64_t) (*p - '0') * unit;
                }
        }
        usec += sec * 1000000;
        if (*p != '\0' || usec == 0 || usec > UINT64_C(86400) * 1000000)
                return -EINVAL;
        *ret = usec;
        return 0;
}

static int usage_error(const char *format, ...) _printf_(1, 2);
static int usage_error(const char *format, ...)
{
        va_list ap;

        fputs("nvprofilectl: ", stderr);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputs("\n", stderr);
        return -EINVAL;
}

int parse_argv(int argc, char *argv[])
{
        enum {
                ARG_VERSION = 0x100,
                ARG_JSON,
                ARG_NO_LEGEND,
                ARG_BUS,
                ARG_USER,
                ARG_EXE,
                ARG_ARGV,
                ARG_COMM,
                ARG_DSO,
                ARG_ENV,
                ARG_HOME,
                ARG_EXE_DIR_FILE,
                ARG_INTERVAL,
                ARG_CSV,
                ARG_PRINT_UNITS,
                ARG_PRINT_DETAILS,
                ARG_PRINT_METRIC_INSTANCES,
                ARG_PRINT_SUMMARY,
                ARG_LOCAL,
                ARG_OUTPUT,
                ARG_RULES_DIR,
                ARG_RULE,
                ARG_ALL_SECTIONS,
                ARG_ACTION,
                ARG_ONCE,
                ARG_SORT,
                ARG_GROUP,
                ARG_ARCH,
                ARG_SCOPE,
                ARG_SCHEMA,
                ARG_FAIL_ABOVE,
                ARG_METRIC,
                ARG_JUNIT,
                ARG_PROCNAME,
                ARG_COMMNAME,
                ARG_CMDLINE,
                ARG_FINDFILE,
                ARG_TRUE,
                ARG_OR,
                ARG_NOT,
                ARG_PATTERN,
                ARG_PROFILE,
                ARG_SETTING,
                ARG_UNSET,
                ARG_SYSTEM,
                ARG_FILE,
                ARG_POSITION,
                ARG_DRY_RUN,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json", optional_argument, NULL, ARG_JSON },
                { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
                { "all", no_argument, NULL, 'a' },
                { "bus", required_argument, NULL, ARG_BUS },
                { "user", no_argument, NULL, ARG_USER },
                { "exe", required_argument, NULL, ARG_EXE },
                { "argv", required_argument, NULL, ARG_ARGV },
                { "comm", required_argument, NULL, ARG_COMM },
                { "dso", required_argument, NULL, ARG_DSO },
                { "env", required_argument, NULL, ARG_ENV },
                { "home", required_argument, NULL, ARG_HOME },
                { "exe-dir-file", required_argument, NULL, ARG_EXE_DIR_FILE },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "csv", no_argument, NULL, ARG_CSV },
                { "print-units", required_argument, NULL, ARG_PRINT_UNITS },
                { "print-details", required_argument, NULL, ARG_PRINT_DETAILS },
                { "print-metric-instances", required_argument, NULL, ARG_PRINT_METRIC_INSTANCES },
                { "print-summary", required_argument, NULL, ARG_PRINT_SUMMARY },
                { "local", no_argument, NULL, ARG_LOCAL },
                { "output", required_argument, NULL, ARG_OUTPUT },
                { "rules-dir", required_argument, NULL, ARG_RULES_DIR },
                { "rule", required_argument, NULL, ARG_RULE },
                { "all-sections", no_argument, NULL, ARG_ALL_SECTIONS },
                { "action", required_argument, NULL, ARG_ACTION },
                { "once", no_argument, NULL, ARG_ONCE },
                { "sort", required_argument, NULL, ARG_SORT },
                { "group", required_argument, NULL, ARG_GROUP },
                { "arch", required_argument, NULL, ARG_ARCH },
                { "scope", required_argument, NULL, ARG_SCOPE },
                { "schema", required_argument, NULL, ARG_SCHEMA },
                { "fail-above", required_argument, NULL, ARG_FAIL_ABOVE },
                { "metric", required_argument, NULL, ARG_METRIC },
                { "junit", required_argument, NULL, ARG_JUNIT },
                { "procname", required_argument, NULL, ARG_PROCNAME },
                { "commname", required_argument, NULL, ARG_COMMNAME },
                { "cmdline", required_argument, NULL, ARG_CMDLINE },
                { "findfile", required_argument, NULL, ARG_FINDFILE },
                { "true", no_argument, NULL, ARG_TRUE },
                { "or", no_argument, NULL, ARG_OR },
                { "not", no_argument, NULL, ARG_NOT },
                { "pattern", required_argument, NULL, ARG_PATTERN },
                { "profile", required_argument, NULL, ARG_PROFILE },
                { "setting", required_argument, NULL, ARG_SETTING },
                { "unset", required_argument, NULL, ARG_UNSET },
                { "system", no_argument, NULL, ARG_SYSTEM },
                { "file", required_argument, NULL, ARG_FILE },
                { "position", required_argument, NULL, ARG_POSITION },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { 0 },
        };
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        int c;

        assert(argc >= 0);
        assert(argv);

        /* Options may follow the verb ("processes --all"); getopt_long() moves the verb and its arguments
         * to the end. optind = 0 starts afresh: the tests parse several command lines. */
        optind = 0;
        opterr = 0; /* we say it ourselves, escaped */
        while ((c = getopt_long(argc, argv, "hja", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("nvprofilectl %s\n", PACKAGE_VERSION);
                        return 0;
                case 'j':
                        (void) parse_json_mode(NULL, &arg.json);
                        break;
                case ARG_JSON:
                        if (parse_json_mode(optarg, &arg.json) < 0)
                                return usage_error("--json= takes pretty, short or off, not \"%s\".", esc(&e, optarg));
                        break;
                case ARG_NO_LEGEND:
                        arg.legend = false;
                        break;
                case 'a':
                        arg.all = true;
                        break;
                case ARG_BUS:
                        if (optarg[0] == '\0')
                                return usage_error("--bus= takes a D-Bus address.");
                        arg.bus_address = optarg;
                        break;
                case ARG_USER:
                        arg.session = true;
                        break;
                case ARG_EXE:
                        arg.exe = optarg;
                        break;
                case ARG_COMM:
                        arg.comm = optarg;
                        break;
                case ARG_HOME:
                        if (optarg[0] != '/')
                                return usage_error("--home= takes an absolute path, not \"%s\".", esc(&e, optarg));
                        arg.home = optarg;
                        break;
                case ARG_ARGV:
                        if (strv_extend(&arg.argv_facts, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_DSO:
                        if (strv_extend(&arg.dsos, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_ENV:
                        if (!strchr(optarg, '=') || optarg[0] == '=')
                                return usage_error("--env= takes NAME=VALUE, not \"%s\".", esc(&e, optarg));
                        if (strv_extend(&arg.env, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_EXE_DIR_FILE:
                        if (strv_extend(&arg.exe_dir_files, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_INTERVAL:
                        if (parse_seconds(optarg, &arg.interval_usec) < 0)
                                return usage_error("--interval= takes a number of seconds above 0 (such as 2 or 0.5), "
                                                   "not \"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_CSV:
                        arg.csv = true;
                        break;
                case ARG_PRINT_UNITS:
                        arg.print_units = ncu_print_units_from_string(optarg);
                        if (arg.print_units < 0)
                                return usage_error(
                                                "--print-units= takes base or dynamic, not \"%s\".", esc(&e, optarg));
                        break;
                case ARG_PRINT_DETAILS:
                        arg.print_details = ncu_print_details_from_string(optarg);
                        if (arg.print_details < 0)
                                return usage_error("--print-details= takes header, body or all, not \"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_PRINT_METRIC_INSTANCES:
                        arg.print_metric_instances = ncu_print_instances_from_string(optarg);
                        if (arg.print_metric_instances < 0)
                                return usage_error("--print-metric-instances= takes none, values or details, not "
                                                   "\"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_PRINT_SUMMARY:
                        arg.print_summary = ncu_print_summary_from_string(optarg);
                        if (arg.print_summary < 0)
                                return usage_error("--print-summary= takes none or per-kernel, not \"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_LOCAL:
                        arg.local = true;
                        break;
                case ARG_OUTPUT:
                        if (optarg[0] == '\0')
                                return usage_error("--output= takes a file name.");
                        arg.output = optarg;
                        break;
                case ARG_RULES_DIR:
                        if (strv_extend(&arg.rules_dirs, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_RULE:
                        if (strv_extend(&arg.rule_ids, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_ALL_SECTIONS:
                        arg.all_sections = true;
                        break;
                case ARG_ACTION:
                        if (strv_extend(&arg.actions, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_ONCE:
                        arg.once = true;
                        break;
                case ARG_SORT:
                        arg.top_sort = top_sort_from_string(optarg);
                        if (arg.top_sort < 0)
                                return usage_error("--sort= takes gpu, memory, pid, command or profile, not \"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_GROUP:
                        arg.top_group = top_group_from_string(optarg);
                        if (arg.top_group < 0)
                                return usage_error("--group= takes process, application or user, not \"%s\".",
                                                esc(&e, optarg));
                        break;
                case ARG_ARCH:
                        arg.arch = optarg;
                        break;
                case ARG_SCOPE:
                        arg.scope = optarg;
                        break;
                case ARG_SCHEMA:
                        arg.schema = optarg;
                        break;
                case ARG_FAIL_ABOVE: /* these three: verb-report-diff-check.c */
                        arg.fail_above = optarg;
                        break;
                case ARG_METRIC:
                        if (strv_extend(&arg.metrics, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_JUNIT:
                        if (optarg[0] == '\0')
                                return usage_error("--junit= takes a file name.");
                        arg.junit = optarg;
                        break;
                case ARG_PROCNAME:
                        if (strv_extend(&arg.procnames, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_COMMNAME:
                        if (strv_extend(&arg.commnames, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_CMDLINE:
                        if (strv_extend(&arg.cmdlines, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_FINDFILE:
                        if (strv_extend(&arg.findfiles, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_TRUE:
                        arg.match_true = true;
                        break;
                case ARG_OR:
                        arg.match_or = true;
                        break;
                case ARG_NOT:
                        arg.match_not = true;
                        break;
                case ARG_PATTERN:
                        arg.pattern = optarg;
                        break;
                case ARG_PROFILE:
                        if (optarg[0] == '\0')
                                return usage_error("--profile= takes a profile name.");
                        arg.profile = optarg;
                        break;
                case ARG_SETTING:
                        if (!strchr(optarg, '=') || optarg[0] == '=')
                                return usage_error("--setting= takes KEY=VALUE, not \"%s\".", esc(&e, optarg));
                        if (strv_extend(&arg.settings, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_UNSET:
                        if (strv_extend(&arg.unset, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_SYSTEM:
                        arg.system = true;
                        break;
                case ARG_FILE:
                        arg.edit_file = optarg;
                        break;
                case ARG_POSITION: {
                        unsigned u;

                        if (safe_atou(optarg, &u) < 0 || u > INT32_MAX)
                                return usage_error("--position= takes a rule's index in its file (0: the first), not "
                                                   "\"%s\".",
                                                esc(&e, optarg));
                        arg.position = (int) u;
                        break;
                }
                case ARG_DRY_RUN:
                        arg.dry_run = true;
                        break;
                case '?':
                        return usage_error("Unknown option, or an option without its argument: \"%s\"; see "
                                           "nvprofilectl --help.",
                                        esc(&e, argv[optind - 1]));
                default:
                        assert_not_reached();
                }

        if (arg.bus_address && arg.session)
                return usage_error("--bus= and --user cannot be combined: --user means the session bus.");

        return 1;
}

void client_options_done(ClientOptions *o)
{
        assert(o);

        strv_free(o->argv_facts);
        strv_free(o->dsos);
        strv_free(o->env);
        strv_free(o->exe_dir_files);
        strv_free(o->rules_dirs);
        strv_free(o->rule_ids);
        strv_free(o->actions);
        strv_free(o->metrics);
        strv_free(o->procnames);
        strv_free(o->commnames);
        strv_free(o->cmdlines);
        strv_free(o->findfiles);
        strv_free(o->settings);
        strv_free(o->unset);
        *o = (ClientOptions) CLIENT_OPTIONS_INIT;
}

typedef enum VerbFlags {
        VERB_RESOLVE_OPTIONS = 1 << 0, /* takes --exe, --argv, --comm, --dso, --env, --exe-dir-file */
        VERB_HOME_OPTION = 1 << 1, /* takes --home */
        VERB_INTERVAL_OPTION = 1 << 2, /* takes --interval */
        VERB_LOCAL_OPTION = 1 << 3, /* takes --local */
        VERB_REPORT_OPTIONS = 1 << 4, /* takes --rules-dir, --rule, --all-sections, --action */
        VERB_TOP_OPTIONS = 1 << 5, /* takes --once and --sort */
        VERB_SECTIONS_OPTIONS = 1 << 6, /* takes --arch, --scope, --schema */
        VERB_EDIT_OPTIONS = 1 << 7, /* takes the pattern, profile and file options of edits, --dso among them */
} VerbFlags;

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args; /* after the verb */
        VerbFlags flags;
        int (*run)(int argc, char *argv[]);
} Verb;

static const Verb verbs[] = {
        { "status", 0, 0, 0, verb_status },
        { "processes", 0, 0, 0, verb_processes },
        { "explain", 1, 1, 0, verb_explain },
        { "resolve", 0, 0, VERB_RESOLVE_OPTIONS | VERB_HOME_OPTION, verb_resolve },
        { "rules", 0, 2, VERB_HOME_OPTION | VERB_EDIT_OPTIONS, verb_rules },
        { "profiles", 0, 2, VERB_HOME_OPTION | VERB_EDIT_OPTIONS, verb_profiles },
        { "errors", 0, 0, 0, verb_errors },
        { "check", 0, UINT_MAX, 0, verb_check },
        { "settings", 0, 1, 0, verb_settings },
        { "monitor", 0, 0, 0, verb_monitor },
        { "reload", 0, 0, 0, verb_reload },
        { "version", 0, 0, 0, verb_version },
        { "fdinfo", 1, UINT_MAX, VERB_INTERVAL_OPTION, verb_fdinfo },
        { "report", 2, 3, VERB_LOCAL_OPTION | VERB_REPORT_OPTIONS, verb_report },
        { "top", 0, 0, VERB_INTERVAL_OPTION | VERB_TOP_OPTIONS, verb_top },
        { "sections", 1, UINT_MAX, VERB_SECTIONS_OPTIONS, verb_sections },
};

static bool page_options_given(void)
{
        return arg.csv || arg.print_units >= 0 || arg.print_details >= 0 || arg.print_metric_instances >= 0 ||
                        arg.print_summary >= 0;
}

static bool resolve_options_given(VerbFlags flags)
{
        /* --dso is also a pattern feature of rule edits. */
        return arg.exe || arg.comm || arg.argv_facts || (arg.dsos && !(flags & VERB_EDIT_OPTIONS)) || arg.env ||
                        arg.exe_dir_files;
}

static bool edit_options_given(void)
{
        return arg.procnames || arg.commnames || arg.cmdlines || arg.findfiles || arg.match_true || arg.match_or ||
                        arg.match_not || arg.pattern || arg.profile || arg.settings || arg.unset || arg.system ||
                        arg.edit_file || arg.position >= 0 || arg.dry_run;
}

int dispatch_verb(int argc, char *argv[])
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        unsigned n_args;
        int r;

        if (argc < 1) {
                (void) usage_error("Missing verb; see nvprofilectl --help.");
                return EXIT_USAGE;
        }
        n_args = (unsigned) argc - 1;

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const Verb *v = &verbs[i];

                if (!streq(v->name, argv[0]))
                        continue;

                if (n_args < v->min_args || n_args > v->max_args) {
                        if (v->max_args == 0)
                                (void) usage_error("%s takes no arguments, got \"%s\".", v->name, esc(&e, argv[1]));
                        else if (v->min_args == v->max_args)
                                (void) usage_error("%s takes exactly %u argument%s, got %u.", v->name, v->min_args,
                                                v->min_args == 1 ? "" : "s", n_args);
                        else
                                (void) usage_error("%s takes at least %u arguments, got %u.", v->name, v->min_args,
                                                n_args);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_EDIT_OPTIONS) && edit_options_given()) {
                        (void) usage_error("--procname, --commname, --cmdline, --findfile, --true, --or, --not, "
                                           "--pattern, --profile, --setting, --unset, --system, --file, --position "
                                           "and --dry-run are options of rules and profiles edits, not of %s.",
                                        v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_RESOLVE_OPTIONS) && resolve_options_given(v->flags)) {
                        (void) usage_error("--exe, --argv, --comm, --dso, --env and --exe-dir-file are options of "
                                           "resolve, not of %s.",
                                        v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_HOME_OPTION) && arg.home) {
                        (void) usage_error("--home is an option of resolve, rules and profiles, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_REPORT_OPTIONS) &&
                                (arg.rules_dirs || arg.rule_ids || arg.all_sections || arg.actions)) {
                        (void) usage_error("--rules-dir, --rule, --all-sections and --action are options of "
                                           "report, not of %s.",
                                        v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_REPORT_OPTIONS) && (arg.fail_above || arg.metrics || arg.junit)) {
                        (void) usage_error("--fail-above, --metric and --junit are options of report diff, not of %s.",
                                        v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_INTERVAL_OPTION) && arg.interval_usec > 0) {
                        (void) usage_error("--interval is an option of fdinfo and top, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_TOP_OPTIONS) && (arg.once || arg.top_sort >= 0 || arg.top_group >= 0)) {
                        (void) usage_error("--once, --sort and --group are options of top, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_LOCAL_OPTION) && arg.local) {
                        (void) usage_error("--local is an option of report, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_SECTIONS_OPTIONS) && (arg.arch || arg.scope || arg.schema)) {
                        (void) usage_error("--arch, --scope and --schema are options of sections, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_LOCAL_OPTION) && (page_options_given() || arg.output)) {
                        (void) usage_error("--csv, --print-*, --output are options of report, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                if (!(v->flags & VERB_SECTIONS_OPTIONS) && (arg.arch || arg.scope || arg.schema)) {
                        (void) usage_error("--arch, --scope and --schema are options of sections, not of %s.", v->name);
                        return EXIT_USAGE;
                }
                r = v->run(argc, argv);
                return r < 0 ? EXIT_FAILURE : r;
        }

        (void) usage_error("Unknown verb \"%s\"; see nvprofilectl --help.", esc(&e, argv[0]));
        return EXIT_USAGE;
}

int client_run(int argc, char *argv[])
{
        int r;

        r = parse_argv(argc, argv);
        if (r <= 0) {
                client_options_done(&arg);
                return r == 0 ? EXIT_SUCCESS : r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
        }

        r = dispatch_verb(argc - optind, argv + optind);
        client_options_done(&arg);
        return r;
}
