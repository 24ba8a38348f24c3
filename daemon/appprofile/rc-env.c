/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-env.h"

static const struct {
        const char *key;
        const char *variable;
} key_env_table[] = {
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
        { "GLShowGraphicsOSD", "__GL_SHOW_GRAPHICS_OSD" },
        { "GLSharpenEnable", "__GL_SHARPEN_ENABLE" },
        { "GLSharpenValue", "__GL_SHARPEN_VALUE" },
        { "GLSharpenIgnoreFilmGrain", "__GL_SHARPEN_IGNORE_FILM_GRAIN" },
};

const char *rc_key_env_variable(const char *key)
{
        assert(key);

        for (size_t i = 0; i < ELEMENTSOF(key_env_table); i++)
                if (streq(key_env_table[i].key, key))
                        return key_env_table[i].variable;
        return NULL;
}
