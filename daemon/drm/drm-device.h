/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "drm-fdinfo.h"

/* What a DRM or accel device node's number resolves to: the device a client's usage belongs to when its
 * fdinfo has no drm-pdev (platform GPUs), and what ListGpuDevices shows about it. Read from sysfs
 * (/sys/dev/char/MAJ:MIN and its device/ directory) through a directory fd, so a fixture /sys works;
 * on the live /sys libdrm's drmGetDeviceFromDevId() is asked first (use_libdrm). */

#define DRM_DEVICE_KEY_MAX 64u
#define DRM_DEVICE_NODE_MAX 32u

typedef struct DrmDeviceInfo {
        dev_t rdev;
        /* The PCI slot, else the platform device's name, else "MAJOR:MINOR". */
        char key[DRM_DEVICE_KEY_MAX];
        char pci_slot[DRM_FDINFO_PDEV_MAX + 1]; /* "" when not PCI */
        char driver[DRM_FDINFO_DRIVER_MAX + 1]; /* the kernel driver bound to the device, "" if unknown */
        char node[DRM_DEVICE_NODE_MAX]; /* "card0", "renderD128", "accel0"; "" if unknown */
        uint32_t vendor_id, device_id; /* PCI ids, 0 when unknown */
        bool from_libdrm; /* libdrm resolved the bus and ids */
} DrmDeviceInfo;

/* Always succeeds for a char device number (at worst the key is "MAJOR:MINOR"); -ENOMEM only. */
int drm_device_resolve(int sys_fd, dev_t rdev, bool use_libdrm, DrmDeviceInfo *ret);

typedef enum DrmPowerState {
        DRM_POWER_UNKNOWN, /* no runtime PM file: treated as awake */
        DRM_POWER_ACTIVE,
        DRM_POWER_SUSPENDED, /* "suspended" (and "suspending"): reading fdinfo could wake it (xe) */
} DrmPowerState;

/* The device's power/runtime_status. */
DrmPowerState drm_device_power_state(int sys_fd, dev_t rdev);
const char *drm_power_state_to_string(DrmPowerState s) _const_;
