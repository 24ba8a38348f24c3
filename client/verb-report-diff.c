/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report diff BASELINE FILE": every metric two reports' paired actions both have, with the change, grouped
 * by section like ncu's baseline view. Runs nvprofiled.diff in a child process of the caller (verb-report-python.c):
 * the comparison is written once, over the same ncu_report model the Python interface and the rule runner
 * use (units, sections and pairing in one place), and reading two user files needs no privilege.
 * With --json, and unless --local, the daemon computes it (Report.Diff, daemon/nsight/report-diff.c, in
 * its confined worker): the same JSON, which tests compare with the Python one; without a daemon the
 * Python runs here as before. */

#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "fd-util.h"
#include "terminal-escape.h"
#include "verb-report.h"

#include "client.h"
#include "log.h"
#include "strv.h"
#include "verb-report-python.h"

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

/* Both files loaded into the daemon, Diff, both closed; prints {"baseline", "report", "pairs"}. 1 when no
 * daemon serves reports. */
static int diff_via_daemon(const char *baseline, const char *current)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *base_object = NULL, *cur_object = NULL, *text = NULL;
        _cleanup_(json_tokener_freep) json_tokener *tok = NULL;
        _cleanup_(json_object_putp) struct json_object *pairs = NULL, *doc = NULL;
        struct json_object *list = NULL;
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
        pairs = json_tokener_parse_ex(tok, text, (int) MIN(size, (size_t) INT32_MAX));
        if (!pairs || !json_object_object_get_ex(pairs, "pairs", &list))
                return log_error_errno(-EBADMSG, "The daemon returned a malformed comparison");
        doc = json_object_new_object();
        if (!doc || json_object_object_add(doc, "baseline", json_object_new_string(baseline)) < 0 ||
                        json_object_object_add(doc, "report", json_object_new_string(current)) < 0 ||
                        json_object_object_add(doc, "pairs", json_object_get(list)) < 0)
                return log_oom();
        json_print(doc);
        return 0;
}

int verb_report_diff(int argc, char *argv[])
{
        _cleanup_strv_free_ char **args = NULL;

        /* argv: "diff" BASELINE FILE */
        if (argc != 3) {
                log_error("report diff takes a baseline report and a report to compare.");
                return EXIT_USAGE;
        }
        if (arg.json != JSON_OFF && !arg.local) {
                int r = diff_via_daemon(argv[1], argv[2]);
                if (r <= 0 || r == EXIT_USAGE)
                        return r;
        }
        STRV_FOREACH(a, arg.actions)
                if (strv_extend(&args, "--action") < 0 || strv_extend(&args, *a) < 0)
                        return log_oom();
        if (arg.json != JSON_OFF && strv_extend(&args, arg.json == JSON_SHORT ? "--json=short" : "--json=pretty") < 0)
                return log_oom();
        return report_python_run("nvprofiled.diff", args, (char *[]){ argv[1], argv[2], NULL });
}
