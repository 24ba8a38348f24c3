/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A stand-in for libnvidia-ml.so.1 (no NVIDIA GPU exists where the tests run): it implements the NVML
 * entry points daemon/nvml/nvml-api.h declares, as NVML's reference documents them, with values read
 * from a script when nvmlInit() is called. The script is named by the environment variable below; one
 * statement per line, "#" starts a comment, values with blanks are double-quoted:
 *
 *   init error=9                 nvmlInit() returns 9 (NVML_ERROR_DRIVER_NOT_LOADED)
 *   device name="NVIDIA RTX A2000" uuid=GPU-1 bus=00000000:01:00.0 gpu=45 mem=30 used=1000 reserved=24 total=8000
 *                                a device; gpu/mem are nvmlDeviceGetUtilizationRates(), the memory figures
 *                                nvmlMemory_v2_t's (version 1 reports used+reserved as used, as NVML does)
 *                                optional sensors: temp=°C power=mW limit=mW (enforced) gclk=MHz mclk=MHz
 *                                fan=%; one not given answers NVML_ERROR_NOT_SUPPORTED
 *   compute dev=0 1234=536870912 5678=NA
 *                                one answer of the compute running-processes query: pid=bytes, NA for
 *                                NVML_VALUE_NOT_AVAILABLE; successive lines are successive calls' answers,
 *                                the last one repeats
 *   graphics dev=0 ...           the same for the graphics query
 *   many dev=0 kind=compute n=5000 pid=10000 mem=4096
 *                                one answer with n generated processes (pid, pid+1, ...)
 *   util dev=0 1234@1000=50,10,0,0 ...
 *                                utilisation samples pid@timestamp=sm,mem,enc,dec that NVML has taken by the
 *                                time of the call with this line's number (first util line: first call);
 *                                a call sees every sample taken so far newer than lastSeenTimeStamp
 *   option insufficient_first    each device's first call of each process query says INSUFFICIENT_SIZE
 *   option ignore_last_seen      hands back every sample taken so far, whatever lastSeenTimeStamp says
 *   option info_unsupported      nvmlDeviceGetProcessesUtilizationInfo() says NOT_SUPPORTED
 *
 * Built several times (tests/nvml/meson.build) with some entry points left out, since the loader finds
 * versions with dlsym() and only a symbol that does not exist is missing for it. */

#define NVML_FIXTURE_SCRIPT_ENV "NVPROFILED_NVML_FIXTURE_SCRIPT"

/* For the tests, looked up with dlsym() on the fixture they loaded. what: "init" and "shutdown" (calls
 * since the library was loaded, device ignored), "queries" (every call on the device other than getting
 * its handle and PCI info: what would wake a sleeping GPU; sensor reads too), "sensors" (sensor reads), "compute",
 * "graphics", "info", "samples" (calls of each process query), "last_seen" (the lastSeenTimeStamp of the last
 * utilisation query). */
unsigned long long nvml_fixture_counter(const char *what, int device);
