/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>

#include "conf-parser.h"
#include "fd-util.h"
#include "fileio.h"
#include "nvprofiled-conf.h"
#include "nvproto-schema.h"
#include "report-limits.h"
#include "string-util.h"
#include "strv.h"

void manager_config_init(ManagerConfig *c)
{
        *c = (ManagerConfig){
                .watch_mode = PROC_WATCH_AUTO,
                .poll_interval_usec = 2 * 1000000,
                .rescan_interval_usec = 0,
                .settle_usec = 3 * 1000000,
                .event_coalesce_usec = 5 * 1000,
                .receive_buffer = 8 * 1024 * 1024,
                .max_processes = 65536,
                .reload_coalesce_usec = 200 * 1000,
                .reload_max_delay_usec = 2 * 1000000,
                .log_applied = true,
                .maps_max = proc_limits_default.maps_max,
                .cmdline_max = proc_limits_default.cmdline_max,
                .environ_max = proc_limits_default.environ_max,
                .dsos_max = (unsigned) proc_limits_default.dsos_max,
                .bus_list_max = 4096,
                .bus_string_max = 4096,
                .max_configs = 256,
                .user_configs_max = 8,
                .rc_bytes_max = 48 * 1024 * 1024,
                .user_rc_bytes_max = 4 * 1024 * 1024,
                .config_idle_usec = 10 * 60 * 1000000ULL,
                .user_watch_dirs_max = 64,
                .remember_names_usec = 30 * 86400 * 1000000ULL,
                .names_per_user_max = 256,
                .name_bytes_per_user_max = 64 * 1024,
                .names_max = 8192,
                .usage_watch_interval_usec = 1000000,
                .usage_idle_interval_usec = 0,
                .usage_min_interval_usec = 100 * 1000,
                .usage_rescan_interval_usec = 5 * 60 * 1000000ULL,
                .usage_watchers_per_user = 16,
                .drm_major = 226,
                .accel_major = 261,
                .usage_open_files_max = 4096,
                .nvml = true,
                .export_interval_usec = 15 * 1000000,
                .reports_per_user_max = 0, /* a share of ReportsMax= in force (report-budget.h) */
                .reports_max = 64,
                .report_memory_per_user_max = (uint64_t) 2048 * 1024 * 1024,
                .report_memory_max = (uint64_t) 4096 * 1024 * 1024,
                .report_worker_memory_max = NCU_REPORT_MEMORY_CEILING_DEFAULT,
                .report_outputs_per_user_max = 16,
                .report_idle_usec = 10 * 60 * 1000000ULL,
                .report_timeout_usec = 60 * 1000000ULL,
                .report_spare_worker = true,
                .user_log_interval_usec = 30 * 1000000,
                .user_log_burst = 100,
                .all_users_log_burst = 1000,
        };
        c->device_directory = strdup("/dev");
        c->section_recursive_folders = strdup(NSIGHT_COMPUTE_SECTIONS_DIR);
        c->section_schema = strdup("extended");
        manager_config_finish(c);
}

void manager_config_finish(ManagerConfig *c)
{
        c->proc_limits = proc_limits_default;
        c->proc_limits.maps_max = (size_t) c->maps_max;
        c->proc_limits.cmdline_max = (size_t) c->cmdline_max;
        c->proc_limits.environ_max = (size_t) c->environ_max;
        c->proc_limits.dsos_max = c->dsos_max;
}

static int parse_watch_mode(const char *value, void *data)
{
        ProcWatchMode *m = data;

        for (ProcWatchMode i = 0; i < _PROC_WATCH_MODE_MAX; i++)
                if (streq(value, proc_watch_mode_to_string(i))) {
                        *m = i;
                        return 0;
                }
        return -EINVAL;
}

static int parse_trailing_commas(const char *value, void *data)
{
        bool *b = data;

        if (streq(value, "reject"))
                *b = false;
        else if (streq(value, "accept"))
                *b = true;
        else
                return -EINVAL;
        return 0;
}

static int parse_other_users(const char *value, void *data)
{
        bool *hide = data;

        if (streq(value, "redact"))
                *hide = false;
        else if (streq(value, "hide"))
                *hide = true;
        else
                return -EINVAL;
        return 0;
}

static int parse_section_schema(const char *value, void *data)
{
        NvSchema s;

        if (nv_schema_from_string(value, &s) < 0)
                return -EINVAL;
        return conf_parse_string(value, data);
}

/* An absolute path ending in ".prom" (the textfile collector reads nothing else), or "" for none. */
static int parse_export_textfile(const char *value, void *data)
{
        if (value[0] != '\0' && (value[0] != '/' || !endswith(value, ".prom") || endswith(value, "/.prom")))
                return -EINVAL;
        return conf_parse_string(value, data);
}

/* At least a second: each export renders and fsyncs a file. */
static int parse_export_interval(const char *value, void *data)
{
        uint64_t usec;
        int r;

        r = conf_parse_usec(value, &usec);
        if (r < 0)
                return r;
        if (usec < 1000000)
                return -ERANGE;
        *(uint64_t *) data = usec;
        return 0;
}

/* At least what the smallest report needs. */
static int parse_worker_memory(const char *value, void *data)
{
        uint64_t bytes;
        int r;

        r = conf_parse_size(value, &bytes);
        if (r < 0)
                return r;
        if (bytes < NCU_REPORT_MEMORY_BASE)
                return -ERANGE;
        *(uint64_t *) data = bytes;
        return 0;
}

/* Not 0: a worker that never has to answer would hold its caller's report forever. */
static int parse_report_timeout(const char *value, void *data)
{
        uint64_t usec;
        int r;

        r = conf_parse_usec(value, &usec);
        if (r < 0)
                return r;
        if (usec == 0)
                return -ERANGE;
        *(uint64_t *) data = usec;
        return 0;
}

/* A setting's place in ManagerConfig, and for a reload its size (conf_item_differs()). */
#define FIELD(f) offsetof(ManagerConfig, f), sizeof(((ManagerConfig *) NULL)->f), false
#define STRING_FIELD(f) offsetof(ManagerConfig, f), sizeof(((ManagerConfig *) NULL)->f), true
/* Takes effect at start-up only: what it sets up once (the connector's socket, inotify watches, the DRM
 * sampler, a loaded library, the rc files' parsed form in the file cache) is not redone by a reload. */
#define AT_START 1u

static const ConfItem items[] = {
        { "ProcessWatch", "Mode", parse_watch_mode, FIELD(watch_mode), AT_START },
        { "ProcessWatch", "PollIntervalSec", conf_parse_usec, FIELD(poll_interval_usec) },
        { "ProcessWatch", "RescanIntervalSec", conf_parse_usec, FIELD(rescan_interval_usec) },
        { "ProcessWatch", "SettleSec", conf_parse_usec, FIELD(settle_usec) },
        { "ProcessWatch", "EventCoalesceSec", conf_parse_usec, FIELD(event_coalesce_usec) },
        { "ProcessWatch", "ReceiveBufferSize", conf_parse_size, FIELD(receive_buffer), AT_START },
        { "ProcessWatch", "MaxProcesses", conf_parse_unsigned, FIELD(max_processes) },
        { "ProcessWatch", "DeviceDirectory", conf_parse_string, STRING_FIELD(device_directory), AT_START },
        { "Profiles", "DriverVersion", conf_parse_string, STRING_FIELD(driver_version) },
        { "Profiles", "TrailingCommas", parse_trailing_commas, FIELD(accept_trailing_commas), AT_START },
        { "Profiles", "Collation", conf_parse_string, STRING_FIELD(collation), AT_START },
        { "Profiles", "ReloadCoalesceSec", conf_parse_usec, FIELD(reload_coalesce_usec), AT_START },
        { "Profiles", "ReloadMaxDelaySec", conf_parse_usec, FIELD(reload_max_delay_usec), AT_START },
        { "Profiles", "LogApplied", conf_parse_bool, FIELD(log_applied) },
        { "Privacy", "OtherUsersProcesses", parse_other_users, FIELD(hide_other_users) },
        { "Doctor", "RememberNamesSec", conf_parse_usec, FIELD(remember_names_usec) },
        { "Doctor", "NamesPerUserMax", conf_parse_unsigned, FIELD(names_per_user_max) },
        { "Doctor", "NameBytesPerUserMax", conf_parse_size, FIELD(name_bytes_per_user_max) },
        { "Doctor", "NamesMax", conf_parse_unsigned, FIELD(names_max) },
        { "Usage", "WatchIntervalSec", conf_parse_usec, FIELD(usage_watch_interval_usec) },
        { "Usage", "IdleIntervalSec", conf_parse_usec, FIELD(usage_idle_interval_usec) },
        { "Usage", "MinIntervalSec", conf_parse_usec, FIELD(usage_min_interval_usec) },
        { "Usage", "RescanIntervalSec", conf_parse_usec, FIELD(usage_rescan_interval_usec) },
        { "Usage", "WatchersPerUser", conf_parse_unsigned, FIELD(usage_watchers_per_user) },
        { "Usage", "DrmMajor", conf_parse_unsigned, FIELD(drm_major), AT_START },
        { "Usage", "AccelMajor", conf_parse_unsigned, FIELD(accel_major), AT_START },
        { "Usage", "OpenFilesMax", conf_parse_unsigned, FIELD(usage_open_files_max), AT_START },
        { "Usage", "NVML", conf_parse_bool, FIELD(nvml), AT_START },
        { "Usage", "NVMLLibrary", conf_parse_string, STRING_FIELD(nvml_library), AT_START },
        { "Usage", "PCIIDs", conf_parse_string, STRING_FIELD(pci_ids), AT_START },
        { "Usage", "DriverProfiling", conf_parse_bool, FIELD(drm_profiling), AT_START },
        { "Limits", "MapsMax", conf_parse_size, FIELD(maps_max) },
        { "Limits", "CmdlineMax", conf_parse_size, FIELD(cmdline_max) },
        { "Limits", "EnvironMax", conf_parse_size, FIELD(environ_max) },
        { "Limits", "MappedFilesMax", conf_parse_unsigned, FIELD(dsos_max) },
        { "Limits", "BusListMax", conf_parse_unsigned, FIELD(bus_list_max) },
        { "Limits", "BusStringMax", conf_parse_unsigned, FIELD(bus_string_max) },
        { "Limits", "MaxConfigurations", conf_parse_unsigned, FIELD(max_configs) },
        { "Limits", "UserConfigurationsMax", conf_parse_unsigned, FIELD(user_configs_max) },
        { "Limits", "RcBytesMax", conf_parse_size, FIELD(rc_bytes_max) },
        { "Limits", "UserRcBytesMax", conf_parse_size, FIELD(user_rc_bytes_max) },
        { "Limits", "ConfigurationIdleSec", conf_parse_usec, FIELD(config_idle_usec) },
        { "Limits", "UserWatchDirectoriesMax", conf_parse_unsigned, FIELD(user_watch_dirs_max) },
        { "Limits", "UserLogIntervalSec", conf_parse_usec, FIELD(user_log_interval_usec) },
        { "Limits", "UserLogBurst", conf_parse_unsigned, FIELD(user_log_burst) },
        { "Limits", "AllUsersLogBurst", conf_parse_unsigned, FIELD(all_users_log_burst) },
        { "Sections", "Folders", conf_parse_string, STRING_FIELD(section_folders) },
        { "Sections", "RecursiveFolders", conf_parse_string, STRING_FIELD(section_recursive_folders) },
        { "Sections", "Schema", parse_section_schema, STRING_FIELD(section_schema) },
        { "Reports", "ReportsPerUserMax", conf_parse_unsigned, FIELD(reports_per_user_max) },
        { "Reports", "ReportsMax", conf_parse_unsigned, FIELD(reports_max) },
        { "Reports", "MemoryPerUserMax", conf_parse_size, FIELD(report_memory_per_user_max) },
        { "Reports", "MemoryMax", conf_parse_size, FIELD(report_memory_max) },
        { "Reports", "WorkerMemoryMax", parse_worker_memory, FIELD(report_worker_memory_max) },
        { "Reports", "OutputsPerUserMax", conf_parse_unsigned, FIELD(report_outputs_per_user_max) },
        { "Reports", "IdleSec", conf_parse_usec, FIELD(report_idle_usec) },
        { "Reports", "TimeoutSec", parse_report_timeout, FIELD(report_timeout_usec) },
        { "Reports", "SpareWorker", conf_parse_bool, FIELD(report_spare_worker) },
        { "Export", "ExportTextfile", parse_export_textfile, STRING_FIELD(export_textfile) },
        { "Export", "ExportIntervalSec", parse_export_interval, FIELD(export_interval_usec) },
        { "Export", "ExportGroup", conf_parse_string, STRING_FIELD(export_group) },
        { "Export", "ExportProcessLabels", conf_parse_bool, FIELD(export_process_labels) },
        { 0 },
};

static char **string_field(ManagerConfig *c, const ConfItem *it)
{
        return (char **) ((uint8_t *) c + it->offset);
}

/* The strings a configuration owns are its STRING_FIELD()s. */
void manager_config_done(ManagerConfig *c)
{
        for (const ConfItem *it = items; it->key; it++)
                if (it->string)
                        free(*string_field(c, it));
        *c = (ManagerConfig){ 0 };
}

/* Makes dst's string of item it a copy of src's. */
static int copy_string(ManagerConfig *dst, const ManagerConfig *src, const ConfItem *it)
{
        const char *from = *string_field((ManagerConfig *) src, it);
        char *copy = NULL;

        if (from) {
                copy = strdup(from);
                if (!copy)
                        return -ENOMEM;
        }
        free(*string_field(dst, it));
        *string_field(dst, it) = copy;
        return 0;
}

int manager_config_copy(ManagerConfig *dst, const ManagerConfig *src)
{
        *dst = *src;
        for (const ConfItem *it = items; it->key; it++)
                if (it->string)
                        *string_field(dst, it) = NULL;
        for (const ConfItem *it = items; it->key; it++)
                if (it->string && copy_string(dst, src, it) < 0) {
                        manager_config_done(dst);
                        return -ENOMEM;
                }
        return 0;
}

int manager_config_parse(ManagerConfig *c, const char *text, size_t size, char ***ret_messages)
{
        int r;

        r = conf_parse_text(text, size, items, c, ret_messages);
        manager_config_finish(c);
        return r;
}

int manager_config_load_file(const char *path, bool optional, ManagerConfig *ret, char ***ret_messages)
{
        _cleanup_free_ char *text = NULL;
        _cleanup_strv_free_ char **messages = NULL;
        _cleanup_close_ int root = -EBADF;
        size_t size;
        int r;

        assert(path);
        assert(ret);

        manager_config_init(ret);
        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return -errno;
        r = read_full_file_in_root(root, path, CONF_FILE_SIZE_MAX, &text, &size, NULL);
        if (r == -ENOENT && optional)
                return 0;
        if (r < 0)
                return r;

        r = manager_config_parse(ret, text, size, &messages);
        if (r < 0)
                return r;
        /* "PATH:LINE: ...": every message names the file. */
        for (size_t i = 0; messages && messages[i]; i++) {
                char *named = NULL;

                if (asprintf(&named, "%s:%s", path, messages[i]) < 0)
                        return -ENOMEM;
                free(messages[i]);
                messages[i] = named;
        }
        if (ret_messages)
                *ret_messages = TAKE_PTR(messages);
        return r;
}

static int take_running_value(ManagerConfig *next, const ManagerConfig *running, const ConfItem *it)
{
        if (it->string)
                return copy_string(next, running, it);
        memcpy((uint8_t *) next + it->offset, (const uint8_t *) running + it->offset, it->size);
        return 0;
}

int manager_config_compare(ManagerConfig *next, const ManagerConfig *running, char ***ret_changed, char ***ret_at_start)
{
        _cleanup_strv_free_ char **changed = NULL, **at_start = NULL;
        int r;

        assert(next);
        assert(running);

        for (const ConfItem *it = items; it->key; it++) {
                char name[128];

                if (!conf_item_differs(it, next, running))
                        continue;
                snprintf(name, sizeof(name), "[%s] %s=", it->section, it->key);
                if (it->flags & AT_START) {
                        r = take_running_value(next, running, it);
                        if (r < 0)
                                return r;
                        r = strv_extend(&at_start, name);
                } else
                        r = strv_extend(&changed, name);
                if (r < 0)
                        return r;
        }
        manager_config_finish(next);
        if (ret_changed)
                *ret_changed = TAKE_PTR(changed);
        if (ret_at_start)
                *ret_at_start = TAKE_PTR(at_start);
        return 0;
}

bool manager_config_changed(char *const *changed, const char *section)
{
        char prefix[64];

        snprintf(prefix, sizeof(prefix), "[%s] ", section);
        STRV_FOREACH(c, changed)
                if (startswith(*c, prefix))
                        return true;
        return false;
}

const char *proc_watch_mode_to_string(ProcWatchMode m)
{
        switch (m) {
        case PROC_WATCH_AUTO:
                return "auto";
        case PROC_WATCH_PROC_CONNECTOR:
                return "proc-connector";
        case PROC_WATCH_POLL:
                return "poll";
        case _PROC_WATCH_MODE_MAX:
                break;
        }
        return NULL;
}
