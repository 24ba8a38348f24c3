/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "client.h"

/* nvprofilectl top: the daemon's usage API (the Usage interface) read into JSON (verb-top-data.c), laid
 * out as lines for a terminal of a given size (verb-top-frame.c), and shown refreshing with ncurses or
 * once as plain text (verb-top.c). */

typedef enum TopSort {
        TOP_SORT_GPU, /* busiest engine, highest first */
        TOP_SORT_MEMORY, /* highest first */
        TOP_SORT_PID,
        TOP_SORT_COMMAND,
        TOP_SORT_PROFILE,
        _TOP_SORT_MAX,
} TopSort;

const char *top_sort_to_string(TopSort s) _const_;
/* From a name ("gpu", "memory", "pid", "command", "profile") or -EINVAL. */
int top_sort_from_string(const char *s);
/* From a key pressed in the view ('g', 'm', 'p', 'c', 'r') or -EINVAL. */
int top_sort_from_key(int key);

/* What the table's rows are: a process each, or the daemon's totals per application or user
 * (ListGpuGroups). */
typedef enum TopGroup {
        TOP_GROUP_PROCESS,
        TOP_GROUP_APPLICATION,
        TOP_GROUP_USER,
        _TOP_GROUP_MAX,
} TopGroup;

/* ListGpuGroups' name of a grouping ("application", "user"; NULL for processes). */
const char *top_group_to_string(TopGroup g) _const_;
/* From a name ("process", "application", "user") or -EINVAL. */
int top_group_from_string(const char *s);
/* The grouping a key pressed in the view gives ('a': by application, 'u': by user; the same key again:
 * back to processes), or -EINVAL for another key. */
int top_group_from_key(TopGroup current, int key);

/* One reading of the daemon: {"devices": [...], "processes": [...]} and, when grouped, "groups": [...]
 * (ListGpuGroups: key, processes, engines, memory), members named as in the XML contract, strings
 * exact. */
int top_read(sd_bus *bus, TopGroup group, struct json_object **ret);

/* Prints a reading as the "top" --json document: -1 and "" (not known) as null, "groups" null when not
 * grouped. */
int top_print_document(struct json_object *reading);

/* The Usage.WatchUsage descriptor (the daemon samples at interval while it is open), or negative. */
int top_watch(sd_bus *bus, uint64_t interval_usec, int *ret_fd);

typedef struct TopLine {
        char *text; /* escaped, at most width columns */
        int bar_start, bar_len; /* columns of the filled part of a bar, or bar_len 0 */
        bool heading;
} TopLine;

typedef struct TopFrame {
        TopLine *lines;
        size_t n_lines, allocated;
} TopFrame;

void top_frame_done(TopFrame *f);

/* Lays out a reading for width columns and at most height lines (0: as many as needed, for plain output,
 * which does not list the keys), with a row per process or, when grouped, per group and device. */
int top_frame_build(TopFrame *f, struct json_object *reading, TopSort sort, TopGroup group, uint64_t interval_usec,
                int width, int height);

/* The terminal columns text takes, for escaped (printable) UTF-8 text. */
size_t top_text_width(const char *s);
