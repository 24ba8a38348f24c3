/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "drm-device.h"
#include "drm-hwmon.h"
#include "fd-util.h"
#include "string-util.h"

/* Directory entries looked at in one directory: hwmon directories hold a few dozen files. */
#define DIR_ENTRIES_MAX 1024u
/* A value or label file: a number or a short word and a newline. */
#define VALUE_MAX 64u

typedef enum HwmonKind {
        HWMON_TEMP,
        HWMON_POWER,
        HWMON_POWER_CAP,
        HWMON_FREQ,
        HWMON_FAN,
        _HWMON_KIND_MAX,
} HwmonKind;

typedef struct HwmonFile {
        HwmonKind kind;
        unsigned index;
        bool average; /* powerN_average, preferred over powerN_input */
} HwmonFile;

static const struct {
        const char *prefix, *suffix;
        HwmonKind kind;
        bool average;
} hwmon_names[] = {
        { "temp", "_input", HWMON_TEMP, false },
        { "power", "_average", HWMON_POWER, true },
        { "power", "_input", HWMON_POWER, false },
        { "power", "_cap", HWMON_POWER_CAP, false },
        { "freq", "_input", HWMON_FREQ, false },
        { "fan", "_input", HWMON_FAN, false },
};

static const char *kind_prefix(HwmonKind k)
{
        switch (k) {
        case HWMON_TEMP:
                return "temp";
        case HWMON_POWER:
        case HWMON_POWER_CAP:
                return "power";
        case HWMON_FREQ:
                return "freq";
        case HWMON_FAN:
                return "fan";
        default:
                return NULL;
        }
}

/* "PREFIX<N>SUFFIX" with N a decimal without sign or leading zero. */
static bool parse_name(const char *name, const char *prefix, const char *suffix, unsigned *ret_index)
{
        const char *p = name + strlen(prefix);
        unsigned long v;
        char *end;

        if (!startswith(name, prefix) || *p < '1' || *p > '9')
                return false;
        errno = 0;
        v = strtoul(p, &end, 10);
        if (errno != 0 || v > 1000 || !streq(end, suffix))
                return false;
        *ret_index = (unsigned) v;
        return true;
}

/* Reads a small regular file below dir_fd: at most VALUE_MAX - 1 bytes, NUL-terminated, one trailing
 * newline dropped. Never follows a symlink, never blocks on something that is not a file. */
static int read_small(int dir_fd, const char *name, char buf[static VALUE_MAX])
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        ssize_t n;

        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        n = read(fd, buf, VALUE_MAX - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = '\0';
        return 0;
}

static int read_number(int dir_fd, const char *name, long long *ret)
{
        char buf[VALUE_MAX];
        long long v;
        char *end;
        int r;

        r = read_small(dir_fd, name, buf);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (errno != 0 || end == buf || *end != '\0')
                return -EBADMSG;
        *ret = v;
        return 0;
}

/* The label of a sensor, "" when it has none or it is not a short printable word. */
static void read_label(int dir_fd, const char *prefix, unsigned index, char label[static GPU_SENSOR_LABEL_MAX])
{
        char name[32], buf[VALUE_MAX];

        label[0] = '\0';
        (void) snprintf(name, sizeof(name), "%s%u_label", prefix, index);
        if (read_small(dir_fd, name, buf) < 0 || strlen(buf) >= GPU_SENSOR_LABEL_MAX)
                return;
        for (const char *c = buf; *c; c++)
                if (*c < 0x20 || *c > 0x7e)
                        return;
        strcpy(label, buf);
}

static int cmp_file(const void *a, const void *b)
{
        const HwmonFile *x = a, *y = b;

        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        return (x->index > y->index) - (x->index < y->index);
}

/* The sensor files of one hwmonN directory, one per kind and index, sorted. */
static size_t list_files(int dir_fd, HwmonFile files[static DRM_HWMON_FILES_MAX])
{
        _cleanup_closedir_ DIR *d = NULL;
        size_t n = 0;
        int fd;

        fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return 0;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return 0;
        }
        for (unsigned seen = 0; seen < DIR_ENTRIES_MAX; seen++) {
                struct dirent *de = readdir(d);
                HwmonFile f = { 0 };
                bool found = false, merged = false;

                if (!de)
                        break;
                for (size_t i = 0; i < ELEMENTSOF(hwmon_names) && !found; i++)
                        if (parse_name(de->d_name, hwmon_names[i].prefix, hwmon_names[i].suffix, &f.index)) {
                                f.kind = hwmon_names[i].kind;
                                f.average = hwmon_names[i].average;
                                found = true;
                        }
                if (!found)
                        continue;
                for (size_t i = 0; i < n && !merged; i++)
                        if (files[i].kind == f.kind && files[i].index == f.index) {
                                files[i].average = files[i].average || f.average;
                                merged = true;
                        }
                if (!merged && n < DRM_HWMON_FILES_MAX)
                        files[n++] = f;
        }
        qsort_safe(files, n, sizeof(HwmonFile), cmp_file);
        return n;
}

static bool read_one(int dir_fd, const HwmonFile *f, GpuSensorReading *ret)
{
        const char *prefix = kind_prefix(f->kind);
        char name[32];
        long long v;

        switch (f->kind) {
        case HWMON_TEMP:
                (void) snprintf(name, sizeof(name), "temp%u_input", f->index);
                *ret = (GpuSensorReading){ .sensor = GPU_SENSOR_TEMPERATURE, .unit = GPU_UNIT_CELSIUS };
                break;
        case HWMON_POWER:
                (void) snprintf(name, sizeof(name), "power%u_%s", f->index, f->average ? "average" : "input");
                *ret = (GpuSensorReading){ .sensor = GPU_SENSOR_POWER, .unit = GPU_UNIT_WATT };
                break;
        case HWMON_POWER_CAP:
                (void) snprintf(name, sizeof(name), "power%u_cap", f->index);
                *ret = (GpuSensorReading){ .sensor = GPU_SENSOR_POWER_LIMIT, .unit = GPU_UNIT_WATT };
                break;
        case HWMON_FREQ:
                (void) snprintf(name, sizeof(name), "freq%u_input", f->index);
                *ret = (GpuSensorReading){ .unit = GPU_UNIT_MEGAHERTZ };
                break;
        case HWMON_FAN:
                (void) snprintf(name, sizeof(name), "fan%u_input", f->index);
                *ret = (GpuSensorReading){ .sensor = GPU_SENSOR_FAN, .unit = GPU_UNIT_RPM };
                break;
        default:
                return false;
        }

        read_label(dir_fd, prefix, f->index, ret->label);
        if (f->kind == HWMON_FREQ) {
                /* Only the two clocks the contract names; amdgpu labels them so. */
                if (streq(ret->label, "sclk"))
                        ret->sensor = GPU_SENSOR_CLOCK_GRAPHICS;
                else if (streq(ret->label, "mclk"))
                        ret->sensor = GPU_SENSOR_CLOCK_MEMORY;
                else
                        return false;
        }
        if (read_number(dir_fd, name, &v) < 0)
                return false;
        switch (f->kind) {
        case HWMON_TEMP:
                ret->value = (double) v / 1000.0;
                break;
        case HWMON_POWER:
        case HWMON_POWER_CAP:
                if (v < 0)
                        return false;
                ret->value = (double) v / 1000000.0;
                break;
        case HWMON_FREQ:
                if (v < 0)
                        return false;
                ret->value = (double) v / 1000000.0;
                break;
        default:
                if (v < 0)
                        return false;
                ret->value = (double) v;
                break;
        }
        return true;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return (x > y) - (x < y);
}

/* The numbers N of hwmonN below dir_fd, sorted, at most DRM_HWMON_DIRS_MAX. */
static size_t list_hwmon_dirs(int dir_fd, unsigned ret[static DRM_HWMON_DIRS_MAX])
{
        _cleanup_closedir_ DIR *d = fdopendir(dir_fd);
        size_t n = 0;

        if (!d) {
                safe_close(dir_fd);
                return 0;
        }
        for (unsigned seen = 0; seen < DIR_ENTRIES_MAX && n < DRM_HWMON_DIRS_MAX; seen++) {
                struct dirent *de = readdir(d);
                unsigned index;

                if (!de)
                        break;
                if (streq(de->d_name, "hwmon0"))
                        ret[n++] = 0;
                else if (parse_name(de->d_name, "hwmon", "", &index))
                        ret[n++] = index;
        }
        qsort_safe(ret, n, sizeof(unsigned), cmp_unsigned);
        return n;
}

size_t drm_hwmon_read(int sys_fd, dev_t rdev, GpuSensorReading *ret, size_t max)
{
        unsigned dirs[DRM_HWMON_DIRS_MAX];
        char path[96];
        size_t n = 0, n_dirs;
        int fd;

        assert(ret || max == 0);

        /* The gate: not even the directory while the device sleeps. */
        if (drm_device_power_state(sys_fd, rdev) == DRM_POWER_SUSPENDED)
                return 0;

        (void) snprintf(path, sizeof(path), "dev/char/%u:%u/device/hwmon", major(rdev), minor(rdev));
        fd = openat(sys_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n_dirs = list_hwmon_dirs(fd, dirs); /* takes fd */

        for (size_t i = 0; i < n_dirs && n < max; i++) {
                HwmonFile files[DRM_HWMON_FILES_MAX];
                _cleanup_close_ int dir_fd = -EBADF;
                size_t n_files;

                (void) snprintf(path, sizeof(path), "dev/char/%u:%u/device/hwmon/hwmon%u", major(rdev), minor(rdev),
                                dirs[i]);
                dir_fd = openat(sys_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dir_fd < 0)
                        continue;
                n_files = list_files(dir_fd, files);
                for (size_t k = 0; k < n_files && n < max; k++)
                        if (read_one(dir_fd, &files[k], &ret[n]))
                                n++;
        }
        return n;
}
