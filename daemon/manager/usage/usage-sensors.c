/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

#include "drm-hwmon.h"
#include "drm-sampler.h"
#include "log.h"
#include "pci-ids.h"
#include "string-util.h"
#include "usage-model.h"

/* What a DRM device entry of the snapshot says besides usage: its product name and its sensors.
 *
 * Sensors are read at sample time, not when a caller asks: a listing then costs no sysfs read however
 * often it is called (ListGpuSensors is everyone's), the figures are as old as the usage figures beside
 * them, and nothing is read while nobody samples, which is also when NVML is closed. A sample reads a
 * device's few hwmon files once, behind the runtime-PM gate (drm_hwmon_read()). */

static const char *pci_name(ManagerUsage *u, uint32_t vendor_id, uint32_t device_id)
{
        _cleanup_free_ char *name = NULL;
        UsagePciName *x;
        int r;

        for (size_t i = 0; i < u->n_pci_names; i++)
                if (u->pci_names[i].vendor_id == vendor_id && u->pci_names[i].device_id == device_id)
                        return u->pci_names[i].name;
        if (vendor_id > UINT16_MAX || device_id > UINT16_MAX)
                return "";
        r = pci_ids_lookup(u->manager->config.pci_ids, (uint16_t) vendor_id, (uint16_t) device_id, &name);
        if (r == -ENOMEM)
                return NULL;
        if (r == -ENOENT)
                log_debug("No PCI ID database: DRM devices have no name");
        if (u->n_pci_names >= USAGE_PCI_NAMES_MAX)
                return ""; /* more GPU models than any machine has: not kept */
        x = reallocarray(u->pci_names, u->n_pci_names + 1, sizeof(UsagePciName));
        if (!x)
                return NULL;
        u->pci_names = x;
        x = &u->pci_names[u->n_pci_names];
        x->name = r > 0 ? TAKE_PTR(name) : strdup("");
        if (!x->name)
                return NULL;
        x->vendor_id = vendor_id;
        x->device_id = device_id;
        u->n_pci_names++;
        return x->name;
}

void usage_pci_names_free(ManagerUsage *u)
{
        for (size_t i = 0; i < u->n_pci_names; i++)
                free(u->pci_names[i].name);
        u->pci_names = mfree(u->pci_names);
        u->n_pci_names = 0;
}

int usage_drm_device_details(ManagerUsage *u, UsageDevice *d)
{
        GpuSensorReading readings[GPU_SENSORS_MAX];
        const DrmSamplerDevice *node;
        const char *name;
        size_t n;

        if (d->vendor_id != 0 && isempty(d->name)) {
                name = pci_name(u, d->vendor_id, d->device_id);
                if (!name)
                        return -ENOMEM;
                if (!isempty(name)) {
                        char *copy = strdup(name);

                        if (!copy)
                                return -ENOMEM;
                        free(d->name);
                        d->name = copy;
                }
        }

        /* Not read while any node of it says suspended; drm_hwmon_read() checks again right before. */
        node = drm_sampler_find_device(u->sampler, d->device);
        if (!node || streq(d->state, "suspended"))
                return 0;
        n = drm_hwmon_read(u->manager->sys_fd, node->info.rdev, readings, ELEMENTSOF(readings));
        if (n == 0)
                return 0;
        d->sensors = reallocarray(NULL, n, sizeof(GpuSensorReading));
        if (!d->sensors)
                return -ENOMEM;
        memcpy(d->sensors, readings, n * sizeof(GpuSensorReading));
        d->n_sensors = n;
        return 0;
}
