/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "gpu-sensor.h"

/* A DRM device's sensors from its hwmon (Documentation/hwmon/sysfs-interface.rst), under
 * dev/char/MAJ:MIN/device/hwmon/hwmonN/ of the /sys root given as a directory fd (what
 * /sys/class/drm/cardN/device/hwmon/ is), so a fixture tree works:
 *   tempN_input (m°C) with tempN_label                       -> "temperature", celsius
 *   powerN_average, else powerN_input (µW) with powerN_label -> "power", watt
 *   powerN_cap (µW)                                          -> "power_limit", watt
 *   freqN_input (Hz) whose freqN_label is "sclk" / "mclk"    -> "clock_graphics" / "clock_memory", megahertz
 *   fanN_input (rpm) with fanN_label                         -> "fan", rpm
 *
 * Whether a hwmon read wakes a runtime-suspended GPU differs by driver and kernel (amdgpu before 6.6 and
 * i915/xe take a runtime-PM reference and wake it), so the device's power/runtime_status is read first and
 * nothing of hwmon, not even its directory, is opened while it says "suspended" (or "suspending"). Only
 * regular files are read, a bounded number of bytes each; a file that cannot be read or parsed is a
 * sensor the device lacks. */

#define DRM_HWMON_DIRS_MAX 4u /* hwmonN directories of one device looked at */
#define DRM_HWMON_FILES_MAX 64u /* sensor files of one hwmonN directory looked at */

/* Fills ret (room for max) in the order above, by index within each kind. Returns the number of readings:
 * 0 when the device is suspended or has no hwmon. */
size_t drm_hwmon_read(int sys_fd, dev_t rdev, GpuSensorReading *ret, size_t max);
