/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every real rc file in the corpus (../shared/corpus/appprofiles, read in place), with the counts and
 * resolutions ../shared/docs/appprofiles.md gives: cases 6, 7, 24, 25, 29, 30 and the shipped file's merges. */

#include <fcntl.h>
#include <unistd.h>

#include "fd-util.h"
#include "test-util.h"

/* A diagnostic the documentation places: severity, line:column and part of the message. */
typedef struct ExpectedDiag {
        RcSeverity severity;
        uint32_t line, column;
        const char *needle;
} ExpectedDiag;

/* What each corpus file is, from ../shared/corpus/appprofiles/SOURCES.md and ../shared/docs/appprofiles.md §3, §4
 * and §8: every file there is listed here by name, and a file that is not makes the test fail. */
typedef struct Expectation {
        const char *name;
        RcFileState state;
        size_t n_profiles, n_rules, n_errors, n_warnings;
        ExpectedDiag diags[2]; /* the documented positions; severity 0 with a NULL needle ends the list */
} Expectation;

static const Expectation expectations[] = {
        /* §3, case 29: 27 profiles, 144 rules; 14 and 49 for 440.82. */
        { "nvidia-shipped-570.153.02-rc", RC_FILE_LOADED, 27, 144, 0, 0 },
        { "nvidia-shipped-440.82-rc", RC_FILE_LOADED, 14, 49, 0, 0 },
        /* One rule, "or" over 15 procnames, naming a profile defined only in the shipped file. */
        { "cachyos-limit-vram-usage.json", RC_FILE_LOADED, 0, 1, 0, 0 },
        /* 11 procname rules and its own "No VidMem Reuse". */
        { "cachyos-limit-vram-usage-2025-06-dupname.json", RC_FILE_LOADED, 1, 11, 0, 0 },
        /* Case 6: a bare rule object followed by ',': no enclosing {"rules": [...]}. */
        { "cachyos-limit-vram-usage-2025-05-INVALID.rc", RC_FILE_BROKEN, 0, 0, 1, 0,
                        { { RC_SEVERITY_ERROR, 7, 10, "after the end of the root object" } } },
        { "cachyos-cuda-no-stable-perf-limit-2025-12.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        { "popos-vram-limit.json", RC_FILE_LOADED, 0, 1, 0, 0 },
        /* Case 5: a trailing comma inside "sub", rejected with its position. */
        { "popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json", RC_FILE_BROKEN, 0, 0, 1, 0,
                        { { RC_SEVERITY_ERROR, 26, 68, "trailing comma before ']'" } } },
        { "dotfiles-mrbjarksen-nvsettings-generated.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        { "dotfiles-avindra-true-feature.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        { "niri-wiki-50-limit-free-buffer-pool.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        { "egl-wayland126-kelvie-true-feature.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        { "nixos-brycekormylo-dso-libGL.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        /* Case 7: three rules written as one object; the last pair survives, with a warning per key. */
        { "nixos-librewolf-DUPKEYS.json", RC_FILE_LOADED, 0, 1, 0, 2,
                        { { RC_SEVERITY_WARNING, 9, 3, "\"pattern\" appears 3 times" },
                                        { RC_SEVERITY_WARNING, 10, 3, "\"profile\" appears 3 times" } } },
        { "gpu-screen-recorder-10-gsr-cuda-no-stable-perf-limit.json", RC_FILE_LOADED, 1, 1, 0, 0 },
        /* Case 30: bare hex value, empty pattern array, .conf name. */
        { "SYNTH-libnvidia-container-10-container.conf", RC_FILE_LOADED, 1, 1, 0, 0 },
};

/* Not an rc file: the corpus's own description. */
#define CORPUS_INDEX "SOURCES.md"

static const Expectation *find_expectation(const char *name)
{
        for (size_t i = 0; i < G_N_ELEMENTS(expectations); i++)
                if (streq(expectations[i].name, name))
                        return &expectations[i];
        return NULL;
}

static RcFile *load_corpus_file(const char *name, const RcSyntaxOptions *o)
{
        g_autofree char *dir = test_corpus_path("appprofiles");
        _cleanup_close_ int fd = test_open_dir(dir);
        g_autofree char *path = g_strdup_printf("/%s", name);
        RcFile *f = NULL;

        /* The corpus directory is the root here, so paths read "/<name>". */
        g_assert_cmpint(rc_file_load(fd, path, o, NULL, &f), ==, 0);
        test_dump_diags(f->path, &f->diagnostics);
        return f;
}

/* One listed file, by name: it exists, and loads into exactly the documented counts. */
static void test_listed_file(gconstpointer data)
{
        const Expectation *e = data;
        g_autoptr(RcFile) f = load_corpus_file(e->name, NULL);

        g_assert_cmpint(f->state, ==, e->state);
        g_assert_cmpuint(f->n_profiles, ==, e->n_profiles);
        g_assert_cmpuint(f->n_rules, ==, e->n_rules);
        g_assert_cmpuint(f->diagnostics.n_errors, ==, e->n_errors);
        g_assert_cmpuint(f->diagnostics.n_warnings, ==, e->n_warnings);
        for (size_t i = 0; i < G_N_ELEMENTS(e->diags) && e->diags[i].needle; i++) {
                const ExpectedDiag *d = &e->diags[i];
                g_test_message("expecting %s at %u:%u: %s", rc_severity_to_string(d->severity), d->line, d->column,
                                d->needle);
                g_assert_true(test_has_diag(&f->diagnostics, d->severity, d->line, d->column, d->needle));
        }
}

/* Every file in the folder is listed above: a new or renamed corpus file fails until it is described
 * here with its expected counts. */
static void test_no_unlisted_files(void)
{
        g_autofree char *dir = test_corpus_path("appprofiles");
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        const char *name;
        size_t listed = 0;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                if (streq(name, CORPUS_INDEX))
                        continue;
                if (!find_expectation(name)) {
                        g_test_fail_printf("corpus file %s/%s is not listed in %s: add it with its expected counts",
                                        dir, name, __FILE__);
                        continue;
                }
                listed++;
        }
        /* Each listed file was found once (a missing one fails its own test as well). */
        g_assert_cmpuint(listed, ==, G_N_ELEMENTS(expectations));
}

/* The corpus index describes every listed file, so the expectations above have a documented source. */
static void test_index_describes_every_file(void)
{
        g_autofree char *index = test_corpus_path("appprofiles/" CORPUS_INDEX);
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;

        g_file_get_contents(index, &text, NULL, &error);
        g_assert_no_error(error);
        for (size_t i = 0; i < G_N_ELEMENTS(expectations); i++) {
                g_autofree char *cell = g_strdup_printf("| `%s` |", expectations[i].name);
                g_test_message("%s", cell);
                g_assert_nonnull(strstr(text, cell));
        }
}

/* The broken files say where. */
static void test_broken_positions(void)
{
        RcSyntaxOptions lenient = { .accept_trailing_commas = true };
        g_autoptr(RcFile) invalid = load_corpus_file("cachyos-limit-vram-usage-2025-05-INVALID.rc", NULL);
        g_autoptr(RcFile) comma = load_corpus_file("popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json", NULL);
        g_autoptr(RcFile) comma_ok = load_corpus_file("popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json", &lenient);

        /* A bare rule object followed by ',': no enclosing {"rules": [...]}. */
        g_assert_true(test_has_diag(
                        &invalid->diagnostics, RC_SEVERITY_ERROR, 7, 10, "after the end of the root object"));
        g_assert_true(test_has_diag(&comma->diagnostics, RC_SEVERITY_ERROR, 26, 68, "trailing comma before ']'"));
        g_assert_cmpint(comma_ok->state, ==, RC_FILE_LOADED);
        g_assert_cmpuint(comma_ok->rules[0].pattern.n_sub, ==, 14);
}

/* Case 7: three rules written in one object; only the last pair survives, and we say so. */
static void test_duplicate_keys(void)
{
        g_autoptr(RcFile) f = load_corpus_file("nixos-librewolf-DUPKEYS.json", NULL);

        g_assert_cmpstr(f->rules[0].pattern.matches, ==, ".librewolf-wrapped");
        g_assert_cmpstr(f->rules[0].profile_name, ==, "DedicatedHwStatePerCtx");
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 9, 3, "\"pattern\" appears 3 times"));
        g_assert_true(test_has_diag(&f->diagnostics, RC_SEVERITY_WARNING, 10, 3, "\"profile\" appears 3 times"));
}

/* A root tree holding copies of corpus files at the given search-path places. */
static char *make_root(const char *const *pairs)
{
        char *root = test_mkdtemp();

        for (const char *const *p = pairs; p && *p; p += 2) {
                g_autofree char *src = test_corpus_path(p[0]);
                g_autofree char *text = NULL;
                g_autoptr(GError) error = NULL;

                g_file_get_contents(src, &text, NULL, &error);
                g_assert_no_error(error);
                test_write_file(root, p[1], text);
        }
        return root;
}

static RcConfig *load_root(const char *root, const char *home)
{
        _cleanup_close_ int fd = test_open_dir(root);
        RcLoadOptions o = { .root_fd = fd, .home = home, .driver_version = "570.153.02" };
        RcConfig *c = NULL;

        g_assert_cmpint(rc_config_load(&o, &c), ==, 0);
        test_dump_diags("(config)", &c->diagnostics);
        return c;
}

#define SHIPPED_570 "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc"
#define ETC_RCD "etc/nvidia/nvidia-application-profiles-rc.d/"

static void assert_keys(const RcResolution *r, const char *const *keys)
{
        size_t n = 0;

        for (const char *const *k = keys; *k; k++, n++)
                g_assert_nonnull(test_find_setting(r, *k));
        g_assert_cmpuint(r->n_settings, ==, n);
}

static const char *profile_of(const RcEffectiveSetting *s)
{
        return s->ref->profile->name;
}

/* The shipped file's merges (../shared/docs/appprofiles.md §3). */
static void test_shipped_570_resolutions(void)
{
        static const char *const pairs[] = { "appprofiles/nvidia-shipped-570.153.02-rc", SHIPPED_570, NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        g_autoptr(RcResolution) ff = NULL, gnome = NULL, plasma = NULL, kwl = NULL, xp = NULL, doom = NULL, sway = NULL,
                                nothing = NULL;
        const char *const mutter_maps[] = { "/usr/lib/x86_64-linux-gnu/libmutter-15.so.0.0.0",
                "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL };
        const char *const wlroots_maps[] = { "/usr/lib/libwlroots-0.18.so", NULL };

        g_assert_cmpuint(c->n_rules, ==, 144);
        g_assert_cmpuint(c->n_profiles, ==, 27);

        ff = test_resolve(c, "/usr/lib/firefox/firefox", "firefox", "/usr/lib/firefox/firefox", NULL, NULL);
        assert_keys(ff, (const char *const[]){ "__GL_CPMM", "10572898", "HWSTATE_PER_CTX", NULL });
        g_assert_cmpstr(profile_of(test_find_setting(ff, "__GL_CPMM")), ==, "ForceSeparateTrimThread");
        g_assert_cmpstr(profile_of(test_find_setting(ff, "10572898")), ==, "FA0");
        g_assert_cmpstr(profile_of(test_find_setting(ff, "HWSTATE_PER_CTX")), ==, "DedicatedHwStatePerCtx");
        g_assert_cmpint(test_setting_int(ff, "__GL_CPMM"), ==, 3);
        g_assert_cmpuint(test_find_setting(ff, "__GL_CPMM")->ref->rule->location.line, ==, 239);
        g_assert_cmpuint(test_find_setting(ff, "HWSTATE_PER_CTX")->ref->rule->location.line, ==, 241);

        gnome = test_resolve(c, "/usr/bin/gnome-shell", "gnome-shell", "/usr/bin/gnome-shell", mutter_maps, NULL);
        assert_keys(gnome,
                        (const char *const[]){ "GLVRRAllowed", "VKDirectGSYNCAllowed", "VKDirectGSYNCCompatibleAllowed",
                                        "GLShowGraphicsOSD", "GLVidHeapReuseRatio", NULL });
        g_assert_cmpstr(profile_of(test_find_setting(gnome, "GLVRRAllowed")), ==, "No VRR/OSD");
        g_assert_cmpstr(profile_of(test_find_setting(gnome, "GLVidHeapReuseRatio")), ==, "No VidMem Reuse");
        g_assert_cmpint(test_setting_int(gnome, "GLVidHeapReuseRatio"), ==, 0);
        g_assert_true(gnome->depends_on_dsos);

        plasma = test_resolve(c, "/usr/bin/plasmashell", "plasmashell", "plasmashell", NULL, NULL);
        assert_keys(plasma,
                        (const char *const[]){ "GLVRRAllowed", "VKDirectGSYNCAllowed", "VKDirectGSYNCCompatibleAllowed",
                                        "GLShowGraphicsOSD", "GLVidHeapReuseRatio", NULL });

        kwl = test_resolve(c, "/usr/bin/kwin_wayland", "kwin_wayland", "kwin_wayland", NULL, NULL);
        assert_keys(kwl, (const char *const[]){ "HWSTATE_PER_CTX", NULL });
        g_assert_cmpint(test_setting_int(kwl, "HWSTATE_PER_CTX"), ==, 2);

        xp = test_resolve(c, "/opt/X-Plane/X-Plane-x86_64", "X-Plane-x86_64", "./X-Plane-x86_64", NULL, NULL);
        assert_keys(xp, (const char *const[]){ "GLThreadedOptimizations", "DisableDBus", NULL });

        doom = test_resolve(c, "/usr/bin/wine64-preloader", "DOOMEternalx64v", "C:\\Games\\DOOMEternalx64vk.exe", NULL,
                        NULL);
        assert_keys(doom, (const char *const[]){ "PinToPCores", NULL });

        sway = test_resolve(c, "/usr/bin/sway", "sway", "sway", wlroots_maps, NULL);
        assert_keys(sway, (const char *const[]){ "GLVidHeapReuseRatio", NULL });

        nothing = test_resolve(c, "/usr/bin/cat", "cat", "cat", NULL, NULL);
        g_assert_cmpuint(nothing->n_matched, ==, 0);
        g_assert_cmpuint(nothing->n_settings, ==, 0);
}

/* Case 19 with the shipped heaven rule: browser_x64 present in the exe's directory → no match. */
static void test_shipped_findfile(void)
{
        static const char *const pairs[] = { "appprofiles/nvidia-shipped-570.153.02-rc", SHIPPED_570, NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        _cleanup_close_ int fd = -EBADF;
        RcProcessFacts facts = { .exe = "/opt/heaven/bin/heaven_x64", .comm = "heaven_x64" };
        g_autoptr(RcResolution) with = NULL, without = NULL;

        test_write_file(root, "opt/heaven/bin/heaven_x64", "");
        fd = test_open_dir(root);
        facts.root_fd = fd;
        g_assert_cmpint(rc_resolve(c, &facts, &without), ==, 0);
        g_assert_cmpuint(without->n_matched, ==, 1);
        test_write_file(root, "opt/heaven/bin/browser_x64", "");
        g_assert_cmpint(rc_resolve(c, &facts, &with), ==, 0);
        g_assert_cmpuint(with->n_matched, ==, 0);
}

/* Case 24: a distro rc.d file refers to the shipped file's profile; firefox gets both. */
static void test_cross_file_reference(void)
{
        static const char *const pairs[] = { "appprofiles/nvidia-shipped-570.153.02-rc", SHIPPED_570,
                "appprofiles/cachyos-limit-vram-usage.json", ETC_RCD "limit-vram-usage", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        g_autoptr(RcResolution) r = test_resolve(c, "/usr/lib/firefox/firefox", "firefox", "firefox", NULL, NULL);

        assert_keys(r,
                        (const char *const[]){
                                        "GLVidHeapReuseRatio", "__GL_CPMM", "10572898", "HWSTATE_PER_CTX", NULL });
        g_assert_cmpint(test_setting_int(r, "GLVidHeapReuseRatio"), ==, 0);
        /* Set by the /etc rule, with the shipped file's profile. */
        g_assert_cmpstr(test_find_setting(r, "GLVidHeapReuseRatio")->ref->rule->location.file->path, ==,
                        "/" ETC_RCD "limit-vram-usage");
        g_assert_cmpstr(test_find_setting(r, "GLVidHeapReuseRatio")->ref->profile->location.file->path, ==,
                        "/" SHIPPED_570);
}

/* Case 25: the same profile name in /etc and in the shipped file: the earliest (=1) wins, with a warning. */
static void test_duplicate_profile_name(void)
{
        static const char *const pairs[] = { "appprofiles/nvidia-shipped-570.153.02-rc", SHIPPED_570,
                "appprofiles/cachyos-limit-vram-usage-2025-06-dupname.json", ETC_RCD "limit-vram-usage", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        g_autoptr(RcResolution) spotify = test_resolve(c, "/usr/bin/spotify", "spotify", "spotify", NULL, NULL);
        g_autoptr(RcResolution) gnome = NULL;
        const char *const mutter_maps[] = { "/usr/lib/libmutter-14.so.0", NULL };

        g_assert_cmpint(test_setting_int(spotify, "GLVidHeapReuseRatio"), ==, 1);
        g_assert_true(test_has_diag(
                        &c->diagnostics, RC_SEVERITY_WARNING, 0, 0, "profile \"No VidMem Reuse\" is already defined"));
        /* The shipped rules now use the /etc definition too. */
        gnome = test_resolve(c, "/usr/bin/gnome-shell", NULL, NULL, mutter_maps, NULL);
        g_assert_cmpint(test_setting_int(gnome, "GLVidHeapReuseRatio"), ==, 1);
}

/* Case 6: the broken CachyOS fragment does not stop the other files in the same directory. */
static void test_broken_among_good(void)
{
        static const char *const pairs[] = { "appprofiles/cachyos-limit-vram-usage-2025-05-INVALID.rc",
                ETC_RCD "10-broken", "appprofiles/niri-wiki-50-limit-free-buffer-pool.json", ETC_RCD "50-niri",
                "appprofiles/popos-cuda-no-stable-perf-limit-TRAILINGCOMMA.json", ETC_RCD "60-popos",
                "appprofiles/gpu-screen-recorder-10-gsr-cuda-no-stable-perf-limit.json",
                "home/u/.nv/nvidia-application-profiles-rc.d/10-gsr-cuda-no-stable-perf-limit", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, "/home/u");
        g_autoptr(RcResolution) niri = test_resolve(c, "/usr/bin/niri", "niri", "niri", NULL, NULL);
        g_autoptr(RcResolution) gsr = test_resolve(c, "/usr/bin/gpu-screen-recorder", NULL, NULL, NULL, NULL);

        g_assert_cmpuint(rc_config_count_errors(c), ==, 2);
        g_assert_cmpint(test_setting_int(niri, "GLVidHeapReuseRatio"), ==, 0);
        g_assert_cmpint(test_setting_int(gsr, "0x166c5e"), ==, 0);
        g_assert_cmpstr(test_find_setting(gsr, "0x166c5e")->ref->rule->location.file->path, ==,
                        "/home/u/.nv/nvidia-application-profiles-rc.d/10-gsr-cuda-no-stable-perf-limit");
}

/* Case 30: libnvidia-container's file: every process in that root gets EGLVisibleDGPUDevices=3. */
static void test_container_file(void)
{
        static const char *const pairs[] = { "appprofiles/SYNTH-libnvidia-container-10-container.conf",
                ETC_RCD "10-container.conf", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        g_autoptr(RcResolution) a = test_resolve(c, "/usr/bin/anything", NULL, NULL, NULL, NULL);
        g_autoptr(RcResolution) b = test_resolve(c, NULL, NULL, NULL, NULL, NULL);

        g_assert_cmpint(test_setting_int(a, "EGLVisibleDGPUDevices"), ==, 3);
        g_assert_cmpint(test_setting_int(b, "EGLVisibleDGPUDevices"), ==, 3);
        g_assert_null(test_find_setting(a, "EGLVisibleDGPUDevices")->env_variable);
}

/* The "true" feature files, the nvidia-settings generated file and the dso file. */
static void test_small_files(void)
{
        static const char *const pairs[] = { "appprofiles/egl-wayland126-kelvie-true-feature.json", ETC_RCD "a",
                "appprofiles/dotfiles-mrbjarksen-nvsettings-generated.json",
                "home/u/.nv/nvidia-application-profiles-rc", "appprofiles/nixos-brycekormylo-dso-libGL.json",
                ETC_RCD "b", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, "/home/u");
        const char *const maps[] = { "/usr/lib/libGL.so.1.7.0", NULL };
        const char *const env[] = { "__GL_SYNC_TO_VBLANK=0", NULL };
        g_autoptr(RcResolution) r = test_resolve(c, "/usr/bin/glxgears", NULL, NULL, maps, env);
        g_autoptr(RcResolution) plain = test_resolve(c, "/usr/bin/true", NULL, NULL, NULL, NULL);
        const RcEffectiveSetting *s;

        g_assert_cmpint(test_setting_int(r, "GLVidHeapReuseRatio"), ==, 1);
        s = test_find_setting(r, "GLSyncDisplayDevice");
        g_assert_cmpstr(s->setting->value.string, ==, "DP-3");
        s = test_find_setting(r, "GLSyncToVblank");
        g_assert_cmpstr(s->env_value, ==, "0");
        g_assert_cmpint(test_setting_int(r, "GLThreadedOptimizations"), ==, 0);
        g_assert_null(test_find_setting(plain, "GLThreadedOptimizations"));
        g_assert_nonnull(test_find_setting(plain, "GLSharpenValue"));
}

/* Case 29 for 440.82 through a config: no cmdline rules, 14 profiles. */
static void test_shipped_440(void)
{
        static const char *const pairs[] = { "appprofiles/nvidia-shipped-440.82-rc",
                "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", NULL };
        g_autofree char *root = make_root(pairs);
        g_autoptr(RcConfig) c = load_root(root, NULL);
        size_t cmdline = 0;

        g_assert_cmpuint(c->n_profiles, ==, 14);
        g_assert_cmpuint(c->n_rules, ==, 49);
        for (size_t i = 0; i < c->n_rules; i++)
                if (c->rules[i].rule->pattern.feature == RC_FEATURE_CMDLINE)
                        cmdline++;
        g_assert_cmpuint(cmdline, ==, 0);
        g_assert_nonnull(rc_config_find_profile(c, "OCL_MAYA_HANG_WAR"));
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();
        for (size_t i = 0; i < G_N_ELEMENTS(expectations); i++) {
                g_autofree char *path = g_strdup_printf("/rc-corpus/file/%s", expectations[i].name);
                g_test_add_data_func(path, &expectations[i], test_listed_file);
        }
        g_test_add_func("/rc-corpus/no-unlisted-files", test_no_unlisted_files);
        g_test_add_func("/rc-corpus/index-describes-every-file", test_index_describes_every_file);
        g_test_add_func("/rc-corpus/broken-positions", test_broken_positions);
        g_test_add_func("/rc-corpus/duplicate-keys", test_duplicate_keys);
        g_test_add_func("/rc-corpus/shipped-570-resolutions", test_shipped_570_resolutions);
        g_test_add_func("/rc-corpus/shipped-findfile", test_shipped_findfile);
        g_test_add_func("/rc-corpus/cross-file-reference", test_cross_file_reference);
        g_test_add_func("/rc-corpus/duplicate-profile-name", test_duplicate_profile_name);
        g_test_add_func("/rc-corpus/broken-among-good", test_broken_among_good);
        g_test_add_func("/rc-corpus/container-file", test_container_file);
        g_test_add_func("/rc-corpus/small-files", test_small_files);
        g_test_add_func("/rc-corpus/shipped-440", test_shipped_440);
        return g_test_run();
}
