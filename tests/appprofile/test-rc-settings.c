/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What we know of profile keys (rc-settings.h): the documented list, the type rules of
 * rc_setting_parse_assignment() and rc_setting_check(), and NVIDIA's shipped files held to the types we
 * claim. Source: ../shared/docs/appprofile-settings.md §1, §2. */

#include "fd-util.h"
#include "rc-settings.h"
#include "string-util.h"
#include "test-util.h"

/* README 580's list (§1), with each key's environment variable: NULL for the EGL masks. */
static const struct {
        const char *key, *variable;
} documented[] = {
        { "GLFSAAMode", "__GL_FSAA_MODE" },
        { "GLLogMaxAniso", "__GL_LOG_MAX_ANISO" },
        { "GLNoDsoFinalizer", "__GL_NO_DSO_FINALIZER" },
        { "GLSingleThreaded", "__GL_SINGLE_THREADED" },
        { "GLSyncDisplayDevice", "__GL_SYNC_DISPLAY_DEVICE" },
        { "GLSyncToVblank", "__GL_SYNC_TO_VBLANK" },
        { "GLSortFbconfigs", "__GL_SORT_FBCONFIGS" },
        { "GLAllowUnofficialProtocol", "__GL_ALLOW_UNOFFICIAL_PROTOCOL" },
        { "GLSELinuxBooleans", "__GL_SELINUX_BOOLEANS" },
        { "GLShaderDiskCache", "__GL_SHADER_DISK_CACHE" },
        { "GLShaderDiskCachePath", "__GL_SHADER_DISK_CACHE_PATH" },
        { "GLYield", "__GL_YIELD" },
        { "GLThreadedOptimizations", "__GL_THREADED_OPTIMIZATIONS" },
        { "GLDoom3", "__GL_DOOM3" },
        { "GLExtensionStringVersion", "__GL_ExtensionStringVersion" },
        { "GLConformantBlitFramebufferScissor", "__GL_ConformantBlitFramebufferScissor" },
        { "GLAllowFXAAUsage", "__GL_ALLOW_FXAA_USAGE" },
        { "GLVRRAllowed", "__GL_VRR_ALLOWED" },
        { "GLWriteTextSection", "__GL_WRITE_TEXT_SECTION" },
        { "GLIgnoreGLSLExtReqs", "__GL_IGNORE_GLSL_EXT_REQS" },
        { "EGLVisibleDGPUDevices", NULL },
        { "EGLVisibleTegraDevices", NULL },
        { "GLShowGraphicsOSD", "__GL_SHOW_GRAPHICS_OSD" },
        { "GLSharpenEnable", "__GL_SHARPEN_ENABLE" },
        { "GLSharpenValue", "__GL_SHARPEN_VALUE" },
        { "GLSharpenIgnoreFilmGrain", "__GL_SHARPEN_IGNORE_FILM_GRAIN" },
};

/* Every documented key is known, in the README's order, with its variable; nothing else is marked
 * documented. */
static void test_documented_keys(void)
{
        size_t n;
        const RcSettingInfo *all = rc_settings_known(&n);
        size_t n_documented = 0;

        g_assert_cmpuint(G_N_ELEMENTS(documented), ==, 26);
        for (size_t i = 0; i < G_N_ELEMENTS(documented); i++) {
                const RcSettingInfo *info = rc_setting_lookup(documented[i].key);

                g_test_message("%s", documented[i].key);
                g_assert_nonnull(info);
                g_assert_true(info == &all[i]);
                g_assert_true(info->documented);
                g_assert_cmpstr(info->variable, ==, documented[i].variable);
                g_assert_null(info->replaced_by);
                g_assert_false(isempty(info->meaning));
                g_assert_null(strchr(info->meaning, '\n'));
        }
        for (size_t i = 0; i < n; i++) {
                n_documented += all[i].documented;
                g_assert_cmpint(all[i].type, <, _RC_SETTING_TYPE_MAX);
                if (all[i].type == RC_SETTING_INTEGER)
                        g_assert_cmpint(all[i].min, <=, all[i].max);
                g_assert_true(rc_setting_lookup(all[i].key) == &all[i]);
        }
        g_assert_cmpuint(n_documented, ==, 26);

        /* The ranges the documentation gives. */
        g_assert_cmpint(rc_setting_lookup("GLFSAAMode")->max, ==, 15);
        g_assert_cmpint(rc_setting_lookup("GLLogMaxAniso")->max, ==, 4);
        g_assert_cmpint(rc_setting_lookup("GLSharpenValue")->max, ==, 100);
        g_assert_cmpint(rc_setting_lookup("GLSharpenIgnoreFilmGrain")->max, ==, 100);
        g_assert_cmpint(rc_setting_lookup("EGLVisibleDGPUDevices")->max, ==, 0xffffffff);
        g_assert_cmpint(rc_setting_lookup("EGLVisibleTegraDevices")->min, ==, 0);
        g_assert_cmpint(rc_setting_lookup("GLVidHeapReuseRatio")->type, ==, RC_SETTING_INTEGER);
        g_assert_cmpint(rc_setting_lookup("0x166c5e")->type, ==, RC_SETTING_INTEGER);
        g_assert_false(rc_setting_lookup("GLVidHeapReuseRatio")->documented);
        /* NVIDIA gives it both true and 2: no type of ours fits, so it stays unknown. */
        g_assert_null(rc_setting_lookup("HWSTATE_PER_CTX"));
        g_assert_cmpstr(rc_setting_type_to_string(RC_SETTING_BOOLEAN), ==, "boolean");
        g_assert_cmpstr(rc_setting_type_to_string(RC_SETTING_INTEGER), ==, "integer");
        g_assert_cmpstr(rc_setting_type_to_string(RC_SETTING_STRING), ==, "string");
        g_assert_null(rc_setting_type_to_string(_RC_SETTING_TYPE_MAX));
}

/* A message holding needle, or none when needle is NULL. */
static void assert_message(const char *message, const char *needle)
{
        if (needle) {
                g_assert_nonnull(message);
                g_assert_nonnull(strstr(message, needle));
        } else
                g_assert_null(message);
}

/* Parses assignment and expects result r, the key and value text (when r >= 0) and a message holding
 * needle (NULL: no message). */
static void assert_assignment(const char *assignment, int r, const char *key, const char *value, const char *needle)
{
        _cleanup_free_ char *k = NULL, *v = NULL, *message = NULL;

        g_test_message("%s", assignment);
        g_assert_cmpint(rc_setting_parse_assignment(assignment, &k, &v, &message), ==, r);
        g_test_message("  -> %s %s: %s", strna(k), strna(v), strna(message));
        if (r >= 0) {
                g_assert_cmpstr(k, ==, key);
                g_assert_cmpstr(v, ==, value);
        } else {
                g_assert_null(k);
                g_assert_null(v);
        }
        assert_message(message, needle);
}

static void assert_check(const char *key, const char *value, int r, const char *needle)
{
        _cleanup_free_ char *message = NULL;

        g_test_message("%s = %s", key, value);
        g_assert_cmpint(rc_setting_check(key, value, &message), ==, r);
        g_test_message("  -> %s", strna(message));
        assert_message(message, needle);
}

static void test_booleans(void)
{
        assert_assignment("GLSyncToVblank=true", 0, "GLSyncToVblank", "true", NULL);
        assert_assignment("GLSyncToVblank=false", 0, "GLSyncToVblank", "false", NULL);
        assert_assignment("GLSyncToVblank=1", 0, "GLSyncToVblank", "1", NULL);
        assert_assignment("GLSyncToVblank=0", 0, "GLSyncToVblank", "0", NULL);
        assert_assignment("GLSyncToVblank=yes", -EINVAL, NULL, NULL, "boolean (true, false, 1 or 0)");
        assert_assignment("GLSyncToVblank=2", -EINVAL, NULL, NULL, "boolean");
        /* Not 0 once cut to 32 bits. */
        assert_assignment("GLSyncToVblank=4294967296", -EINVAL, NULL, NULL, "boolean");
        assert_assignment("GLSyncToVblank=\"1\"", -EINVAL, NULL, NULL, "boolean");
        assert_assignment("GLSyncToVblank=TRUE", -EINVAL, NULL, NULL, "boolean");
        assert_assignment("GLSyncToVblank=", -EINVAL, NULL, NULL, "boolean");
        assert_check("VKDirectGSYNCCompatibleAllowed", "0", 0, NULL);
        assert_check("GLThreadedOptimizations", "1.0", -EINVAL, "boolean");
}

static void test_integers(void)
{
        assert_assignment("GLVidHeapReuseRatio=0", 0, "GLVidHeapReuseRatio", "0", NULL);
        assert_assignment("GLFSAAMode=15", 0, "GLFSAAMode", "15", NULL);
        assert_assignment("GLFSAAMode=0xf", 0, "GLFSAAMode", "0xf", NULL);
        assert_assignment("GLFSAAMode=017", 0, "GLFSAAMode", "017", NULL);
        assert_assignment("GLFSAAMode=16", -EINVAL, NULL, NULL, "integer from 0 to 15");
        assert_assignment("GLFSAAMode=-1", -EINVAL, NULL, NULL, "integer from 0 to 15");
        assert_assignment("GLFSAAMode=08", -EINVAL, NULL, NULL, "integer");
        assert_assignment("GLFSAAMode=1.5", -EINVAL, NULL, NULL, "integer");
        assert_assignment("GLFSAAMode=true", -EINVAL, NULL, NULL, "integer");
        assert_assignment("GLFSAAMode= 1", -EINVAL, NULL, NULL, "integer");
        assert_assignment("GLLogMaxAniso=4", 0, "GLLogMaxAniso", "4", NULL);
        assert_assignment("GLLogMaxAniso=5", -EINVAL, NULL, NULL, "from 0 to 4");
        assert_assignment("GLSharpenValue=100", 0, "GLSharpenValue", "100", NULL);
        assert_assignment("GLSharpenValue=101", -EINVAL, NULL, NULL, "from 0 to 100");
        assert_assignment("GLSharpenIgnoreFilmGrain=101", -EINVAL, NULL, NULL, "from 0 to 100");
        assert_assignment("EGLVisibleDGPUDevices=0xffffffff", 0, "EGLVisibleDGPUDevices", "0xffffffff", NULL);
        assert_assignment("EGLVisibleDGPUDevices=0x100000000", -EINVAL, NULL, NULL, "0xffffffff");
        assert_assignment("EGLVisibleTegraDevices=0x18446744073709551615", -EINVAL, NULL, NULL, "integer");
        assert_check("EGLVisibleTegraDevices", "18446744073709551615", -EINVAL, "integer");
        assert_assignment("0x166c5e=0", 0, "0x166c5e", "0", NULL);
        assert_assignment("OVERRIDE_VENDORID=0x1002", 0, "OVERRIDE_VENDORID", "0x1002", NULL);
        assert_assignment("OVERRIDE_VENDORID=0x10000", -EINVAL, NULL, NULL, "from 0 to 65535");
}

static void test_strings(void)
{
        assert_assignment("GLShaderDiskCachePath=/dev/shm", 0, "GLShaderDiskCachePath", "\"/dev/shm\"", NULL);
        assert_assignment("GLShaderDiskCachePath=\"/dev/shm\"", 0, "GLShaderDiskCachePath", "\"/dev/shm\"", NULL);
        assert_assignment("GLSyncDisplayDevice=a \"b\" c\\d", 0, "GLSyncDisplayDevice", "\"a \\\"b\\\" c\\\\d\"", NULL);
        assert_assignment("GLSyncDisplayDevice=", 0, "GLSyncDisplayDevice", "\"\"", NULL);
        assert_assignment("GLSyncDisplayDevice=1", 0, "GLSyncDisplayDevice", "\"1\"", NULL);
        assert_assignment("GLYield=\"USLEEP", -EINVAL, NULL, NULL, "not an rc value");
        assert_assignment("GLSELinuxBooleans=\"a\\u00e9\"", 0, "GLSELinuxBooleans", "\"a\\u00e9\"", NULL);
        assert_check("GLShaderDiskCachePath", "\"/dev/shm\"", 0, NULL);
        assert_check("GLShaderDiskCachePath", "/dev/shm", -EINVAL, "is a string");
        assert_check("GLShaderDiskCachePath", "1", -EINVAL, "is a string");
        /* The value alone: nothing after it, no second member, no comment. */
        assert_check("GLYield", "\"a\", \"b\"", -EINVAL, "not one true, false, number or \"string\"");
        assert_check("GLYield", "\"a\"]}]}", -EINVAL, "not an rc value");
        assert_check("GLYield", "\"a\" # c", -EINVAL, "not an rc value");
        assert_check("GLFSAAMode", "1, 2", -EINVAL, "integer");
        assert_check("Foo", "1, \"k\", 2", -EINVAL, "not one true, false, number or \"string\"");
        assert_check("GLYield", "\"a\\n\"", -EINVAL, "control character");
}

static void test_wrong_case(void)
{
        assert_assignment("GLSyncToVBlank=1", -EINVAL, NULL, NULL, "spelled GLSyncToVblank");
        assert_assignment("glsynctovblank=true", -EINVAL, NULL, NULL, "spelled GLSyncToVblank");
        assert_assignment("GLShaderDiskCachepath=/tmp", -EINVAL, NULL, NULL, "spelled GLShaderDiskCachePath");
        assert_assignment("0x166C5E=0", -EINVAL, NULL, NULL, "spelled 0x166c5e");
        assert_check("GLVRRallowed", "false", -EINVAL, "spelled GLVRRAllowed");
}

static void test_obsolete(void)
{
        const RcSettingInfo *info = rc_setting_lookup("GLGSYNCAllowed");

        g_assert_nonnull(info);
        g_assert_cmpstr(info->replaced_by, ==, "GLVRRAllowed");
        g_assert_false(info->documented);
        g_assert_nonnull(rc_setting_lookup(info->replaced_by));
        assert_assignment("GLGSYNCAllowed=true", 1, "GLGSYNCAllowed", "true", "GLVRRAllowed");
        assert_assignment("GLGSYNCAllowed=maybe", -EINVAL, NULL, NULL, "boolean");
        assert_check("GLGSYNCAllowed", "1", 1, "obsolete");
}

/* NVIDIA's profile CudaNoStablePerfLimit sets only the opaque "0x166c5e", and users write the profile's name as
 * if it were the key: the table says which key it is. */
static void test_profile_names(void)
{
        const RcSettingInfo *cuda = rc_setting_lookup("0x166c5e");

        g_assert_nonnull(cuda);
        g_assert_true(rc_setting_lookup_profile_name("CudaNoStablePerfLimit") == cuda);
        g_assert_true(rc_setting_lookup_profile_name("cudanostableperflimit") == cuda);
        g_assert_null(rc_setting_lookup_profile_name("0x166c5e"));
        g_assert_null(rc_setting_lookup("CudaNoStablePerfLimit"));
}

static void test_unknown(void)
{
        assert_assignment("Foo=bar", 1, "Foo", "\"bar\"", "unknown key Foo");
        assert_assignment("Foo=1", 1, "Foo", "1", "unknown key");
        assert_assignment("Foo=0x10", 1, "Foo", "0x10", "unknown key");
        assert_assignment("Foo=-2.5", 1, "Foo", "-2.5", "unknown key");
        assert_assignment("Foo=true", 1, "Foo", "true", "unknown key");
        assert_assignment("Foo=\"x y\"", 1, "Foo", "\"x y\"", "unknown key");
        assert_assignment("Foo=08", 1, "Foo", "\"08\"", "unknown key");
        assert_assignment("Foo=null", 1, "Foo", "\"null\"", "unknown key");
        assert_assignment("Foo=1, \"b\": 2", 1, "Foo", "\"1, \\\"b\\\": 2\"", "unknown key");
        assert_assignment("Foo= 1", 1, "Foo", "\" 1\"", "unknown key");
        assert_assignment("Foo=\"x", -EINVAL, NULL, NULL, "not an rc value");
        assert_assignment("0x528ab3=1", 0, "0x528ab3", "1", NULL);
        assert_assignment("0xabcdef=1", 1, "0xabcdef", "1", "unknown key");
        assert_check("Foo", "bar", -EINVAL, "not an rc value");
        assert_check("Foo", "\"bar\"", 1, "unknown key");
        assert_check("Foo", "0x1g", -EINVAL, "not an rc value");
        assert_check("Foo", "null", -EINVAL, "not an rc value");
        assert_check("Foo", "[1]", -EINVAL, "not an rc value");
        assert_check("Foo", "{}", -EINVAL, "not an rc value");
        assert_check("Foo", "", -EINVAL, "not an rc value");
        assert_check("Foo", "1 ", -EINVAL, "spaces around it");
}

/* Text a person pasted: typographic quotes and control characters are refused, and say where. */
static void test_refused_text(void)
{
        assert_assignment("GLShaderDiskCachePath=\u201c/dev/shm\u201d", -EINVAL, NULL, NULL,
                        "typographic quote \u201c at byte 22");
        assert_assignment("\u201cGLSyncToVblank\u201d=1", -EINVAL, NULL, NULL, "typographic quote");
        assert_assignment("Foo=\u2018x\u2019", -EINVAL, NULL, NULL, "typographic quote");
        assert_assignment("GLYield=a\tb", -EINVAL, NULL, NULL, "control character (0x09) at byte 9");
        assert_assignment("GLYield=a\x1b[2Jb", -EINVAL, NULL, NULL, "control character (0x1b)");
        assert_assignment("GLYield=a\xc2\x85"
                          "b",
                        -EINVAL, NULL, NULL, "control character (U+0085)");
        assert_assignment("GLYield=\xff", -EINVAL, NULL, NULL, "not valid UTF-8");
        assert_assignment("GLYield", -EINVAL, NULL, NULL, "not KEY=VALUE");
        assert_assignment("=1", -EINVAL, NULL, NULL, "key is empty");
        assert_check("GLYield", "\"\u201cx\u201d\"", -EINVAL, "typographic quote");
        assert_check("Foo\n", "1", -EINVAL, "control character");
}

/* Every setting of rc files' profiles, inline ones included. */
static void foreach_setting(const RcFile *f, void (*fn)(const RcSetting *s, void *userdata), void *userdata)
{
        for (size_t i = 0; i < f->n_profiles; i++)
                for (size_t j = 0; j < f->profiles[i].n_settings; j++)
                        fn(&f->profiles[i].settings[j], userdata);
        for (size_t i = 0; i < f->n_rules; i++)
                if (f->rules[i].inline_profile)
                        for (size_t j = 0; j < f->rules[i].inline_profile->n_settings; j++)
                                fn(&f->rules[i].inline_profile->settings[j], userdata);
}

typedef struct ShippedCheck {
        const char *file;
        size_t n_checked;
        GHashTable *seen; /* keys we know that a shipped file uses */
} ShippedCheck;

static void check_shipped_setting(const RcSetting *s, void *userdata)
{
        ShippedCheck *c = userdata;
        _cleanup_free_ char *value = NULL, *message = NULL;
        int r;

        if (!rc_setting_lookup(s->key)) {
                g_test_message("%s: %s is not a key we know", c->file, s->key);
                return;
        }
        /* No shipped value is a string with a quote in it, which rc_value_format() would not escape. */
        g_assert_true(s->value.type != RC_VALUE_STRING || !strpbrk(s->value.string, "\"\\"));
        g_assert_cmpint(rc_value_format(&s->value, &value), ==, 0);
        r = rc_setting_check(s->key, value, &message);
        if (r < 0 || r > 1)
                g_test_fail_printf("%s:%u:%u: %s = %s, which we refuse: %s", c->file, s->location.line,
                                s->location.column, s->key, value, strna(message));
        g_hash_table_add(c->seen, (gpointer) rc_setting_lookup(s->key)->key);
        c->n_checked++;
}

/* Every key of NVIDIA's shipped files that we claim to know has, in every file, a value of the type we
 * claim; and each key we know only from those files is in one of them. */
/* The enumerations of appprofile-settings.md §1, with meanings: a value is found in any spelling the
 * driver reads, a string outside the list is refused, and the refusal lists the values. */
static void test_enumerations(void)
{
        const RcSettingInfo *fsaa = rc_setting_lookup("GLFSAAMode"), *yield = rc_setting_lookup("GLYield");
        _cleanup_free_ char *message = NULL;
        size_t n = 0;

        g_assert_nonnull(fsaa->values);
        for (const RcSettingValue *v = fsaa->values; v->value; v++, n++)
                g_assert_false(isempty(v->meaning));
        g_assert_cmpuint(n, ==, 16);
        g_assert_cmpstr(rc_setting_value_lookup(fsaa, "0")->meaning, ==, "Off");
        g_assert_cmpstr(rc_setting_value_lookup(fsaa, "0xa")->meaning, ==, "8x (8xMS)");
        g_assert_null(rc_setting_value_lookup(fsaa, "16"));
        g_assert_cmpstr(rc_setting_value_lookup(rc_setting_lookup("GLLogMaxAniso"), "4")->meaning, ==, "16x");
        g_assert_cmpstr(rc_setting_value_lookup(yield, "\"USLEEP\"")->meaning, ==, "usleep(0)");
        g_assert_null(rc_setting_value_lookup(yield, "\"SLEEP\""));
        g_assert_null(rc_setting_lookup("GLSyncToVblank")->values);

        assert_assignment("GLYield=NOTHING", 0, "GLYield", "\"NOTHING\"", NULL);
        g_assert_cmpint(rc_setting_check("GLYield", "\"SLEEP\"", &message), ==, -EINVAL);
        assert_message(message, "one of: \"NOTHING\" (Never yield)");
        message = mfree(message);
        g_assert_cmpint(rc_setting_check("GLFSAAMode", "16", &message), ==, -EINVAL);
        assert_message(message, "15 (64x (16xSS, 4xMS))");
}

static void test_shipped_files(void)
{
        g_autofree char *dir = test_corpus_path("appprofiles");
        _cleanup_close_ int fd = test_open_dir(dir);
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        const RcSettingInfo *all;
        size_t n, n_files = 0;
        const char *name;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_autofree char *path = g_strdup_printf("/%s", name);
                g_autoptr(RcFile) f = NULL;
                ShippedCheck c = { .file = name, .seen = seen };

                if (!startswith(name, "nvidia-shipped-"))
                        continue;
                g_assert_cmpint(rc_file_load(fd, path, NULL, NULL, &f), ==, 0);
                g_assert_cmpint(f->state, ==, RC_FILE_LOADED);
                foreach_setting(f, check_shipped_setting, &c);
                g_test_message("%s: %zu settings of keys we know", name, c.n_checked);
                g_assert_cmpuint(c.n_checked, >, 10);
                n_files++;
        }
        g_assert_cmpuint(n_files, ==, 2);

        all = rc_settings_known(&n);
        for (size_t i = 0; i < n; i++) {
                /* Known from NVIDIA's shipped files: they must be in one. "0x166c5e" and GLVidHeapReuseRatio's
                 * first value come from distributions' files (§2.1, §2.2), the obsolete key from users'. */
                if (all[i].documented || all[i].replaced_by || streq(all[i].key, "0x166c5e"))
                        continue;
                g_test_message("%s", all[i].key);
                g_assert_true(g_hash_table_contains(seen, all[i].key));
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        /* The shipped files are the ground truth of the table: no run without them. */
        (void) test_corpus_dir_or_skip();
        g_test_add_func("/rc-settings/documented-keys", test_documented_keys);
        g_test_add_func("/rc-settings/booleans", test_booleans);
        g_test_add_func("/rc-settings/integers", test_integers);
        g_test_add_func("/rc-settings/strings", test_strings);
        g_test_add_func("/rc-settings/wrong-case", test_wrong_case);
        g_test_add_func("/rc-settings/obsolete", test_obsolete);
        g_test_add_func("/rc-settings/unknown", test_unknown);
        g_test_add_func("/rc-settings/profile-names", test_profile_names);
        g_test_add_func("/rc-settings/refused-text", test_refused_text);
        g_test_add_func("/rc-settings/enumerations", test_enumerations);
        g_test_add_func("/rc-settings/shipped-files", test_shipped_files);
        return g_test_run();
}
