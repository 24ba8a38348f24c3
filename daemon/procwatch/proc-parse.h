/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "macro.h"

/* Parsers for the text the kernel writes under /proc/<pid>/. Pure functions over buffers, so the fuzz
 * target and the unit tests feed them directly. */

/* /proc/<pid>/stat: the comm field may hold spaces and ')', so fields are counted after the LAST ')'.
 * Returns the start time (field 22, clock ticks since boot) and the parent pid (field 4). */
int proc_parse_stat(const char *text, size_t size, uint64_t *ret_start_time, pid_t *ret_ppid);

/* The same file's comm (between the first '(' and the last ')', as /proc/<pid>/comm shows it: up to the
 * first newline) and state (field 3). comm_size: at least 16 (TASK_COMM_LEN); a longer name is cut. */
int proc_parse_stat_comm(const char *text, size_t size, char *comm, size_t comm_size, char *ret_state);

/* /proc/<pid>/status: the real uid from the "Uid:" line. */
int proc_parse_status_uid(const char *text, size_t size, uid_t *ret_uid);

/* /proc/<pid>/maps: the distinct paths of file-backed mappings, in first-seen order, " (deleted)"
 * stripped; at most max entries (the rest are dropped: -E2BIG is not returned, *ret_truncated says so). */
int proc_parse_maps(const char *text, size_t size, size_t max, char ***ret_paths, bool *ret_truncated);

/* /proc/<pid>/environ: only what resolution needs (HOME and the __GL_* variables), at most max of them. */
int proc_parse_environ(const char *buf, size_t size, size_t max, char ***ret_env);
