/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile doctor (daemon/appprofile/rc-doctor.h): every kind on crafted files with its place and its
 * exact fix, nothing for healthy rules, and the real files of the corpus (read in place). */

#include <unistd.h>

#include "fd-util.h"
#include "rc-doctor.h"
#include "rc-edit-transaction.h"
#include "rc-edit.h"
#include "rc-rule-id.h"
#include "test-util.h"

#define HOME "/home/u"
#define USER_FILE HOME "/.nv/nvidia-application-profiles-rc"
#define USER_DIR HOME "/.nv/nvidia-application-profiles-rc.d/"
#define SYSTEM_DIR "/etc/nvidia/nvidia-application-profiles-rc.d/"
#define SHIPPED "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc"

static char *corpus_text(const char *name)
{
        g_autofree char *path = g_strdup_printf("appprofiles/%s", name);
        g_autofree char *full = test_corpus_path(path);
        g_autoptr(GError) error = NULL;
        char *text = NULL;

        g_file_get_contents(full, &text, NULL, &error);
        g_assert_no_error(error);
        return text;
}

/* A root tree with files at (path, text) pairs, loaded as HOME's configuration. */
static RcConfig *load_tree(const char *const *pairs, bool trailing_commas)
{
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int fd = -EBADF;
        RcConfig *c = NULL;

        for (const char *const *p = pairs; *p; p += 2)
                test_write_file(root, p[0] + 1, p[1]);
        fd = test_open_dir(root);
        RcLoadOptions o = {
                .root_fd = fd,
                .home = HOME,
                .driver_version = "570.153.02",
                .syntax = { .accept_trailing_commas = trailing_commas },
        };
        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        return c;
}

static const RcFile *find_file(const RcConfig *c, const char *path)
{
        for (size_t i = 0; i < c->n_files; i++)
                if (streq(c->files[i]->path, path))
                        return c->files[i];
        g_assert_not_reached();
}

/* The id of rule k of the file at path, as "rules" prints it. */
static char *rule_id(const RcConfig *c, const char *path, size_t k)
{
        const RcFile *f = find_file(c, path);
        _cleanup_free_ char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;

        g_assert_cmpint(rc_file_rule_ids(f, &ids), ==, 0);
        g_assert_cmpuint(k, <, f->n_rules);
        return g_strdup(ids[k]);
}

static void dump(const RcFindings *f)
{
        for (size_t i = 0; i < f->n_items; i++)
                g_test_message("%s:%u:%u: %s: %s [%s]", f->items[i].path, f->items[i].line, f->items[i].column,
                                rc_doctor_kind_to_string(f->items[i].kind), f->items[i].message,
                                strna(f->items[i].fix));
}

/* Asserts that finding i is kind at path:line (column when not 0), with exactly fix (NULL: none), and that
 * its sentence holds needle. */
static void assert_finding(const RcFindings *f, size_t i, RcDoctorKind kind, const char *path, uint32_t line,
                uint32_t column, const char *fix, const char *needle)
{
        g_assert_cmpuint(i, <, f->n_items);
        g_test_message("checking finding %zu: %s at %s:%u", i, rc_doctor_kind_to_string(kind), path, line);
        g_assert_cmpstr(rc_doctor_kind_to_string(f->items[i].kind), ==, rc_doctor_kind_to_string(kind));
        g_assert_cmpstr(f->items[i].path, ==, path);
        g_assert_cmpuint(f->items[i].line, ==, line);
        if (column > 0)
                g_assert_cmpuint(f->items[i].column, ==, column);
        g_assert_cmpstr(f->items[i].fix, ==, fix);
        g_assert_nonnull(strstr(f->items[i].message, needle));
}

/* The "Done when": a procname "niri" rule while .niri-wrapped runs, a duplicate rule, a dead rule
 * and GLSyncToVBlank, each at its line with its fix; nothing for the healthy rule. */
static const char done_when[] =
                "{\n"
                "  \"rules\": [\n"
                "    { \"pattern\": { \"feature\": \"procname\", \"matches\": \"niri\" }, \"profile\": \"Niri\" },\n"
                "    { \"pattern\": \"firefox\", \"profile\": \"Vsync\" },\n"
                "    { \"pattern\": \"firefox\", \"profile\": \"Vsync\" },\n"
                "    { \"pattern\": { \"feature\": \"true\", \"matches\": \"\" }, \"profile\": \"Vsync\" },\n"
                "    { \"pattern\": \"glxgears\", \"profile\": \"Vsync\" },\n"
                "    { \"pattern\": \"healthy\", \"profile\": \"Healthy\" }\n"
                "  ],\n"
                "  \"profiles\": [\n"
                "    { \"name\": \"Niri\", \"settings\": [ { \"key\": \"GLVidHeapReuseRatio\", \"value\": 0 } ] },\n"
                "    { \"name\": \"Vsync\", \"settings\": [ { \"key\": \"GLSyncToVBlank\", \"value\": \"1\" } ] },\n"
                "    { \"name\": \"Healthy\", \"settings\": [ { \"key\": \"GLThreadedOptimizations\", \"value\": true } ] }\n"
                "  ]\n"
                "}\n";

static void test_done_when(void)
{
        g_autofree char *shipped_text = corpus_text("nvidia-shipped-570.153.02-rc");
        const char *const pairs[] = { USER_FILE, done_when, SHIPPED, shipped_text, NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, false);
        const RcDoctorProcess processes[] = {
                { .procname = ".niri-wrapped", .comm = ".niri-wrapped", .cmdline = "niri", .pid = 42 },
                { .procname = "healthy", .comm = "healthy", .cmdline = "healthy", .pid = 43 },
        };
        RcDoctorOptions o = { .processes = processes, .n_processes = 2, .user_files = true };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        g_autofree char *niri = rule_id(c, USER_FILE, 0), *dup = rule_id(c, USER_FILE, 2),
                        *dead = rule_id(c, USER_FILE, 4);
        g_autofree char *niri_fix = g_strdup_printf(
                        "nvprofilectl rules set %s --or --procname=niri --procname=.niri-wrapped", niri);
        g_autofree char *dup_fix = g_strdup_printf("nvprofilectl rules remove %s", dup);
        g_autofree char *dead_fix = g_strdup_printf("nvprofilectl rules remove %s", dead);

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 4);
        g_assert_cmpuint(f.n_dropped, ==, 0);
        assert_finding(&f, 0, RC_DOCTOR_NEAR_MISS, USER_FILE, 3, 18, niri_fix, ".niri-wrapped (pid 42) runs");
        assert_finding(&f, 1, RC_DOCTOR_DUPLICATE_RULE, USER_FILE, 5, 5, dup_fix, USER_FILE ":4");
        assert_finding(&f, 2, RC_DOCTOR_DEAD_RULE, USER_FILE, 7, 5, dead_fix, "GLSyncToVBlank by " USER_FILE ":6");
        assert_finding(&f, 3, RC_DOCTOR_UNKNOWN_KEY, USER_FILE, 12, 0,
                        "nvprofilectl profiles set Vsync --unset=GLSyncToVBlank --setting=GLSyncToVblank=true "
                        "--file=" USER_FILE,
                        "did you mean \"GLSyncToVblank\"");

        /* --home: every fix says whose files; the system's files are not asked for, so nothing changes. */
        rc_findings_done(&f);
        o.home_option = HOME;
        o.system_files = true;
        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        g_assert_cmpuint(f.n_items, ==, 4);
        for (size_t i = 0; i < f.n_items; i++)
                g_assert_true(g_str_has_suffix(f.items[i].fix, " --home=" HOME));

        /* Not asked about the user's files: nothing, and never about the shipped file. */
        rc_findings_done(&f);
        o.user_files = false;
        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 0);

        /* No process seen: no near miss. */
        rc_findings_done(&f);
        o = (RcDoctorOptions){ .user_files = true };
        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        g_assert_cmpuint(f.n_items, ==, 3);
        g_assert_cmpint(f.items[0].kind, ==, RC_DOCTOR_DUPLICATE_RULE);
}

/* Healthy rules, whatever the processes: nothing at all. */
static void test_healthy(void)
{
        const char *const pairs[] = { USER_DIR RC_EDIT_DEFAULT_FILE_NAME,
                "{ \"rules\": [ { \"pattern\": \"niri\", \"profile\": \"P\" },\n"
                "  { \"pattern\": { \"feature\": \"commname\", \"matches\": \"steam\" }, \"profile\": { \"settings\": [\"GLSyncToVblank\", false] } } ],\n"
                "  \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"GLVidHeapReuseRatio\", 0, \"0x166c5e\", 0 ] } ] }\n",
                NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, false);
        const RcDoctorProcess processes[] = {
                { .procname = "niri", .comm = "niri", .cmdline = "niri", .pid = 7 },
                { .procname = "Steam", .comm = "steam", .cmdline = "steam" },
        };
        RcDoctorOptions o = { .processes = processes, .n_processes = 2, .user_files = true, .system_files = true };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 0);
}

static void test_near_misses(void)
{
        const char *const pairs[] = { USER_DIR RC_EDIT_DEFAULT_FILE_NAME,
                "{ \"rules\": [\n"
                "  { \"pattern\": { \"op\": \"and\", \"sub\": [ { \"feature\": \"procname\", \"matches\": \"/usr/bin/foo\" }, { \"feature\": \"commname\", \"matches\": \"foo\" } ] }, \"profile\": \"P\" },\n"
                "  { \"pattern\": \"Steam\", \"profile\": \"P\" },\n"
                "  { \"pattern\": { \"feature\": \"commname\", \"matches\": \"VeryLongProgramName\" }, \"profile\": \"P\" },\n"
                "  { \"pattern\": \"com.obsproject.Studio\", \"profile\": \"P\" },\n"
                "  { \"pattern\": \"Game.exe\", \"profile\": \"P\" },\n"
                "  { \"pattern\": \"nothing-close\", \"profile\": \"P\" },\n"
                "  { \"pattern\": [ \"zzz\", { \"op\": \"not\", \"sub\": [ \"Steam\" ] } ], \"profile\": \"P\" }\n"
                "], \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"GLVidHeapReuseRatio\", 0 ] } ] }\n",
                NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, false);
        const RcDoctorProcess processes[] = {
                { .procname = "foo", .comm = "foo", .cmdline = "foo", .pid = 1 },
                { .procname = "steam", .comm = "steam", .cmdline = "steam", .last_seen_usec = 1764450000000000 },
                { .procname = "VeryLongProgramName", .comm = "VeryLongProgram", .pid = 3 },
                { .procname = "obs", .comm = "obs", .cmdline = "obs", .flatpak_id = "com.obsproject.Studio", .pid = 4 },
                { .procname = "wine64-preloader", .comm = "Game.exe", .cmdline = "Game.exe", .pid = 5 },
        };
        RcDoctorOptions o = { .processes = processes, .n_processes = ELEMENTSOF(processes), .user_files = true };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        const char *path = USER_DIR RC_EDIT_DEFAULT_FILE_NAME;
        char *ids[5];
        g_autofree char *fix0 = NULL, *fix1 = NULL, *fix2 = NULL, *fix3 = NULL, *fix4 = NULL;

        for (size_t i = 0; i < 5; i++)
                ids[i] = rule_id(c, path, i);
        fix0 = g_strdup_printf("nvprofilectl rules set %s '--pattern={ \"op\": \"and\", \"sub\": [ { \"op\": \"or\", "
                               "\"sub\": [ { \"feature\": \"procname\", \"matches\": \"/usr/bin/foo\" }, { "
                               "\"feature\": \"procname\", \"matches\": \"foo\" } ] }, { \"feature\": \"commname\", "
                               "\"matches\": \"foo\" } ] }'",
                        ids[0]);
        fix1 = g_strdup_printf("nvprofilectl rules set %s --or --procname=Steam --procname=steam", ids[1]);
        fix2 = g_strdup_printf(
                        "nvprofilectl rules set %s --or --commname=VeryLongProgramName --commname=VeryLongProgram",
                        ids[2]);
        fix3 = g_strdup_printf(
                        "nvprofilectl rules set %s --or --procname=com.obsproject.Studio --procname=obs", ids[3]);
        fix4 = g_strdup_printf("nvprofilectl rules set %s --or --procname=Game.exe --cmdline=Game.exe", ids[4]);

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 5);
        assert_finding(&f, 0, RC_DOCTOR_NEAR_MISS, path, 2, 40, fix0, "foo (pid 1) runs");
        assert_finding(&f, 1, RC_DOCTOR_NEAR_MISS, path, 3, 16, fix1, "steam ran (last seen on 2025-11-29 21:00 UTC)");
        assert_finding(&f, 2, RC_DOCTOR_NEAR_MISS, path, 4, 16, fix2, "15 characters");
        assert_finding(&f, 3, RC_DOCTOR_NEAR_MISS, path, 5, 16, fix3, "obs (pid 4) runs: Flatpak");
        assert_finding(&f, 4, RC_DOCTOR_NEAR_MISS, path, 6, 16, fix4, "argv[0]");
        for (size_t i = 0; i < 5; i++)
                free(ids[i]);
}

/* Profiles, keys and values, in the user's rc.d file of nvprofilectl, fixed with profiles/rules set. */
static const char keys_file[] =
                "{ \"rules\": [\n"
                "  { \"pattern\": \"a\", \"profile\": \"No VidMem Reus\" },\n"
                "  { \"pattern\": \"b\", \"profile\": \"Nothing Like It\" },\n"
                "  { \"pattern\": \"c\", \"profile\": { \"settings\": [ \"GLSyncToVblank\", \"1\", \"GLFSAAMode\", 99 ] } },\n"
                "  { \"pattern\": \"d\", \"profile\": \"Keys\" }\n"
                "], \"profiles\": [\n"
                "  { \"name\": \"Unused\", \"settings\": [ \"GLVidHeapReuseRatio\", 0 ] },\n"
                "  { \"name\": \"Keys\", \"settings\": [ \"CudaNoStablePerfLimit\", 0,\n"
                "      \"0x1234ab\", 1,\n"
                "      \"GLGSYNCAllowed\", true,\n"
                "      \"GLThreadedOptimisations\", 1 ] }\n"
                "] }\n";

static void test_profiles_and_keys(void)
{
        g_autofree char *shipped_text = corpus_text("nvidia-shipped-570.153.02-rc");
        const char *const pairs[] = { USER_DIR RC_EDIT_DEFAULT_FILE_NAME, keys_file, SHIPPED, shipped_text, NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, false);
        RcDoctorOptions o = { .user_files = true };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        const char *path = USER_DIR RC_EDIT_DEFAULT_FILE_NAME;
        g_autofree char *a = rule_id(c, path, 0), *cc = rule_id(c, path, 2);
        g_autofree char *missing_fix = g_strdup_printf("nvprofilectl rules set %s '--profile=No VidMem Reuse'", a);
        g_autofree char *bool_fix = g_strdup_printf("nvprofilectl rules set %s --setting=GLSyncToVblank=true", cc);

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 9);
        assert_finding(&f, 0, RC_DOCTOR_MISSING_PROFILE, path, 2, 3, missing_fix, "did you mean \"No VidMem Reuse\"");
        assert_finding(&f, 1, RC_DOCTOR_MISSING_PROFILE, path, 3, 3, NULL, "\"Nothing Like It\", which no file");
        assert_finding(&f, 2, RC_DOCTOR_WRONG_VALUE, path, 4, 48, bool_fix, "GLSyncToVblank is a boolean");
        assert_finding(&f, 3, RC_DOCTOR_WRONG_VALUE, path, 4, 71, NULL, "GLFSAAMode is an integer from 0 to 15");
        assert_finding(&f, 4, RC_DOCTOR_UNUSED_PROFILE, path, 7, 3, "nvprofilectl profiles remove Unused",
                        "No rule names profile \"Unused\"");
        assert_finding(&f, 5, RC_DOCTOR_UNKNOWN_KEY, path, 8, 35,
                        "nvprofilectl profiles set Keys --unset=CudaNoStablePerfLimit --setting=0x166c5e=0",
                        "did you mean \"0x166c5e\"");
        assert_finding(&f, 6, RC_DOCTOR_UNKNOWN_KEY, path, 9, 7, NULL, "no known key is spelled like it");
        assert_finding(&f, 7, RC_DOCTOR_OBSOLETE_KEY, path, 10, 7,
                        "nvprofilectl profiles set Keys --unset=GLGSYNCAllowed --setting=GLVRRAllowed=true",
                        "current drivers read GLVRRAllowed");
        assert_finding(&f, 8, RC_DOCTOR_UNKNOWN_KEY, path, 11, 7,
                        "nvprofilectl profiles set Keys --unset=GLThreadedOptimisations "
                        "--setting=GLThreadedOptimizations=1",
                        "did you mean \"GLThreadedOptimizations\"");
}

/* Files: the system's, with --system fixes; not-portable, broken and installed files; never the shipped
 * file, although it has an unused profile (HideVendorID). */
static void test_files(void)
{
        g_autofree char *shipped_text = corpus_text("nvidia-shipped-570.153.02-rc");
        const char *const pairs[] = {
                SYSTEM_DIR "10-gsr-cuda-no-stable-perf-limit",
                "{ 'rules': [ { \"pattern\": \"gpu-screen-recorder\", \"profile\": \"P\" }, ],\n"
                "  \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"0x166c5e\", 0 ] } ] }\n",
                SYSTEM_DIR "20-broken",
                "{ \"rules\": [ }\n",
                /* A subdirectory of rc.d (nvidia-settings' .backup): skipped, and no installed file. */
                SYSTEM_DIR "30-subdirectory/x",
                "{}\n",
                SYSTEM_DIR RC_EDIT_DEFAULT_FILE_NAME,
                "{ \"rules\": [ { \"pattern\": \"x\", \"profile\": \"Q\" } ],\n"
                "  \"profiles\": [ { \"name\": \"Q\", \"settings\": [ \"GLSyncToVblank\", 1 ] },\n"
                "    { \"name\": \"R\", \"settings\": [ \"GLSyncToVblank\", 1 ] } ] }\n",
                "/etc/nvidia/nvidia-application-profiles-rc",
                "{ \"profiles\": [ { \"name\": \"S\", \"settings\": [ \"GLSyncToVblank\", 1 ] } ] }\n",
                SHIPPED,
                shipped_text,
                NULL,
        };
        g_autoptr(RcConfig) c = load_tree(pairs, true);
        RcDoctorOptions o = { .system_files = true, .user_files = true, .home_option = HOME };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        const char *gsr = SYSTEM_DIR "10-gsr-cuda-no-stable-perf-limit", *broken = SYSTEM_DIR "20-broken",
                   *own = SYSTEM_DIR RC_EDIT_DEFAULT_FILE_NAME;

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 7);
        assert_finding(&f, 0, RC_DOCTOR_UNUSED_PROFILE, "/etc/nvidia/nvidia-application-profiles-rc", 1, 17,
                        "nvprofilectl profiles remove S --file=/etc/nvidia/nvidia-application-profiles-rc --system",
                        "\"S\"");
        assert_finding(&f, 1, RC_DOCTOR_INSTALLED_FILE, gsr, 0, 0, NULL, "gpu-screen-recorder");
        assert_finding(&f, 2, RC_DOCTOR_NOT_PORTABLE, gsr, 1, 3, NULL, "single quotes");
        assert_finding(&f, 3, RC_DOCTOR_NOT_PORTABLE, gsr, 1, 66, NULL, "trailing comma");
        assert_finding(&f, 4, RC_DOCTOR_INSTALLED_FILE, broken, 0, 0, NULL, "Not written by nvprofilectl");
        assert_finding(&f, 5, RC_DOCTOR_BROKEN_FILE, broken, 1, 14, NULL, "the file contributes nothing");
        assert_finding(&f, 6, RC_DOCTOR_UNUSED_PROFILE, own, 3, 5, "nvprofilectl profiles remove R --system", "\"R\"");
        for (size_t i = 0; i < f.n_items; i++)
                g_assert_false(g_str_has_prefix(f.items[i].path, "/usr/"));

        /* The system's files only when asked for. */
        rc_findings_done(&f);
        o.system_files = false;
        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        g_assert_cmpuint(f.n_items, ==, 0);
}

/* The doctor on a corpus file placed at path (with the shipped 570 file), trailing commas accepted as the
 * daemon may be configured to; never a finding about another file. */
static void run_on_corpus(
                const char *name, const char *path, const RcDoctorProcess *processes, size_t n, RcFindings *ret)
{
        g_autofree char *text = corpus_text(name), *shipped = corpus_text("nvidia-shipped-570.153.02-rc");
        const char *const pairs[] = { path, text, SHIPPED, shipped, NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, true);
        RcDoctorOptions o = { .processes = processes, .n_processes = n, .user_files = true, .system_files = true };

        g_test_message("corpus file %s as %s", name, path);
        g_assert_cmpint(rc_doctor_run(c, &o, ret), ==, 0);
        dump(ret);
        for (size_t i = 0; i < ret->n_items; i++) {
                g_assert_cmpstr(ret->items[i].path, ==, path);
                g_assert_nonnull(rc_doctor_kind_to_string(ret->items[i].kind));
                g_assert_nonnull(ret->items[i].message);
        }
}

static bool has_finding(const RcFindings *f, RcDoctorKind kind, uint32_t line, const char *needle)
{
        for (size_t i = 0; i < f->n_items; i++)
                if (f->items[i].kind == kind && f->items[i].line == line && strstr(f->items[i].message, needle))
                        return true;
        return false;
}

/* Every corpus file, as a user's file: no crash, nothing about the shipped file. */
static void test_corpus_every_file(void)
{
        g_autofree char *dir = test_corpus_path("appprofiles");
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        const RcDoctorProcess processes[] = {
                { .procname = "librewolf", .comm = "librewolf", .cmdline = "librewolf", .pid = 9 },
                { .procname = ".niri-wrapped", .comm = ".niri-wrapped", .cmdline = "niri", .pid = 10 },
        };
        const char *name;
        size_t n = 0;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                _cleanup_(rc_findings_done) RcFindings f = { 0 };

                if (streq(name, "SOURCES.md"))
                        continue;
                run_on_corpus(name, USER_FILE, processes, ELEMENTSOF(processes), &f);
                n++;
        }
        g_assert_cmpuint(n, >=, 16);
}

/* Known problems of real files. */
static void test_corpus_problems(void)
{
        const RcDoctorProcess librewolf[] = {
                { .procname = "librewolf", .comm = "librewolf", .cmdline = "librewolf", .pid = 9 },
        };
        _cleanup_(rc_findings_done) RcFindings comma = { 0 }, mrbjarksen = { 0 }, avindra = { 0 }, invalid = { 0 },
                                               wolf = { 0 }, gsr = { 0 }, container = { 0 }, niri = { 0 };
        const RcDoctorProcess wrapped[] = {
                { .procname = ".niri-wrapped", .comm = ".niri-wrapped", .cmdline = "niri", .pid = 10 },
        };

        run_on_corpus("popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json", SYSTEM_DIR "cuda-no-stable-perf-limit",
                        NULL, 0, &comma);
        g_assert_true(has_finding(&comma, RC_DOCTOR_NOT_PORTABLE, 26, "trailing comma"));
        g_assert_cmpuint(comma.items[1].column, ==, 68);
        g_assert_true(has_finding(&comma, RC_DOCTOR_INSTALLED_FILE, 0, "Pop!_OS"));

        run_on_corpus("dotfiles-mrbjarksen-nvsettings-generated.json", USER_FILE, NULL, 0, &mrbjarksen);
        g_assert_true(has_finding(&mrbjarksen, RC_DOCTOR_OBSOLETE_KEY, 20, "GLGSYNCAllowed is obsolete"));
        run_on_corpus("dotfiles-avindra-true-feature.json", USER_FILE, NULL, 0, &avindra);
        g_assert_true(has_finding(&avindra, RC_DOCTOR_OBSOLETE_KEY, 20, "GLGSYNCAllowed is obsolete"));

        run_on_corpus("cachyos-limit-vram-usage-2025-05-INVALID.rc", SYSTEM_DIR "limit-vram-usage", NULL, 0, &invalid);
        g_assert_true(has_finding(&invalid, RC_DOCTOR_BROKEN_FILE, 7, "the file contributes nothing"));

        /* Outside NixOS, librewolf runs as itself. */
        run_on_corpus("nixos-librewolf-DUPKEYS.json", SYSTEM_DIR "60-librewolf-firefox.json", librewolf, 1, &wolf);
        g_assert_true(has_finding(&wolf, RC_DOCTOR_NEAR_MISS, 9, "librewolf (pid 9) runs"));

        run_on_corpus("gpu-screen-recorder-10-gsr-cuda-no-stable-perf-limit.json",
                        USER_DIR "10-gsr-cuda-no-stable-perf-limit", NULL, 0, &gsr);
        g_assert_true(has_finding(&gsr, RC_DOCTOR_INSTALLED_FILE, 0, "gpu-screen-recorder"));

        run_on_corpus("SYNTH-libnvidia-container-10-container.conf", SYSTEM_DIR "10-container.conf", NULL, 0,
                        &container);
        g_assert_true(has_finding(&container, RC_DOCTOR_INSTALLED_FILE, 0, "libnvidia-container"));

        run_on_corpus("niri-wiki-50-limit-free-buffer-pool.json",
                        SYSTEM_DIR "50-limit-free-buffer-pool-in-wayland-compositors.json", wrapped, 1, &niri);
        g_assert_true(has_finding(&niri, RC_DOCTOR_NEAR_MISS, 4, ".niri-wrapped (pid 10) runs"));
}

/* Applies edit to the user file's text, addressing the rule by id as the fix does. */
static char *apply_fix(const char *text, RcEdit *edit, const char *id)
{
        RcDiagnostics diags = { 0 };
        char *out = NULL;

        if (id) {
                _cleanup_(rc_file_unrefp) RcFile *f = NULL;
                size_t index;

                g_assert_cmpint(rc_file_parse(USER_FILE, text, strlen(text), NULL, &f), ==, 0);
                g_assert_cmpint(rc_file_find_rule(f, id, &index), ==, 0);
                edit->index = index;
        }
        g_assert_cmpint(rc_edit_apply(USER_FILE, text, strlen(text), edit, &diags, &out, NULL), ==, 0);
        rc_diagnostics_done(&diags);
        return out;
}

/* The fixes of the file, made as nvprofilectl makes them (its pattern options build this "or"),
 * one after the other by rule id: then the doctor has nothing more to say. */
static void test_done_when_fixed(void)
{
        g_autofree char *shipped = corpus_text("nvidia-shipped-570.153.02-rc");
        const RcDoctorProcess processes[] = {
                { .procname = ".niri-wrapped", .comm = ".niri-wrapped", .cmdline = "niri", .pid = 42 },
                { .procname = "healthy", .comm = "healthy", .cmdline = "healthy", .pid = 43 },
        };
        RcDoctorOptions o = { .processes = processes, .n_processes = 2, .user_files = true };
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        const char *const before[] = { USER_FILE, done_when, NULL };
        g_autoptr(RcConfig) c = load_tree(before, false);
        g_autofree char *niri = rule_id(c, USER_FILE, 0), *dup = rule_id(c, USER_FILE, 2),
                        *dead = rule_id(c, USER_FILE, 4);
        static const RcEditSetting vblank[] = { { "GLSyncToVblank", "true" } };
        static char *const unset[] = { (char *) "GLSyncToVBlank" };
        g_autofree char *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;

        t1 = apply_fix(done_when,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_RULE,
                                        .pattern = "{ \"op\": \"or\", \"sub\": [ { \"feature\": \"procname\", \"matches\": "
                                                   "\"niri\" }, { \"feature\": \"procname\", \"matches\": "
                                                   "\".niri-wrapped\" } ] }" },
                        niri);
        t2 = apply_fix(t1, &(RcEdit){ .operation = RC_EDIT_REMOVE_RULE }, dup);
        t3 = apply_fix(t2, &(RcEdit){ .operation = RC_EDIT_REMOVE_RULE }, dead);
        t4 = apply_fix(t3,
                        &(RcEdit){ .operation = RC_EDIT_UPDATE_PROFILE,
                                        .profile = "Vsync",
                                        .settings = vblank,
                                        .n_settings = 1,
                                        .unset = unset,
                                        .n_unset = 1 },
                        NULL);

        const char *const after[] = { USER_FILE, t4, SHIPPED, shipped, NULL };
        g_autoptr(RcConfig) fixed = load_tree(after, false);
        g_assert_cmpint(rc_doctor_run(fixed, &o, &f), ==, 0);
        dump(&f);
        g_assert_cmpuint(f.n_items, ==, 0);
}

/* Findings are bounded; the rest are counted. */
static void test_bounded(void)
{
        g_autoptr(GString) text = g_string_new("{ \"profiles\": [\n");
        _cleanup_(rc_findings_done) RcFindings f = { 0 };
        RcDoctorOptions o = { .user_files = true };

        for (unsigned i = 0; i < RC_FINDINGS_MAX + 44; i++)
                g_string_append_printf(text, "%s  { \"name\": \"P%u\", \"settings\": [ \"GLSyncToVblank\", true ] }\n",
                                i > 0 ? "," : "", i);
        g_string_append(text, "] }\n");
        const char *const pairs[] = { USER_FILE, text->str, NULL };
        g_autoptr(RcConfig) c = load_tree(pairs, false);

        g_assert_cmpint(rc_doctor_run(c, &o, &f), ==, 0);
        g_assert_cmpuint(f.n_items, ==, RC_FINDINGS_MAX);
        g_assert_cmpuint(f.n_dropped, ==, 44);
        /* The first ones, in line order. */
        for (size_t i = 0; i < f.n_items; i++) {
                g_assert_cmpint(f.items[i].kind, ==, RC_DOCTOR_UNUSED_PROFILE);
                g_assert_cmpuint(f.items[i].line, ==, i + 2);
        }
}

/* What a caller's file can make the single-threaded daemon do is bounded: operators nested as deep as the
 * reader allows (whose implication would take exponential time), and thousands of rules compared with each
 * other, stop at RC_DOCTOR_STEPS_MAX with the run marked incomplete, never a guess. The time of each run is
 * printed (a bound's proof, not a timed test). */
static void run_timed(const char *what, const RcConfig *c, RcFindings *f)
{
        RcDoctorProcess processes[64];
        RcDoctorOptions o = { .processes = processes, .n_processes = G_N_ELEMENTS(processes), .user_files = true };
        gint64 start;

        for (size_t i = 0; i < G_N_ELEMENTS(processes); i++)
                processes[i] = (RcDoctorProcess){ .procname = "other", .comm = "other", .cmdline = "other" };
        start = g_get_monotonic_time();
        g_assert_cmpint(rc_doctor_run(c, &o, f), ==, 0);
        g_test_message("%s: %.1f ms, %s", what, (g_get_monotonic_time() - start) / 1000.0,
                        f->incomplete ? "incomplete" : "complete");
}

static void test_bounded_work(void)
{
        g_autoptr(GString) nested = g_string_new("{ \"rules\": [\n");
        g_autoptr(GString) many = g_string_new("{ \"rules\": [\n");
        const char *open_or = "{ \"op\": \"or\", \"sub\": [ ", *open_and = "{ \"op\": \"and\", \"sub\": [ ";
        unsigned depth = 14; /* two JSON levels each: within RC_DEPTH_MAX */

        /* An "or" chain, then an "and" chain setting the same key: is the second dead? */
        for (unsigned k = 0; k < 2; k++) {
                g_string_append(nested, k ? ",\n  { \"pattern\": " : "  { \"pattern\": ");
                for (unsigned i = 0; i < depth; i++)
                        g_string_append(nested, k ? open_and : open_or);
                g_string_append_printf(nested, "\"app%u\"", k);
                for (unsigned i = 0; i < depth; i++)
                        g_string_append(nested, " ] }");
                g_string_append(nested, ", \"profile\": [ \"GLSharpenValue\", 5 ] }");
        }
        g_string_append(nested, "\n] }\n");
        for (unsigned i = 0; i < 3000; i++)
                g_string_append_printf(many, "%s  { \"pattern\": \"app%u\", \"profile\": [ \"GLSharpenValue\", 5 ] }\n",
                                i > 0 ? "," : "", i);
        g_string_append(many, "] }\n");

        {
                const char *const pairs[] = { USER_FILE, nested->str, NULL };
                g_autoptr(RcConfig) c = load_tree(pairs, false);
                _cleanup_(rc_findings_done) RcFindings f = { 0 };

                g_assert_cmpuint(c->n_rules, ==, 2);
                run_timed("nested operators", c, &f);
                g_assert_true(f.incomplete);
        }
        {
                const char *const pairs[] = { USER_FILE, many->str, NULL };
                g_autoptr(RcConfig) c = load_tree(pairs, false);
                _cleanup_(rc_findings_done) RcFindings f = { 0 };

                g_assert_cmpuint(c->n_rules, ==, 3000);
                run_timed("3000 rules", c, &f);
                g_assert_true(f.incomplete);
        }
        {
                /* The file with NVIDIA's: complete. */
                g_autofree char *shipped_text = corpus_text("nvidia-shipped-570.153.02-rc");
                const char *const pairs[] = { USER_FILE, done_when, SHIPPED, shipped_text, NULL };
                g_autoptr(RcConfig) c = load_tree(pairs, false);
                _cleanup_(rc_findings_done) RcFindings f = { 0 };

                run_timed("the done-when file and NVIDIA's 570 file", c, &f);
                g_assert_false(f.incomplete);
                g_assert_cmpuint(f.n_items, >, 0);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/rc-doctor/done-when", test_done_when);
        g_test_add_func("/rc-doctor/done-when/fixed", test_done_when_fixed);
        g_test_add_func("/rc-doctor/healthy", test_healthy);
        g_test_add_func("/rc-doctor/near-misses", test_near_misses);
        g_test_add_func("/rc-doctor/profiles-and-keys", test_profiles_and_keys);
        g_test_add_func("/rc-doctor/files", test_files);
        g_test_add_func("/rc-doctor/bounded", test_bounded);
        g_test_add_func("/rc-doctor/bounded-work", test_bounded_work);
        g_test_add_func("/rc-doctor/corpus/every-file", test_corpus_every_file);
        g_test_add_func("/rc-doctor/corpus/problems", test_corpus_problems);
        return g_test_run();
}
