/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl top: the layout. One reading becomes lines for a terminal of a given size: a header, each
 * device with its memory, its sensors, the history line of its busiest engine and a bar per engine, then one row per
 * process and device (PID, user, device, busiest engine, memory, applied profile, application, command), or, grouped,
 * one row per application or user and device with the daemon's totals (ListGpuGroups), sorted. The same lines are drawn
 * by ncurses and printed by --once, so what the tests read in a pane is what this file decides. */

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <wchar.h>

#include "parse-util.h"
#include "string-util.h"
#include "verb-top.h"

#define NAME_COLUMNS 10 /* engine names in the device section */
#define WIDE_COLUMNS 80 /* from here on, the process table has USER and ENGINE columns */
#define APPLICATION_MIN_REST 35 /* columns left for PROFILE and COMMAND from which APPLICATION is shown too */
#define GROUP_KEY_COLUMNS_MAX 32 /* the APPLICATION or USER column of grouped rows */

static const char *const sort_names[_TOP_SORT_MAX] = {
        [TOP_SORT_GPU] = "gpu",
        [TOP_SORT_MEMORY] = "memory",
        [TOP_SORT_PID] = "pid",
        [TOP_SORT_COMMAND] = "command",
        [TOP_SORT_PROFILE] = "profile",
};

static const char sort_keys[_TOP_SORT_MAX] = {
        [TOP_SORT_GPU] = 'g',
        [TOP_SORT_MEMORY] = 'm',
        [TOP_SORT_PID] = 'p',
        [TOP_SORT_COMMAND] = 'c',
        [TOP_SORT_PROFILE] = 'r',
};

const char *top_sort_to_string(TopSort s)
{
        assert(s >= 0 && s < _TOP_SORT_MAX);
        return sort_names[s];
}

int top_sort_from_string(const char *s)
{
        for (TopSort i = 0; i < _TOP_SORT_MAX; i++)
                if (streq(s, sort_names[i]))
                        return (int) i;
        return -EINVAL;
}

int top_sort_from_key(int key)
{
        for (TopSort i = 0; i < _TOP_SORT_MAX; i++)
                if (key == sort_keys[i])
                        return (int) i;
        return -EINVAL;
}

static const char *const group_names[_TOP_GROUP_MAX] = {
        [TOP_GROUP_APPLICATION] = "application",
        [TOP_GROUP_USER] = "user",
};

static const char group_keys[_TOP_GROUP_MAX] = {
        [TOP_GROUP_APPLICATION] = 'a',
        [TOP_GROUP_USER] = 'u',
};

const char *top_group_to_string(TopGroup g)
{
        assert(g >= 0 && g < _TOP_GROUP_MAX);
        return group_names[g];
}

int top_group_from_string(const char *s)
{
        if (streq(s, "process"))
                return TOP_GROUP_PROCESS;
        for (TopGroup i = TOP_GROUP_APPLICATION; i < _TOP_GROUP_MAX; i++)
                if (streq(s, group_names[i]))
                        return (int) i;
        return -EINVAL;
}

int top_group_from_key(TopGroup current, int key)
{
        for (TopGroup i = TOP_GROUP_APPLICATION; i < _TOP_GROUP_MAX; i++)
                if (key == group_keys[i])
                        return (int) (i == current ? TOP_GROUP_PROCESS : i);
        return -EINVAL;
}

void top_frame_done(TopFrame *f)
{
        for (size_t i = 0; i < f->n_lines; i++)
                free(f->lines[i].text);
        free(f->lines);
        *f = (TopFrame){ 0 };
}

/* The columns of the character at s (len bytes available) and its length in bytes. Escaped text is
 * printable; in a locale without UTF-8, each byte is a column. */
static size_t char_columns(const char *s, size_t len, size_t *ret_bytes)
{
        mbstate_t state = { 0 };
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, len, &state);
        int w;

        if (n == 0 || n == (size_t) -1 || n == (size_t) -2) {
                *ret_bytes = 1;
                return 1;
        }
        *ret_bytes = n;
        w = wcwidth(wc);
        return w < 0 ? 1 : (size_t) w;
}

size_t top_text_width(const char *s)
{
        size_t width = 0, len = strlen(s);

        while (len > 0) {
                size_t n;

                width += char_columns(s, len, &n);
                s += n;
                len -= n;
        }
        return width;
}

/* s in exactly columns columns: cut (the last column then says so) or padded, on the left for numbers. */
static void put_cell(FILE *f, const char *s, size_t columns, bool right)
{
        size_t width = top_text_width(s), len = strlen(s), used = 0;

        if (width <= columns) {
                if (right)
                        fprintf(f, "%*s", (int) (columns - width), "");
                fputs(s, f);
                if (!right)
                        fprintf(f, "%*s", (int) (columns - width), "");
                return;
        }
        if (columns == 0)
                return;
        while (len > 0) {
                size_t n, w = char_columns(s, len, &n);

                if (used + w > columns - 1)
                        break;
                fwrite(s, 1, n, f);
                used += w;
                s += n;
                len -= n;
        }
        fprintf(f, "%*s~", (int) (columns - 1 - used), "");
}

static int add_line(TopFrame *frame, FILE **f, char **buf, int bar_start, int bar_len, bool heading)
{
        if (fclose(*f) != 0) {
                *f = NULL;
                return -ENOMEM;
        }
        *f = NULL;
        if (GREEDY_REALLOC(frame->lines, frame->allocated, frame->n_lines + 1) < 0)
                return -ENOMEM;
        frame->lines[frame->n_lines++] = (TopLine){
                .text = TAKE_PTR(*buf),
                .bar_start = bar_start,
                .bar_len = bar_len,
                .heading = heading,
        };
        return 0;
}

static void format_bytes(uint64_t bytes, char buf[static 16])
{
        static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
        double v = (double) bytes;
        size_t u = 0;

        if (bytes < 1024) {
                snprintf(buf, 16, "%" PRIu64 " B", bytes);
                return;
        }
        v /= 1024;
        while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024;
                u++;
        }
        snprintf(buf, 16, "%.1f %s", v, units[u]);
}

static const char *jstr(struct json_object *o, const char *key)
{
        const char *s = json_object_get_string(json_object_object_get(o, key));
        return s ? s : "";
}

static size_t jlen(struct json_object *o, const char *key)
{
        struct json_object *a = json_object_object_get(o, key);
        return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static struct json_object *jidx(struct json_object *o, const char *key, size_t i)
{
        return json_object_array_get_idx(json_object_object_get(o, key), i);
}

/* A region's figure for the device line: resident, else total. */
static bool region_bytes(struct json_object *region, uint64_t *ret)
{
        struct json_object *bytes = json_object_object_get(region, "bytes"), *v;

        if (json_object_object_get_ex(bytes, "resident", &v) || json_object_object_get_ex(bytes, "total", &v)) {
                *ret = json_object_get_uint64(v);
                return true;
        }
        return false;
}

typedef struct Row {
        struct json_object *process; /* or the group */
        const char *device;
        const char *engine; /* the busiest */
        double busy;
        uint64_t memory;
        const char *command; /* escaped */
        const char *profile; /* escaped */
        const char *application; /* escaped: the Flatpak or snap id, else the systemd unit, else "-" */
        uint32_t pid; /* 0 for a group */
        uint32_t n_processes; /* of a group */
} Row;

static TopSort row_sort;

static int row_compare(const void *a, const void *b)
{
        const Row *x = a, *y = b;
        int c = 0;

        switch (row_sort) {
        case TOP_SORT_GPU:
                c = x->busy > y->busy ? -1 : x->busy < y->busy ? 1 : 0;
                break;
        case TOP_SORT_MEMORY:
                c = x->memory > y->memory ? -1 : x->memory < y->memory ? 1 : 0;
                break;
        case TOP_SORT_PID:
                break;
        case TOP_SORT_COMMAND:
                c = strcmp(x->command, y->command);
                break;
        case TOP_SORT_PROFILE:
                /* Processes with a profile first. */
                c = (x->profile[0] == '-') - (y->profile[0] == '-');
                if (c == 0)
                        c = strcmp(x->profile, y->profile);
                break;
        case _TOP_SORT_MAX:
                assert_not_reached();
        }
        if (c == 0)
                c = x->pid < y->pid ? -1 : x->pid > y->pid ? 1 : 0;
        if (c == 0)
                c = strcmp(x->command, y->command); /* groups: by their key */
        if (c == 0)
                c = strcmp(x->device, y->device);
        return c;
}

static bool row_has_device(const Row *rows, size_t n, struct json_object *process, const char *device)
{
        for (size_t i = 0; i < n; i++)
                if (rows[i].process == process && streq(rows[i].device, device))
                        return true;
        return false;
}

/* What a group row shows for its key: the application ("-" when not known), or the user's name. */
static const char *group_label(struct json_object *g, TopGroup group, EscapePool *e)
{
        const char *key = jstr(g, "key");
        char buf[16];
        uint32_t uid;

        if (isempty(key))
                return "-";
        if (group == TOP_GROUP_USER && safe_atou32(key, &uid) >= 0)
                return esc(e, user_name(uid, buf));
        return esc(e, key);
}

/* The profiles applied to a process, joined, escaped; "-" when none. */
static int process_profiles(struct json_object *proc, EscapePool *e, const char **ret)
{
        _cleanup_free_ char *profiles = NULL;

        for (size_t k = 0; k < jlen(proc, "profiles"); k++) {
                const char *name = json_object_get_string(jidx(proc, "profiles", k));
                char *joined;

                if (asprintf(&joined, "%s%s%s", profiles ? profiles : "", profiles ? ", " : "", name ? name : "") < 0)
                        return -ENOMEM;
                free(profiles);
                profiles = joined;
        }
        *ret = profiles ? esc(e, profiles) : "-";
        return 0;
}

/* One row per process (or group) and device it uses, with that device's figures. */
static int build_rows(struct json_object *reading, TopGroup group, EscapePool *e, Row **ret, size_t *ret_n)
{
        const char *list = group == TOP_GROUP_PROCESS ? "processes" : "groups";
        _cleanup_free_ Row *rows = NULL;
        size_t n = 0, allocated = 0;

        for (size_t p = 0; p < jlen(reading, list); p++) {
                struct json_object *proc = jidx(reading, list, p);
                const char *profile, *command, *application;
                static const char *const lists[] = { "clients", "engines", "memory" };

                if (group == TOP_GROUP_PROCESS) {
                        if (process_profiles(proc, e, &profile) < 0)
                                return -ENOMEM;
                        command = esc(e, jstr(proc, "comm"));
                        application = !isempty(jstr(proc, "app"))      ? esc(e, jstr(proc, "app"))
                                        : !isempty(jstr(proc, "unit")) ? esc(e, jstr(proc, "unit"))
                                                                       : "-";
                } else
                        /* A group's label stands where the sorts by command and profile look. */
                        profile = command = application = group_label(proc, group, e);

                for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                        for (size_t i = 0; i < jlen(proc, lists[l]); i++) {
                                const char *device = jstr(jidx(proc, lists[l], i), "device");

                                if (row_has_device(rows, n, proc, device))
                                        continue;
                                if (GREEDY_REALLOC(rows, allocated, n + 1) < 0)
                                        return -ENOMEM;
                                rows[n++] = (Row){
                                        .process = proc,
                                        .device = device,
                                        .engine = "",
                                        .busy = -1,
                                        .command = command,
                                        .profile = profile,
                                        .application = application,
                                        .pid = (uint32_t) json_object_get_int64(json_object_object_get(proc, "pid")),
                                        .n_processes = (uint32_t) json_object_get_int64(
                                                        json_object_object_get(proc, "processes")),
                                };
                        }
        }

        for (size_t i = 0; i < n; i++) {
                Row *r = &rows[i];

                for (size_t k = 0; k < jlen(r->process, "engines"); k++) {
                        struct json_object *eng = jidx(r->process, "engines", k);
                        double busy = json_object_get_double(json_object_object_get(eng, "busy_percent"));

                        if (!streq(jstr(eng, "device"), r->device) || busy <= r->busy)
                                continue;
                        r->busy = busy;
                        r->engine = jstr(eng, "engine");
                }
                for (size_t k = 0; k < jlen(r->process, "memory"); k++) {
                        struct json_object *mem = jidx(r->process, "memory", k);

                        if (streq(jstr(mem, "device"), r->device))
                                r->memory += json_object_get_uint64(json_object_object_get(mem, "bytes"));
                }
        }
        *ret = TAKE_PTR(rows);
        *ret_n = n;
        return 0;
}

static const char *device_label(struct json_object *d)
{
        const char *slot = jstr(d, "pci_slot");
        return slot[0] ? slot : jstr(d, "device");
}

/* The label a process row shows for a device: what the device section shows for it. */
static const char *row_device_label(struct json_object *reading, const char *device)
{
        for (size_t i = 0; i < jlen(reading, "devices"); i++) {
                struct json_object *d = jidx(reading, "devices", i);

                if (streq(jstr(d, "device"), device))
                        return device_label(d);
        }
        return device;
}

/* "  sensors    edge 45°C  PPT 120/255 W  ...", when the device has sensors. */
static int build_sensors(TopFrame *frame, struct json_object *d, int width)
{
        _cleanup_free_ char *buf = NULL, *line = top_sensors_line(d), *text = NULL;
        size_t size = 0;
        FILE *f;

        if (!line)
                return -ENOMEM;
        if (isempty(line))
                return 0;
        if (asprintf(&text, "  %-*s %s", NAME_COLUMNS, "sensors", line) < 0)
                return -ENOMEM;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        put_cell(f, text, (size_t) width, false);
        return add_line(frame, &f, &buf, 0, 0, false);
}

/* "  history    [▁▂▅█▃  ] max  80.0%": the busiest engine over the last minute, one column per slice of
 * it (its highest value), blank where top has no sample. */
static int build_history(TopFrame *frame, const UsageHistory *h, uint64_t now_usec, int width)
{
        _cleanup_free_ double *columns = NULL;
        _cleanup_free_ char *blocks = NULL, *buf = NULL, *text = NULL;
        size_t size = 0, n = (size_t) MAX(width - 2 - NAME_COLUMNS - 1 - 2 - 7 - 4, 4);
        double current, peak;
        FILE *f;
        int r;

        columns = calloc(n, sizeof(double));
        blocks = malloc(3 * n + 1);
        if (!columns || !blocks)
                return -ENOMEM;
        usage_history_columns(h, now_usec, TOP_HISTORY_WINDOW_USEC, columns, n);
        usage_history_blocks(columns, n, 100, blocks);
        if (usage_history_stats(h, now_usec, TOP_HISTORY_WINDOW_USEC, &current, &peak))
                r = asprintf(&text, "  %-*s [%s] max %5.1f%%", NAME_COLUMNS, "history", blocks,
                                MIN(MAX(peak, 0.0), 100.0));
        else
                r = asprintf(&text, "  %-*s [%s] max     -", NAME_COLUMNS, "history", blocks);
        if (r < 0)
                return -ENOMEM;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        /* n + 26 columns, of which n block characters (three bytes each: counted as one column only in a
         * UTF-8 locale, so not measured here); clipped only on a terminal narrower than the smallest line. */
        if (n + 26 > (size_t) width)
                put_cell(f, text, (size_t) width, false);
        else
                fputs(text, f);
        return add_line(frame, &f, &buf, 0, 0, false);
}

static int build_device(TopFrame *frame, struct json_object *d, const TopHistory *history, uint64_t now_usec,
                EscapePool *e, int width)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r, bar;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fputs(esc(e, device_label(d)), f);
        if (jstr(d, "driver")[0])
                fprintf(f, "  %s", esc(e, jstr(d, "driver")));
        if (jstr(d, "name")[0])
                fprintf(f, "  %s", esc(e, jstr(d, "name")));
        fprintf(f, "  %s  %s  %" PRIi64 " client%s", esc(e, jstr(d, "source")), esc(e, jstr(d, "state")),
                        json_object_get_int64(json_object_object_get(d, "clients")),
                        json_object_get_int64(json_object_object_get(d, "clients")) == 1 ? "" : "s");
        for (size_t i = 0; i < jlen(d, "regions"); i++) {
                struct json_object *reg = jidx(d, "regions", i);
                char bytes[16];
                uint64_t v;

                if (!region_bytes(reg, &v))
                        continue;
                format_bytes(v, bytes);
                fprintf(f, "  %s %s", esc(e, jstr(reg, "name")), bytes);
        }
        {
                /* Clip the whole line to the width. */
                _cleanup_free_ char *line = NULL;

                if (fclose(f) != 0)
                        return -ENOMEM;
                line = TAKE_PTR(buf);
                f = open_memstream(&buf, &size);
                if (!f)
                        return -ENOMEM;
                put_cell(f, line, (size_t) width, false);
        }
        r = add_line(frame, &f, &buf, 0, 0, true);
        if (r < 0)
                return r;
        r = build_sensors(frame, d, width);
        if (r < 0)
                return r;
        if (history) {
                const UsageHistory *h = top_history_find(history, jstr(d, "source"), jstr(d, "device"));

                if (h) {
                        r = build_history(frame, h, now_usec, width);
                        if (r < 0)
                                return r;
                }
        }

        /* "  render     [||||||      ]  45.0%" */
        bar = MAX(width - 2 - NAME_COLUMNS - 1 - 2 - 7, 4);
        for (size_t i = 0; i < jlen(d, "engines"); i++) {
                struct json_object *eng = jidx(d, "engines", i);
                double busy = json_object_get_double(json_object_object_get(eng, "busy_percent"));
                int filled;

                busy = busy < 0 ? 0 : busy > 100 ? 100 : busy;
                filled = (int) (busy / 100 * bar + 0.5);
                f = open_memstream(&buf, &size);
                if (!f)
                        return -ENOMEM;
                fputs("  ", f);
                put_cell(f, esc(e, jstr(eng, "name")), NAME_COLUMNS, false);
                fputs(" [", f);
                for (int k = 0; k < bar; k++)
                        fputc(k < filled ? '|' : ' ', f);
                fprintf(f, "] %5.1f%%", busy);
                r = add_line(frame, &f, &buf, 2 + NAME_COLUMNS + 2, filled, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

int top_frame_build(TopFrame *frame, struct json_object *reading, const TopHistory *history, uint64_t now_usec,
                TopSort sort, TopGroup group, uint64_t interval_usec, int width, int height)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ Row *rows = NULL;
        size_t size = 0, n_rows = 0, shown;
        bool wide = width >= WIDE_COLUMNS;
        size_t rest, profile_cols, application_cols, command_cols, key_cols;
        bool grouped = group != TOP_GROUP_PROCESS;
        FILE *f;
        int r;

        assert(frame);
        assert(reading);

        /* The widest bar needs 256 columns: wider terminals get more room for commands only. */
        width = MAX(MIN(width, 256 + 22), 20);

        r = build_rows(reading, group, &e, &rows, &n_rows);
        if (r < 0)
                return r;
        row_sort = sort;
        qsort_safe(rows, n_rows, sizeof(Row), row_compare);

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        {
                _cleanup_free_ char *header = NULL;

                size_t n_devices = jlen(reading, "devices"), n_processes = jlen(reading, "processes");

                /* The keys only where they work: a screen (height > 0), not --once. */
                if (asprintf(&header,
                                    "nvprofilectl top  %zu device%s  %zu process%s  every %" PRIu64 ".%01" PRIu64
                                    "s  sort: %s%s%s%s",
                                    n_devices, n_devices == 1 ? "" : "s", n_processes, n_processes == 1 ? "" : "es",
                                    interval_usec / 1000000, interval_usec / 100000 % 10, top_sort_to_string(sort),
                                    grouped ? "  by " : "", grouped ? top_group_to_string(group) : "",
                                    height > 0 ? "  (gmpcr: sort, au: group, q: quit)" : "") < 0) {
                        fclose(f);
                        return -ENOMEM;
                }
                put_cell(f, header, (size_t) width, false);
        }
        r = add_line(frame, &f, &buf, 0, 0, true);
        if (r < 0)
                return r;

        for (size_t i = 0; i < jlen(reading, "devices"); i++) {
                r = build_device(frame, jidx(reading, "devices", i), history, now_usec, &e, width);
                if (r < 0)
                        return r;
        }

        /* The process table: PID USER DEVICE GPU% ENGINE MEMORY PROFILE APPLICATION COMMAND; USER and ENGINE
         * only when wide, APPLICATION only when what is left gives the command room too. PROFILE,
         * APPLICATION and COMMAND share what is left. */
        rest = (size_t) width -
                        (wide ? 7 + 1 + 8 + 1 + 12 + 1 + 6 + 1 + 8 + 1 + 10 + 1 : 7 + 1 + 12 + 1 + 6 + 1 + 10 + 1);
        rest = MAX(rest, (size_t) 8);
        if (rest >= APPLICATION_MIN_REST) {
                profile_cols = MIN(rest * 2 / 7, (size_t) 24);
                application_cols = MIN(rest * 3 / 7, (size_t) 32);
        } else {
                profile_cols = MIN(MAX(rest / 2, (size_t) 4), (size_t) 24);
                application_cols = 0;
        }
        command_cols = rest - MIN(profile_cols + 1 + (application_cols > 0 ? application_cols + 1 : 0), rest - 1);
        if (command_cols == 0)
                command_cols = 1;
        /* Grouped: APPLICATION or USER, PROCS, DEVICE, GPU%, ENGINE (when wide), MEMORY. */
        key_cols = (size_t) width - (wide ? 1 + 5 + 1 + 12 + 1 + 6 + 1 + 8 + 1 + 10 : 1 + 5 + 1 + 12 + 1 + 6 + 1 + 10);
        key_cols = MIN(MAX(key_cols, (size_t) 8), (size_t) GROUP_KEY_COLUMNS_MAX);

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        r = add_line(frame, &f, &buf, 0, 0, false); /* a blank line */
        if (r < 0)
                return r;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        if (grouped) {
                put_cell(f, group == TOP_GROUP_USER ? "USER" : "APPLICATION", key_cols, false);
                fputc(' ', f);
                put_cell(f, "PROCS", 5, true);
        } else {
                put_cell(f, "PID", 7, true);
                if (wide)
                        fputs(" USER    ", f);
        }
        fputs(" DEVICE       ", f);
        put_cell(f, "GPU%", 6, true);
        if (wide)
                fputs(" ENGINE  ", f);
        fputc(' ', f);
        put_cell(f, "MEMORY", 10, true);
        if (!grouped) {
                fputc(' ', f);
                put_cell(f, "PROFILE", profile_cols, false);
                fputc(' ', f);
                if (application_cols > 0) {
                        put_cell(f, "APPLICATION", application_cols, false);
                        fputc(' ', f);
                }
                put_cell(f, "COMMAND", command_cols, false);
        }
        r = add_line(frame, &f, &buf, 0, 0, true);
        if (r < 0)
                return r;

        shown = n_rows;
        if (height > 0) {
                size_t room = (size_t) height > frame->n_lines ? (size_t) height - frame->n_lines : 0;

                if (n_rows > room)
                        shown = room > 0 ? room - 1 : 0; /* and a line that says how many more */
        }
        for (size_t i = 0; i < shown; i++) {
                const Row *row = &rows[i];
                char pid[16], busy[16], mem[16], uid_buf[16];

                f = open_memstream(&buf, &size);
                if (!f)
                        return -ENOMEM;
                if (grouped) {
                        put_cell(f, row->application, key_cols, false);
                        fputc(' ', f);
                        snprintf(pid, sizeof pid, "%" PRIu32, row->n_processes);
                        put_cell(f, pid, 5, true);
                        fputc(' ', f);
                } else {
                        snprintf(pid, sizeof pid, "%" PRIu32, row->pid);
                        put_cell(f, pid, 7, true);
                        fputc(' ', f);
                }
                if (wide && !grouped) {
                        put_cell(f,
                                        esc(&e,
                                                        user_name((uint32_t) json_object_get_int64(
                                                                                  json_object_object_get(
                                                                                                  row->process, "uid")),
                                                                        uid_buf)),
                                        8, false);
                        fputc(' ', f);
                }
                put_cell(f, esc(&e, row_device_label(reading, row->device)), 12, false);
                fputc(' ', f);
                if (row->busy >= 0)
                        snprintf(busy, sizeof busy, "%.1f", row->busy);
                else
                        strcpy(busy, "-");
                put_cell(f, busy, 6, true);
                fputc(' ', f);
                if (wide) {
                        put_cell(f, row->engine[0] ? esc(&e, row->engine) : "-", 8, false);
                        fputc(' ', f);
                }
                format_bytes(row->memory, mem);
                put_cell(f, mem, 10, true);
                if (!grouped) {
                        fputc(' ', f);
                        put_cell(f, row->profile, profile_cols, false);
                        fputc(' ', f);
                        if (application_cols > 0) {
                                put_cell(f, row->application, application_cols, false);
                                fputc(' ', f);
                        }
                        put_cell(f, row->command, command_cols, false);
                }
                r = add_line(frame, &f, &buf, 0, 0, false);
                if (r < 0)
                        return r;
        }
        if (shown < n_rows) {
                f = open_memstream(&buf, &size);
                if (!f)
                        return -ENOMEM;
                fprintf(f, "... %zu more", n_rows - shown);
                r = add_line(frame, &f, &buf, 0, 0, false);
                if (r < 0)
                        return r;
        }
        if (n_rows == 0) {
                f = open_memstream(&buf, &size);
                if (!f)
                        return -ENOMEM;
                fputs("(no process uses a GPU that this user may see)", f);
                r = add_line(frame, &f, &buf, 0, 0, false);
                if (r < 0)
                        return r;
        }
        return 0;
}
