/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <getopt.h>
#include <stdio.h>

#include "client.h"
#include "strv.h"

ClientOptions arg = { .legend = true };

static void help(void)
{
        printf("Usage: nvprofilectl [OPTIONS...] VERB [ARGS...]\n"
               "\n"
               "Ask nvprofiled which NVIDIA application-profile rules match running processes, which\n"
               "settings take effect, and why.\n"
               "\n"
               "Verbs:\n"
               "  status                 Daemon version, driver, process watching, rc files\n"
               "  processes              Processes a rule matched (--all: every tracked process):\n"
               "                         PID, user, executable, profiles, number of settings\n"
               "  explain PID            The full resolution of a process: the facts matched against,\n"
               "                         every matched rule (--all: every rule) with file:line:column,\n"
               "                         each effective setting with the rule that set it, the rules it\n"
               "                         shadowed, and whether an environment variable overrides it\n"
               "  resolve OPTIONS        The same for a process that does not exist (yet):\n"
               "                         --exe PATH --argv ARG... --comm NAME --dso NAME...\n"
               "                         --env NAME=VALUE... --home DIR --exe-dir-file NAME...\n"
               "  rules                  Every rule in precedence order (--home DIR adds that user's files)\n"
               "  profiles               Every profile definition in effect (--home DIR likewise)\n"
               "  errors                 Problems in the rc files the daemon reads (exit 1 if any is an error)\n"
               "  check [FILE...]        Lint rc files locally, without the daemon; files are read as one\n"
               "                         configuration in the order given; none: this machine's search path\n"
               "  monitor                Stream changes as they happen\n"
               "  reload                 Make the daemon re-read its rc files now (root)\n"
               "  version                Client and daemon versions\n"
               "\n"
               "Options:\n"
               "  -h --help              Show this help\n"
               "     --version          Show the client's version\n"
               "  -j                     Same as --json=pretty on a terminal, --json=short otherwise\n"
               "     --json=MODE        Print JSON: pretty, short, or off\n"
               "     --no-legend        Omit headers and footers\n"
               "  -a --all              Show all processes or rules, not just matched ones\n"
               "     --bus=ADDRESS      Talk to the daemon on this D-Bus address instead of the system bus\n"
               "     --user             Talk to the daemon on the session bus\n"
               "\n"
               "Exit status: 0 on success, 1 on failure (check, errors: when a file has errors), 2 on a usage\n"
               "error. A daemon that is not running is a failure with a message saying so.\n");
}

static const struct {
        const char *name;
        int (*run)(int argc, char *argv[]);
} verbs[] = {
        { "status", verb_status },
        { "processes", verb_processes },
        { "explain", verb_explain },
        { "resolve", verb_resolve },
        { "rules", verb_rules },
        { "profiles", verb_profiles },
        { "errors", verb_errors },
        { "check", verb_check },
        { "monitor", verb_monitor },
        { "reload", verb_reload },
        { "version", verb_version },
};

static int parse_json(const char *s)
{
        if (streq(s, "pretty"))
                arg.json = JSON_PRETTY;
        else if (streq(s, "short"))
                arg.json = JSON_SHORT;
        else if (streq(s, "off"))
                arg.json = JSON_OFF;
        else
                return -EINVAL;
        return 0;
}

/* Returns 1 to go on, 0 to exit successfully, -EINVAL on a usage error. */
static int parse_argv(int argc, char *argv[])
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
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json", required_argument, NULL, ARG_JSON },
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
                { 0 },
        };
        int c;

        while ((c = getopt_long(argc, argv, "hja", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("nvprofilectl %s\n", PACKAGE_VERSION);
                        return 0;
                case 'j':
                        arg.json = isatty(STDOUT_FILENO) ? JSON_PRETTY : JSON_SHORT;
                        break;
                case ARG_JSON:
                        if (parse_json(optarg) < 0) {
                                fprintf(stderr, "--json= takes pretty, short or off.\n");
                                return -EINVAL;
                        }
                        break;
                case ARG_NO_LEGEND:
                        arg.legend = false;
                        break;
                case 'a':
                        arg.all = true;
                        break;
                case ARG_BUS:
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
                        arg.home = optarg;
                        break;
                case ARG_ARGV:
                        if (strv_extend(&arg.argv_facts, optarg) < 0)
                                return -ENOMEM;
                        break;
                case ARG_DSO:
                        if (strv_extend(&arg.dsos, optarg) < 0)
                                return -ENOMEM;
                        break;
                case ARG_ENV:
                        if (!strchr(optarg, '=')) {
                                fprintf(stderr, "--env takes NAME=VALUE.\n");
                                return -EINVAL;
                        }
                        if (strv_extend(&arg.env, optarg) < 0)
                                return -ENOMEM;
                        break;
                case ARG_EXE_DIR_FILE:
                        if (strv_extend(&arg.exe_dir_files, optarg) < 0)
                                return -ENOMEM;
                        break;
                case '?':
                        return -EINVAL;
                default:
                        assert_not_reached();
                }
        return 1;
}

int main(int argc, char *argv[])
{
        int r;

        r = parse_argv(argc, argv);
        if (r <= 0)
                return r == 0 ? 0 : (r == -EINVAL ? EXIT_USAGE : 1);

        if (optind >= argc) {
                fprintf(stderr, "Missing verb; see nvprofilectl --help.\n");
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, argv[optind])) {
                        r = verbs[i].run(argc - optind, argv + optind);
                        strv_free(arg.argv_facts);
                        strv_free(arg.dsos);
                        strv_free(arg.env);
                        strv_free(arg.exe_dir_files);
                        return r;
                }
        fprintf(stderr, "Unknown verb '%s'; see nvprofilectl --help.\n", argv[optind]);
        return EXIT_USAGE;
}
