/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The child process that runs nvprofiled's Python package for "report rules" and "report diff".
 *
 * Root may run these on another user's report, from another user's directory: nothing but the rule files
 * the caller names may become code. "python3 -m" would put the working directory first on sys.path and
 * honour PYTHONPATH, PYTHONSTARTUP and the user's site-packages, so a "json.py" or an "nvprofiled/"
 * beside the report would run as the caller. Instead Python starts isolated (-I: no PYTHON* variables, no
 * user site-packages, neither the working directory nor a script's folder on sys.path) and without its
 * site set-up (-S) until our package's folder is on sys.path: after the standard library (which nothing
 * shadows) and before site-packages (so a build tree's package wins over an installed one). -B: no
 * bytecode caches are written, since a rule folder may be another user's. The reports are opened here,
 * with report_open() (a regular file, never anything else), and handed over as descriptors. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "log.h"
#include "strv.h"
#include "verb-report-python.h"
#include "verb-report.h"

#define REPORT_PYTHON_FILES_MAX 2

/* argv after -c: the package's folder, the module, then the module's own arguments. */
#define PYTHON_BOOTSTRAP                     \
        "import sys\n"                       \
        "sys.path.append(sys.argv.pop(1))\n" \
        "import site\n"                      \
        "site.main()\n"                      \
        "import runpy\n"                     \
        "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)\n"

typedef struct ReportFds {
        int fds[REPORT_PYTHON_FILES_MAX];
        size_t n;
} ReportFds;

static void report_fds_done(ReportFds *f)
{
        for (size_t i = 0; i < f->n; i++)
                f->fds[i] = safe_close(f->fds[i]);
        f->n = 0;
}

static const char *env_or(const char *name, const char *fallback)
{
        const char *v = getenv(name);

        return v && v[0] != '\0' ? v : fallback;
}

int report_python_run(const char *module, char **options, char **reports)
{
        _cleanup_(report_fds_done) ReportFds f = { 0 };
        _cleanup_strv_free_ char **argv = NULL;
        const char *python = env_or("NVPROFILED_PYTHON", NVPROFILED_PYTHON);
        const char *package_dir = env_or("NVPROFILED_PYTHON_DIR", NVPROFILED_PYTHON_DIR);
        int status, r;
        pid_t pid;

        assert(module);
        assert(strv_length(reports) <= REPORT_PYTHON_FILES_MAX);

        /* A relative entry of sys.path would be taken relative to the working directory again. */
        if (package_dir[0] != '/') {
                log_error("NVPROFILED_PYTHON_DIR must be an absolute path.");
                return -EINVAL;
        }

        STRV_FOREACH(p, reports) {
                r = report_open(*p, &f.fds[f.n]);
                if (r < 0)
                        return r;
                f.n++;
        }

        if (strv_extend(&argv, python) < 0 || strv_extend(&argv, "-I") < 0 || strv_extend(&argv, "-S") < 0 ||
                        strv_extend(&argv, "-B") < 0 || strv_extend(&argv, "-c") < 0 ||
                        strv_extend(&argv, PYTHON_BOOTSTRAP) < 0 || strv_extend(&argv, package_dir) < 0 ||
                        strv_extend(&argv, module) < 0)
                return log_oom();
        STRV_FOREACH(o, options)
                if (strv_extend(&argv, *o) < 0)
                        return log_oom();
        for (size_t i = 0; i < f.n; i++) {
                char number[16];

                snprintf(number, sizeof(number), "%i", f.fds[i]);
                if (strv_extend(&argv, "--report-fd") < 0 || strv_extend(&argv, number) < 0)
                        return log_oom();
        }
        /* The names last, after "--": a name starting with '-' is a file, not an option. They are only
         * for messages: the runner reads the descriptors. */
        if (strv_extend(&argv, "--") < 0)
                return log_oom();
        STRV_FOREACH(p, reports)
                if (strv_extend(&argv, *p) < 0)
                        return log_oom();

        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0)
                return log_error_errno(errno, "Failed to start %s", python);
        if (pid == 0) {
                for (size_t i = 0; i < f.n; i++)
                        if (fcntl(f.fds[i], F_SETFD, 0) < 0)
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
                log_error("%s (%s) was killed by signal %d.", python, module, WTERMSIG(status));
                return EXIT_FAILURE;
        }
        return WEXITSTATUS(status);
}
