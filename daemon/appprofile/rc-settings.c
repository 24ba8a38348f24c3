/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "rc-model.h"
#include "rc-settings.h"
#include "string-util.h"

/* Ranges the documentation gives; where it gives none, the 32 bits of the driver's registry values
 * (inference: NVIDIA's opaque keys such as "0x528ab3" are registry ids, and every value ever seen fits). */
#define U32_MAX ((int64_t) UINT32_MAX)

/* Designated initializers of one entry (the braces are the entry's). */
#define BOOLEAN(k, var, m) .key = k, .variable = var, .type = RC_SETTING_BOOLEAN, .meaning = m
#define INTEGER(k, var, lo, hi, m) \
        .key = k, .variable = var, .type = RC_SETTING_INTEGER, .min = lo, .max = hi, .meaning = m
#define STRING(k, var, m) .key = k, .variable = var, .type = RC_SETTING_STRING, .meaning = m

/* The enumerations, from ../shared/docs/appprofile-settings.md §1 ("Documented keys": GLFSAAMode's
 * NV-CONTROL FSAA modes, GLLogMaxAniso's levels, GLYield's strings). */
static const RcSettingValue fsaa_modes[] = {
        { "0", "Off" },
        { "1", "2x (2xMS)" },
        { "2", "2x Quincunx" },
        { "3", "1.5 × 1.5" },
        { "4", "2 × 2 supersampling" },
        { "5", "4x (4xMS)" },
        { "6", "4x, 9-tap Gaussian" },
        { "7", "8x (4xMS, 4xCS)" },
        { "8", "16x (4xMS, 12xCS)" },
        { "9", "8x (4xSS, 2xMS)" },
        { "10", "8x (8xMS)" },
        { "11", "16x (4xSS, 4xMS)" },
        { "12", "16x (8xMS, 8xCS)" },
        { "13", "32x (4xSS, 8xMS)" },
        { "14", "32x (8xMS, 24xCS)" },
        { "15", "64x (16xSS, 4xMS)" },
        { NULL, NULL },
};

static const RcSettingValue aniso_levels[] = {
        { "0", "No anisotropic filtering" },
        { "1", "2x" },
        { "2", "4x" },
        { "3", "8x" },
        { "4", "16x" },
        { NULL, NULL },
};

static const RcSettingValue yield_modes[] = {
        { "\"NOTHING\"", "Never yield" },
        { "\"USLEEP\"", "usleep(0)" },
        { NULL, NULL },
};

/* ../shared/docs/appprofile-settings.md: §1 (README 580's list, in its order, meanings from R390), §2.1 to
 * §2.3 (keys NVIDIA ships or tells users to write, typed by every value NVIDIA's files give them), §2.4
 * (obsolete). HWSTATE_PER_CTX is left out on purpose: NVIDIA's own 570 file gives it true for firefox and
 * 2 for kwin, so no type we check would be right; it stays an unknown key (accepted with a warning). */
static const RcSettingInfo settings[] = {
        { .documented = true,
                        INTEGER("GLFSAAMode", "__GL_FSAA_MODE", 0, 15,
                                        "Full-scene antialiasing mode (nvidia-settings' FSAA values; the driver falls back to one the GPU supports)"),
                        .values = fsaa_modes },
        { .documented = true,
                        INTEGER("GLLogMaxAniso", "__GL_LOG_MAX_ANISO", 0, 4,
                                        "Anisotropic texture filtering: 0 none, 1 2x, 2 4x, 3 8x, 4 16x"),
                        .values = aniso_levels },
        { .documented = true,
                        BOOLEAN("GLNoDsoFinalizer", "__GL_NO_DSO_FINALIZER",
                                        "libGL's finalizer leaves its resources in place (avoids crashes of multithreaded apps at exit)") },
        { .documented = true,
                        BOOLEAN("GLSingleThreaded", "__GL_SINGLE_THREADED",
                                        "Works around a dynamic-loader bug in apps that dlopen libGL several times") },
        { .documented = true,
                        STRING("GLSyncDisplayDevice", "__GL_SYNC_DISPLAY_DEVICE",
                                        "The display OpenGL syncs to vertical blanking, e.g. \"DP-1\"") },
        { .documented = true,
                        BOOLEAN("GLSyncToVblank", "__GL_SYNC_TO_VBLANK",
                                        "Buffer swaps wait for vertical blanking (vsync)") },
        { .documented = true,
                        BOOLEAN("GLSortFbconfigs", "__GL_SORT_FBCONFIGS",
                                        "false: FBConfigs in the X server's order instead of GLX's") },
        { .documented = true,
                        BOOLEAN("GLAllowUnofficialProtocol", "__GL_ALLOW_UNOFFICIAL_PROTOCOL",
                                        "Allows incomplete GLX protocol for indirect rendering") },
        { .documented = true,
                        STRING("GLSELinuxBooleans", "__GL_SELINUX_BOOLEANS",
                                        "Overrides the detected SELinux booleans, e.g. \"allow_execmem=1,deny_execmem=0\"") },
        { .documented = true, BOOLEAN("GLShaderDiskCache", "__GL_SHADER_DISK_CACHE", "Enables the shader disk cache") },
        { .documented = true,
                        STRING("GLShaderDiskCachePath", "__GL_SHADER_DISK_CACHE_PATH",
                                        "The directory of the shader disk cache") },
        { .documented = true,
                        STRING("GLYield", "__GL_YIELD",
                                        "How the driver yields while it waits: \"NOTHING\", \"USLEEP\" (unset: sched_yield)"),
                        .values = yield_modes },
        { .documented = true,
                        BOOLEAN("GLThreadedOptimizations", "__GL_THREADED_OPTIMIZATIONS",
                                        "Offloads the driver's CPU work to a worker thread") },
        { .documented = true, BOOLEAN("GLDoom3", "__GL_DOOM3", "Doom 3's SLI settings") },
        { .documented = true,
                        INTEGER("GLExtensionStringVersion", "__GL_ExtensionStringVersion", 0, U32_MAX,
                                        "Truncates the extension string to that of a driver series, e.g. 17700") },
        { .documented = true,
                        BOOLEAN("GLConformantBlitFramebufferScissor", "__GL_ConformantBlitFramebufferScissor",
                                        "Conformant scissor test in glBlitFramebuffer") },
        { .documented = true,
                        BOOLEAN("GLAllowFXAAUsage", "__GL_ALLOW_FXAA_USAGE",
                                        "false disables FXAA for this application while FXAA is on globally") },
        { .documented = true,
                        BOOLEAN("GLVRRAllowed", "__GL_VRR_ALLOWED",
                                        "Whether G-SYNC / variable refresh rate may be used") },
        { .documented = true,
                        BOOLEAN("GLWriteTextSection", "__GL_WRITE_TEXT_SECTION",
                                        "false disables optimizations that write to executable memory") },
        { .documented = true,
                        BOOLEAN("GLIgnoreGLSLExtReqs", "__GL_IGNORE_GLSL_EXT_REQS",
                                        "Ignores shaders' missing #extension directives and profile requirements") },
        { .documented = true,
                        INTEGER("EGLVisibleDGPUDevices", NULL, 0, U32_MAX,
                                        "Bit mask of the /dev/nvidiaN devices EGL may use (bit N)") },
        { .documented = true,
                        INTEGER("EGLVisibleTegraDevices", NULL, 0, U32_MAX,
                                        "Bit mask of the Tegra devices EGL may use, as EGLVisibleDGPUDevices") },
        { .documented = true,
                        BOOLEAN("GLShowGraphicsOSD", "__GL_SHOW_GRAPHICS_OSD",
                                        "Shows the graphics API, frame rate, vsync and flip status over the application") },
        { .documented = true,
                        BOOLEAN("GLSharpenEnable", "__GL_SHARPEN_ENABLE",
                                        "Image sharpening for OpenGL and Vulkan applications") },
        { .documented = true,
                        INTEGER("GLSharpenValue", "__GL_SHARPEN_VALUE", 0, 100, "Amount of sharpening (default 50)") },
        { .documented = true,
                        INTEGER("GLSharpenIgnoreFilmGrain", "__GL_SHARPEN_IGNORE_FILM_GRAIN", 0, 100,
                                        "Denoising of the sharpened image (default 17)") },

        { INTEGER("GLVidHeapReuseRatio", NULL, 0, U32_MAX,
                        "How much freed video memory OpenGL may keep for reuse (driver 565; NVIDIA's profiles use 0)") },
        { INTEGER("0x166c5e", NULL, 0, U32_MAX,
                          "CUDA forces the P2 memory clock state; 0 stops it (profile CudaNoStablePerfLimit)"),
                        .profile_name = "CudaNoStablePerfLimit" },
        { INTEGER("0x528ab3", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile CL1C, for DCC applications)") },
        { INTEGER("10572898", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile FA0, for firefox and kwin_gles)") },
        { INTEGER("GL23cd0e", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile NamedVertexAttributesApplyDivisor)") },
        { BOOLEAN("ForceRequestedESVersion", NULL,
                        "Undocumented: the exact OpenGL ES version requested (NVIDIA's profile ExactGLESVersion)") },
        { BOOLEAN("GLStrictDrawRangeElements", NULL,
                        "Undocumented: strict glDrawRangeElements (NVIDIA's profile for GoatGame)") },
        { BOOLEAN("GLShaderPortabilityWarnings", NULL,
                        "Undocumented: enforce shader input/output matching (NVIDIA's profile for ShadowOfMordor)") },
        { INTEGER("OVERRIDE_VENDORID", NULL, 0, 0xffff,
                        "Undocumented: the PCI vendor id reported, e.g. 4098 (AMD) (NVIDIA's profile HideVendorID)") },
        { BOOLEAN("DisablePersampleFragcoord", NULL, "Undocumented (NVIDIA's profile for DeusExMD)") },
        { INTEGER("__GL_CPMM", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile ForceSeparateTrimThread)") },
        { BOOLEAN("IdleQueueOnSwapchainOOD", NULL,
                        "Undocumented: Vulkan waits for idle when a swapchain is out of date") },
        { BOOLEAN("HostVisibleVidmem", NULL, "Undocumented: host-visible video memory for Vulkan") },
        { BOOLEAN("PromoteSysmemToHostVisibleVidmem", NULL,
                        "Undocumented: system memory promoted to host-visible video memory (DX12 titles)") },
        { BOOLEAN("PinToPCores", NULL, "Undocumented: pins the application to performance cores") },
        { BOOLEAN("SkipClearStorageBuffer", NULL, "Undocumented (NVIDIA's profile for DeusExMD)") },
        { BOOLEAN("ForceGLXTrueColorVisual", NULL,
                        "Undocumented: GLX TrueColor visuals (NVIDIA's profile for warsow)") },
        { BOOLEAN("DisableDBus", NULL, "Undocumented: the driver does not use D-Bus (NVIDIA's profile for X-Plane)") },
        { INTEGER("0x306c59", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile OclCompuBenchRemoveConstArgWar)") },
        { INTEGER("0xbb93f8", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile OclAdditionalCompilerOptionWar)") },
        { INTEGER("0xe6056f", NULL, 0, U32_MAX, "Undocumented (NVIDIA's profile OCL_MAYA_HANG_WAR, 440.82)") },
        { BOOLEAN("VKDirectGSYNCAllowed", NULL, "Undocumented: G-SYNC for Vulkan direct-to-display applications") },
        { BOOLEAN("VKDirectGSYNCCompatibleAllowed", NULL,
                        "Undocumented: G-SYNC Compatible for Vulkan direct-to-display applications") },

        { .replaced_by = "GLVRRAllowed",
                        BOOLEAN("GLGSYNCAllowed", "__GL_GSYNC_ALLOWED",
                                        "Obsolete (renamed in 418): whether G-SYNC may be used") },
};

/* Typographic quotes that phones, word processors and web pages put where '"' was meant. */
static const char *const curly_quotes[] = { "\u2018", "\u2019", "\u201a", "\u201b", "\u201c", "\u201d", "\u201e",
        "\u201f" };

const RcSettingInfo *rc_settings_known(size_t *ret_n)
{
        assert(ret_n);
        *ret_n = ELEMENTSOF(settings);
        return settings;
}

const RcSettingInfo *rc_setting_lookup(const char *key)
{
        assert(key);
        for (size_t i = 0; i < ELEMENTSOF(settings); i++)
                if (streq(settings[i].key, key))
                        return &settings[i];
        return NULL;
}

const RcSettingInfo *rc_setting_lookup_profile_name(const char *name)
{
        assert(name);
        for (size_t i = 0; i < ELEMENTSOF(settings); i++)
                if (settings[i].profile_name && strcasecmp(settings[i].profile_name, name) == 0)
                        return &settings[i];
        return NULL;
}

const RcSettingInfo *rc_setting_lookup_any_case(const char *key)
{
        assert(key);
        for (size_t i = 0; i < ELEMENTSOF(settings); i++)
                if (strcasecmp(settings[i].key, key) == 0)
                        return &settings[i];
        return NULL;
}

static int set_message(char **ret_message, int r, const char *fmt, ...) _printf_(3, 4);
static int set_message(char **ret_message, int r, const char *fmt, ...)
{
        va_list ap;
        int k;

        if (!ret_message)
                return r;
        va_start(ap, fmt);
        k = vasprintf(ret_message, fmt, ap);
        va_end(ap);
        if (k < 0) {
                *ret_message = NULL;
                return -ENOMEM;
        }
        return r;
}

/* What a person typed or pasted must be text we can write and show: valid UTF-8, no control characters
 * (a terminal would act on them, and the rc syntax has no raw ones), no typographic quotes. */
static int check_text(const char *what, const char *s, char **ret_message)
{
        size_t len = strlen(s);

        if (!utf8_is_valid_n(s, len))
                return set_message(ret_message, -EINVAL, "%s is not valid UTF-8", what);
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c < 0x20 || c == 0x7f)
                        return set_message(ret_message, -EINVAL, "%s has a control character (0x%02x) at byte %zu",
                                        what, c, i);
                /* C1 controls, U+0080 to U+009F, are 0xc2 0x80 to 0xc2 0x9f in UTF-8. */
                if (c == 0xc2 && i + 1 < len && (unsigned char) s[i + 1] <= 0x9f)
                        return set_message(ret_message, -EINVAL, "%s has a control character (U+%04X) at byte %zu",
                                        what, (unsigned char) s[i + 1], i);
        }
        for (size_t i = 0; i < ELEMENTSOF(curly_quotes); i++) {
                const char *q = strstr(s, curly_quotes[i]);
                if (q)
                        return set_message(ret_message, -EINVAL,
                                        "%s has a typographic quote %s at byte %zu: write a plain \" instead", what,
                                        curly_quotes[i], (size_t) (q - s));
        }
        return 0;
}

/* The value text through the rc reader itself, as the one setting of a one-line file, so that what we
 * accept is exactly what the reader (and so the daemon and the editor's own check) reads. The file is
 * one line and has no control characters, so a '#' in the value would comment out the closing brackets,
 * and anything beyond one value (a second member, a closing bracket) changes the counts or warns. */
#define WRAP_PREFIX "{\"profiles\": [{\"name\": \"v\", \"settings\": [\"k\", "
#define WRAP_SUFFIX "]}]}"

/* Returns 0 for a literal, -EBADMSG for text that is not one, -EINVAL for a literal we refuse; *ret_error
 * says why for both. */
static int parse_literal(const char *value, RcValue *ret, char **ret_error)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_free_ char *text = NULL;
        const RcDiagnostic *d;
        int r;

        if (asprintf(&text, WRAP_PREFIX "%s" WRAP_SUFFIX, value) < 0)
                return -ENOMEM;
        r = rc_file_parse("value", text, strlen(text), NULL, &f);
        if (r < 0)
                return r;

        if (f->state == RC_FILE_LOADED && f->diagnostics.n_items == 0 && f->n_profiles == 1 &&
                        f->profiles[0].n_settings == 1) {
                const RcValue *v = &f->profiles[0].settings[0].value;

                *ret = *v;
                if (v->type == RC_VALUE_STRING) {
                        /* The string lives in f's arena: keep only whether it is clean. */
                        for (const char *p = v->string; *p; p++)
                                if ((unsigned char) *p < 0x20 || *p == 0x7f) {
                                        *ret_error = strdup("its escapes decode to a control character");
                                        return *ret_error ? -EINVAL : -ENOMEM;
                                }
                        ret->string = NULL;
                }
                return 0;
        }

        /* A diagnostic inside the value says what is wrong there; one elsewhere is about the wrapping,
         * which only text that is more than one value reaches. */
        d = f->diagnostics.n_items > 0 ? &f->diagnostics.items[0] : NULL;
        if (d && d->line == 1 && d->column > strlen(WRAP_PREFIX) && d->column - strlen(WRAP_PREFIX) <= strlen(value))
                r = asprintf(ret_error, "%s (byte %zu)", d->message, (size_t) d->column - strlen(WRAP_PREFIX) - 1);
        else
                r = asprintf(ret_error, "it is not one true, false, number or \"string\"");
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EBADMSG;
}

/* The same, and the text must be the literal alone, as it will be written. */
static int parse_trimmed_literal(const char *value, RcValue *ret, char **ret_error)
{
        if (value[0] == ' ' || (value[0] && value[strlen(value) - 1] == ' ')) {
                *ret_error = strdup("it has spaces around it");
                return *ret_error ? -EBADMSG : -ENOMEM;
        }
        return parse_literal(value, ret, ret_error);
}

const RcSettingValue *rc_setting_value_lookup(const RcSettingInfo *info, const char *text)
{
        _cleanup_free_ char *error = NULL;
        RcValue v;

        assert(info);
        assert(text);

        if (!info->values || parse_trimmed_literal(text, &v, &error) < 0)
                return NULL;
        for (const RcSettingValue *e = info->values; e->value; e++)
                /* The table's integers are decimal; a value may be spelled 0x1 or 01 as well. */
                if (v.type == RC_VALUE_INTEGER ? e->value[0] != '"' && strtoll(e->value, NULL, 10) == v.integer
                                               : streq(e->value, text))
                        return e;
        return NULL;
}

/* ", one of: 0 (Off), 1 (2x)" for an enumeration. */
static int describe_values(const RcSettingInfo *info, char **ret)
{
        _cleanup_free_ char *text = strdup("");

        if (!text)
                return -ENOMEM;
        for (const RcSettingValue *e = info->values; e && e->value; e++) {
                char *joined;

                if (asprintf(&joined, "%s%s %s (%s)", text, e == info->values ? ", one of:" : ",", e->value,
                                    e->meaning) < 0)
                        return -ENOMEM;
                free(text);
                text = joined;
        }
        *ret = TAKE_PTR(text);
        return 0;
}

static int describe_type(const RcSettingInfo *info, char **ret)
{
        _cleanup_free_ char *values = NULL;
        int r = -1;

        if (describe_values(info, &values) < 0)
                return -ENOMEM;
        switch (info->type) {
        case RC_SETTING_BOOLEAN:
                r = asprintf(ret, "%s is a boolean (true, false, 1 or 0)%s", info->key, values);
                break;
        case RC_SETTING_INTEGER:
                if (info->max > 0xffff)
                        r = asprintf(ret,
                                        "%s is an integer from %" PRIi64 " to %" PRIi64 " (0x%" PRIx64
                                        "), decimal, 0x hex or 0 octal%s",
                                        info->key, info->min, info->max, (uint64_t) info->max, values);
                else
                        r = asprintf(ret,
                                        "%s is an integer from %" PRIi64 " to %" PRIi64
                                        ", decimal, 0x hex or 0 octal%s",
                                        info->key, info->min, info->max, values);
                break;
        case RC_SETTING_STRING:
                r = asprintf(ret, "%s is a string, written \"text\"%s", info->key, values);
                break;
        case _RC_SETTING_TYPE_MAX:
                assert_not_reached();
        }
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}

static bool value_fits(const RcSettingInfo *info, const RcValue *v)
{
        switch (info->type) {
        case RC_SETTING_BOOLEAN:
                return v->type == RC_VALUE_BOOLEAN ||
                                (v->type == RC_VALUE_INTEGER && (v->integer == 0 || v->integer == 1));
        case RC_SETTING_INTEGER:
                return v->type == RC_VALUE_INTEGER && v->integer >= info->min && v->integer <= info->max;
        case RC_SETTING_STRING:
                return v->type == RC_VALUE_STRING;
        case _RC_SETTING_TYPE_MAX:
                break;
        }
        assert_not_reached();
}

/* The checks shared by both entry points, on a key and the rc text of its value. */
static int check_setting(const char *key, const char *value, char **ret_message)
{
        _cleanup_free_ char *error = NULL, *type = NULL;
        const RcSettingInfo *info;
        RcValue v;
        int r;

        r = check_text("the key", key, ret_message);
        if (r < 0)
                return r;
        if (isempty(key))
                return set_message(ret_message, -EINVAL, "the key is empty");
        r = check_text("the value", value, ret_message);
        if (r < 0)
                return r;

        info = rc_setting_lookup(key);
        if (!info) {
                const RcSettingInfo *other = rc_setting_lookup_any_case(key);
                if (other)
                        return set_message(
                                        ret_message, -EINVAL, "unknown key %s: the key is spelled %s", key, other->key);
        }

        r = parse_trimmed_literal(value, &v, &error);
        if (r == -ENOMEM)
                return r;
        if (r == -EINVAL)
                return set_message(ret_message, -EINVAL, "the value %s is refused: %s", value, error);

        /* A string that is broken is better told by the reader's error than by its type. */
        if (info &&
                        (r < 0 ? !(info->type == RC_SETTING_STRING && value[0] == '"')
                               : !value_fits(info, &v) || (info->values && !rc_setting_value_lookup(info, value)))) {
                if (describe_type(info, &type) < 0)
                        return -ENOMEM;
                return set_message(ret_message, -EINVAL, "%s, not %s", type, value[0] ? value : "an empty value");
        }
        if (r < 0)
                return set_message(ret_message, -EINVAL, "%s is not an rc value: %s", value, error);

        if (!info)
                return set_message(ret_message, 1,
                                "unknown key %s: the driver reads it as written, but it is not one we know", key);
        if (info->replaced_by)
                return set_message(ret_message, 1, "%s is obsolete: current drivers read %s", key, info->replaced_by);

        if (ret_message)
                *ret_message = NULL;
        return 0;
}

int rc_setting_check(const char *key, const char *value, char **ret_message)
{
        assert(key);
        assert(value);
        return check_setting(key, value, ret_message);
}

/* text as a JSON string: '"' and '\' escaped (check_text() already refused control characters). */
static char *json_quote(const char *text)
{
        size_t len = strlen(text), n = 0;
        char *buf = malloc(len * 2 + 3);

        if (!buf)
                return NULL;
        buf[n++] = '"';
        for (const char *p = text; *p; p++) {
                if (*p == '"' || *p == '\\')
                        buf[n++] = '\\';
                buf[n++] = *p;
        }
        buf[n++] = '"';
        buf[n] = '\0';
        return buf;
}

int rc_setting_parse_assignment(const char *assignment, char **ret_key, char **ret_value, char **ret_message)
{
        _cleanup_free_ char *key = NULL, *value = NULL, *error = NULL;
        const RcSettingInfo *info;
        const char *eq;
        RcValue v;
        int r;

        assert(assignment);
        assert(ret_key);
        assert(ret_value);

        r = check_text("the assignment", assignment, ret_message);
        if (r < 0)
                return r;
        eq = strchr(assignment, '=');
        if (!eq)
                return set_message(ret_message, -EINVAL, "%s is not KEY=VALUE", assignment);
        key = strndup(assignment, (size_t) (eq - assignment));
        if (!key)
                return -ENOMEM;
        eq++;

        info = rc_setting_lookup(key);
        if (info && info->type == RC_SETTING_STRING && eq[0] != '"')
                /* A string key takes any text: the quotes are ours to add. */
                value = json_quote(eq);
        else if (!info && eq[0] != '"') {
                /* An unknown key's value is a literal if it reads as one, else text. */
                r = parse_trimmed_literal(eq, &v, &error);
                if (r == -ENOMEM)
                        return r;
                value = r == 0 ? strdup(eq) : json_quote(eq);
        } else
                value = strdup(eq);
        if (!value)
                return -ENOMEM;

        r = check_setting(key, value, ret_message);
        if (r < 0)
                return r;
        *ret_key = TAKE_PTR(key);
        *ret_value = TAKE_PTR(value);
        return r;
}

static const char *const type_names[_RC_SETTING_TYPE_MAX] = {
        [RC_SETTING_BOOLEAN] = "boolean",
        [RC_SETTING_INTEGER] = "integer",
        [RC_SETTING_STRING] = "string",
};

const char *rc_setting_type_to_string(RcSettingType t)
{
        return t >= 0 && t < _RC_SETTING_TYPE_MAX ? type_names[t] : NULL;
}
