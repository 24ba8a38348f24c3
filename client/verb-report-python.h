/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The report verbs that run nvprofiled's Python package (rule files are user code and run in the
 * caller's own process, never in the daemon). */

/* Runs python3 -m module with args (a NULL-terminated list, may be NULL) and returns its exit status,
 * or a negative errno when it could not be started (having said why). NVPROFILED_PYTHON in the
 * environment overrides the interpreter. */
int report_python_run(const char *module, char **args);

/* "report rules FILE" (argv[0] is "rules"), and as a subverb of verb-report.c. */
int verb_report_rules(int argc, char *argv[]);
int report_rules(const char *path);

/* "report diff BASELINE FILE" (argv[0] is "diff"). */
int verb_report_diff(int argc, char *argv[]);
