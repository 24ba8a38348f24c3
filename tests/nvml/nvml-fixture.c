/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NVML fixture library: see nvml-fixture.h for the script it follows. It keeps to NVML's documented
 * behaviour where the loader depends on it: count in/out with NVML_ERROR_INSUFFICIENT_SIZE, versioned
 * structs checked, NVML_ERROR_NOT_FOUND for "no sample newer than lastSeenTimeStamp", every call refused
 * before nvmlInit(). */

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml-api.h"
#include "nvml-fixture.h"

#define FX_DEVICES_MAX 80
#define FX_ANSWERS_MAX 16
#define FX_TOKENS_MAX 64

/* The variant without nvmlInit() has no caller of this. */
#define _unused_fx __attribute__((unused))

typedef struct FxProcess {
        unsigned pid;
        unsigned long long memory;
} FxProcess;

typedef struct FxAnswer {
        FxProcess *processes;
        unsigned n;
} FxAnswer;

typedef struct FxSample {
        unsigned batch; /* taken by the time of the util call with this number */
        unsigned pid;
        unsigned long long timestamp;
        unsigned sm, mem, enc, dec;
} FxSample;

struct nvmlDevice_st {
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
        unsigned gpu, mem;
        unsigned long long used, reserved, total;
        long long temp, power, limit, gclk, mclk, fan; /* -1: NVML_ERROR_NOT_SUPPORTED */

        FxAnswer lists[2][FX_ANSWERS_MAX]; /* [0] compute, [1] graphics */
        unsigned n_lists[2];
        FxSample *samples;
        unsigned n_samples, n_batches;

        unsigned long long queries, sensor_calls, list_calls[2], info_calls, samples_calls, util_calls, last_seen;
};

static struct {
        bool initialised;
        int init_error;
        bool insufficient_first, ignore_last_seen, info_unsupported;
        struct nvmlDevice_st devices[FX_DEVICES_MAX];
        unsigned n_devices;
} fx;

/* Kept across nvmlInit()/nvmlShutdown() cycles, so that a test can count them. */
static unsigned long long fx_inits, fx_shutdowns;

static void fx_reset(void)
{
        for (unsigned i = 0; i < fx.n_devices; i++) {
                for (unsigned k = 0; k < 2; k++)
                        for (unsigned j = 0; j < fx.devices[i].n_lists[k]; j++)
                                free(fx.devices[i].lists[k][j].processes);
                free(fx.devices[i].samples);
        }
        memset(&fx, 0, sizeof(fx));
}

/* A broken script is a broken test: say where, and make nvmlInit() fail loudly. */
static int fx_script_error(const char *path, unsigned line, const char *what)
{
        fprintf(stderr, "nvml-fixture: %s:%u: %s\n", path, line, what);
        return -1;
}

static int fx_split(char *s, char *tokens[static FX_TOKENS_MAX])
{
        int n = 0;

        while (*s) {
                char *start, *out;

                while (isspace((unsigned char) *s))
                        s++;
                if (!*s || *s == '#')
                        break;
                if (n >= FX_TOKENS_MAX)
                        return -1;

                start = out = s;
                while (*s && !isspace((unsigned char) *s)) {
                        if (*s == '"') {
                                s++;
                                while (*s && *s != '"')
                                        *out++ = *s++;
                                if (*s != '"')
                                        return -1;
                                s++;
                                continue;
                        }
                        *out++ = *s++;
                }
                if (*s)
                        s++;
                *out = '\0';
                tokens[n++] = start;
        }
        return n;
}

/* The value of key=value among tokens, or NULL. */
static const char *fx_value(char **tokens, int n, const char *key)
{
        size_t l = strlen(key);

        for (int i = 1; i < n; i++)
                if (strncmp(tokens[i], key, l) == 0 && tokens[i][l] == '=')
                        return tokens[i] + l + 1;
        return NULL;
}

static const char *fx_or(const char *s, const char *fallback)
{
        return s ? s : fallback;
}

static unsigned long long fx_number(const char *s, unsigned long long fallback)
{
        return s ? strtoull(s, NULL, 0) : fallback;
}

/* A sensor's scripted value, -1 when the script gives none (the device lacks it). */
static long long fx_sensor(char **tokens, int n, const char *key)
{
        const char *v = fx_value(tokens, n, key);

        return v ? (long long) strtoull(v, NULL, 0) : -1;
}

static struct nvmlDevice_st *fx_device_of(char **tokens, int n)
{
        unsigned long long i = fx_number(fx_value(tokens, n, "dev"), 0);

        return i < fx.n_devices ? &fx.devices[i] : NULL;
}

static int fx_parse_line(char **tokens, int n)
{
        struct nvmlDevice_st *d;

        if (strcmp(tokens[0], "init") == 0) {
                fx.init_error = (int) fx_number(fx_value(tokens, n, "error"), 0);
                return 0;
        }
        if (strcmp(tokens[0], "option") == 0 && n == 2) {
                if (strcmp(tokens[1], "insufficient_first") == 0)
                        fx.insufficient_first = true;
                else if (strcmp(tokens[1], "ignore_last_seen") == 0)
                        fx.ignore_last_seen = true;
                else if (strcmp(tokens[1], "info_unsupported") == 0)
                        fx.info_unsupported = true;
                else
                        return -1;
                return 0;
        }
        if (strcmp(tokens[0], "device") == 0) {
                if (fx.n_devices >= FX_DEVICES_MAX)
                        return -1;
                d = &fx.devices[fx.n_devices++];
                snprintf(d->name, sizeof(d->name), "%s", fx_or(fx_value(tokens, n, "name"), "NVIDIA Fixture"));
                snprintf(d->uuid, sizeof(d->uuid), "%s", fx_or(fx_value(tokens, n, "uuid"), "GPU-fixture"));
                snprintf(d->bus_id, sizeof(d->bus_id), "%s", fx_or(fx_value(tokens, n, "bus"), "00000000:01:00.0"));
                d->gpu = (unsigned) fx_number(fx_value(tokens, n, "gpu"), 0);
                d->mem = (unsigned) fx_number(fx_value(tokens, n, "mem"), 0);
                d->used = fx_number(fx_value(tokens, n, "used"), 0);
                d->reserved = fx_number(fx_value(tokens, n, "reserved"), 0);
                d->total = fx_number(fx_value(tokens, n, "total"), 0);
                d->temp = fx_sensor(tokens, n, "temp");
                d->power = fx_sensor(tokens, n, "power");
                d->limit = fx_sensor(tokens, n, "limit");
                d->gclk = fx_sensor(tokens, n, "gclk");
                d->mclk = fx_sensor(tokens, n, "mclk");
                d->fan = fx_sensor(tokens, n, "fan");
                return 0;
        }
        if (strcmp(tokens[0], "compute") == 0 || strcmp(tokens[0], "graphics") == 0 || strcmp(tokens[0], "many") == 0) {
                bool many = strcmp(tokens[0], "many") == 0;
                const char *kind = many ? fx_value(tokens, n, "kind") : tokens[0];
                unsigned k = kind && strcmp(kind, "graphics") == 0 ? 1 : 0;
                FxAnswer *a;

                d = fx_device_of(tokens, n);
                if (!d || d->n_lists[k] >= FX_ANSWERS_MAX)
                        return -1;
                a = &d->lists[k][d->n_lists[k]++];

                if (many) {
                        unsigned count = (unsigned) fx_number(fx_value(tokens, n, "n"), 0);
                        unsigned pid = (unsigned) fx_number(fx_value(tokens, n, "pid"), 1000);
                        unsigned long long mem = fx_number(fx_value(tokens, n, "mem"), 0);

                        a->processes = calloc(count ? count : 1, sizeof(FxProcess));
                        if (!a->processes)
                                return -1;
                        for (unsigned i = 0; i < count; i++)
                                a->processes[a->n++] = (FxProcess){ .pid = pid + i, .memory = mem };
                        return 0;
                }

                a->processes = calloc((size_t) n, sizeof(FxProcess));
                if (!a->processes)
                        return -1;
                for (int i = 1; i < n; i++) {
                        char *eq = strchr(tokens[i], '=');

                        if (strncmp(tokens[i], "dev=", 4) == 0)
                                continue;
                        if (!eq)
                                return -1;
                        *eq = '\0';
                        a->processes[a->n++] = (FxProcess){
                                .pid = (unsigned) strtoul(tokens[i], NULL, 10),
                                .memory = strcmp(eq + 1, "NA") == 0 ? NVML_VALUE_NOT_AVAILABLE
                                                                    : strtoull(eq + 1, NULL, 0),
                        };
                }
                return 0;
        }
        if (strcmp(tokens[0], "util") == 0) {
                d = fx_device_of(tokens, n);
                if (!d)
                        return -1;
                for (int i = 1; i < n; i++) {
                        FxSample s = { .batch = d->n_batches };
                        FxSample *p;

                        if (strncmp(tokens[i], "dev=", 4) == 0)
                                continue;
                        if (sscanf(tokens[i], "%u@%llu=%u,%u,%u,%u", &s.pid, &s.timestamp, &s.sm, &s.mem, &s.enc,
                                            &s.dec) != 6)
                                return -1;
                        p = realloc(d->samples, (d->n_samples + 1) * sizeof(FxSample));
                        if (!p)
                                return -1;
                        d->samples = p;
                        d->samples[d->n_samples++] = s;
                }
                d->n_batches++;
                return 0;
        }
        return -1;
}

static int fx_load(void)
{
        const char *path = getenv(NVML_FIXTURE_SCRIPT_ENV);
        char buf[65536];
        unsigned line = 0;
        FILE *f;
        int r = 0;

        if (!path)
                return 0; /* no script: a library with no device */

        f = fopen(path, "re");
        if (!f)
                return fx_script_error(path, 0, "cannot open");

        while (r == 0 && fgets(buf, sizeof(buf), f)) {
                char *tokens[FX_TOKENS_MAX];
                int n;

                line++;
                n = fx_split(buf, tokens);
                if (n < 0)
                        r = fx_script_error(path, line, "cannot split");
                else if (n > 0 && fx_parse_line(tokens, n) < 0)
                        r = fx_script_error(path, line, "not understood");
        }
        fclose(f);
        return r;
}

_unused_fx static nvmlReturn_t fx_init(void)
{
        fx_inits++;
        fx_reset();
        if (fx_load() < 0) {
                fx_reset();
                return NVML_ERROR_UNKNOWN;
        }
        if (fx.init_error != 0) {
                nvmlReturn_t rv = (nvmlReturn_t) fx.init_error;

                fx_reset();
                return rv;
        }
        fx.initialised = true;
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_INIT
#ifndef FIXTURE_NO_V2
nvmlReturn_t nvmlInit_v2(void)
{
        return fx_init();
}
#endif

nvmlReturn_t nvmlInit(void)
{
        return fx_init();
}
#endif

nvmlReturn_t nvmlShutdown(void)
{
        if (!fx.initialised)
                return NVML_ERROR_UNINITIALIZED;
        fx_shutdowns++;
        fx_reset();
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V2
const char *nvmlErrorString(nvmlReturn_t result)
{
        switch ((int) result) {
        case NVML_SUCCESS:
                return "Success";
        case NVML_ERROR_DRIVER_NOT_LOADED:
                return "Driver Not Loaded";
        case NVML_ERROR_GPU_IS_LOST:
                return "GPU is lost";
        default:
                return "Unknown Error";
        }
}
#endif

static nvmlReturn_t fx_get_count(unsigned int *ret_count)
{
        if (!fx.initialised)
                return NVML_ERROR_UNINITIALIZED;
        if (!ret_count)
                return NVML_ERROR_INVALID_ARGUMENT;
        *ret_count = fx.n_devices;
        return NVML_SUCCESS;
}

static nvmlReturn_t fx_get_handle(unsigned int index, nvmlDevice_t *ret_device)
{
        if (!fx.initialised)
                return NVML_ERROR_UNINITIALIZED;
        if (index >= fx.n_devices || !ret_device)
                return NVML_ERROR_INVALID_ARGUMENT;
        *ret_device = &fx.devices[index];
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V2
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *ret_count)
{
        return fx_get_count(ret_count);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *ret_device)
{
        return fx_get_handle(index, ret_device);
}
#endif

nvmlReturn_t nvmlDeviceGetCount(unsigned int *ret_count)
{
        return fx_get_count(ret_count);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *ret_device)
{
        return fx_get_handle(index, ret_device);
}

/* Whether device is one of ours, in a library that is initialised. */
static bool fx_valid(nvmlDevice_t device)
{
        return fx.initialised && device >= fx.devices && device < fx.devices + fx.n_devices;
}

static nvmlReturn_t fx_pci(nvmlDevice_t device, nvmlPciInfo_t *ret_pci)
{
        unsigned domain = 0, bus = 0, dev = 0, function = 0;

        if (!fx_valid(device) || !ret_pci)
                return NVML_ERROR_INVALID_ARGUMENT;

        *ret_pci = (nvmlPciInfo_t){ 0 };
        (void) sscanf(device->bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &function);
        snprintf(ret_pci->busId, sizeof(ret_pci->busId), "%s", device->bus_id);
        snprintf(ret_pci->busIdLegacy, sizeof(ret_pci->busIdLegacy), "%04x:%02x:%02x.%x", domain & 0xffff, bus, dev,
                        function);
        ret_pci->domain = domain;
        ret_pci->bus = bus;
        ret_pci->device = dev;
        ret_pci->pciDeviceId = 0x25a010de;
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V3
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *ret_pci)
{
        return fx_pci(device, ret_pci);
}
#endif

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *ret_pci)
{
        return fx_pci(device, ret_pci);
}

static nvmlReturn_t fx_string(nvmlDevice_t device, const char *value, char *buf, unsigned int size)
{
        if (!fx_valid(device) || !buf)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        if (strlen(value) >= size)
                return NVML_ERROR_INSUFFICIENT_SIZE;
        memcpy(buf, value, strlen(value) + 1);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *buf, unsigned int size)
{
        return fx_valid(device) ? fx_string(device, device->name, buf, size) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *buf, unsigned int size)
{
        return fx_valid(device) ? fx_string(device, device->uuid, buf, size) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *ret_utilization)
{
        if (!fx_valid(device) || !ret_utilization)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        *ret_utilization = (nvmlUtilization_t){ .gpu = device->gpu, .memory = device->mem };
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V3
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *ret_memory)
{
        if (!fx_valid(device) || !ret_memory)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        if (ret_memory->version != nvmlMemory_v2)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        ret_memory->total = device->total;
        ret_memory->reserved = device->reserved;
        ret_memory->used = device->used;
        ret_memory->free = device->total - device->used - device->reserved;
        return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *ret_memory)
{
        if (!fx_valid(device) || !ret_memory)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        /* Version 1 counts the driver's reservation as used. */
        *ret_memory = (nvmlMemory_t){
                .total = device->total,
                .used = device->used + device->reserved,
                .free = device->total - device->used - device->reserved,
        };
        return NVML_SUCCESS;
}

static nvmlReturn_t fx_sensor_answer(nvmlDevice_t device, long long value, unsigned int *ret)
{
        if (!fx_valid(device) || !ret)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        device->sensor_calls++;
        if (value < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        *ret = (unsigned int) value;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *ret_temp)
{
        if (sensor != NVML_TEMPERATURE_GPU)
                return NVML_ERROR_INVALID_ARGUMENT;
        return fx_sensor_answer(device, fx_valid(device) ? device->temp : -1, ret_temp);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *ret_milliwatts)
{
        return fx_sensor_answer(device, fx_valid(device) ? device->power : -1, ret_milliwatts);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *ret_milliwatts)
{
        return fx_sensor_answer(device, fx_valid(device) ? device->limit : -1, ret_milliwatts);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *ret_mhz)
{
        if (!fx_valid(device))
                return NVML_ERROR_INVALID_ARGUMENT;
        switch (type) {
        case NVML_CLOCK_GRAPHICS:
                return fx_sensor_answer(device, device->gclk, ret_mhz);
        case NVML_CLOCK_MEM:
                return fx_sensor_answer(device, device->mclk, ret_mhz);
        default:
                return fx_sensor_answer(device, -1, ret_mhz);
        }
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *ret_percent)
{
        return fx_sensor_answer(device, fx_valid(device) ? device->fan : -1, ret_percent);
}

/* The answer of call number "call": the scripted one, the last repeating; none scripted is none running. */
static const FxAnswer *fx_answer(nvmlDevice_t device, unsigned k, unsigned long long call)
{
        static const FxAnswer none = { 0 };

        if (device->n_lists[k] == 0)
                return &none;
        return &device->lists[k][call < device->n_lists[k] ? call : device->n_lists[k] - 1];
}

static nvmlReturn_t fx_list(nvmlDevice_t device, unsigned k, unsigned version, unsigned int *count, void *infos)
{
        unsigned long long call;
        const FxAnswer *a;

        if (!fx_valid(device) || !count || (*count > 0 && !infos))
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        call = device->list_calls[k]++;
        /* The forced first refusal takes no answer of the script: the next call gets the first one. */
        if (fx.insufficient_first && call > 0)
                call--;
        a = fx_answer(device, k, call);

        if (*count < a->n || (device->list_calls[k] == 1 && fx.insufficient_first)) {
                *count = a->n;
                return NVML_ERROR_INSUFFICIENT_SIZE;
        }

        for (unsigned i = 0; i < a->n; i++) {
                if (version == 1)
                        ((nvmlProcessInfo_v1_t *) infos)[i] = (nvmlProcessInfo_v1_t){
                                .pid = a->processes[i].pid,
                                .usedGpuMemory = a->processes[i].memory,
                        };
                else
                        /* Not in a MIG instance: NVML's documented "no instance" value. */
                        ((nvmlProcessInfo_v2_t *) infos)[i] = (nvmlProcessInfo_v2_t){
                                .pid = a->processes[i].pid,
                                .usedGpuMemory = a->processes[i].memory,
                                .gpuInstanceId = 0xFFFFFFFFU,
                                .computeInstanceId = 0xFFFFFFFFU,
                        };
        }
        *count = a->n;
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V3
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos)
{
        return fx_list(device, 0, 3, count, infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos)
{
        return fx_list(device, 1, 3, count, infos);
}
#endif

#ifndef FIXTURE_NO_V2
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos)
{
        return fx_list(device, 0, 2, count, infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v2_t *infos)
{
        return fx_list(device, 1, 2, count, infos);
}
#endif

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos)
{
        return fx_list(device, 0, 1, count, infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(
                nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos)
{
        return fx_list(device, 1, 1, count, infos);
}

/* The number of this utilisation call, which says which samples NVML has taken by now; the forced first
 * refusal does not count, as for the lists. */
static unsigned long long fx_util_call(nvmlDevice_t device)
{
        unsigned long long call = device->util_calls++;

        return fx.insufficient_first && call > 0 ? call - 1 : call;
}

/* How many samples a utilisation query at this call number answers with: those taken by now, newer than
 * last_seen. */
static unsigned fx_samples(nvmlDevice_t device, unsigned long long call, unsigned long long last_seen)
{
        unsigned n = 0;

        device->last_seen = last_seen;
        for (unsigned i = 0; i < device->n_samples; i++)
                if (device->samples[i].batch <= call &&
                                (fx.ignore_last_seen || device->samples[i].timestamp > last_seen))
                        n++;
        return n;
}

static const FxSample *fx_sample_at(
                nvmlDevice_t device, unsigned long long call, unsigned long long last_seen, unsigned index)
{
        for (unsigned i = 0; i < device->n_samples; i++)
                if (device->samples[i].batch <= call &&
                                (fx.ignore_last_seen || device->samples[i].timestamp > last_seen) && index-- == 0)
                        return &device->samples[i];
        return NULL;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                unsigned int *count, unsigned long long last_seen)
{
        unsigned long long call;
        unsigned n;

        if (!fx_valid(device) || !count || (*count > 0 && !samples))
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        device->samples_calls++;
        call = fx_util_call(device);

        n = fx_samples(device, call, last_seen);
        if (n == 0)
                return NVML_ERROR_NOT_FOUND;
        if (*count < n || (device->util_calls == 1 && fx.insufficient_first)) {
                *count = n;
                return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        for (unsigned i = 0; i < n; i++) {
                const FxSample *s = fx_sample_at(device, call, last_seen, i);

                samples[i] = (nvmlProcessUtilizationSample_t){
                        .pid = s->pid,
                        .timeStamp = s->timestamp,
                        .smUtil = s->sm,
                        .memUtil = s->mem,
                        .encUtil = s->enc,
                        .decUtil = s->dec,
                };
        }
        *count = n;
        return NVML_SUCCESS;
}

#ifndef FIXTURE_NO_V3
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device, nvmlProcessesUtilizationInfo_v1_t *info)
{
        unsigned long long call;
        unsigned n;

        if (!fx_valid(device) || !info)
                return NVML_ERROR_INVALID_ARGUMENT;
        device->queries++;
        device->info_calls++;
        if (info->version != nvmlProcessesUtilizationInfo_v1)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        if (fx.info_unsupported)
                return NVML_ERROR_NOT_SUPPORTED;
        if (info->processSamplesCount > 0 && !info->procUtilArray)
                return NVML_ERROR_INVALID_ARGUMENT;
        call = fx_util_call(device);

        n = fx_samples(device, call, info->lastSeenTimeStamp);
        if (n == 0)
                return NVML_ERROR_NOT_FOUND;
        if (info->processSamplesCount < n || (device->util_calls == 1 && fx.insufficient_first)) {
                info->processSamplesCount = n;
                return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        for (unsigned i = 0; i < n; i++) {
                const FxSample *s = fx_sample_at(device, call, info->lastSeenTimeStamp, i);

                info->procUtilArray[i] = (nvmlProcessUtilizationInfo_v1_t){
                        .timeStamp = s->timestamp,
                        .pid = s->pid,
                        .smUtil = s->sm,
                        .memUtil = s->mem,
                        .encUtil = s->enc,
                        .decUtil = s->dec,
                        .jpgUtil = 1,
                        .ofaUtil = 2,
                };
        }
        info->processSamplesCount = n;
        return NVML_SUCCESS;
}
#endif

unsigned long long nvml_fixture_counter(const char *what, int device)
{
        const struct nvmlDevice_st *d = device >= 0 && (unsigned) device < fx.n_devices ? &fx.devices[device] : NULL;

        if (strcmp(what, "init") == 0)
                return fx_inits;
        if (strcmp(what, "shutdown") == 0)
                return fx_shutdowns;
        if (!d)
                return 0;
        if (strcmp(what, "queries") == 0)
                return d->queries;
        if (strcmp(what, "sensors") == 0)
                return d->sensor_calls;
        if (strcmp(what, "compute") == 0)
                return d->list_calls[0];
        if (strcmp(what, "graphics") == 0)
                return d->list_calls[1];
        if (strcmp(what, "info") == 0)
                return d->info_calls;
        if (strcmp(what, "samples") == 0)
                return d->samples_calls;
        if (strcmp(what, "last_seen") == 0)
                return d->last_seen;
        return 0;
}
