/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report rules FILE": applies Nsight Compute rule files to a report. Rule files are arbitrary Python, so
 * they run here, in a child process of the calling user (python3 -m nvprofiled.rules, the runner of the
 * nvprofiled Python package), never in the daemon. Exit status: the runner's (0 fine, 1 a rule file or
 * the report could not be read, 2 usage). */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "log.h"
#include "strv.h"
#include "verb-report-python.h"

/* Runs python3 -m MODULE with args, with our package findable (PYTHONPATH keeps what the caller set first,
 * so a build tree's package wins over the installed one); returns its exit status. */
int report_python_run(const char *module, char **args)
{
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *path = NULL;
        int r;
        const char *python = getenv("NVPROFILED_PYTHON");
        const char *old = getenv("PYTHONPATH");
        int status;
        pid_t pid;

        assert(module);

        if (!python || python[0] == '\0')
                python = NVPROFILED_PYTHON;
        if (strv_extend(&argv, python) < 0 || strv_extend(&argv, "-m") < 0 || strv_extend(&argv, module) < 0)
                return log_oom();
        STRV_FOREACH(a, args)
                if (strv_extend(&argv, *a) < 0)
                        return log_oom();
        if (old && old[0] != '\0')
                r = asprintf(&path, "%s:%s", old, NVPROFILED_PYTHON_DIR);
        else
                r = asprintf(&path, "%s", NVPROFILED_PYTHON_DIR);
        if (r < 0)
                return log_oom();

        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0)
                return log_error_errno(errno, "Failed to start %s", python);
        if (pid == 0) {
                if (setenv("PYTHONPATH", path, 1) < 0)
                        _exit(EXIT_FAILURE);
                execv(python, argv);
                log_error_errno(errno, "Failed to run %s", python);
                _exit(EXIT_FAILURE);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return log_error_errno(errno, "Failed to wait for %s", python);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)
                return EXIT_FAILURE; /* the reader went away (| head): nothing to say */
        if (WIFSIGNALED(status)) {
                log_error("%s -m %s was killed by signal %d.", python, module, WTERMSIG(status));
                return EXIT_FAILURE;
        }
        return WEXITSTATUS(status);
}

int report_rules(const char *path)
{
        return verb_report_rules(2, (char *[]){ (char *) "rules", (char *) path, NULL });
}

int verb_report_rules(int argc, char *argv[])
{
        _cleanup_strv_free_ char **args = NULL;

        /* argv: "rules" FILE */
        if (argc != 2) {
                log_error("report rules takes exactly one report file.");
                return EXIT_USAGE;
        }
        STRV_FOREACH(d, arg.rules_dirs)
                if (strv_extend(&args, "--rules-dir") < 0 || strv_extend(&args, *d) < 0)
                        return log_oom();
        STRV_FOREACH(r, arg.rule_ids)
                if (strv_extend(&args, "--rule") < 0 || strv_extend(&args, *r) < 0)
                        return log_oom();
        if (arg.all_sections && strv_extend(&args, "--all-sections") < 0)
                return log_oom();
        if (arg.json != JSON_OFF && strv_extend(&args, arg.json == JSON_SHORT ? "--json=short" : "--json=pretty") < 0)
                return log_oom();
        /* The file last, after "--": a name starting with '-' is a file, not an option. */
        if (strv_extend(&args, "--") < 0 || strv_extend(&args, argv[1]) < 0)
                return log_oom();
        return report_python_run("nvprofiled.rules", args);
}
