/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one definition of nvprofiled's D-Bus names, shared by the daemon, nvprofilectl, the tests and the
 * benchmarks. dbus/io.github.nvprofiled.NvProfiled1.xml documents what lives under them. */

#define BUS_NAME "io.github.nvprofiled.NvProfiled1"
#define BUS_ROOT_PATH "/io/github/nvprofiled/NvProfiled1"
#define BUS_PROCESS_PREFIX BUS_ROOT_PATH "/process"
#define BUS_MANAGER_INTERFACE BUS_NAME ".Manager"
#define BUS_PROCESS_INTERFACE BUS_NAME ".Process"
#define BUS_SECTIONS_INTERFACE BUS_NAME ".Sections"
#define BUS_USAGE_INTERFACE BUS_NAME ".Usage"
#define BUS_PROCESS_USAGE_INTERFACE BUS_NAME ".ProcessUsage"
#define BUS_REPORT_PREFIX BUS_ROOT_PATH "/report"
#define BUS_REPORT_INTERFACE BUS_NAME ".Report"
#define BUS_PROFILES_INTERFACE BUS_NAME ".Profiles"

/* Our own error names, for our own conditions only; malformed arguments, refusals and unsupported
 * requests use the standard org.freedesktop.DBus.Error.* names (SD_BUS_ERROR_INVALID_ARGS, ...). */
#define BUS_ERROR_NO_SUCH_PROCESS BUS_NAME ".Error.NoSuchProcess"
#define BUS_ERROR_LIMITS_EXCEEDED BUS_NAME ".Error.LimitsExceeded"
#define BUS_ERROR_INVALID_REPORT BUS_NAME ".Error.InvalidReport"
#define BUS_ERROR_NO_SUCH_METRIC BUS_NAME ".Error.NoSuchMetric"
#define BUS_ERROR_FILE_CHANGED BUS_NAME ".Error.FileChanged" /* an rc file changed since it was read */
#define BUS_ERROR_EDIT_REFUSED BUS_NAME ".Error.EditRefused" /* the edit does not apply; the message says why */

/* polkit actions (dbus/io.github.nvprofiled.NvProfiled1.policy). */
#define POLKIT_ACTION_RELOAD "io.github.nvprofiled.NvProfiled1.reload"
#define POLKIT_ACTION_EDIT_SYSTEM_PROFILES "io.github.nvprofiled.NvProfiled1.edit-system-profiles"
