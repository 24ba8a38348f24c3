/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled: the daemon's entry point. Options and the config file, the event loop, signals,
 * readiness and watchdog; everything else lives in daemon/manager and daemon/bus. */

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "manager.h"
#include "string-util.h"
#include "strv.h"

/* sysconfdir/nvprofiled/nvprofiled.conf of the build (top-level meson.build), where the install puts it. */
#define DEFAULT_CONFIG_FILE NVPROFILED_CONFIG_FILE

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

static BusKind arg_bus = BUS_KIND_SYSTEM;
static const char *arg_bus_address;
static const char *arg_root = "/";
static const char *arg_proc = "/proc";
static const char *arg_sys = "/sys";
static const char *arg_config;
static const char *arg_state_directory;
static int arg_log_level = -1;
static LogTarget arg_log_target = LOG_TARGET_AUTO;

static void help(void)
{
        printf("Usage: nvprofiled [OPTIONS...]\n"
               "\n"
               "Watches NVIDIA application-profile rc files and every process that starts, and says\n"
               "over D-Bus which profile rules match each process, which settings take effect and why.\n"
               "\n"
               "Options:\n"
               "  -h --help              Show this help and exit\n"
               "     --version          Show the version and exit\n"
               "     --bus=BUS          Bus to serve on: \"system\" (default), \"session\", or a D-Bus\n"
               "                        address such as unix:path=/run/test.sock\n"
               "     --root=DIR         Directory that configuration paths (/etc, /usr/share, homes)\n"
               "                        are resolved under (default: /)\n"
               "     --proc=DIR         Where /proc is read (default: /proc); anything but the live\n"
               "                        /proc is polled, since process events carry live pids\n"
               "     --sys=DIR          Where /sys is read (default: /sys)\n"
               "     --config=FILE      Daemon configuration (default: " DEFAULT_CONFIG_FILE ",\n"
               "                        optional); see nvprofiled.conf for every setting\n"
               "     --state-directory=DIR\n"
               "                        Where what is kept across restarts lives (the names of\n"
               "                        processes seen; default: $STATE_DIRECTORY, else none:\n"
               "                        nothing is kept)\n"
               "     --log-level=LEVEL  emerg, alert, crit, err, warning, notice, info, debug\n"
               "     --log-target=TARGET\n"
               "                        console, journal, null, or auto (default: the journal when\n"
               "                        stderr is connected to it, else the console)\n"
               "\n"
               "Signals: SIGHUP re-reads the configuration file and the rc files; SIGTERM and SIGINT\n"
               "stop the daemon.\n"
               "Exit status: 0 on a clean stop, 1 on failure, 2 on a usage error.\n"
               "\n"
               "Bus name io.github.nvprofiled.NvProfiled1, object /io/github/nvprofiled/NvProfiled1;\n"
               "the interface is documented in io.github.nvprofiled.NvProfiled1.xml. Query it with\n"
               "nvprofilectl(1).\n");
}

/* Returns 1 to go on, 0 to exit successfully, -EINVAL on a usage error. */
static int parse_argv(int argc, char *argv[])
{
        enum {
                ARG_VERSION = 0x100,
                ARG_BUS,
                ARG_ROOT,
                ARG_PROC,
                ARG_SYS,
                ARG_CONFIG,
                ARG_STATE_DIRECTORY,
                ARG_LOG_LEVEL,
                ARG_LOG_TARGET,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "bus", required_argument, NULL, ARG_BUS },
                { "root", required_argument, NULL, ARG_ROOT },
                { "proc", required_argument, NULL, ARG_PROC },
                { "sys", required_argument, NULL, ARG_SYS },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "state-directory", required_argument, NULL, ARG_STATE_DIRECTORY },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { 0 },
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("nvprofiled %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_BUS:
                        if (streq(optarg, "system"))
                                arg_bus = BUS_KIND_SYSTEM;
                        else if (streq(optarg, "session"))
                                arg_bus = BUS_KIND_SESSION;
                        else if (strchr(optarg, ':')) {
                                arg_bus = BUS_KIND_ADDRESS;
                                arg_bus_address = optarg;
                        } else {
                                log_error("--bus= takes system, session or a D-Bus address, not '%s'.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_ROOT:
                        arg_root = optarg;
                        break;
                case ARG_PROC:
                        arg_proc = optarg;
                        break;
                case ARG_SYS:
                        arg_sys = optarg;
                        break;
                case ARG_CONFIG:
                        arg_config = optarg;
                        break;
                case ARG_STATE_DIRECTORY:
                        arg_state_directory = optarg;
                        break;
                case ARG_LOG_LEVEL:
                        arg_log_level = log_level_from_string(optarg);
                        if (arg_log_level < 0) {
                                log_error("Unknown log level '%s'.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_LOG_TARGET:
                        arg_log_target = log_target_from_string(optarg);
                        if (arg_log_target < 0) {
                                log_error("Unknown log target '%s'.", optarg);
                                return -EINVAL;
                        }
                        break;
                case '?':
                        return -EINVAL;
                default:
                        assert_not_reached();
                }

        if (optind < argc) {
                log_error("Unexpected argument '%s'; see --help.", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static int load_config_file(ManagerConfig *c)
{
        _cleanup_strv_free_ char **messages = NULL;
        const char *path = arg_config ? arg_config : DEFAULT_CONFIG_FILE;
        int r;

        /* The default file is optional; a file named with --config= is not. */
        manager_config_done(c);
        r = manager_config_load_file(path, !arg_config, c, &messages);
        STRV_FOREACH(msg, messages)
                log_warning("%s", *msg);
        if (r < 0)
                return log_error_errno(r, "Cannot read %s", path);
        if (r > 0) {
                log_error("%s has %i errors.", path, r);
                return -EINVAL;
        }
        return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        log_info("SIGHUP: re-reading the configuration file and the rc files.");
        (void) sd_notify(false, "RELOADING=1");
        (void) manager_reload_configuration(m);
        (void) sd_notify(false, "READY=1");
        return 0;
}

static int setup_event_loop(sd_event **ret)
{
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&e);
        if (r < 0)
                return log_error_errno(r, "Failed to create the event loop");
        /* NULL handlers: SIGTERM/SIGINT end the loop. */
        r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGTERM");
        r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGINT");
        r = sd_event_set_watchdog(e, true);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the watchdog");
        *ret = TAKE_PTR(e);
        return 0;
}

/* Returns the exit status. */
/* --state-directory, else the unit's StateDirectory= (systemd's $STATE_DIRECTORY: the first of its
 * ':'-separated paths), else none. */
static int set_state_directory(Manager *m)
{
        _cleanup_free_ char *first = NULL;
        const char *dir = arg_state_directory;

        if (!dir) {
                const char *env = getenv("STATE_DIRECTORY");

                if (isempty(env))
                        return 0;
                first = strndup(env, strcspn(env, ":"));
                if (!first)
                        return log_oom();
                dir = first;
        }
        return manager_set_state_directory(m, dir);
}

static int run(int argc, char *argv[])
{
        _cleanup_(manager_config_done) ManagerConfig config = { 0 };
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        /* Freed in this order: the bus context first, then the manager it observes, then the loop. */
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(bus_context_freep) BusContext *bus = NULL;
        int r;

        log_setup("nvprofiled", LOG_TARGET_AUTO);
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r == 0 ? EXIT_SUCCESS : 2;
        if (arg_log_level >= 0)
                log_set_max_level(arg_log_level);
        log_set_target(arg_log_target);

        r = load_config_file(&config);
        if (r < 0)
                return EXIT_FAILURE;

        r = setup_event_loop(&e);
        if (r < 0)
                return EXIT_FAILURE;

        r = manager_new(e, &config, arg_proc, arg_sys, arg_root, &m);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_set_config_file(m, arg_config ? arg_config : DEFAULT_CONFIG_FILE, !arg_config);
        if (r < 0) {
                log_oom();
                return EXIT_FAILURE;
        }
        r = set_state_directory(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = sd_event_add_signal(e, NULL, SIGHUP, on_sighup, m);
        if (r < 0) {
                log_error_errno(r, "Failed to watch SIGHUP");
                return EXIT_FAILURE;
        }

        r = bus_context_new(m, arg_bus, arg_bus_address, &bus);
        if (r < 0)
                return EXIT_FAILURE;
        /* Watching (rc files, device nodes, the proc connector) before the name: once a client sees the
         * name, nothing it starts can slip past us. The name before any process is looked at: a second
         * instance stops here, before it logs or signals anything about processes. Calls that arrive
         * meanwhile wait in the socket until the loop runs, after the first scan, so they still get
         * complete answers. */
        r = manager_start_watching(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = bus_context_request_name(bus);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_scan(m);
        if (r < 0)
                return EXIT_FAILURE;

        log_info("nvprofiled %s ready: %u processes tracked (%s).", PACKAGE_VERSION, (unsigned) manager_n_processes(m),
                        manager_watch_mode(m));
        (void) sd_notifyf(false, "READY=1\nSTATUS=Watching %u processes (%s).", (unsigned) manager_n_processes(m),
                        manager_watch_mode(m));

        r = sd_event_loop(e);
        (void) sd_notify(false, "STOPPING=1");
        if (r < 0) {
                log_error_errno(r, "Event loop failed");
                return EXIT_FAILURE;
        }
        log_info("Stopping.");
        return EXIT_SUCCESS;
}

int main(int argc, char *argv[])
{
        return run(argc, argv);
}
