/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm-device.h"
#include "fileio.h"
#include "parse-util.h"
#include "string-util.h"

/* The last component of a symlink's target under /sys/dev/char/MAJ:MIN, or "" when absent. */
static void link_basename(int sys_fd, const char *path, char *buf, size_t size)
{
        char target[PATH_MAX];
        const char *base;
        ssize_t k;

        buf[0] = '\0';
        k = readlinkat(sys_fd, path, target, sizeof(target) - 1);
        if (k <= 0)
                return;
        target[k] = '\0';
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        if (strlen(base) < size)
                strcpy(buf, base);
}

static uint32_t read_hex_id(int sys_fd, const char *path)
{
        _cleanup_free_ char *text = NULL;
        size_t size;
        unsigned long v;
        char *end;

        if (read_virtual_file_at(sys_fd, path, 64, &text, &size) < 0)
                return 0;
        errno = 0;
        v = strtoul(text, &end, 16);
        if (errno != 0 || end == text || v > UINT32_MAX)
                return 0;
        return (uint32_t) v;
}

static bool looks_like_pci_slot(const char *s)
{
        unsigned dom, bus, dev, fn;
        char tail;

        return sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

static void resolve_libdrm(dev_t rdev, DrmDeviceInfo *d)
{
        drmDevicePtr dev = NULL;

        if (drmGetDeviceFromDevId(rdev, 0, &dev) != 0 || !dev)
                return;
        if (dev->bustype == DRM_BUS_PCI && dev->businfo.pci && dev->deviceinfo.pci) {
                snprintf(d->pci_slot, sizeof(d->pci_slot), "%04x:%02x:%02x.%u", dev->businfo.pci->domain,
                                dev->businfo.pci->bus, dev->businfo.pci->dev, (unsigned) dev->businfo.pci->func);
                d->vendor_id = dev->deviceinfo.pci->vendor_id;
                d->device_id = dev->deviceinfo.pci->device_id;
                d->from_libdrm = true;
        } else if (dev->bustype == DRM_BUS_PLATFORM && dev->businfo.platform) {
                if (strlen(dev->businfo.platform->fullname) < sizeof(d->key))
                        strcpy(d->key, dev->businfo.platform->fullname);
                d->from_libdrm = true;
        }
        drmFreeDevice(&dev);
}

int drm_device_resolve(int sys_fd, dev_t rdev, bool use_libdrm, DrmDeviceInfo *ret)
{
        DrmDeviceInfo d = { .rdev = rdev };
        char base[64], path[128], subsystem[32], name[DRM_DEVICE_KEY_MAX];

        snprintf(base, sizeof(base), "dev/char/%u:%u", major(rdev), minor(rdev));
        link_basename(sys_fd, base, d.node, sizeof(d.node));

        if (use_libdrm)
                resolve_libdrm(rdev, &d);

        snprintf(path, sizeof(path), "%s/device/driver", base);
        link_basename(sys_fd, path, d.driver, sizeof(d.driver));

        if (!d.from_libdrm) {
                snprintf(path, sizeof(path), "%s/device", base);
                link_basename(sys_fd, path, name, sizeof(name));
                snprintf(path, sizeof(path), "%s/device/subsystem", base);
                link_basename(sys_fd, path, subsystem, sizeof(subsystem));
                if (streq(subsystem, "pci") && looks_like_pci_slot(name) && strlen(name) < sizeof(d.pci_slot)) {
                        strcpy(d.pci_slot, name);
                        snprintf(path, sizeof(path), "%s/device/vendor", base);
                        d.vendor_id = read_hex_id(sys_fd, path);
                        snprintf(path, sizeof(path), "%s/device/device", base);
                        d.device_id = read_hex_id(sys_fd, path);
                } else if (!isempty(name))
                        strcpy(d.key, name);
        }

        if (!isempty(d.pci_slot))
                strcpy(d.key, d.pci_slot);
        else if (isempty(d.key))
                snprintf(d.key, sizeof(d.key), "%u:%u", major(rdev), minor(rdev));
        *ret = d;
        return 0;
}

DrmPowerState drm_device_power_state(int sys_fd, dev_t rdev)
{
        _cleanup_free_ char *text = NULL;
        char path[96];
        size_t size;

        snprintf(path, sizeof(path), "dev/char/%u:%u/device/power/runtime_status", major(rdev), minor(rdev));
        if (read_virtual_file_at(sys_fd, path, 64, &text, &size) < 0)
                return DRM_POWER_UNKNOWN;
        if (startswith(text, "suspended") || startswith(text, "suspending"))
                return DRM_POWER_SUSPENDED;
        return DRM_POWER_ACTIVE;
}

const char *drm_power_state_to_string(DrmPowerState s)
{
        switch (s) {
        case DRM_POWER_UNKNOWN:
                return "unknown";
        case DRM_POWER_ACTIVE:
                return "active";
        case DRM_POWER_SUSPENDED:
                return "suspended";
        }
        return NULL;
}
