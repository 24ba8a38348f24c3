/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "client.h"
#include "usage-history.h"

/* nvprofilectl top: the daemon's usage API (the Usage interface) read into JSON (verb-top-data.c), laid
 * out as lines for a terminal of a given size (verb-top-frame.c, with each device's sensors in
 * verb-top-sensors.c and its history line from verb-top-history.c), and shown refreshing with ncurses or
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
 * exact; each device has its "sensors" (ListGpuSensors: sensor, label, unit, value; [] when none). */
int top_read(sd_bus *bus, TopGroup group, struct json_object **ret);

/* Prints a reading as the "top" --json document: -1 and "" (not known) as null, "groups" null when not
 * grouped. */
int top_print_document(struct json_object *reading);

/* The Usage.WatchUsage descriptor (the daemon samples at interval while it is open), or negative:
 * -ENOTCONN when the service cannot be asked at all (its state is logged), another error when only the
 * watch was refused. */
int top_watch(sd_bus *bus, uint64_t interval_usec, int *ret_fd);

/* What top saw of each device's busiest engine since it started (the history line), one
 * client/usage-history.h history per device. */
typedef struct TopHistoryDevice {
        char *source, *device;
        UsageHistory history;
} TopHistoryDevice;

typedef struct TopHistory {
        TopHistoryDevice *devices;
        size_t n_devices;
} TopHistory;

/* The window the history line shows. */
#define TOP_HISTORY_WINDOW_USEC USAGE_HISTORY_WINDOW_1MIN_USEC

void top_history_done(TopHistory *h);
/* Adds each device's busiest engine of reading (not known: a gap) at now_usec (CLOCK_MONOTONIC). -ENOMEM. */
int top_history_push(TopHistory *h, struct json_object *reading, uint64_t now_usec);
/* The history of a device, NULL when it has none. */
const UsageHistory *top_history_find(const TopHistory *h, const char *source, const char *device);

/* A device's sensors on one line, for a terminal: "edge 45°C  junction 52°C  PPT 120/255 W  sclk 2100 MHz
 * ..." (labels escaped), or "" when it has none. The caller frees it; NULL on ENOMEM. */
char *top_sensors_line(struct json_object *device);

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
 * which does not list the keys), with a row per process or, when grouped, per group and device; each
 * device with its sensors and, when history is given, its history line over the last minute to now_usec. */
int top_frame_build(TopFrame *f, struct json_object *reading, const TopHistory *history, uint64_t now_usec,
                TopSort sort, TopGroup group, uint64_t interval_usec, int width, int height);

/* The terminal columns text takes, for escaped (printable) UTF-8 text. */
size_t top_text_width(const char *s);
