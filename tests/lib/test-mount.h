/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Moves the calling process into a mount namespace of its own whose mounts never appear outside it, also
 * in a chroot, where "/" is not a mount point and so cannot be made private itself. Returns NULL, or
 * (without failing the test) why it cannot: the caller fails or skips with that reason. */
const char *test_private_mount_namespace(void);
