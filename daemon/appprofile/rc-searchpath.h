/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* The driver's search path (NVIDIA README, "Application Profile Search Path"), in precedence order. */

typedef enum RcEntryKind {
        RC_ENTRY_USER_FILE, /* $HOME/.nv/nvidia-application-profiles-rc */
        RC_ENTRY_USER_DIR, /* $HOME/.nv/nvidia-application-profiles-rc.d */
        RC_ENTRY_SYSTEM_FILE, /* /etc/nvidia/nvidia-application-profiles-rc */
        RC_ENTRY_SYSTEM_DIR, /* /etc/nvidia/nvidia-application-profiles-rc.d */
        RC_ENTRY_SHIPPED, /* /usr/share/nvidia/nvidia-application-profiles-<version>-rc */
        _RC_ENTRY_KIND_MAX,
} RcEntryKind;

#define RC_GLOBALS_FILE_NAME ".nv/nvidia-application-profile-globals-rc" /* singular "profile" */
#define RC_SHIPPED_UNVERSIONED "/usr/share/nvidia/nvidia-application-profiles-rc"

/* Builds the path of entry kind. The $HOME entries need home, the shipped one needs version; without
 * them returns -ENOENT (the driver skips the entry). -EINVAL if home is not absolute or version is not
 * a plain version string (it goes into a file name). */
int rc_entry_path(RcEntryKind kind, const char *home, const char *version, char **ret);

bool rc_entry_kind_is_user(RcEntryKind kind) _const_;
const char *rc_entry_kind_to_string(RcEntryKind kind) _const_;

/* A driver version is digits and dots, like "570.153.02". */
bool rc_driver_version_is_valid(const char *v) _pure_;

/* Reads the loaded driver's version from <proc>/driver/nvidia/version, else <sys>/module/nvidia/version.
 * proc_fd/sys_fd are directory fds (negative: not looked at). -ENOENT when no NVIDIA driver is loaded. */
int rc_driver_version_detect(int proc_fd, int sys_fd, char **ret);
