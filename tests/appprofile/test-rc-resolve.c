/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Matching and precedence: ../shared/docs/appprofiles.md §8 cases 13-20, 26 and 28. */

#include <fcntl.h>
#include <unistd.h>

#include "fd-util.h"
#include "test-util.h"

static RcConfig *config1(const char *text)
{
        const char *texts[] = { text };
        RcConfig *c = test_config_from_texts(texts, 1);
        g_assert_cmpint(c->files[0]->state, ==, RC_FILE_LOADED);
        return c;
}

static bool matches(RcConfig *c, const char *exe, const char *comm, const char *argv0, const char *const *dsos)
{
        g_autoptr(RcResolution) r = test_resolve(c, exe, comm, argv0, dsos, NULL);
        g_assert_cmpuint(r->n_rules, ==, 1);
        return r->rules[0].matched;
}

#define RULE(pattern) "{\"rules\": [{\"pattern\": " pattern ", \"profile\": [\"k\", 1]}]}"

/* Case 12: "true" always matches, whatever "matches" says. */
static void test_true(void)
{
        g_autoptr(RcConfig) a = config1(RULE("{\"feature\": \"true\", \"matches\": \"\"}"));
        g_autoptr(RcConfig) b = config1(RULE("{\"feature\": \"true\", \"matches\": \"foobar\"}"));
        g_autoptr(RcConfig) c = config1(RULE("{\"feature\": \"true\"}"));

        g_assert_true(matches(a, "/usr/bin/x", "x", "x", NULL));
        g_assert_true(matches(b, NULL, NULL, NULL, NULL));
        g_assert_true(matches(c, "/bin/y", NULL, NULL, NULL));
}

/* Case 13: not needs exactly one operand. */
static void test_not(void)
{
        g_autoptr(RcConfig) one = config1(RULE("{\"op\": \"not\", \"sub\": \"foo\"}"));
        g_autoptr(RcConfig) one_arr = config1(RULE("{\"op\": \"not\", \"sub\": [\"foo\"]}"));
        g_autoptr(RcConfig) zero = config1(RULE("{\"op\": \"not\", \"sub\": []}"));
        g_autoptr(RcConfig) two = config1(RULE("{\"op\": \"not\", \"sub\": [\"foo\", \"bar\"]}"));

        g_assert_false(matches(one, "/bin/foo", NULL, NULL, NULL));
        g_assert_true(matches(one, "/bin/baz", NULL, NULL, NULL));
        g_assert_true(matches(one_arr, "/bin/baz", NULL, NULL, NULL));
        g_assert_false(matches(zero, "/bin/baz", NULL, NULL, NULL));
        g_assert_false(matches(two, "/bin/baz", NULL, NULL, NULL));
}

/* Case 14: nesting, as in the README's "dso foo.so AND NOT procname bar"; empty and/or. */
static void test_nested_ops(void)
{
        g_autoptr(RcConfig) c = config1(
                        RULE("{\"op\": \"and\", \"sub\": [{\"feature\": \"dso\", \"matches\": \"foo.so\"},"
                             " {\"op\": \"not\", \"sub\": {\"feature\": \"procname\", \"matches\": \"bar\"}}]}"));
        g_autoptr(RcConfig) deep = config1(RULE(
                        "{\"op\": \"or\", \"sub\": [\"x\", {\"op\": \"and\", \"sub\": [{\"op\": \"or\", \"sub\": [\"y\", \"z\"]},"
                        " {\"feature\": \"commname\", \"matches\": \"zc\"}]}]}"));
        g_autoptr(RcConfig) empty_and = config1(RULE("{\"op\": \"and\", \"sub\": []}"));
        g_autoptr(RcConfig) empty_or = config1(RULE("{\"op\": \"or\", \"sub\": []}"));
        const char *const dsos[] = { "/usr/lib/foo.so", NULL };

        g_assert_true(matches(c, "/bin/baz", NULL, NULL, dsos));
        g_assert_false(matches(c, "/bin/bar", NULL, NULL, dsos));
        g_assert_false(matches(c, "/bin/baz", NULL, NULL, NULL));

        g_assert_true(matches(deep, "/bin/x", "x", NULL, NULL));
        g_assert_true(matches(deep, "/bin/z", "zc", NULL, NULL));
        g_assert_false(matches(deep, "/bin/z", "zd", NULL, NULL));
        g_assert_false(matches(deep, "/bin/w", "zc", NULL, NULL));

        g_assert_true(matches(empty_and, "/bin/w", NULL, NULL, NULL));
        g_assert_false(matches(empty_or, "/bin/w", NULL, NULL, NULL));
}

/* Case 9 again, through resolution: [] always matches; arrays are AND. */
static void test_pattern_arrays(void)
{
        g_autoptr(RcConfig) always = config1(RULE("[]"));
        g_autoptr(RcConfig) both = config1(RULE("[\"a\", {\"feature\": \"commname\", \"matches\": \"c\"}]"));

        g_assert_true(matches(always, NULL, NULL, NULL, NULL));
        g_assert_true(matches(both, "/x/a", "c", NULL, NULL));
        g_assert_false(matches(both, "/x/a", "d", NULL, NULL));
}

/* Case 15: procname is the executable's name, not argv[0] (NixOS wrappers). */
static void test_procname(void)
{
        g_autoptr(RcConfig) wrapped = config1(RULE("\".Hyprland-wrapped\""));
        g_autoptr(RcConfig) plain = config1(RULE("\"Hyprland\""));
        g_autoptr(RcConfig) cmd = config1(RULE("{\"feature\": \"cmdline\", \"matches\": \"Hyprland\"}"));
        const char *exe = "/nix/store/abc-hyprland/bin/.Hyprland-wrapped";

        g_assert_true(matches(wrapped, exe, NULL, "Hyprland", NULL));
        g_assert_false(matches(plain, exe, NULL, "Hyprland", NULL));
        g_assert_true(matches(cmd, exe, NULL, "Hyprland", NULL));
        /* " (deleted)" after an upgrade is not part of the name. */
        g_assert_true(matches(plain, "/usr/bin/Hyprland (deleted)", NULL, NULL, NULL));
        /* Case-sensitive, exact. */
        g_assert_false(matches(plain, "/usr/bin/hyprland", NULL, NULL, NULL));
        g_assert_false(matches(plain, "/usr/bin/Hyprland2", NULL, NULL, NULL));
}

/* Case 16: cmdline splits on both separators. */
static void test_cmdline(void)
{
        g_autoptr(RcConfig) exe = config1(RULE("{\"feature\": \"cmdline\", \"matches\": \"foo.exe\"}"));
        g_autoptr(RcConfig) unix_ = config1(RULE("{\"feature\": \"cmdline\", \"matches\": \"foo\"}"));

        g_assert_true(matches(exe, "/usr/bin/wine64-preloader", NULL, "C:\\Games\\Foo\\foo.exe", NULL));
        g_assert_true(matches(exe, NULL, NULL, "Z:\\x/y\\foo.exe", NULL));
        g_assert_true(matches(exe, NULL, NULL, "foo.exe", NULL));
        g_assert_false(matches(exe, NULL, NULL, "foo.exe.bak", NULL));
        g_assert_true(matches(unix_, NULL, NULL, "/usr/bin/foo", NULL));
        g_assert_false(matches(unix_, "/usr/bin/foo", NULL, NULL, NULL));
}

/* Case 17: comm is at most 15 characters. */
static void test_commname(void)
{
        g_autoptr(RcConfig) trunc = config1(RULE("{\"feature\": \"commname\", \"matches\": \"averyveryverylo\"}"));
        g_autoptr(RcConfig) full = test_config_from_texts(
                        (const char *[]){ RULE("{\"feature\": \"commname\", \"matches\": \"averyveryverylongname\"}") },
                        1);

        g_assert_true(matches(trunc, NULL, "averyveryverylongname", NULL, NULL));
        g_assert_true(matches(trunc, NULL, "averyveryverylo", NULL, NULL));
        g_assert_false(matches(full, NULL, "averyveryverylongname", NULL, NULL));
        g_assert_true(test_has_diag(&full->files[0]->diagnostics, RC_SEVERITY_WARNING, 0, 0, "longer than 15"));
}

/* Case 18: dso is a prefix match on basenames of mapped files; symlink names do not count. */
static void test_dso(void)
{
        g_autoptr(RcConfig) mutter = config1(RULE("{\"feature\": \"dso\", \"matches\": \"libmutter\"}"));
        g_autoptr(RcConfig) gl = config1(RULE("{\"feature\": \"dso\", \"matches\": \"libGL.so.1\"}"));
        const char *const gnome[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/mutter-15/libmutter-15.so.0",
                "/usr/lib/libz.so.1", NULL };
        const char *const glvnd[] = { "/usr/lib/libGL.so.1.7.0", NULL };
        const char *const other[] = { "/usr/lib/libmutteX.so", "/usr/lib/libGLX.so.0", NULL };

        g_assert_true(matches(mutter, "/usr/bin/gnome-shell", NULL, NULL, gnome));
        g_assert_false(matches(mutter, "/usr/bin/gnome-shell", NULL, NULL, other));
        g_assert_false(matches(mutter, "/usr/bin/gnome-shell", NULL, NULL, NULL));
        g_assert_true(matches(gl, "/usr/bin/glxgears", NULL, NULL, glvnd));
        /* The name a symlink gives (libGL.so.1 -> libGL.so.1.7.0) is not in maps; only the target is. */
        g_assert_false(matches(gl, "/usr/bin/glxgears", NULL, NULL, other));
}

/* Case 19: findfile needs every name in the executable's directory, inside the process's root. */
static void test_findfile(void)
{
        g_autoptr(RcConfig) c = config1(RULE("[\"heaven_x64\", {\"op\": \"not\", \"sub\": {\"feature\": \"findfile\", "
                                             "\"matches\": \"browser_x64\"}}]"));
        g_autoptr(RcConfig) two = config1(RULE("{\"feature\": \"findfile\", \"matches\": \"a:b\"}"));
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int root_fd = -EBADF;
        g_autoptr(RcResolution) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL;
        RcProcessFacts facts = { .exe = "/opt/heaven/bin/heaven_x64" };

        test_write_file(root, "opt/heaven/bin/heaven_x64", "");
        test_write_file(root, "opt/heaven/bin/a", "");
        root_fd = test_open_dir(root);
        facts.root_fd = root_fd;

        g_assert_cmpint(rc_resolve(c, &facts, &r1), ==, 0);
        g_assert_true(r1->rules[0].matched);

        test_write_file(root, "opt/heaven/bin/browser_x64", "");
        g_assert_cmpint(rc_resolve(c, &facts, &r2), ==, 0);
        g_assert_false(r2->rules[0].matched);

        g_assert_cmpint(rc_resolve(two, &facts, &r3), ==, 0);
        g_assert_false(r3->rules[0].matched);
        /* An absolute symlink inside the root resolves inside it, never to the host's file. */
        test_symlink("/opt/heaven/bin/a", root, "opt/heaven/bin/b");
        g_assert_cmpint(rc_resolve(two, &facts, &r4), ==, 0);
        g_assert_true(r4->rules[0].matched);

        /* Hypothetical processes name the directory's files instead. */
        {
                const char *files[] = { "a", "b", NULL };
                RcProcessFacts hyp = { .exe = "/x/y", .root_fd = -EBADF, .exe_dir_files = (char **) files };
                g_autoptr(RcResolution) r5 = NULL;
                g_assert_cmpint(rc_resolve(two, &hyp, &r5), ==, 0);
                g_assert_true(r5->rules[0].matched);
        }
}

/* Issue 29 item 2: a name is one entry of the executable's directory, looked up without following a link (a
 * link counts as there, however long the chain it starts); the directory is reached through no link (the
 * exe link's text names none: a link on the way is the directory swapped since). */
static void test_findfile_links(void)
{
        g_autoptr(RcConfig) c = config1(RULE("{\"feature\": \"findfile\", \"matches\": \"a:dangling\"}"));
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int root_fd = -EBADF;
        g_autoptr(RcResolution) direct = NULL, swapped = NULL;
        RcProcessFacts facts = { .exe = "/opt/game/bin/game" };

        test_write_file(root, "opt/game/bin/a", "");
        test_symlink("/nowhere/at/all", root, "opt/game/bin/dangling");
        test_write_file(root, "elsewhere/a", "");
        test_write_file(root, "elsewhere/dangling", "");
        test_symlink("/elsewhere", root, "opt/swapped");
        root_fd = test_open_dir(root);
        facts.root_fd = root_fd;

        g_assert_cmpint(rc_resolve(c, &facts, &direct), ==, 0);
        g_assert_true(direct->rules[0].matched);

        facts.exe = "/opt/swapped/game (deleted)";
        g_assert_cmpint(rc_resolve(c, &facts, &swapped), ==, 0);
        g_assert_false(swapped->rules[0].matched);
}

static char *findfile_names(unsigned first, unsigned n)
{
        GString *s = g_string_new(NULL);

        for (unsigned i = first; i < first + n; i++)
                g_string_append_printf(s, "%sn%u", i > first ? ":" : "", i);
        return g_string_free(s, FALSE);
}

static bool has_diagnostic(const RcDiagnostics *d, const char *needle)
{
        for (size_t i = 0; i < d->n_items; i++)
                if (strstr(d->items[i].message, needle))
                        return true;
        return false;
}

/* Issue 29 item 2: a rule naming more than RC_FINDFILE_RULE_NAMES_MAX files never matches, even in a not()
 * and with every name there, and its file says why; past RC_FINDFILE_NAMES_MAX names in all, the rules
 * after never match either, and the configuration says why. */
static void test_findfile_bounds(void)
{
        g_autofree char *root = test_mkdtemp(), *over = findfile_names(0, RC_FINDFILE_RULE_NAMES_MAX + 1);
        g_autofree char *at = findfile_names(0, RC_FINDFILE_RULE_NAMES_MAX), *text = NULL, *many = NULL;
        g_autoptr(GString) rules = g_string_new("{\"rules\": [");
        g_autoptr(RcConfig) one = NULL, not_one = NULL, all = NULL;
        g_autoptr(RcResolution) r1 = NULL, r2 = NULL, r3 = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        RcProcessFacts facts = { .exe = "/bin/game" };
        unsigned n_rules = RC_FINDFILE_NAMES_MAX / RC_FINDFILE_RULE_NAMES_MAX + 1;

        for (unsigned i = 0; i <= RC_FINDFILE_NAMES_MAX; i++) {
                g_autofree char *rel = g_strdup_printf("bin/n%u", i);
                test_write_file(root, rel, "");
        }
        root_fd = test_open_dir(root);
        facts.root_fd = root_fd;

        text = g_strdup_printf(RULE("[{\"feature\": \"findfile\", \"matches\": \"%s\"}, "
                                    "{\"feature\": \"findfile\", \"matches\": \"n0\"}]"),
                        at);
        one = config1(text);
        g_assert_cmpint(rc_resolve(one, &facts, &r1), ==, 0);
        g_assert_false(r1->rules[0].matched);
        g_assert_true(has_diagnostic(&one->files[0]->diagnostics, "name 17 files, more than 16"));

        free(text);
        text = g_strdup_printf(RULE("{\"op\": \"not\", \"sub\": {\"feature\": \"findfile\", \"matches\": "
                                    "\"%s:absent\"}}"),
                        over);
        not_one = config1(text);
        g_assert_cmpint(rc_resolve(not_one, &facts, &r2), ==, 0);
        g_assert_false(r2->rules[0].matched);

        /* Rules of 16 names each: the first four take the 64; the fifth never matches. */
        for (unsigned i = 0; i < n_rules; i++)
                g_string_append_printf(rules,
                                "%s{\"pattern\": {\"feature\": \"findfile\", \"matches\": \"%s\"}, \"profile\": "
                                "[\"k%u\", 1]}",
                                i ? ", " : "", at, i);
        g_string_append(rules, "]}");
        many = g_strdup(rules->str);
        all = config1(many);
        g_assert_cmpint(rc_resolve(all, &facts, &r3), ==, 0);
        g_assert_cmpuint(r3->n_rules, ==, n_rules);
        for (unsigned i = 0; i + 1 < n_rules; i++)
                g_assert_true(r3->rules[i].matched);
        g_assert_false(r3->rules[n_rules - 1].matched);
        g_assert_true(has_diagnostic(&all->diagnostics, "past 64 names in all"));
}

/* Case 20: the README's precedence example across two files. */
static void test_readme_precedence(void)
{
        const char *texts[] = {
                "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"a\", 1]},\n"
                "            {\"pattern\": \"foo\", \"profile\": [\"a\", 0, \"b\", 2]}]}",
                "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"a\", 0, \"b\", 0, \"c\", 3]}]}",
        };
        g_autoptr(RcConfig) c = test_config_from_texts(texts, 2);
        g_autoptr(RcResolution) r = test_resolve(c, "/usr/bin/foo", "foo", "foo", NULL, NULL);
        const RcEffectiveSetting *a, *b, *cc;

        g_assert_cmpuint(r->n_matched, ==, 3);
        g_assert_cmpuint(r->n_settings, ==, 3);
        g_assert_cmpint(test_setting_int(r, "a"), ==, 1);
        g_assert_cmpint(test_setting_int(r, "b"), ==, 2);
        g_assert_cmpint(test_setting_int(r, "c"), ==, 3);

        /* Provenance: who set it, and who lost. */
        a = test_find_setting(r, "a");
        g_assert_cmpstr(a->ref->rule->location.file->path, ==, "file0.rc");
        g_assert_cmpuint(a->ref->rule->location.line, ==, 1);
        g_assert_cmpuint(a->n_shadowed, ==, 2);
        g_assert_cmpuint(a->shadowed[0].ref->rule->location.line, ==, 2);
        g_assert_cmpstr(a->shadowed[1].ref->rule->location.file->path, ==, "file1.rc");
        b = test_find_setting(r, "b");
        g_assert_cmpuint(b->ref->rule->location.line, ==, 2);
        g_assert_cmpuint(b->n_shadowed, ==, 1);
        cc = test_find_setting(r, "c");
        g_assert_cmpstr(cc->ref->rule->location.file->path, ==, "file1.rc");
        g_assert_cmpuint(cc->n_shadowed, ==, 0);
        /* Keys are reported in the order they were first set. */
        g_assert_cmpstr(r->settings[0].setting->key, ==, "a");
        g_assert_cmpstr(r->settings[2].setting->key, ==, "c");
}

/* Case 26: a dangling reference is a warning; the rule contributes nothing; others still apply. */
static void test_dangling_reference(void)
{
        const char *texts[] = { "{\"rules\": [{\"pattern\": \"foo\", \"profile\": \"Nowhere\"},\n"
                                " {\"pattern\": \"foo\", \"profile\": \"P\"}],\n"
                                " \"profiles\": [{\"name\": \"P\", \"settings\": [\"k\", 5]}]}" };
        g_autoptr(RcConfig) c = test_config_from_texts(texts, 1);
        g_autoptr(RcResolution) r = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);

        g_assert_true(test_has_diag(&c->diagnostics, RC_SEVERITY_WARNING, 1, 12, "profile \"Nowhere\""));
        g_assert_cmpuint(r->n_matched, ==, 2);
        g_assert_null(r->rules[0].ref->profile);
        g_assert_cmpint(test_setting_int(r, "k"), ==, 5);
        g_assert_cmpuint(r->n_settings, ==, 1);
}

/* Profiles defined in a later file are visible to earlier ones; duplicates: first definition wins. */
static void test_cross_file_profiles(void)
{
        const char *texts[] = {
                "{\"rules\": [{\"pattern\": \"foo\", \"profile\": \"Later\"}],\n"
                " \"profiles\": [{\"name\": \"Dup\", \"settings\": [\"d\", 1]}]}",
                "{\"rules\": [{\"pattern\": \"foo\", \"profile\": \"Dup\"}],\n"
                " \"profiles\": [{\"name\": \"Later\", \"settings\": [\"l\", 2]},\n"
                "               {\"name\": \"Dup\", \"settings\": [\"d\", 0]}]}",
        };
        g_autoptr(RcConfig) c = test_config_from_texts(texts, 2);
        g_autoptr(RcResolution) r = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);

        g_assert_cmpint(test_setting_int(r, "l"), ==, 2);
        g_assert_cmpint(test_setting_int(r, "d"), ==, 1);
        g_assert_true(test_has_diag(&c->diagnostics, RC_SEVERITY_WARNING, 3, 16, "already defined at file0.rc:2:15"));
        g_assert_cmpuint(c->n_profiles, ==, 2);
}

/* Case 28: the globals file and the environment switch; env variables override keys. */
static void test_environment(void)
{
        const char *texts[] = { "{\"rules\": [{\"pattern\": \"foo\", \"profile\": [\"GLThreadedOptimizations\", true, "
                                "\"GLVidHeapReuseRatio\", 0]}]}" };
        g_autoptr(RcConfig) c = test_config_from_texts(texts, 1);
        const char *const env_override[] = { "HOME=/home/u", "__GL_THREADED_OPTIMIZATIONS=0", NULL };
        const char *const env_off[] = { "__GL_APPLICATION_PROFILE=0", NULL };
        const char *const env_on[] = { "__GL_APPLICATION_PROFILE=1", NULL };
        g_autoptr(RcResolution) r1 = test_resolve(c, "/bin/foo", NULL, NULL, NULL, env_override);
        g_autoptr(RcResolution) r2 = test_resolve(c, "/bin/foo", NULL, NULL, NULL, env_off);
        g_autoptr(RcResolution) r3 = NULL, r4 = NULL;
        const RcEffectiveSetting *s;

        s = test_find_setting(r1, "GLThreadedOptimizations");
        g_assert_cmpstr(s->env_variable, ==, "__GL_THREADED_OPTIMIZATIONS");
        g_assert_cmpstr(s->env_value, ==, "0");
        s = test_find_setting(r1, "GLVidHeapReuseRatio");
        g_assert_null(s->env_variable);
        g_assert_true(rc_resolution_is_effective(r1));

        g_assert_cmpint(r2->state, ==, RC_PROFILES_DISABLED_BY_ENVIRONMENT);
        g_assert_false(rc_resolution_is_effective(r2));
        /* Still computed: "would apply". */
        g_assert_cmpuint(r2->n_settings, ==, 2);

        c->globals_enabled = false;
        r3 = test_resolve(c, "/bin/foo", NULL, NULL, NULL, NULL);
        r4 = test_resolve(c, "/bin/foo", NULL, NULL, NULL, env_on);
        g_assert_cmpint(r3->state, ==, RC_PROFILES_DISABLED_BY_GLOBALS);
        g_assert_false(rc_resolution_is_effective(r3));
        g_assert_cmpint(r4->state, ==, RC_PROFILES_ENABLED_BY_ENVIRONMENT);
        g_assert_true(rc_resolution_is_effective(r4));
}

/* Unknown facts never match, and never crash. */
static void test_unknown_facts(void)
{
        g_autoptr(RcConfig) c = config1(
                        "{\"rules\": [{\"pattern\": \"a\", \"profile\": [\"k\", 1]},"
                        " {\"pattern\": {\"feature\": \"commname\", \"matches\": \"\"}, \"profile\": [\"k\", 1]},"
                        " {\"pattern\": {\"feature\": \"cmdline\", \"matches\": \"\"}, \"profile\": [\"k\", 1]},"
                        " {\"pattern\": {\"feature\": \"findfile\", \"matches\": \"x\"}, \"profile\": [\"k\", 1]}]}");
        g_autoptr(RcResolution) r = test_resolve(c, NULL, NULL, NULL, NULL, NULL);

        g_assert_cmpuint(r->n_rules, ==, 4);
        g_assert_cmpuint(r->n_matched, ==, 0);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-resolve/true", test_true);
        g_test_add_func("/rc-resolve/not", test_not);
        g_test_add_func("/rc-resolve/nested-ops", test_nested_ops);
        g_test_add_func("/rc-resolve/pattern-arrays", test_pattern_arrays);
        g_test_add_func("/rc-resolve/procname", test_procname);
        g_test_add_func("/rc-resolve/cmdline", test_cmdline);
        g_test_add_func("/rc-resolve/commname", test_commname);
        g_test_add_func("/rc-resolve/dso", test_dso);
        g_test_add_func("/rc-resolve/findfile", test_findfile);
        g_test_add_func("/rc-resolve/findfile-links", test_findfile_links);
        g_test_add_func("/rc-resolve/findfile-bounds", test_findfile_bounds);
        g_test_add_func("/rc-resolve/readme-precedence", test_readme_precedence);
        g_test_add_func("/rc-resolve/dangling-reference", test_dangling_reference);
        g_test_add_func("/rc-resolve/cross-file-profiles", test_cross_file_profiles);
        g_test_add_func("/rc-resolve/environment", test_environment);
        g_test_add_func("/rc-resolve/unknown-facts", test_unknown_facts);
        return g_test_run();
}
