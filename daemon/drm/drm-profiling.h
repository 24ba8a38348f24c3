/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Panfrost and Panthor (Arm Mali) print engine times in fdinfo only while their device's "profiling"
 * sysfs attribute is 1, which costs the GPU some work: the daemon sets it only when configured to
 * ([Usage] DriverProfiling=), only while it samples, and puts the previous value back after. */

/* Whether the kernel driver has a "profiling" switch for fdinfo engine times. */
bool drm_driver_has_profiling(const char *driver);

/* The device's "profiling" value (0 or 1) through /sys/dev/char/MAJ:MIN/device/profiling relative to
 * sys_fd; -ENOENT when the device has none, -EBADMSG when it holds something else. */
int drm_profiling_get(int sys_fd, dev_t rdev);
int drm_profiling_set(int sys_fd, dev_t rdev, bool on);
