/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's command line from its tables: each verb's own help, "help VERB", the closest name for
 * a misspelt verb, command or option, what is missing said in words, an option given to a verb that does
 * not take it, the completion answers, and the tables themselves. */

#include <getopt.h>

#include "client-args.h"
#include "report-page-options.h"
#include "run-ctl.h"
#include "test-util.h"
#include "verb-top.h"

/* Runs the command line; asserts its exit status and that stderr has needle (when not NULL). Returns
 * stdout. */
static char *ctl(int status, const char *needle, const char *first, ...)
{
        g_autofree char *err = NULL;
        const char *a[8] = { first };
        char *out = NULL;
        va_list ap;
        int r;

        va_start(ap, first);
        for (size_t i = 1; i < G_N_ELEMENTS(a) && a[i - 1]; i++)
                a[i] = va_arg(ap, const char *);
        va_end(ap);
        g_assert_null(a[G_N_ELEMENTS(a) - 1]);
        r = run_ctl(&out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
        if (needle && !strstr(err, needle))
                g_error("stderr has no \"%s\":\n%s", needle, err);
        g_assert_cmpint(r, ==, status);
        return out;
}

static void assert_has(const char *text, const char *needle)
{
        if (!strstr(text, needle))
                g_error("no \"%s\" in:\n%s", needle, text);
}

static void assert_has_not(const char *text, const char *needle)
{
        if (strstr(text, needle))
                g_error("\"%s\" in:\n%s", needle, text);
}

/* "report --help" is the report commands and their options: no other verb, no other verb's option. */
static void test_report_help(void)
{
        g_autofree char *out = ctl(0, NULL, "report", "--help", NULL);
        g_autofree char *via_help = ctl(0, NULL, "help", "report", NULL);

        g_assert_cmpstr(out, ==, via_help);
        for (const char *const *w = (const char *const[]){ "report summary FILE", "report json FILE",
                             "report details FILE", "report raw FILE", "report session FILE", "report rules FILE",
                             "report diff BASELINE FILE", "--local", "--csv", "--print-units=", "--output=FILE",
                             "--rules-dir=DIR", "--fail-above=PCT", "--json[=MODE]", NULL };
                        *w; w++)
                assert_has(out, *w);
        for (const char *const *w = (const char *const[]){ "\n  status", "\n  explain", "\n  top", "sections list",
                             "--once", "--sort=", "--procname", "--exe=", "--arch=", "Exit status:", NULL };
                        *w; w++)
                assert_has_not(out, *w);
        /* The options some commands take name those commands. */
        assert_has(out, "; for diff\n");
}

/* One command: its usage and its options only. */
static void test_command_help(void)
{
        g_autofree char *out = ctl(0, NULL, "report", "summary", "--help", NULL);
        g_autofree char *via_help = ctl(0, NULL, "help", "report", "summary", NULL);
        g_autofree char *after_file = ctl(0, NULL, "report", "summary", "x.ncu-rep", "-h", NULL);
        g_autofree char *top = ctl(0, NULL, "top", "--help", NULL);

        g_assert_cmpstr(out, ==, via_help);
        g_assert_cmpstr(out, ==, after_file);
        g_assert_true(g_str_has_prefix(out, "Usage: nvprofilectl [OPTIONS...] report summary FILE\n"));
        assert_has(out, "--local");
        assert_has_not(out, "--csv");
        assert_has_not(out, "report json");

        for (const char *const *w = (const char *const[]){ "--interval=SECONDS", "--once", "--sort=KEY", "--group=BY",
                             NULL };
                        *w; w++)
                assert_has(top, *w);
        assert_has_not(top, "--local");
        assert_has_not(top, "\n  report");
}

/* The overview: every verb once, the options of every verb, no verb's own options. */
static void test_overview(void)
{
        g_autofree char *out = ctl(0, NULL, "--help", NULL);
        g_autofree char *via_help = ctl(0, NULL, "help", NULL);

        g_assert_cmpstr(out, ==, via_help);
        for (size_t i = 0; i < client_n_verbs; i++) {
                g_autofree char *line = g_strdup_printf("\n  %s", client_verbs[i].name);
                assert_has(out, line);
        }
        assert_has(out, "nvprofilectl VERB --help");
        assert_has_not(out, "--once");
        assert_has_not(out, "--print-units");
        assert_has_not(out, "report summary");
}

static void test_did_you_mean(void)
{
        g_free(ctl(EXIT_USAGE, "Unknown verb \"repot\"; did you mean report?", "repot", "summary", "x", NULL));
        g_free(ctl(EXIT_USAGE, "Unknown verb \"stauts\"; did you mean status?", "stauts", NULL));
        g_free(ctl(EXIT_USAGE, "Unknown report command \"sumary\"; did you mean summary?", "report", "sumary", "x",
                        NULL));
        g_free(ctl(EXIT_USAGE, "Unknown option \"--jsn\"; did you mean --json?", "--jsn", "status", NULL));
        g_free(ctl(EXIT_USAGE, "Unknown option \"--intervl=2\"; did you mean --interval?", "top", "--intervl=2", NULL));
        g_free(ctl(EXIT_USAGE, "No help for \"explian\", which is no verb; did you mean explain?", "help", "explian",
                        NULL));
        g_free(ctl(EXIT_USAGE, "Unknown option \"--sort-by=gpu\"; did you mean --sort?", "top", "--sort-by=gpu", NULL));
        /* Nothing close: no guess. */
        g_free(ctl(EXIT_USAGE, "Unknown verb \"xyzzy\"; see nvprofilectl --help.", "xyzzy", NULL));
        g_free(ctl(EXIT_USAGE,
                        "could be --print-units, --print-details, --print-metric-instances or "
                        "--print-summary",
                        "report", "details", "x", "--print", "y", NULL));
        g_free(ctl(EXIT_USAGE, "--bus needs a value: --bus=ADDRESS", "status", "--bus", NULL));
}

static void test_missing_in_words(void)
{
        g_free(ctl(EXIT_USAGE, "report summary needs a report file: nvprofilectl report summary FILE\n", "report",
                        "summary", NULL));
        g_free(ctl(EXIT_USAGE,
                        "report diff needs a baseline report and a report to compare with it: nvprofilectl "
                        "report diff BASELINE FILE",
                        "report", "diff", "a.ncu-rep", NULL));
        g_free(ctl(EXIT_USAGE, "explain needs a process ID: nvprofilectl explain PID", "explain", NULL));
        g_free(ctl(EXIT_USAGE, "report needs a command: summary, json, raw, details, session, rules or diff", "report",
                        NULL));
        g_free(ctl(EXIT_USAGE, "sections show needs a section identifier", "sections", "show", NULL));
        g_free(ctl(EXIT_USAGE, "explain takes at most 1 argument (nvprofilectl explain PID), got 2.", "explain", "1",
                        "2", NULL));
        g_free(ctl(EXIT_USAGE, "report summary takes at most 1 argument", "report", "summary", "a", "b", NULL));
}

static void test_option_not_of_verb(void)
{
        g_free(ctl(EXIT_USAGE, "--once is an option of top, not of status;", "status", "--once", NULL));
        g_free(ctl(EXIT_USAGE,
                        "--csv is an option of report raw, report details and report session, not of report "
                        "summary;",
                        "report", "summary", "x", "--csv", NULL));
        g_free(ctl(EXIT_USAGE, "--unset is an option of rules set and profiles set, not of rules add;", "rules", "add",
                        "--procname=x", "--setting=K=1", "--unset=K", NULL));
        g_free(ctl(EXIT_USAGE, "--arch is an option of sections metrics, not of sections list;", "sections", "list",
                        "--arch=86", NULL));
        /* The options of every verb are every verb's. */
        g_free(ctl(EXIT_USAGE, "nvprofilectl: --bus= and --user cannot be combined", "check",
                        "--bus=unix:path=/nonexistent", "--user", NULL));
}

/* The answers the shells' scripts turn into candidates. */
static char *complete(const char *first, ...)
{
        g_autofree char *out = NULL;
        const char *a[8] = { "__complete", "--", first };
        va_list ap;

        va_start(ap, first);
        for (size_t i = 3; i < G_N_ELEMENTS(a) && a[i - 1]; i++)
                a[i] = va_arg(ap, const char *);
        va_end(ap);
        g_assert_cmpint(run_ctl(&out, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL), ==, 0);
        return g_steal_pointer(&out);
}

static void test_complete(void)
{
        g_autofree char *verbs = complete("", NULL);
        g_autofree char *report = complete("report", "", NULL);
        g_autofree char *details = complete("report", "details", "--print-d", NULL);
        g_autofree char *summary = complete("report", "summary", "--", NULL);
        g_autofree char *value = complete("--json=s", NULL);
        g_autofree char *file = complete("report", "raw", "--output", "", NULL);
        g_autofree char *none = complete("status", "", NULL);

        assert_has(verbs, "status\n");
        assert_has(verbs, "report\n");
        assert_has_not(verbs, "__complete");
        g_assert_cmpstr(report, ==, "summary\njson\nraw\ndetails\nsession\nrules\ndiff\n");
        g_assert_cmpstr(details, ==, "--print-details=\n");
        assert_has(summary, "--local\n");
        assert_has_not(summary, "--csv");
        g_assert_cmpstr(value, ==, "--json=short\n");
        g_assert_cmpstr(file, ==, "@files\n");
        g_assert_cmpstr(none, ==, "");
}

/* Each option value completion offers is taken by the parser, as the same enum value the verbs' own
 * parsers give it: the values list is the parser for STORE_ENUM options without enum_from_string. */
static void test_enum_values(void)
{
        for (int i = 0; client_options[OPT_PRINT_UNITS].values[i]; i++)
                g_assert_cmpint(ncu_print_units_from_string(client_options[OPT_PRINT_UNITS].values[i]), ==, i);
        for (int i = 0; client_options[OPT_PRINT_DETAILS].values[i]; i++)
                g_assert_cmpint(ncu_print_details_from_string(client_options[OPT_PRINT_DETAILS].values[i]), ==, i);
        for (int i = 0; client_options[OPT_PRINT_METRIC_INSTANCES].values[i]; i++)
                g_assert_cmpint(ncu_print_instances_from_string(client_options[OPT_PRINT_METRIC_INSTANCES].values[i]),
                                ==, i);
        for (int i = 0; client_options[OPT_PRINT_SUMMARY].values[i]; i++)
                g_assert_cmpint(ncu_print_summary_from_string(client_options[OPT_PRINT_SUMMARY].values[i]), ==, i);
        for (int i = 0; client_options[OPT_SORT].values[i]; i++)
                g_assert_cmpint(top_sort_from_string(client_options[OPT_SORT].values[i]), ==, i);
        for (int i = 0; client_options[OPT_GROUP].values[i]; i++)
                g_assert_cmpint(top_group_from_string(client_options[OPT_GROUP].values[i]), ==, i);
        for (OptionId id = 0; id < _OPT_MAX; id++)
                if (client_options[id].store == STORE_ENUM)
                        g_assert_true(client_options[id].values || client_options[id].enum_from_string);
}

/* Every option is somebody's, and every option a verb takes is in its help. */
static void test_tables(void)
{
        for (OptionId id = _OPT_GLOBAL_MAX; id < _OPT_MAX; id++) {
                bool taken = false;

                for (size_t i = 0; i < client_n_verbs; i++) {
                        const VerbSpec *v = &client_verbs[i];

                        taken = taken || verb_spec_takes(v, id);
                        for (size_t j = 0; j < v->n_commands; j++)
                                taken = taken || verb_spec_takes(&v->commands[j], id);
                }
                if (!taken)
                        g_error("no verb takes --%s", client_options[id].name);
        }
        for (size_t i = 0; i < client_n_verbs; i++) {
                const VerbSpec *v = &client_verbs[i];
                g_autofree char *help = ctl(0, NULL, "help", v->name, NULL);

                g_assert_nonnull(v->run);
                for (const OptionId *o = v->options; o && *o != _OPT_MAX; o++) {
                        g_autofree char *name = g_strdup_printf("--%s", client_options[*o].name);
                        assert_has(help, name);
                }
                for (size_t j = 0; j < v->n_commands; j++) {
                        const VerbSpec *c = &v->commands[j];

                        /* A command that takes arguments says what is missing in words. */
                        g_assert_true(c->min_args == 0 || (c->needs && c->args));
                        for (const OptionId *o = c->options; o && *o != _OPT_MAX; o++) {
                                g_autofree char *name = g_strdup_printf("--%s", client_options[*o].name);
                                assert_has(help, name);
                        }
                }
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/nvprofilectl-help/report", test_report_help);
        g_test_add_func("/nvprofilectl-help/command", test_command_help);
        g_test_add_func("/nvprofilectl-help/overview", test_overview);
        g_test_add_func("/nvprofilectl-help/did-you-mean", test_did_you_mean);
        g_test_add_func("/nvprofilectl-help/missing-in-words", test_missing_in_words);
        g_test_add_func("/nvprofilectl-help/option-not-of-verb", test_option_not_of_verb);
        g_test_add_func("/nvprofilectl-help/complete", test_complete);
        g_test_add_func("/nvprofilectl-help/enum-values", test_enum_values);
        g_test_add_func("/nvprofilectl-help/tables", test_tables);

        return g_test_run();
}
