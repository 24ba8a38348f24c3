/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The report verbs that run nvprofiled's Python package (rule files are user code and run in the
 * caller's own process, never in the daemon). */

/* Runs module (nvprofiled.rules, nvprofiled.diff) of the package in an isolated python3 with options (a
 * NULL-terminated list, may be NULL), then the report files: each opened here with report_open() and
 * handed over as "--report-fd FD", their names after "--". Returns the runner's exit status, or a
 * negative errno when a report could not be opened or Python not started (having said why).
 * NVPROFILED_PYTHON in the environment overrides the interpreter, NVPROFILED_PYTHON_DIR the folder the
 * package is imported from (a build tree's client/python). */
int report_python_run(const char *module, char **options, char **reports);

/* "report rules FILE" (argv[0] is "rules"), and as a subverb of verb-report.c. */
int verb_report_rules(int argc, char *argv[]);
int report_rules(const char *path);

/* "report diff BASELINE FILE" (argv[0] is "diff"). */
int verb_report_diff(int argc, char *argv[]);
