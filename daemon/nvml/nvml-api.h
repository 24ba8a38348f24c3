/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The few parts of NVIDIA's NVML C API that nvprofiled calls, written here from NVML's API reference
 * (docs.nvidia.com/deploy/nvml-api) so that building needs no NVIDIA header and running needs no NVIDIA
 * library. Nothing here is linked against: nvml.c looks every function up with dlsym() and calls it
 * through a pointer of the declared type; tests/nvml's fixture library defines them, so the compiler
 * holds the fixture and the loader to the same prototypes.
 *
 * The layouts are NVML's documented ABI (C structs, natural alignment). The assertions at the end pin
 * the sizes that follow from them on the LP64 ABIs we build for, because a wrong layout would make us
 * read a field other than the one the library wrote, silently. None of this was checked against a real
 * libnvidia-ml.so.1 (see nvml.h). */

#include <assert.h>

/* nvmlReturn_t: the values we act on. Everything else is reported by number (or nvmlErrorString()). */
typedef enum nvmlReturn_enum {
        NVML_SUCCESS = 0,
        NVML_ERROR_UNINITIALIZED = 1,
        NVML_ERROR_INVALID_ARGUMENT = 2,
        NVML_ERROR_NOT_SUPPORTED = 3,
        NVML_ERROR_NO_PERMISSION = 4,
        NVML_ERROR_NOT_FOUND = 6,
        NVML_ERROR_INSUFFICIENT_SIZE = 7,
        NVML_ERROR_DRIVER_NOT_LOADED = 9,
        NVML_ERROR_FUNCTION_NOT_FOUND = 13,
        NVML_ERROR_GPU_IS_LOST = 15,
        NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
        NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

/* An opaque handle owned by the library. */
typedef struct nvmlDevice_st *nvmlDevice_t;

/* Buffer sizes NVML documents for names and UUIDs (the "_V2" sizes, large enough for every version). */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* What NVML puts in a 64-bit figure it cannot give, e.g. a process's memory where the driver does not
 * account it per process (Windows WDDM, some containers). */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* A versioned struct carries its size in the low bits and its version in the top byte. */
#define NVML_STRUCT_VERSION_OF(type, ver) ((unsigned int) (sizeof(type) | ((unsigned int) (ver) << 24U)))

typedef struct nvmlPciInfo_st {
        char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
        unsigned int domain;
        unsigned int bus;
        unsigned int device;
        unsigned int pciDeviceId;
        unsigned int pciSubSystemId;
        char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:01:00.0": 8 hex digits of domain */
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
        unsigned int gpu; /* % of the last sample period in which a kernel ran */
        unsigned int memory; /* % of it in which device memory was read or written */
} nvmlUtilization_t;

/* Version 1: "used" includes memory the driver reserves for itself. */
typedef struct nvmlMemory_st {
        unsigned long long total;
        unsigned long long free;
        unsigned long long used;
} nvmlMemory_t;

/* Version 2 reports the driver's reservation separately, so "used" is what allocations use. */
typedef struct nvmlMemory_v2_st {
        unsigned int version;
        unsigned long long total;
        unsigned long long reserved;
        unsigned long long free;
        unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION_OF(nvmlMemory_v2_t, 2)

/* The element of the unversioned nvmlDevice{Compute,Graphics}RunningProcesses(). */
typedef struct nvmlProcessInfo_v1_st {
        unsigned int pid;
        unsigned long long usedGpuMemory; /* bytes, or NVML_VALUE_NOT_AVAILABLE */
} nvmlProcessInfo_v1_t;

/* The element of the _v2 and _v3 functions (MIG added the instance ids; _v3 changed which processes are
 * listed, not the element). */
typedef struct nvmlProcessInfo_v2_st {
        unsigned int pid;
        unsigned long long usedGpuMemory;
        unsigned int gpuInstanceId;
        unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

/* CUDA 12.0's header briefly declared the _v3 element with one more 64-bit field; later headers dropped it
 * again. We size our buffers for that longer element so that a library of that vintage could not write
 * past them, whatever it then means (not verified on real hardware). */
typedef struct nvmlProcessInfo_longest_st {
        nvmlProcessInfo_v2_t info;
        unsigned long long reserved;
} nvmlProcessInfo_longest_t;

typedef struct nvmlProcessUtilizationSample_st {
        unsigned int pid;
        unsigned long long timeStamp; /* CPU time of the sample, microseconds */
        unsigned int smUtil;
        unsigned int memUtil;
        unsigned int encUtil;
        unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct nvmlProcessUtilizationInfo_v1_st {
        unsigned long long timeStamp;
        unsigned int pid;
        unsigned int smUtil;
        unsigned int memUtil;
        unsigned int encUtil;
        unsigned int decUtil;
        unsigned int jpgUtil;
        unsigned int ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct nvmlProcessesUtilizationInfo_v1_st {
        unsigned int version;
        unsigned int processSamplesCount; /* in: room in procUtilArray; out: samples written or needed */
        unsigned long long lastSeenTimeStamp; /* only samples newer than this */
        nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;
#define nvmlProcessesUtilizationInfo_v1 NVML_STRUCT_VERSION_OF(nvmlProcessesUtilizationInfo_v1_t, 1)

/* nvmlTemperatureSensors_t: the one sensor NVML documents, the GPU die. */
typedef enum nvmlTemperatureSensors_enum {
        NVML_TEMPERATURE_GPU = 0,
} nvmlTemperatureSensors_t;

/* nvmlClockType_t: the clock domains we read. */
typedef enum nvmlClockType_enum {
        NVML_CLOCK_GRAPHICS = 0,
        NVML_CLOCK_SM = 1,
        NVML_CLOCK_MEM = 2,
} nvmlClockType_t;

/* The functions we call. Several exist in more than one version; the library exports every version it
 * knows under its literal name ("nvmlInit_v2", "nvmlInit"), and the unversioned name is the oldest ABI. */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *ret_count);
nvmlReturn_t nvmlDeviceGetCount(unsigned int *ret_count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *ret_device);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *ret_device);

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *ret_pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *ret_pci);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *buf, unsigned int size);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *buf, unsigned int size);

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *ret_utilization);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *ret_memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *ret_memory);

/* Sensors: °C, mW (power draw and the limit the driver enforces), MHz, % of the fan's maximum speed. */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *ret_temp);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *ret_milliwatts);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *ret_milliwatts);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *ret_mhz);
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *ret_percent);

/* count: in, the room in infos; out, the number written, or on NVML_ERROR_INSUFFICIENT_SIZE the number
 * needed. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos);

/* Samples newer than last_seen (0: all NVML still holds); NVML_ERROR_NOT_FOUND when there are none. */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                unsigned int *count, unsigned long long last_seen);
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device, nvmlProcessesUtilizationInfo_v1_t *info);

#if defined(__x86_64__) || defined(__aarch64__) || defined(__powerpc64__)
static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
static_assert(sizeof(nvmlMemory_v2_t) == 40 && nvmlMemory_v2 == 0x02000028U, "nvmlMemory_v2_t layout");
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t layout");
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t layout");
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t layout");
static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40, "nvmlProcessUtilizationInfo_v1_t layout");
static_assert(nvmlProcessesUtilizationInfo_v1 == 0x01000018U, "nvmlProcessesUtilizationInfo_v1_t layout");
#endif
