/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* Setting keys that an environment variable overrides (NVIDIA README 580.105.08, "Application Profiles":
 * environment variables rank above profiles): the variables of rc-settings.h's documented keys. Other
 * keys (opaque registry ids, Vulkan keys, EGLVisibleDGPUDevices, GLVidHeapReuseRatio) have no documented
 * variable. */
const char *rc_key_env_variable(const char *key) _pure_;

/* The per-process switch: __GL_APPLICATION_PROFILE=0/1 overrides the globals file. */
#define RC_ENV_APPLICATION_PROFILE "__GL_APPLICATION_PROFILE"
