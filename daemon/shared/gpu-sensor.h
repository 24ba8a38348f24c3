/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One reading of a GPU's sensor, as Usage.ListGpuSensors() gives it (dbus/io.github.nvprofiled.NvProfiled1.xml):
 * NVML (daemon/nvml) and the DRM devices' hwmon (daemon/drm/drm-hwmon.c) fill it, the usage manager keeps it
 * in its snapshot, the bus marshals it. The names and units are the D-Bus contract's words. */

#define GPU_SENSOR_TEMPERATURE "temperature"
#define GPU_SENSOR_POWER "power"
#define GPU_SENSOR_POWER_LIMIT "power_limit"
#define GPU_SENSOR_CLOCK_GRAPHICS "clock_graphics"
#define GPU_SENSOR_CLOCK_MEMORY "clock_memory"
#define GPU_SENSOR_FAN "fan"

#define GPU_UNIT_CELSIUS "celsius"
#define GPU_UNIT_WATT "watt"
#define GPU_UNIT_MEGAHERTZ "megahertz"
#define GPU_UNIT_PERCENT "percent"
#define GPU_UNIT_RPM "rpm"

/* Printable ASCII only (a driver's "edge", "junction", "PPT"), so it is valid UTF-8 on the bus and safe
 * on a terminal. */
#define GPU_SENSOR_LABEL_MAX 32u
/* Readings of one device at most: a few temperatures, power and limit, two clocks, a fan. */
#define GPU_SENSORS_MAX 24u

typedef struct GpuSensorReading {
        const char *sensor; /* GPU_SENSOR_* */
        const char *unit; /* GPU_UNIT_* */
        char label[GPU_SENSOR_LABEL_MAX]; /* the driver's, "" for NVML */
        double value;
} GpuSensorReading;
