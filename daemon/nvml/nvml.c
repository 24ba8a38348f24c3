/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "nvml-api.h"
#include "nvml.h"

/* How often one query may answer "the buffer is too small" before we give up for this sample: processes
 * can start between the call that tells us the size and the one that uses it, but not forever. */
#define INSUFFICIENT_SIZE_RETRIES 4U
/* First buffer sizes: most devices have a handful of processes, so one call usually suffices. */
#define PROCESSES_INITIAL 16U
#define SAMPLES_INITIAL 32U

typedef enum ProcessUtilFunction {
        PROCESS_UTIL_INFO, /* nvmlDeviceGetProcessesUtilizationInfo */
        PROCESS_UTIL_SAMPLES, /* nvmlDeviceGetProcessUtilization */
        PROCESS_UTIL_NONE,
} ProcessUtilFunction;

typedef struct NvmlSymbols {
        __typeof__(nvmlInit_v2) *init;
        __typeof__(nvmlShutdown) *shutdown;
        __typeof__(nvmlErrorString) *error_string;
        __typeof__(nvmlDeviceGetCount_v2) *get_count;
        __typeof__(nvmlDeviceGetHandleByIndex_v2) *get_handle;
        __typeof__(nvmlDeviceGetPciInfo_v3) *get_pci;
        __typeof__(nvmlDeviceGetName) *get_name;
        __typeof__(nvmlDeviceGetUUID) *get_uuid;
        __typeof__(nvmlDeviceGetUtilizationRates) *get_utilization;
        __typeof__(nvmlDeviceGetMemoryInfo_v2) *get_memory_v2;
        __typeof__(nvmlDeviceGetMemoryInfo) *get_memory;
        __typeof__(nvmlDeviceGetTemperature) *get_temperature;
        __typeof__(nvmlDeviceGetPowerUsage) *get_power;
        __typeof__(nvmlDeviceGetEnforcedPowerLimit) *get_power_limit;
        __typeof__(nvmlDeviceGetClockInfo) *get_clock;
        __typeof__(nvmlDeviceGetFanSpeed) *get_fan;
        /* _v3 and _v2 take the same element, so one pointer holds whichever was found. */
        __typeof__(nvmlDeviceGetComputeRunningProcesses_v3) *compute_processes;
        __typeof__(nvmlDeviceGetComputeRunningProcesses) *compute_processes_v1;
        __typeof__(nvmlDeviceGetGraphicsRunningProcesses_v3) *graphics_processes;
        __typeof__(nvmlDeviceGetGraphicsRunningProcesses) *graphics_processes_v1;
        __typeof__(nvmlDeviceGetProcessUtilization) *process_utilization;
        __typeof__(nvmlDeviceGetProcessesUtilizationInfo) *processes_utilization_info;
} NvmlSymbols;

typedef struct NvmlDeviceSlot {
        nvmlDevice_t handle;
        NvmlDeviceUsage usage;
        bool identity_read;
        bool memory_v2_unusable;
        ProcessUtilFunction util_function;

        /* Buffers handed to NVML, kept between samples so that they are sized once. */
        nvmlProcessInfo_longest_t *list_buffer;
        size_t list_capacity;
        void *sample_buffer; /* nvmlProcessUtilizationSample_t or nvmlProcessUtilizationInfo_v1_t */
        size_t sample_capacity, sample_element_size;

        /* Everything one sample collects (list entries and utilisation samples), merged per pid in place;
         * usage.processes points here. */
        NvmlProcessUsage *collected;
        size_t n_collected, collected_allocated;
} NvmlDeviceSlot;

struct NvmlSource {
        NvmlSourceState state;
        char message[NVML_SOURCE_MESSAGE_MAX];
        void *dl;
        bool initialised;
        int sys_fd;
        NvmlSymbols sym;
        unsigned compute_version, graphics_version;
        NvmlDeviceSlot *devices;
        size_t n_devices;
};

_printf_(2, 3) static void set_message(char *buf, const char *format, ...)
{
        va_list ap;

        va_start(ap, format);
        (void) vsnprintf(buf, NVML_SOURCE_MESSAGE_MAX, format, ap);
        va_end(ap);
}

static const char *nvml_strerror(const NvmlSource *s, nvmlReturn_t rv, char *buf, size_t size)
{
        const char *t = s->sym.error_string ? s->sym.error_string(rv) : NULL;

        /* The library's own text where it has one; the number always, since that is what NVML's
         * reference and bug reports use. */
        (void) snprintf(buf, size, "%s (NVML error %d)", t ? t : "unknown error", (int) rv);
        return buf;
}
#define NVML_STRERROR(s, rv) nvml_strerror((s), (rv), (char[128]){ 0 }, 128)

/* dlsym() returns an object pointer; ISO C has no conversion to a function pointer, POSIX guarantees
 * the representation is the same, so the bytes are copied. */
static bool load_symbol(void *dl, const char *name, void *ret_function_pointer, size_t size)
{
        void *p = dlsym(dl, name);

        assert(size == sizeof(p));
        memcpy(ret_function_pointer, &p, size);
        return p;
}
#define LOAD(s, field, name) load_symbol((s)->dl, (name), (void *) &(s)->sym.field, sizeof((s)->sym.field))

static void source_unload(NvmlSource *s)
{
        if (s->initialised && s->sym.shutdown)
                (void) s->sym.shutdown();
        s->initialised = false;
        if (s->dl)
                (void) dlclose(s->dl);
        s->dl = NULL;
        s->sym = (NvmlSymbols){ 0 };
}

_printf_(2, 3) static void source_unavailable(NvmlSource *s, const char *format, ...)
{
        char why[NVML_SOURCE_MESSAGE_MAX];
        va_list ap;

        va_start(ap, format);
        (void) vsnprintf(why, sizeof(why), format, ap);
        va_end(ap);

        set_message(s->message, "NVML not available: %s", why);
        s->state = NVML_SOURCE_UNAVAILABLE;
        source_unload(s);
}

static void source_load_symbols(NvmlSource *s)
{
        /* The newest version of each function the library exports: the unversioned names are the oldest
         * ABIs, kept by the library for old programs. */
        if (!LOAD(s, init, "nvmlInit_v2"))
                (void) LOAD(s, init, "nvmlInit");
        (void) LOAD(s, shutdown, "nvmlShutdown");
        (void) LOAD(s, error_string, "nvmlErrorString");
        if (!LOAD(s, get_count, "nvmlDeviceGetCount_v2"))
                (void) LOAD(s, get_count, "nvmlDeviceGetCount");
        if (!LOAD(s, get_handle, "nvmlDeviceGetHandleByIndex_v2"))
                (void) LOAD(s, get_handle, "nvmlDeviceGetHandleByIndex");
        if (!LOAD(s, get_pci, "nvmlDeviceGetPciInfo_v3"))
                (void) LOAD(s, get_pci, "nvmlDeviceGetPciInfo_v2");
        (void) LOAD(s, get_name, "nvmlDeviceGetName");
        (void) LOAD(s, get_uuid, "nvmlDeviceGetUUID");
        (void) LOAD(s, get_utilization, "nvmlDeviceGetUtilizationRates");
        (void) LOAD(s, get_memory_v2, "nvmlDeviceGetMemoryInfo_v2");
        (void) LOAD(s, get_memory, "nvmlDeviceGetMemoryInfo");
        (void) LOAD(s, get_temperature, "nvmlDeviceGetTemperature");
        (void) LOAD(s, get_power, "nvmlDeviceGetPowerUsage");
        (void) LOAD(s, get_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
        (void) LOAD(s, get_clock, "nvmlDeviceGetClockInfo");
        (void) LOAD(s, get_fan, "nvmlDeviceGetFanSpeed");

        if (LOAD(s, compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3"))
                s->compute_version = 3;
        else if (LOAD(s, compute_processes, "nvmlDeviceGetComputeRunningProcesses_v2"))
                s->compute_version = 2;
        else if (LOAD(s, compute_processes_v1, "nvmlDeviceGetComputeRunningProcesses"))
                s->compute_version = 1;

        if (LOAD(s, graphics_processes, "nvmlDeviceGetGraphicsRunningProcesses_v3"))
                s->graphics_version = 3;
        else if (LOAD(s, graphics_processes, "nvmlDeviceGetGraphicsRunningProcesses_v2"))
                s->graphics_version = 2;
        else if (LOAD(s, graphics_processes_v1, "nvmlDeviceGetGraphicsRunningProcesses"))
                s->graphics_version = 1;

        (void) LOAD(s, process_utilization, "nvmlDeviceGetProcessUtilization");
        (void) LOAD(s, processes_utilization_info, "nvmlDeviceGetProcessesUtilizationInfo");
}

/* NVML names the device "00000000:01:00.0" (eight digits of domain), sysfs "0000:01:00.0". */
static int format_bus_id(const nvmlPciInfo_t *pci, char ret[static NVML_SOURCE_BUS_ID_MAX])
{
        char text[sizeof(pci->busId) + 1];
        unsigned domain, bus, device, function;
        int n = -1;

        memcpy(text, pci->busId, sizeof(pci->busId));
        text[sizeof(pci->busId)] = '\0';

        if (!(sscanf(text, "%8x:%2x:%2x.%1x%n", &domain, &bus, &device, &function, &n) == 4 && n >= 0 &&
                            text[n] == '\0' && device <= 0x1f && function <= 7)) {
                /* The string is the documented source of the function number; without it, the numeric
                 * fields (a GPU is function 0). */
                domain = pci->domain;
                bus = pci->bus;
                device = pci->device;
                function = 0;
                if (bus > 0xff || device > 0x1f)
                        return -EBADMSG;
        }

        (void) snprintf(ret, NVML_SOURCE_BUS_ID_MAX, "%04x:%02x:%02x.%x", domain, bus, device, function);
        return 0;
}

/* > 0 when the device sleeps, so that any query would wake it. 0 when it is awake or has no runtime PM
 * (nothing to wake). */
static int device_runtime_suspended(int sys_fd, const char *bus_id)
{
        _cleanup_free_ char *text = NULL;
        char path[128];
        int r;

        (void) snprintf(path, sizeof(path), "bus/pci/devices/%s/power/runtime_status", bus_id);
        r = read_virtual_file_at(sys_fd, path, 64, &text, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        text[strcspn(text, "\n")] = '\0';
        /* "suspending" is on its way down: a query now would bring it back up. */
        return streq(text, "suspended") || streq(text, "suspending");
}

static void device_open(NvmlSource *s, unsigned index, NvmlDeviceSlot *d)
{
        nvmlPciInfo_t pci = { 0 };
        nvmlReturn_t rv;

        d->usage.index = index;
        d->usage.source = NVML_SOURCE_NAME;
        d->usage.memory_used_bytes = d->usage.memory_total_bytes = NVML_SOURCE_UNKNOWN;
        d->util_function = s->sym.processes_utilization_info ? PROCESS_UTIL_INFO
                        : s->sym.process_utilization         ? PROCESS_UTIL_SAMPLES
                                                             : PROCESS_UTIL_NONE;

        rv = s->sym.get_handle(index, &d->handle);
        if (rv != NVML_SUCCESS) {
                d->handle = NULL;
                d->usage.state = NVML_DEVICE_FAILED;
                set_message(d->usage.message, "no handle: %s", NVML_STRERROR(s, rv));
                return;
        }

        /* Without the bus id we cannot look at runtime PM, and would risk waking the device each time. */
        rv = s->sym.get_pci ? s->sym.get_pci(d->handle, &pci) : NVML_ERROR_FUNCTION_NOT_FOUND;
        if (rv != NVML_SUCCESS) {
                d->usage.state = NVML_DEVICE_FAILED;
                set_message(d->usage.message, "no PCI bus id, so its runtime PM state cannot be checked: %s",
                                NVML_STRERROR(s, rv));
                return;
        }
        if (format_bus_id(&pci, d->usage.pci_bus_id) < 0) {
                d->usage.state = NVML_DEVICE_FAILED;
                set_message(d->usage.message, "PCI bus id not understood, so its runtime PM state cannot be checked");
                return;
        }
}

int nvml_source_open(const char *library_path, int sys_fd, NvmlSource **ret)
{
        _cleanup_(nvml_source_freep) NvmlSource *s = NULL;
        unsigned count = 0;
        nvmlReturn_t rv;
        const char *e;

        assert(sys_fd >= 0);
        assert(ret);

        if (!library_path)
                library_path = NVML_SOURCE_LIBRARY_DEFAULT;

        s = calloc(1, sizeof(NvmlSource));
        if (!s)
                return -ENOMEM;
        s->sys_fd = fcntl(sys_fd, F_DUPFD_CLOEXEC, 3);
        if (s->sys_fd < 0)
                return -errno;

        /* RTLD_LOCAL: the library's symbols must not satisfy anyone else's lookups, nor ours theirs. */
        s->dl = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
        if (!s->dl) {
                e = dlerror();
                source_unavailable(s, "%s", e ? e : library_path);
                *ret = TAKE_PTR(s);
                return 0;
        }

        source_load_symbols(s);
        if (!s->sym.init || !s->sym.shutdown || !s->sym.get_count || !s->sym.get_handle) {
                source_unavailable(s, "%s lacks %s", library_path,
                                !s->sym.init                        ? "nvmlInit"
                                                : !s->sym.shutdown  ? "nvmlShutdown"
                                                : !s->sym.get_count ? "nvmlDeviceGetCount"
                                                                    : "nvmlDeviceGetHandleByIndex");
                *ret = TAKE_PTR(s);
                return 0;
        }

        rv = s->sym.init();
        if (rv != NVML_SUCCESS) {
                source_unavailable(s, "nvmlInit failed: %s", NVML_STRERROR(s, rv));
                *ret = TAKE_PTR(s);
                return 0;
        }
        s->initialised = true;

        rv = s->sym.get_count(&count);
        if (rv != NVML_SUCCESS) {
                source_unavailable(s, "nvmlDeviceGetCount failed: %s", NVML_STRERROR(s, rv));
                *ret = TAKE_PTR(s);
                return 0;
        }
        if (count == 0) {
                source_unavailable(s, "no NVIDIA device");
                *ret = TAKE_PTR(s);
                return 0;
        }

        s->n_devices = MIN(count, NVML_SOURCE_DEVICES_MAX);
        s->devices = calloc(s->n_devices, sizeof(NvmlDeviceSlot));
        if (!s->devices)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_devices; i++)
                device_open(s, (unsigned) i, &s->devices[i]);

        s->state = NVML_SOURCE_READY;
        if (count > s->n_devices)
                set_message(s->message, "NVML (%s): %zu of %u devices (at most %u are watched)", library_path,
                                s->n_devices, count, NVML_SOURCE_DEVICES_MAX);
        else
                set_message(s->message, "NVML (%s): %u device%s", library_path, count, count == 1 ? "" : "s");

        *ret = TAKE_PTR(s);
        return 0;
}

NvmlSource *nvml_source_free(NvmlSource *s)
{
        if (!s)
                return NULL;

        for (size_t i = 0; i < s->n_devices; i++) {
                free(s->devices[i].list_buffer);
                free(s->devices[i].sample_buffer);
                free(s->devices[i].collected);
        }
        free(s->devices);
        source_unload(s);
        safe_close(s->sys_fd);
        return mfree(s);
}

NvmlSourceState nvml_source_state(const NvmlSource *s)
{
        assert(s);
        return s->state;
}

const char *nvml_source_message(const NvmlSource *s)
{
        assert(s);
        return s->message;
}

unsigned nvml_source_running_processes_version(const NvmlSource *s, bool graphics)
{
        assert(s);
        return graphics ? s->graphics_version : s->compute_version;
}

const char *nvml_source_process_utilization_function(const NvmlSource *s, size_t device)
{
        assert(s);
        assert(device < s->n_devices);

        switch (s->devices[device].util_function) {
        case PROCESS_UTIL_INFO:
                return "nvmlDeviceGetProcessesUtilizationInfo";
        case PROCESS_UTIL_SAMPLES:
                return "nvmlDeviceGetProcessUtilization";
        case PROCESS_UTIL_NONE:
                return NULL;
        }
        assert_not_reached();
}

size_t nvml_source_n_devices(const NvmlSource *s)
{
        assert(s);
        return s->n_devices;
}

const NvmlDeviceUsage *nvml_source_device(const NvmlSource *s, size_t i)
{
        assert(s);
        assert(i < s->n_devices);
        return &s->devices[i].usage;
}

static int device_collect(NvmlDeviceSlot *d, const NvmlProcessUsage *p)
{
        /* Each query adds at most NVML_SOURCE_PROCESSES_MAX entries and there are three of them (two
         * lists and the samples), so this bounds the memory before merging; the merged table is bounded
         * again. */
        assert(d->n_collected < 3 * NVML_SOURCE_PROCESSES_MAX);

        if (GREEDY_REALLOC(d->collected, d->collected_allocated, d->n_collected + 1) < 0)
                return -ENOMEM;
        d->collected[d->n_collected++] = *p;
        return 0;
}

/* Makes room for n elements of size bytes in *buffer; keeps the old buffer on failure. */
static int buffer_reserve(void **buffer, size_t *capacity, size_t n, size_t size)
{
        void *p;

        assert(n <= NVML_SOURCE_PROCESSES_MAX);

        if (*capacity >= n)
                return 0;
        p = realloc(*buffer, n * size);
        if (!p)
                return -ENOMEM;
        *buffer = p;
        *capacity = n;
        return 0;
}

/* The size to ask for after NVML said it needs "needed": a little more, since processes may start between
 * this call and the next. 0 when beyond our bound. */
static size_t grown_capacity(unsigned needed)
{
        if (needed >= NVML_SOURCE_PROCESSES_MAX)
                return needed == NVML_SOURCE_PROCESSES_MAX ? NVML_SOURCE_PROCESSES_MAX : 0;
        return MIN((size_t) needed + 8, (size_t) NVML_SOURCE_PROCESSES_MAX);
}

static nvmlReturn_t device_call_list(NvmlSource *s, NvmlDeviceSlot *d, bool graphics, unsigned *count)
{
        unsigned version = graphics ? s->graphics_version : s->compute_version;

        if (version == 1)
                return (graphics ? s->sym.graphics_processes_v1 : s->sym.compute_processes_v1)(
                                d->handle, count, (nvmlProcessInfo_v1_t *) d->list_buffer);
        return (graphics ? s->sym.graphics_processes : s->sym.compute_processes)(
                        d->handle, count, (nvmlProcessInfo_v2_t *) d->list_buffer);
}

static int device_query_list(NvmlSource *s, NvmlDeviceSlot *d, bool graphics, nvmlReturn_t *ret_rv)
{
        unsigned version = graphics ? s->graphics_version : s->compute_version;
        int r;

        *ret_rv = NVML_SUCCESS;
        if (version == 0)
                return 0;

        r = buffer_reserve((void **) &d->list_buffer, &d->list_capacity, PROCESSES_INITIAL,
                        sizeof(nvmlProcessInfo_longest_t));
        if (r < 0)
                return r;

        for (unsigned attempt = 0; attempt < INSUFFICIENT_SIZE_RETRIES; attempt++) {
                unsigned count = (unsigned) d->list_capacity;
                nvmlReturn_t rv;
                size_t want;

                rv = device_call_list(s, d, graphics, &count);
                if (rv == NVML_ERROR_INSUFFICIENT_SIZE) {
                        want = grown_capacity(count);
                        if (want == 0) {
                                /* NVML gives nothing on this error, so a list beyond our bound is not
                                 * listed at all, and said so. */
                                d->usage.processes_truncated = true;
                                return 0;
                        }
                        r = buffer_reserve((void **) &d->list_buffer, &d->list_capacity, want,
                                        sizeof(nvmlProcessInfo_longest_t));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (rv != NVML_SUCCESS) {
                        *ret_rv = rv;
                        return 0;
                }

                count = MIN(count, (unsigned) d->list_capacity);
                for (unsigned i = 0; i < count; i++) {
                        NvmlProcessUsage p = {
                                .compute = !graphics,
                                .graphics = graphics,
                                .source = NVML_SOURCE_NAME,
                        };
                        unsigned long long used;

                        if (version == 1) {
                                const nvmlProcessInfo_v1_t *e = &((const nvmlProcessInfo_v1_t *) d->list_buffer)[i];
                                p.pid = e->pid;
                                used = e->usedGpuMemory;
                        } else {
                                const nvmlProcessInfo_v2_t *e = &((const nvmlProcessInfo_v2_t *) d->list_buffer)[i];
                                p.pid = e->pid;
                                used = e->usedGpuMemory;
                        }
                        p.memory_bytes = used == NVML_VALUE_NOT_AVAILABLE ? NVML_SOURCE_UNKNOWN : (uint64_t) used;

                        r = device_collect(d, &p);
                        if (r < 0)
                                return r;
                }
                return 0;
        }

        /* The list keeps growing faster than we can look: try again next time. */
        *ret_rv = NVML_ERROR_INSUFFICIENT_SIZE;
        return 0;
}

/* One utilisation sample, whichever function gave it. Only samples newer than the previous call's newest
 * count: NVML is asked for exactly those, and a library that hands back an older one anyway must not make
 * us count it twice. */
static int device_collect_sample(NvmlDeviceSlot *d, uint64_t last_seen, uint64_t *newest, unsigned pid,
                unsigned long long timestamp, unsigned sm, unsigned mem, unsigned enc, unsigned dec)
{
        if (timestamp <= last_seen)
                return 0;

        *newest = MAX(*newest, (uint64_t) timestamp);
        return device_collect(d,
                        &(NvmlProcessUsage){
                                        .pid = pid,
                                        .memory_bytes = NVML_SOURCE_UNKNOWN,
                                        .has_utilization = true,
                                        .sm_percent = sm,
                                        .mem_percent = mem,
                                        .enc_percent = enc,
                                        .dec_percent = dec,
                                        .timestamp_usec = timestamp,
                                        .source = NVML_SOURCE_NAME,
                        });
}

static nvmlReturn_t device_call_samples(NvmlSource *s, NvmlDeviceSlot *d, unsigned *count, uint64_t last_seen)
{
        nvmlProcessesUtilizationInfo_v1_t info;
        nvmlReturn_t rv;

        switch (d->util_function) {
        case PROCESS_UTIL_INFO:
                info = (nvmlProcessesUtilizationInfo_v1_t){
                        .version = nvmlProcessesUtilizationInfo_v1,
                        .processSamplesCount = *count,
                        .lastSeenTimeStamp = last_seen,
                        .procUtilArray = d->sample_buffer,
                };
                rv = s->sym.processes_utilization_info(d->handle, &info);
                *count = info.processSamplesCount;
                return rv;
        case PROCESS_UTIL_SAMPLES:
                return s->sym.process_utilization(d->handle, d->sample_buffer, count, last_seen);
        case PROCESS_UTIL_NONE:
                break;
        }
        assert_not_reached();
}

static int device_query_samples(NvmlSource *s, NvmlDeviceSlot *d, nvmlReturn_t *ret_rv)
{
        uint64_t last_seen = d->usage.last_seen_usec, newest = last_seen;
        size_t size;
        int r;

        *ret_rv = NVML_SUCCESS;
        if (d->util_function == PROCESS_UTIL_NONE)
                return 0;

        size = d->util_function == PROCESS_UTIL_INFO ? sizeof(nvmlProcessUtilizationInfo_v1_t)
                                                     : sizeof(nvmlProcessUtilizationSample_t);
        if (d->sample_element_size != size) {
                d->sample_buffer = mfree(d->sample_buffer);
                d->sample_capacity = 0;
                d->sample_element_size = size;
        }
        r = buffer_reserve(&d->sample_buffer, &d->sample_capacity, SAMPLES_INITIAL, size);
        if (r < 0)
                return r;

        for (unsigned attempt = 0; attempt < INSUFFICIENT_SIZE_RETRIES; attempt++) {
                unsigned count = (unsigned) d->sample_capacity;
                nvmlReturn_t rv;
                size_t want;

                rv = device_call_samples(s, d, &count, last_seen);
                if (rv == NVML_ERROR_NOT_FOUND) /* no sample newer than last_seen */
                        return 0;
                if (rv == NVML_ERROR_INSUFFICIENT_SIZE) {
                        want = grown_capacity(count);
                        if (want == 0) {
                                d->usage.processes_truncated = true;
                                return 0;
                        }
                        r = buffer_reserve(&d->sample_buffer, &d->sample_capacity, want, size);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (IN_SET((int) rv, NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
                                    NVML_ERROR_FUNCTION_NOT_FOUND)) {
                        /* The newer function is exported by libraries whose device or driver does not
                         * implement it; the older one may still work. Decided once per device. */
                        if (d->util_function == PROCESS_UTIL_INFO && s->sym.process_utilization) {
                                d->util_function = PROCESS_UTIL_SAMPLES;
                                return device_query_samples(s, d, ret_rv);
                        }
                        d->util_function = PROCESS_UTIL_NONE;
                        *ret_rv = rv;
                        return 0;
                }
                if (rv != NVML_SUCCESS) {
                        *ret_rv = rv;
                        return 0;
                }

                count = MIN(count, (unsigned) d->sample_capacity);
                for (unsigned i = 0; i < count; i++) {
                        if (d->util_function == PROCESS_UTIL_INFO) {
                                const nvmlProcessUtilizationInfo_v1_t *e =
                                                &((const nvmlProcessUtilizationInfo_v1_t *) d->sample_buffer)[i];
                                r = device_collect_sample(d, last_seen, &newest, e->pid, e->timeStamp, e->smUtil,
                                                e->memUtil, e->encUtil, e->decUtil);
                        } else {
                                const nvmlProcessUtilizationSample_t *e =
                                                &((const nvmlProcessUtilizationSample_t *) d->sample_buffer)[i];
                                r = device_collect_sample(d, last_seen, &newest, e->pid, e->timeStamp, e->smUtil,
                                                e->memUtil, e->encUtil, e->decUtil);
                        }
                        if (r < 0)
                                return r;
                }
                d->usage.last_seen_usec = newest;
                return 0;
        }

        *ret_rv = NVML_ERROR_INSUFFICIENT_SIZE;
        return 0;
}

static int process_compare(const void *a, const void *b)
{
        const NvmlProcessUsage *x = a, *y = b;

        return x->pid < y->pid ? -1 : x->pid > y->pid ? 1 : 0;
}

static void process_merge(NvmlProcessUsage *into, const NvmlProcessUsage *p)
{
        into->compute = into->compute || p->compute;
        into->graphics = into->graphics || p->graphics;

        /* A process in both lists has one memory figure in each, for the same allocations as far as NVML's
         * reference says: the larger, never the sum. */
        if (p->memory_bytes != NVML_SOURCE_UNKNOWN &&
                        (into->memory_bytes == NVML_SOURCE_UNKNOWN || p->memory_bytes > into->memory_bytes))
                into->memory_bytes = p->memory_bytes;

        /* Several samples of one process in one answer: the newest describes it now. */
        if (p->has_utilization && (!into->has_utilization || p->timestamp_usec > into->timestamp_usec)) {
                into->has_utilization = true;
                into->sm_percent = p->sm_percent;
                into->mem_percent = p->mem_percent;
                into->enc_percent = p->enc_percent;
                into->dec_percent = p->dec_percent;
                into->timestamp_usec = p->timestamp_usec;
        }
}

static void device_merge_processes(NvmlDeviceSlot *d)
{
        size_t n = 0;

        qsort_safe(d->collected, d->n_collected, sizeof(NvmlProcessUsage), process_compare);
        for (size_t i = 0; i < d->n_collected; i++) {
                if (n > 0 && d->collected[n - 1].pid == d->collected[i].pid) {
                        process_merge(&d->collected[n - 1], &d->collected[i]);
                        continue;
                }
                d->collected[n++] = d->collected[i];
        }

        if (n > NVML_SOURCE_PROCESSES_MAX) {
                n = NVML_SOURCE_PROCESSES_MAX;
                d->usage.processes_truncated = true;
        }
        d->n_collected = n;
        d->usage.processes = d->collected;
        d->usage.n_processes = n;
}

static void device_read_identity(NvmlSource *s, NvmlDeviceSlot *d)
{
        char name[NVML_SOURCE_NAME_MAX] = { 0 }, uuid[NVML_SOURCE_NAME_MAX] = { 0 };

        if (d->identity_read || !s->sym.get_name || !s->sym.get_uuid)
                return;
        if (s->sym.get_name(d->handle, name, sizeof(name)) != NVML_SUCCESS ||
                        s->sym.get_uuid(d->handle, uuid, sizeof(uuid)) != NVML_SUCCESS)
                return;

        /* NUL-terminated whatever the library wrote. */
        name[sizeof(name) - 1] = uuid[sizeof(uuid) - 1] = '\0';
        memcpy(d->usage.name, name, sizeof(name));
        memcpy(d->usage.uuid, uuid, sizeof(uuid));
        d->identity_read = true;
}

static void device_read_memory(NvmlSource *s, NvmlDeviceSlot *d)
{
        nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
        nvmlMemory_t m1 = { 0 };

        if (s->sym.get_memory_v2 && !d->memory_v2_unusable) {
                nvmlReturn_t rv = s->sym.get_memory_v2(d->handle, &m2);

                if (rv == NVML_SUCCESS) {
                        d->usage.memory_used_bytes = m2.used;
                        d->usage.memory_total_bytes = m2.total;
                        return;
                }
                if (!IN_SET((int) rv, NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
                                    NVML_ERROR_FUNCTION_NOT_FOUND))
                        return;
                d->memory_v2_unusable = true;
        }

        if (s->sym.get_memory && s->sym.get_memory(d->handle, &m1) == NVML_SUCCESS) {
                d->usage.memory_used_bytes = m1.used;
                d->usage.memory_total_bytes = m1.total;
        }
}

/* Adds what a sensor query answered, divided by divisor into unit; a sensor the device lacks (NOT_SUPPORTED)
 * or cannot give now is absent, not zero. */
static void device_add_sensor(NvmlDeviceSlot *d, nvmlReturn_t rv, unsigned value, double divisor, const char *sensor,
                const char *unit)
{
        if (rv != NVML_SUCCESS || d->usage.n_sensors >= NVML_SOURCE_SENSORS_MAX)
                return;
        d->usage.sensors[d->usage.n_sensors++] = (GpuSensorReading){
                .sensor = sensor,
                .unit = unit,
                .value = value / divisor,
        };
}

/* Read at sample time, with the rest of the device's figures: NVML is open only while somebody samples, and
 * the runtime-PM check in front of this covers these calls too. */
static void device_read_sensors(NvmlSource *s, NvmlDeviceSlot *d)
{
        nvmlReturn_t rv;
        unsigned v = 0;

        if (s->sym.get_temperature) {
                rv = s->sym.get_temperature(d->handle, NVML_TEMPERATURE_GPU, &v);
                device_add_sensor(d, rv, v, 1, GPU_SENSOR_TEMPERATURE, GPU_UNIT_CELSIUS);
        }
        if (s->sym.get_power) {
                rv = s->sym.get_power(d->handle, &v);
                device_add_sensor(d, rv, v, 1000, GPU_SENSOR_POWER, GPU_UNIT_WATT);
        }
        if (s->sym.get_power_limit) {
                rv = s->sym.get_power_limit(d->handle, &v);
                device_add_sensor(d, rv, v, 1000, GPU_SENSOR_POWER_LIMIT, GPU_UNIT_WATT);
        }
        if (s->sym.get_clock) {
                rv = s->sym.get_clock(d->handle, NVML_CLOCK_GRAPHICS, &v);
                device_add_sensor(d, rv, v, 1, GPU_SENSOR_CLOCK_GRAPHICS, GPU_UNIT_MEGAHERTZ);
                rv = s->sym.get_clock(d->handle, NVML_CLOCK_MEM, &v);
                device_add_sensor(d, rv, v, 1, GPU_SENSOR_CLOCK_MEMORY, GPU_UNIT_MEGAHERTZ);
        }
        if (s->sym.get_fan) {
                rv = s->sym.get_fan(d->handle, &v);
                device_add_sensor(d, rv, v, 1, GPU_SENSOR_FAN, GPU_UNIT_PERCENT);
        }
}

static int device_sample(NvmlSource *s, NvmlDeviceSlot *d)
{
        nvmlUtilization_t u = { 0 };
        nvmlReturn_t rv;
        int r;

        if (!d->handle || !d->usage.pci_bus_id[0])
                return 0; /* failed at open; the message says why */

        d->usage.has_utilization = false;
        d->usage.memory_used_bytes = d->usage.memory_total_bytes = NVML_SOURCE_UNKNOWN;
        d->usage.processes = NULL;
        d->usage.n_processes = 0;
        d->usage.processes_truncated = false;
        d->usage.n_sensors = 0;
        d->usage.message[0] = '\0';
        d->n_collected = 0;

        r = device_runtime_suspended(s->sys_fd, d->usage.pci_bus_id);
        if (r > 0) {
                d->usage.state = NVML_DEVICE_SUSPENDED;
                set_message(d->usage.message, "runtime-suspended: not queried, which would wake it");
                return 0;
        }
        if (r < 0) {
                d->usage.state = NVML_DEVICE_FAILED;
                set_message(d->usage.message, "cannot read its runtime PM state (%s), so not queried: %s",
                                d->usage.pci_bus_id, strerror(-r));
                return 0;
        }

        d->usage.state = NVML_DEVICE_SAMPLED;
        device_read_identity(s, d);

        rv = s->sym.get_utilization ? s->sym.get_utilization(d->handle, &u) : NVML_ERROR_FUNCTION_NOT_FOUND;
        if (rv == NVML_SUCCESS) {
                d->usage.has_utilization = true;
                d->usage.gpu_percent = u.gpu;
                d->usage.memory_percent = u.memory;
        }
        if (rv == NVML_ERROR_GPU_IS_LOST) {
                d->usage.state = NVML_DEVICE_FAILED;
                set_message(d->usage.message, "%s", NVML_STRERROR(s, rv));
                return 0;
        }

        device_read_memory(s, d);
        device_read_sensors(s, d);

        for (unsigned i = 0; i < 3; i++) {
                r = i < 2 ? device_query_list(s, d, i == 1, &rv) : device_query_samples(s, d, &rv);
                if (r < 0)
                        return r;
                if (rv == NVML_ERROR_GPU_IS_LOST) {
                        d->usage.state = NVML_DEVICE_FAILED;
                        set_message(d->usage.message, "%s", NVML_STRERROR(s, rv));
                        d->n_collected = 0;
                        d->usage.n_sensors = 0;
                        return 0;
                }
        }

        device_merge_processes(d);
        return 0;
}

int nvml_source_sample(NvmlSource *s)
{
        int r;

        assert(s);

        if (s->state != NVML_SOURCE_READY)
                return -ENODEV;

        for (size_t i = 0; i < s->n_devices; i++) {
                r = device_sample(s, &s->devices[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}
