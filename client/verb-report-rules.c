/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report rules FILE": applies Nsight Compute rule files to a report. Rule files are arbitrary Python, so
 * they run here, in a child process of the calling user (nvprofiled.rules, the runner of the nvprofiled
 * Python package, started by verb-report-python.c), never in the daemon. Exit status: the runner's (0
 * fine, 1 a rule file or the report could not be read, 2 usage). */

#include "client.h"
#include "log.h"
#include "strv.h"
#include "verb-report-python.h"

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
        return report_python_run("nvprofiled.rules", args, (char *[]){ argv[1], NULL });
}
