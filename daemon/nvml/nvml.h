/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NVIDIA GPUs through NVML: nvidia-drm prints no drm-* fdinfo, so per-device and per-process usage of
 * NVIDIA GPUs can only come from NVIDIA's management library. It is optional: loaded with dlopen() when
 * the daemon starts (no build dependency), and when it is absent, fails to initialise or finds no device,
 * the source says so in one message ("NVML not available: ...") and nothing else changes.
 *
 * What was verified, and on what:
 * - Nothing here has run against a real libnvidia-ml.so.1 or a real NVIDIA GPU: there is none on the
 *   machines this was written and tested on, nor in CI. The declarations in nvml-api.h are written from
 *   NVML's API reference; tests/nvml/ loads a fixture library that implements exactly the entry points we
 *   call, following that reference (version fallbacks, INSUFFICIENT_SIZE, NVML_VALUE_NOT_AVAILABLE,
 *   NOT_FOUND for "no new samples", lastSeenTimeStamp), with scripted values. So the tests prove that we
 *   use the API as documented, not that the documentation matches a driver.
 * - Not verified, and worth checking on the first machine with a GPU: the struct layouts against the
 *   real library (nvml-api.h's static assertions only pin our own reading of the reference); which
 *   _v3/_v2 symbols and which process-utilisation function real drivers of each branch export and support
 *   (GeForce boards are known to refuse some per-process queries); whether the PCI query we make before
 *   looking at runtime_status, or nvmlInit() itself, wakes or holds awake a runtime-suspended GPU (users
 *   report that an initialised NVML keeps the GPU's runtime PM usage count up; if so, the manager should
 *   open the source only while somebody watches); the unit of NVML's sample timestamps (documented as CPU
 *   microseconds); whether a process listed as both compute and graphics reports one figure in both lists
 *   (we take the larger, never the sum).
 *
 * Single-threaded: call everything from one thread (the daemon's event loop). NVML calls may block (a lost
 * GPU times out), which is one more reason to sample at the slow rate unless somebody watches. */

#include <stdbool.h>
#include <stdint.h>

#include "gpu-sensor.h"
#include "macro.h"

#define NVML_SOURCE_NAME "nvml"
#define NVML_SOURCE_LIBRARY_DEFAULT "libnvidia-ml.so.1"

/* Bounds on what one library can make us hold: devices and, per device, processes. */
#define NVML_SOURCE_DEVICES_MAX 64U
#define NVML_SOURCE_PROCESSES_MAX 4096U

/* A figure NVML did not give (NVML_VALUE_NOT_AVAILABLE, or a query the device does not support). */
#define NVML_SOURCE_UNKNOWN UINT64_MAX

#define NVML_SOURCE_BUS_ID_MAX 24 /* "dddddddd:bb:dd.f" and the NUL */
#define NVML_SOURCE_NAME_MAX 96
#define NVML_SOURCE_MESSAGE_MAX 256
#define NVML_SOURCE_SENSORS_MAX 6

typedef enum NvmlSourceState {
        NVML_SOURCE_UNAVAILABLE, /* no library, no nvmlInit(), no device: see the message */
        NVML_SOURCE_READY,
} NvmlSourceState;

typedef enum NvmlDeviceState {
        NVML_DEVICE_SAMPLED, /* the figures below are from the last nvml_source_sample() */
        NVML_DEVICE_SUSPENDED, /* runtime-suspended: not queried, so as not to wake it */
        NVML_DEVICE_FAILED, /* see the message; not queried further this time */
} NvmlDeviceState;

typedef struct NvmlProcessUsage {
        uint32_t pid; /* in the PID namespace NVML reports, the host's for a daemon on the host */
        bool compute; /* listed by the compute running-processes query */
        bool graphics; /* listed by the graphics running-processes query */
        uint64_t memory_bytes; /* GPU memory used, or NVML_SOURCE_UNKNOWN */

        /* From NVML's newest utilisation sample of this process that is newer than the previous call's
         * newest: each sample counts once. False when NVML took no new sample of it. Percentages of NVML's
         * own sampling period, as NVML gives them. */
        bool has_utilization;
        uint32_t sm_percent, mem_percent, enc_percent, dec_percent;
        uint64_t timestamp_usec; /* NVML's timestamp of that sample */

        const char *source; /* NVML_SOURCE_NAME, for the merge with the DRM fdinfo model */
} NvmlProcessUsage;

typedef struct NvmlDeviceUsage {
        unsigned index; /* NVML's device index */
        char pci_bus_id[NVML_SOURCE_BUS_ID_MAX]; /* "0000:01:00.0", as /sys/bus/pci/devices names it */
        char name[NVML_SOURCE_NAME_MAX]; /* empty until read once while the device was awake */
        char uuid[NVML_SOURCE_NAME_MAX]; /* "GPU-…", likewise */

        NvmlDeviceState state;
        char message[NVML_SOURCE_MESSAGE_MAX]; /* why it is suspended or failed; empty when sampled */

        bool has_utilization;
        uint32_t gpu_percent, memory_percent; /* nvmlDeviceGetUtilizationRates() */
        uint64_t memory_used_bytes, memory_total_bytes; /* NVML_SOURCE_UNKNOWN when not given */
        /* Temperature, power and its enforced limit, graphics and memory clocks, fan: those the device
         * answered in the last sample; none while it is not sampled (suspended, failed). */
        GpuSensorReading sensors[NVML_SOURCE_SENSORS_MAX];
        size_t n_sensors;

        NvmlProcessUsage *processes; /* sorted by pid, one entry per pid */
        size_t n_processes;
        bool processes_truncated; /* more than NVML_SOURCE_PROCESSES_MAX: the rest are not listed */

        uint64_t last_seen_usec; /* newest NVML utilisation timestamp so far, passed back to NVML */
        const char *source; /* NVML_SOURCE_NAME */
} NvmlDeviceUsage;

typedef struct NvmlSource NvmlSource;

/* Loads the library (library_path, or NVML_SOURCE_LIBRARY_DEFAULT when NULL: the daemon passes its
 * configuration, tests the fixture's path), initialises it and lists the devices (at most
 * NVML_SOURCE_DEVICES_MAX). sys_fd is the /sys root (a directory fd, duplicated): a device whose
 * bus/pci/devices/<bus id>/power/runtime_status says "suspended" is not queried. Returns 0 with a source in
 * either state (an absent library is not an error; the message says what happened), or a negative errno
 * (-ENOMEM, or the dup of sys_fd failed). */
int nvml_source_open(const char *library_path, int sys_fd, NvmlSource **ret);

/* nvmlShutdown() and dlclose() when it was loaded. */
NvmlSource *nvml_source_free(NvmlSource *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(NvmlSource *, nvml_source_free);

NvmlSourceState nvml_source_state(const NvmlSource *s) _pure_;
/* "NVML not available: <why>", or, when ready, which library and how many devices. */
const char *nvml_source_message(const NvmlSource *s) _pure_;

/* Which version of the compute (graphics: the graphics) running-processes query was found (3, 2, 1 for
 * the unversioned one, 0 for none: that list is then empty), and which
 * per-process utilisation function a device uses now ("nvmlDeviceGetProcessesUtilizationInfo",
 * "nvmlDeviceGetProcessUtilization", or NULL when none works): for status and tests. */
unsigned nvml_source_running_processes_version(const NvmlSource *s, bool graphics) _pure_;
const char *nvml_source_process_utilization_function(const NvmlSource *s, size_t device) _pure_;

/* Queries every device that is not runtime-suspended: utilisation, memory, sensors, processes and their memory,
 * process utilisation samples since the last call. One device's failure is in that device's state and
 * message and does not stop the others. -ENODEV when the source is not ready, -ENOMEM. */
int nvml_source_sample(NvmlSource *s);

/* The devices, as of the last nvml_source_sample() (before the first: identity only). The pointers stay
 * valid until the next nvml_source_sample() or nvml_source_free(). */
size_t nvml_source_n_devices(const NvmlSource *s) _pure_;
const NvmlDeviceUsage *nvml_source_device(const NvmlSource *s, size_t i) _pure_;
