/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report diff BASELINE FILE": every metric two reports' paired actions both have, with the change, grouped
 * by section like ncu's baseline view. The comparison is written once, in C (daemon/nsight/report/report-diff.c):
 * the daemon's confined worker computes it (Report.Diff) unless --local is given or no daemon serves
 * reports, when it runs here on the files read in this process. Either way this file shows the same JSON:
 * as it is with --json, as text otherwise (every string from the reports escaped for the terminal), or as
 * the checks of --fail-above (verb-report-diff-check.c). */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "client.h"
#include "log.h"
#include "report-diff.h"
#include "string-util.h"
#include "strv.h"
#include "verb-report-diff.h"
#include "verb-report.h"

#define DIFF_JSON_MAX ((size_t) 1024 * 1024 * 1024)

DEFINE_TRIVIAL_CLEANUP_FUNC(json_tokener *, json_tokener_free);

/* Diff on the daemon's cur_object against base_object: the reply's JSON text. */
static int call_diff(sd_bus *bus, const char *cur_object, const char *base_object, sd_bus_error *error, char **ret_text,
                size_t *ret_size)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &call, BUS_NAME, cur_object, BUS_REPORT_INTERFACE, "Diff");
        if (r < 0)
                return r;
        r = sd_bus_message_append(call, "o", base_object);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(call, arg.actions);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, call, 0, error, &reply);
        if (r < 0)
                return r;
        return report_read_reply_fd(reply, DIFF_JSON_MAX, ret_text, ret_size);
}

/* Both files loaded into the daemon, Diff, both closed: 0 and the comparison ({"pairs"}), 1 when no daemon
 * serves reports, EXIT_USAGE for an --action that pairs nothing, or a negative errno after saying why. */
static int diff_via_daemon(const char *baseline, const char *current, struct json_object **ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *base_object = NULL, *cur_object = NULL, *text = NULL;
        _cleanup_(json_tokener_freep) json_tokener *tok = NULL;
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        size_t size;
        int r;

        if (report_bus_open(&bus) < 0)
                return 1;
        r = report_bus_load(bus, baseline, &base_object);
        if (r != 0)
                return r;
        r = report_bus_load(bus, current, &cur_object);
        if (r < 0)
                report_bus_close(bus, base_object);
        if (r != 0)
                return r;
        r = call_diff(bus, cur_object, base_object, &error, &text, &size);
        report_bus_close(bus, cur_object);
        report_bus_close(bus, base_object);
        if (r < 0) {
                if (sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS)) {
                        fprintf(stderr, "nvprofilectl: %s\n", esc(&e, error.message));
                        return EXIT_USAGE;
                }
                log_bus_call_error("Diff", &error, r);
                return r;
        }
        tok = json_tokener_new_ex(64);
        if (!tok)
                return log_oom();
        doc = json_tokener_parse_ex(tok, text, (int) MIN(size, (size_t) INT32_MAX));
        if (!doc || !json_object_is_type(json_object_object_get(doc, "pairs"), json_type_array))
                return log_error_errno(-EBADMSG, "The daemon returned a malformed comparison");
        *ret = TAKE_PTR(doc);
        return 0;
}

/* The same comparison on the files read in this process. */
static int diff_local(const char *baseline, const char *current, struct json_object **ret)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(ncu_report_freep) NcuReport *base = NULL, *cur = NULL;
        char message[NCU_DIFF_MESSAGE_MAX];
        int r;

        r = report_load_local(baseline, &base);
        if (r < 0)
                return r;
        r = report_load_local(current, &cur);
        if (r < 0)
                return r;
        r = ncu_report_diff_json(base, cur, arg.actions, strv_length(arg.actions), ret, message);
        if (r == -ENOMEM)
                return log_oom();
        if (r == -EDOM) {
                fprintf(stderr, "nvprofilectl: %s\n", esc(&e, message));
                return EXIT_USAGE;
        }
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s\n", esc(&e, message));
                return r;
        }
        return 0;
}

/* The comparison's "pairs", by the daemon unless --local or none serves reports. */
static int diff_compute(const char *baseline, const char *current, struct json_object **ret)
{
        int r = 1;

        if (!arg.local)
                r = diff_via_daemon(baseline, current, ret);
        if (r == 1)
                r = diff_local(baseline, current, ret);
        return r;
}

static bool is_number(struct json_object *v)
{
        return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* A value as the text shows it: a double "%.6g", an integer in full, a string escaped. JSON's null is a
 * number that is not finite (the comparison writes no other): "nan", as printf() writes one. */
static const char *value_text_of(EscapePool *e, struct json_object *v, char buf[static 64])
{
        if (json_object_is_type(v, json_type_string))
                return esc(e, json_object_get_string(v));
        if (json_object_is_type(v, json_type_int)) {
                if (json_object_get_int64(v) < 0)
                        snprintf(buf, 64, "%" PRIi64, json_object_get_int64(v));
                else
                        snprintf(buf, 64, "%" PRIu64, json_object_get_uint64(v));
                return buf;
        }
        snprintf(buf, 64, "%.6g", v ? json_object_get_double(v) : NAN);
        return buf;
}

void diff_print_pair_label(FILE *f, EscapePool *e, struct json_object *pair)
{
        struct json_object *b = json_object_object_get(pair, "baseline"), *c = json_object_object_get(pair, "current");

        fprintf(f, "%s (action %" PRIu64 ") -> %s (action %" PRIu64 ")",
                        esc(e, json_object_get_string(json_object_object_get(b, "kernel"))),
                        json_object_get_uint64(json_object_object_get(b, "action")),
                        esc(e, json_object_get_string(json_object_object_get(c, "kernel"))),
                        json_object_get_uint64(json_object_object_get(c, "action")));
}

void diff_print_metric(FILE *f, EscapePool *e, struct json_object *metric)
{
        struct json_object *base = json_object_object_get(metric, "baseline");
        struct json_object *cur = json_object_object_get(metric, "current");
        struct json_object *change = json_object_object_get(metric, "change");
        struct json_object *relative = json_object_object_get(metric, "relative_change");
        const char *unit = json_object_get_string(json_object_object_get(metric, "unit"));
        char b[64], c[64];
        double d;

        fprintf(f, "%s%s%s: %s -> %s", esc(e, json_object_get_string(json_object_object_get(metric, "name"))),
                        isempty(unit) ? "" : " ", isempty(unit) ? "" : esc(e, unit), value_text_of(e, base, b),
                        value_text_of(e, cur, c));
        /* Strings have no change; numbers do, not a number where one side is not (null). */
        if ((base && !is_number(base)) || (cur && !is_number(cur)))
                return;
        d = change ? json_object_get_double(change) : NAN;
        fprintf(f, " (%s%.6g", d >= 0 ? "+" : "", d);
        /* No relative change from a baseline of 0. */
        if (relative)
                fprintf(f, ", %+.2f%%", json_object_get_double(relative) * 100);
        else if (!base || json_object_get_double(base) != 0.0)
                fprintf(f, ", %+.2f%%", (double) NAN);
        fputs(")", f);
}

static void print_text(struct json_object *pairs)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        if (json_array_length(pairs) == 0)
                puts("No actions paired (no kernel name in both reports; see --action).");
        for (size_t i = 0; i < json_array_length(pairs); i++) {
                struct json_object *pair = json_array_get(pairs, i);
                struct json_object *sections = json_object_object_get(pair, "sections");

                diff_print_pair_label(stdout, &e, pair);
                putchar('\n');
                for (size_t s = 0; s < json_array_length(sections); s++) {
                        struct json_object *section = json_array_get(sections, s);
                        struct json_object *metrics = json_object_object_get(section, "metrics");
                        const char *identifier = json_object_get_string(json_object_object_get(section, "identifier"));

                        if (json_array_length(metrics) == 0)
                                continue;
                        printf("  %s", esc(&e, json_object_get_string(json_object_object_get(section, "name"))));
                        if (!isempty(identifier))
                                printf(" [%s]", esc(&e, identifier));
                        putchar('\n');
                        for (size_t m = 0; m < json_array_length(metrics); m++) {
                                fputs("    ", stdout);
                                diff_print_metric(stdout, &e, json_array_get(metrics, m));
                                putchar('\n');
                                escape_pool_done(&e);
                        }
                }
        }
}

int verb_report_diff(int argc, char *argv[])
{
        _cleanup_(json_object_putp) struct json_object *comparison = NULL, *doc = NULL;
        struct json_object *pairs;
        int r;

        /* argv: "diff" BASELINE FILE */
        if (argc != 3) {
                log_error("report diff takes a baseline report and a report to compare.");
                return EXIT_USAGE;
        }
        r = diff_check_options_verify();
        if (r != 0)
                return r;
        r = diff_compute(argv[1], argv[2], &comparison);
        if (r != 0)
                return r;
        pairs = json_object_object_get(comparison, "pairs");
        if (arg.fail_above)
                return diff_check(argv[1], argv[2], pairs);
        if (arg.json == JSON_OFF) {
                print_text(pairs);
                return 0;
        }
        doc = json_object_new_object();
        if (!doc || json_object_object_add(doc, "baseline", json_object_new_string(argv[1])) < 0 ||
                        json_object_object_add(doc, "report", json_object_new_string(argv[2])) < 0 ||
                        json_object_object_add(doc, "pairs", json_object_get(pairs)) < 0)
                return log_oom();
        return json_print_document("report-diff", NULL, doc);
}
