/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runs nvprofilectl's command line ("nvprofilectl" FIRST ... NULL) in this process with stdout and stderr
 * captured (stdout is the TAP stream): the output in *ret_out, the errors in *ret_err when it is not NULL
 * (and in the test's log). Returns the exit status. */
int run_ctl(char **ret_out, char **ret_err, const char *first, ...);
