/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report diff BASELINE FILE": every metric two reports' paired actions both have, with the change, grouped
 * by section like ncu's baseline view. Runs python3 -m nvprofiled.diff in a child process of the caller:
 * the comparison is written once, over the same ncu_report model the Python interface and the rule runner
 * use (units, sections and pairing in one place), and reading two user files needs no privilege. */

#include <stdlib.h>

#include "client.h"
#include "log.h"
#include "strv.h"
#include "verb-report-python.h"

int verb_report_diff(int argc, char *argv[])
{
        _cleanup_strv_free_ char **args = NULL;

        /* argv: "diff" BASELINE FILE */
        if (argc != 3) {
                log_error("report diff takes a baseline report and a report to compare.");
                return EXIT_USAGE;
        }
        STRV_FOREACH(a, arg.actions)
                if (strv_extend(&args, "--action") < 0 || strv_extend(&args, *a) < 0)
                        return log_oom();
        if (arg.json != JSON_OFF && strv_extend(&args, arg.json == JSON_SHORT ? "--json=short" : "--json=pretty") < 0)
                return log_oom();
        if (strv_extend(&args, "--") < 0 || strv_extend(&args, argv[1]) < 0 || strv_extend(&args, argv[2]) < 0)
                return log_oom();
        return report_python_run("nvprofiled.diff", args);
}
