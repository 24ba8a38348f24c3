/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "report diff --fail-above=PCT [--metric=NAME[:increase|:decrease]...] [--junit=FILE]": the regression gate
 * CI runs over a comparison. For every pair and every chosen metric (gpu__time_duration.sum by default) one
 * check: it fails when the metric moved in its worse direction (up, or down for :decrease, such as a
 * throughput) by more than PCT percent of the baseline; from a baseline of 0, any move that way fails. A
 * check that cannot be made (the metric is not a number in both actions), and a comparison that paired no
 * actions, fail too: a gate that checked nothing must not pass. The checks are one JSON document, from
 * which the text, --json and the JUnit file are all written. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "strv.h"
#include "verb-report-diff.h"

#define DEFAULT_METRIC "gpu__time_duration.sum"
#define NO_PAIRS_MESSAGE "No actions paired (no kernel name in both reports; see --action)"

typedef struct MetricChoice {
        const char *name; /* points into the option's argument, or DEFAULT_METRIC */
        size_t name_len;
        bool decrease; /* a decrease is the regression */
} MetricChoice;

typedef struct DiffGate {
        double threshold; /* percent */
        MetricChoice *metrics;
        size_t n_metrics;
} DiffGate;

static void diff_gate_done(DiffGate *g)
{
        g->metrics = mfree(g->metrics);
        g->n_metrics = 0;
}

static int usage(const char *message, const char *value)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        fprintf(stderr, "nvprofilectl: %s, not \"%s\".\n", message, esc(&e, value));
        return EXIT_USAGE;
}

/* "5", "2.5", "5%": a percentage of at least 0, in decimal. */
static int parse_threshold(const char *s, double *ret)
{
        const char *p = s;
        double d;

        if (*p < '0' || *p > '9')
                return -EINVAL;
        while (*p >= '0' && *p <= '9')
                p++;
        if (*p == '.') {
                p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                while (*p >= '0' && *p <= '9')
                        p++;
        }
        if (*p == '%')
                p++;
        if (*p != '\0')
                return -EINVAL;
        d = strtod(s, NULL);
        if (!isfinite(d))
                return -ERANGE;
        *ret = d;
        return 0;
}

/* NAME, NAME:increase or NAME:decrease. */
static int parse_metric(const char *s, MetricChoice *ret)
{
        const char *colon = strrchr(s, ':');

        *ret = (MetricChoice){ .name = s, .name_len = colon ? (size_t) (colon - s) : strlen(s) };
        if (colon && streq(colon + 1, "decrease"))
                ret->decrease = true;
        else if (colon && !streq(colon + 1, "increase"))
                return -EINVAL;
        return ret->name_len > 0 ? 0 : -EINVAL;
}

static int diff_gate_parse(DiffGate *ret)
{
        size_t n = MAX(strv_length(arg.metrics), (size_t) 1);

        *ret = (DiffGate){ 0 };
        if (parse_threshold(arg.fail_above, &ret->threshold) < 0)
                return usage("--fail-above= takes a percentage of at least 0 (such as 5 or 2.5)", arg.fail_above);
        ret->metrics = calloc(n, sizeof(MetricChoice));
        if (!ret->metrics)
                return log_oom();
        if (!arg.metrics)
                ret->metrics[ret->n_metrics++] =
                                (MetricChoice){ .name = DEFAULT_METRIC, .name_len = strlen(DEFAULT_METRIC) };
        STRV_FOREACH(m, arg.metrics)
                if (parse_metric(*m, &ret->metrics[ret->n_metrics++]) < 0) {
                        diff_gate_done(ret);
                        return usage("--metric= takes a metric name, optionally followed by :increase or :decrease",
                                        *m);
                }
        return 0;
}

int diff_check_options_verify(void)
{
        _cleanup_(diff_gate_done) DiffGate g = { 0 };

        if (!arg.fail_above) {
                if (!arg.metrics && !arg.junit)
                        return 0;
                fprintf(stderr, "nvprofilectl: --metric and --junit are options of report diff --fail-above.\n");
                return EXIT_USAGE;
        }
        return diff_gate_parse(&g);
}

/* The pair's entry for the metric, whichever section lists it; NULL when neither action has it. */
static struct json_object *find_metric(struct json_object *pair, const MetricChoice *choice)
{
        struct json_object *sections = json_object_object_get(pair, "sections");

        for (size_t s = 0; s < json_array_length(sections); s++) {
                struct json_object *metrics = json_object_object_get(json_array_get(sections, s), "metrics");

                for (size_t i = 0; i < json_array_length(metrics); i++) {
                        struct json_object *m = json_array_get(metrics, i);
                        const char *name = json_object_get_string(json_object_object_get(m, "name"));

                        if (name && strlen(name) == choice->name_len && strneq(name, choice->name, choice->name_len))
                                return m;
                }
        }
        return NULL;
}

static bool is_finite_number(struct json_object *v)
{
        return (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
                        isfinite(json_object_get_double(v));
}

typedef enum Verdict {
        VERDICT_PASS,
        VERDICT_FAIL,
        VERDICT_MISSING,
} Verdict;

static const char *const verdict_names[] = { "pass", "fail", "missing" };

static Verdict judge(const DiffGate *g, const MetricChoice *choice, struct json_object *m)
{
        struct json_object *change = json_object_object_get(m, "change");
        struct json_object *relative = json_object_object_get(m, "relative_change");
        double worse;

        if (!m || !is_finite_number(json_object_object_get(m, "baseline")) ||
                        !is_finite_number(json_object_object_get(m, "current")) || !is_finite_number(change))
                return VERDICT_MISSING;
        worse = choice->decrease ? -json_object_get_double(change) : json_object_get_double(change);
        if (!relative) /* from a baseline of 0: any move the worse way is beyond every threshold */
                return worse > 0 ? VERDICT_FAIL : VERDICT_PASS;
        worse = (choice->decrease ? -json_object_get_double(relative) : json_object_get_double(relative)) * 100;
        return worse > g->threshold ? VERDICT_FAIL : VERDICT_PASS;
}

static int add(struct json_object *o, const char *key, struct json_object *v)
{
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

/* A member of the metric's entry (NULL when none), as a new reference. */
static struct json_object *member(struct json_object *m, const char *key)
{
        return json_object_get(json_object_object_get(m, key));
}

static struct json_object *check_json(
                struct json_object *pair, const MetricChoice *choice, Verdict *ret_verdict, const DiffGate *g)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
        struct json_object *m = find_metric(pair, choice);
        Verdict v = judge(g, choice, m);

        if (!o || add(o, "baseline", member(pair, "baseline")) < 0 || add(o, "current", member(pair, "current")) < 0 ||
                        add(o, "metric", json_object_new_string_len(choice->name, (int) choice->name_len)) < 0 ||
                        add(o, "regression", json_object_new_string(choice->decrease ? "decrease" : "increase")) < 0 ||
                        add(o, "unit", member(m, "unit")) < 0 || add(o, "baseline_value", member(m, "baseline")) < 0 ||
                        add(o, "current_value", member(m, "current")) < 0 ||
                        add(o, "change", member(m, "change")) < 0 ||
                        add(o, "relative_change", member(m, "relative_change")) < 0 ||
                        add(o, "verdict", json_object_new_string(verdict_names[v])) < 0)
                return NULL;
        *ret_verdict = v;
        return TAKE_PTR(o);
}

/* The document of --json: {"baseline", "report", "fail_above_percent", "pairs" (how many), "checks", "failed",
 * "missing", "verdict"}. */
static int checks_json(const char *baseline, const char *current, const DiffGate *g, struct json_object *pairs,
                struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *doc = json_object_new_object();
        struct json_object *checks = json_object_new_array();
        size_t counts[ELEMENTSOF(verdict_names)] = { 0 };
        size_t n_pairs = json_array_length(pairs);
        bool pass;

        if (!checks || !doc) {
                json_object_put(checks);
                return -ENOMEM;
        }
        if (add(doc, "baseline", json_object_new_string(baseline)) < 0 ||
                        add(doc, "report", json_object_new_string(current)) < 0 ||
                        add(doc, "fail_above_percent", json_object_new_double(g->threshold)) < 0 ||
                        add(doc, "pairs", json_object_new_uint64(n_pairs)) < 0 || add(doc, "checks", checks) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n_pairs; i++)
                for (size_t k = 0; k < g->n_metrics; k++) {
                        Verdict v;
                        struct json_object *c = check_json(json_array_get(pairs, i), &g->metrics[k], &v, g);

                        if (!c || json_object_array_add(checks, c) < 0) {
                                json_object_put(c);
                                return -ENOMEM;
                        }
                        counts[v]++;
                }
        pass = n_pairs > 0 && counts[VERDICT_FAIL] == 0 && counts[VERDICT_MISSING] == 0;
        if (add(doc, "failed", json_object_new_uint64(counts[VERDICT_FAIL])) < 0 ||
                        add(doc, "missing", json_object_new_uint64(counts[VERDICT_MISSING])) < 0 ||
                        add(doc, "verdict", json_object_new_string(pass ? "pass" : "fail")) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(doc);
        return 0;
}

/* A check's entry in the shape of the comparison's metric entry, for diff_print_metric(). */
static struct json_object *check_as_metric(struct json_object *check)
{
        static const char *const keys[][2] = {
                { "metric", "name" },
                { "unit", "unit" },
                { "baseline_value", "baseline" },
                { "current_value", "current" },
                { "change", "change" },
                { "relative_change", "relative_change" },
        };
        struct json_object *m = json_object_new_object();

        for (size_t i = 0; m && i < ELEMENTSOF(keys); i++)
                if (add(m, keys[i][1], member(check, keys[i][0])) < 0) {
                        json_object_put(m);
                        return NULL;
                }
        return m;
}

static const char *verdict_of(struct json_object *check)
{
        return json_object_get_string(json_object_object_get(check, "verdict"));
}

/* What the check says, escaped for a terminal: the metric's line, or why it could not be made. */
static char *check_text(struct json_object *check)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(json_object_putp) struct json_object *m = check_as_metric(check);
        char *text = NULL;
        size_t size;
        FILE *f;

        if (!m)
                return NULL;
        f = open_memstream(&text, &size);
        if (!f)
                return NULL;
        if (streq(verdict_of(check), "missing"))
                fprintf(f, "%s: not in both actions as a number",
                                esc(&e, json_object_get_string(json_object_object_get(check, "metric"))));
        else
                diff_print_metric(f, &e, m);
        if (fclose(f) != 0)
                return mfree(text);
        return text;
}

static char *pair_text(struct json_object *check)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        char *text = NULL;
        size_t size;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        diff_print_pair_label(f, &e, check);
        if (fclose(f) != 0)
                return mfree(text);
        return text;
}

static int print_text(struct json_object *doc, double threshold)
{
        struct json_object *checks = json_object_object_get(doc, "checks");

        if (json_object_get_uint64(json_object_object_get(doc, "pairs")) == 0)
                printf("FAIL  %s.\n", NO_PAIRS_MESSAGE);
        for (size_t i = 0; i < json_array_length(checks); i++) {
                struct json_object *check = json_array_get(checks, i);
                _cleanup_free_ char *pair = pair_text(check), *what = check_text(check);
                const char *v = verdict_of(check);

                if (!pair || !what)
                        return log_oom();
                printf("%-5s %s: %s\n", streq(v, "pass") ? "PASS" : streq(v, "fail") ? "FAIL" : "ERROR", pair, what);
        }
        if (arg.legend)
                printf("%zu check%s, %" PRIu64 " failed, %" PRIu64 " could not be made (failing above %g%%): %s.\n",
                                json_array_length(checks), json_array_length(checks) == 1 ? "" : "s",
                                json_object_get_uint64(json_object_object_get(doc, "failed")),
                                json_object_get_uint64(json_object_object_get(doc, "missing")), threshold,
                                json_object_get_string(json_object_object_get(doc, "verdict")));
        return 0;
}

/* Text that was escaped for a terminal (valid UTF-8 without controls), escaped for XML too: the five
 * markup characters, and U+FFFE and U+FFFF, which XML does not allow, written as the terminal escapes do. */
static void xml_write(FILE *f, const char *s)
{
        for (const char *p = s; *p; p++)
                switch (*p) {
                case '&':
                        fputs("&amp;", f);
                        break;
                case '<':
                        fputs("&lt;", f);
                        break;
                case '>':
                        fputs("&gt;", f);
                        break;
                case '"':
                        fputs("&quot;", f);
                        break;
                case '\'':
                        fputs("&apos;", f);
                        break;
                default:
                        if (strneq(p, "\xef\xbf\xbe", 3) || strneq(p, "\xef\xbf\xbf", 3)) {
                                fprintf(f, "\\xef\\xbf\\x%02x", (unsigned char) p[2]);
                                p += 2;
                        } else
                                fputc(*p, f);
                }
}

/* A string from outside: escaped for a terminal, then for XML. */
static void xml_write_escaped(FILE *f, const char *s)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        xml_write(f, esc(&e, s));
}

static void junit_property(FILE *f, const char *name, const char *value)
{
        fprintf(f, "    <property name=\"%s\" value=\"", name);
        xml_write_escaped(f, value);
        fputs("\"/>\n", f);
}

static int junit_testcase(FILE *f, struct json_object *check, double threshold)
{
        _cleanup_free_ char *pair = pair_text(check), *what = check_text(check);
        const char *v = verdict_of(check);

        if (!pair || !what)
                return -ENOMEM;
        fputs("  <testcase classname=\"", f);
        xml_write(f, pair);
        fputs("\" name=\"", f);
        xml_write_escaped(f, json_object_get_string(json_object_object_get(check, "metric")));
        /* As --metric spells it: the same metric checked both ways is two testcases. */
        if (streq(json_object_get_string(json_object_object_get(check, "regression")), "decrease"))
                fputs(":decrease", f);
        if (streq(v, "pass")) {
                fputs("\"/>\n", f);
                return 0;
        }
        if (streq(v, "fail"))
                fprintf(f, "\">\n    <failure type=\"regression\" message=\"%s by more than %g%%: ",
                                streq(json_object_get_string(json_object_object_get(check, "regression")), "decrease")
                                                ? "decreased"
                                                : "increased",
                                threshold);
        else
                fputs("\">\n    <error type=\"missing\" message=\"", f);
        xml_write(f, what);
        fprintf(f, "\"/>\n  </testcase>\n");
        return 0;
}

/* JUnit XML: one testsuite, a testcase per pair and metric (classname the pair, name the metric), a <failure>
 * for a regression and an <error> for a check that could not be made; no pairs at all is an <error> of its
 * own. Written to a new file beside path, renamed over it when complete (client-exact-output.c). */
static int write_junit(const char *path, struct json_object *doc, double threshold)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_(exact_output_done) ExactOutput out = { .dir_fd = -EBADF };
        struct json_object *checks = json_object_object_get(doc, "checks");
        bool no_pairs = json_object_get_uint64(json_object_object_get(doc, "pairs")) == 0;
        uint64_t failed = json_object_get_uint64(json_object_object_get(doc, "failed"));
        uint64_t missing = json_object_get_uint64(json_object_object_get(doc, "missing"));
        int r;

        r = exact_output_open(path, &out);
        if (r >= 0) {
                fprintf(out.f,
                                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<testsuite name=\"nvprofilectl report diff\" tests=\"%zu\" failures=\"%" PRIu64
                                "\" errors=\"%" PRIu64 "\">\n"
                                "  <properties>\n",
                                json_array_length(checks) + no_pairs, failed, missing + no_pairs);
                junit_property(out.f, "baseline", json_object_get_string(json_object_object_get(doc, "baseline")));
                junit_property(out.f, "report", json_object_get_string(json_object_object_get(doc, "report")));
                fprintf(out.f, "    <property name=\"fail_above_percent\" value=\"%g\"/>\n", threshold);
                fputs("  </properties>\n", out.f);
                if (no_pairs)
                        fputs("  <testcase classname=\"report diff\" name=\"pairing\">\n"
                              "    <error type=\"unpaired\" message=\"" NO_PAIRS_MESSAGE "\"/>\n"
                              "  </testcase>\n",
                                        out.f);
                for (size_t i = 0; r >= 0 && i < json_array_length(checks); i++)
                        r = junit_testcase(out.f, json_array_get(checks, i), threshold);
                if (r >= 0) {
                        fputs("</testsuite>\n", out.f);
                        r = exact_output_commit(&out);
                }
        }
        if (r < 0) {
                fprintf(stderr, "nvprofilectl: %s: cannot write the JUnit file: %s\n", esc(&e, path), strerror(-r));
                return r;
        }
        return 0;
}

int diff_check(const char *baseline, const char *current, struct json_object *pairs)
{
        _cleanup_(diff_gate_done) DiffGate g = { 0 };
        _cleanup_(json_object_putp) struct json_object *doc = NULL;
        int r;

        r = diff_gate_parse(&g);
        if (r != 0)
                return r;
        r = checks_json(baseline, current, &g, pairs, &doc);
        if (r < 0)
                return log_oom();
        if (arg.junit) {
                r = write_junit(arg.junit, doc, g.threshold);
                if (r < 0)
                        return r;
        }
        if (arg.json != JSON_OFF) {
                r = json_print_document("report-check", NULL, doc);
                if (r < 0)
                        return r;
        } else {
                r = print_text(doc, g.threshold);
                if (r < 0)
                        return r;
        }
        return streq(json_object_get_string(json_object_object_get(doc, "verdict")), "pass") ? 0 : 1;
}
