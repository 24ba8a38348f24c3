/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stddef.h>

#include "conf-parser.h"
#include "manager-config.h"
#include "nvproto-schema.h"
#include "report-limits.h"
#include "string-util.h"

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
                .reports_per_user_max = 16,
                .reports_max = 64,
                .report_memory_per_user_max = (uint64_t) 2048 * 1024 * 1024,
                .report_memory_max = (uint64_t) 4096 * 1024 * 1024,
                .report_worker_memory_max = NCU_REPORT_MEMORY_CEILING_DEFAULT,
                .report_outputs_per_user_max = 16,
                .report_idle_usec = 10 * 60 * 1000000ULL,
                .report_timeout_usec = 60 * 1000000ULL,
                .user_log_interval_usec = 30 * 1000000,
                .user_log_burst = 100,
                .all_users_log_burst = 1000,
        };
        c->device_directory = strdup("/dev");
        c->section_recursive_folders = strdup("/usr/lib/x86_64-linux-gnu/nsight-compute/sections");
        c->section_schema = strdup("extended");
        manager_config_finish(c);
}

/* The strings a configuration owns: one list for copying and freeing them. */
static const size_t config_strings[] = {
        offsetof(ManagerConfig, device_directory),
        offsetof(ManagerConfig, driver_version),
        offsetof(ManagerConfig, collation),
        offsetof(ManagerConfig, section_folders),
        offsetof(ManagerConfig, section_recursive_folders),
        offsetof(ManagerConfig, section_schema),
        offsetof(ManagerConfig, nvml_library),
        offsetof(ManagerConfig, export_textfile),
        offsetof(ManagerConfig, export_group),
};

static char **config_string(ManagerConfig *c, size_t offset)
{
        return (char **) ((uint8_t *) c + offset);
}

void manager_config_done(ManagerConfig *c)
{
        for (size_t i = 0; i < ELEMENTSOF(config_strings); i++)
                free(*config_string(c, config_strings[i]));
        *c = (ManagerConfig){ 0 };
}

int manager_config_copy(ManagerConfig *dst, const ManagerConfig *src)
{
        *dst = *src;
        for (size_t i = 0; i < ELEMENTSOF(config_strings); i++)
                *config_string(dst, config_strings[i]) = NULL;
        for (size_t i = 0; i < ELEMENTSOF(config_strings); i++) {
                const char *s = *config_string((ManagerConfig *) src, config_strings[i]);

                if (!s)
                        continue;
                *config_string(dst, config_strings[i]) = strdup(s);
                if (!*config_string(dst, config_strings[i])) {
                        manager_config_done(dst);
                        return -ENOMEM;
                }
        }
        return 0;
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

static const ConfItem items[] = {
        { "ProcessWatch", "Mode", parse_watch_mode, offsetof(ManagerConfig, watch_mode) },
        { "ProcessWatch", "PollIntervalSec", conf_parse_usec, offsetof(ManagerConfig, poll_interval_usec) },
        { "ProcessWatch", "RescanIntervalSec", conf_parse_usec, offsetof(ManagerConfig, rescan_interval_usec) },
        { "ProcessWatch", "SettleSec", conf_parse_usec, offsetof(ManagerConfig, settle_usec) },
        { "ProcessWatch", "EventCoalesceSec", conf_parse_usec, offsetof(ManagerConfig, event_coalesce_usec) },
        { "ProcessWatch", "ReceiveBufferSize", conf_parse_size, offsetof(ManagerConfig, receive_buffer) },
        { "ProcessWatch", "MaxProcesses", conf_parse_unsigned, offsetof(ManagerConfig, max_processes) },
        { "ProcessWatch", "DeviceDirectory", conf_parse_string, offsetof(ManagerConfig, device_directory) },
        { "Profiles", "DriverVersion", conf_parse_string, offsetof(ManagerConfig, driver_version) },
        { "Profiles", "TrailingCommas", parse_trailing_commas, offsetof(ManagerConfig, accept_trailing_commas) },
        { "Profiles", "Collation", conf_parse_string, offsetof(ManagerConfig, collation) },
        { "Profiles", "ReloadCoalesceSec", conf_parse_usec, offsetof(ManagerConfig, reload_coalesce_usec) },
        { "Profiles", "ReloadMaxDelaySec", conf_parse_usec, offsetof(ManagerConfig, reload_max_delay_usec) },
        { "Profiles", "LogApplied", conf_parse_bool, offsetof(ManagerConfig, log_applied) },
        { "Privacy", "OtherUsersProcesses", parse_other_users, offsetof(ManagerConfig, hide_other_users) },
        { "Usage", "WatchIntervalSec", conf_parse_usec, offsetof(ManagerConfig, usage_watch_interval_usec) },
        { "Usage", "IdleIntervalSec", conf_parse_usec, offsetof(ManagerConfig, usage_idle_interval_usec) },
        { "Usage", "MinIntervalSec", conf_parse_usec, offsetof(ManagerConfig, usage_min_interval_usec) },
        { "Usage", "RescanIntervalSec", conf_parse_usec, offsetof(ManagerConfig, usage_rescan_interval_usec) },
        { "Usage", "WatchersPerUser", conf_parse_unsigned, offsetof(ManagerConfig, usage_watchers_per_user) },
        { "Usage", "DrmMajor", conf_parse_unsigned, offsetof(ManagerConfig, drm_major) },
        { "Usage", "AccelMajor", conf_parse_unsigned, offsetof(ManagerConfig, accel_major) },
        { "Usage", "OpenFilesMax", conf_parse_unsigned, offsetof(ManagerConfig, usage_open_files_max) },
        { "Usage", "NVML", conf_parse_bool, offsetof(ManagerConfig, nvml) },
        { "Usage", "NVMLLibrary", conf_parse_string, offsetof(ManagerConfig, nvml_library) },
        { "Usage", "DriverProfiling", conf_parse_bool, offsetof(ManagerConfig, drm_profiling) },
        { "Limits", "MapsMax", conf_parse_size, offsetof(ManagerConfig, maps_max) },
        { "Limits", "CmdlineMax", conf_parse_size, offsetof(ManagerConfig, cmdline_max) },
        { "Limits", "EnvironMax", conf_parse_size, offsetof(ManagerConfig, environ_max) },
        { "Limits", "MappedFilesMax", conf_parse_unsigned, offsetof(ManagerConfig, dsos_max) },
        { "Limits", "BusListMax", conf_parse_unsigned, offsetof(ManagerConfig, bus_list_max) },
        { "Limits", "BusStringMax", conf_parse_unsigned, offsetof(ManagerConfig, bus_string_max) },
        { "Limits", "MaxConfigurations", conf_parse_unsigned, offsetof(ManagerConfig, max_configs) },
        { "Limits", "UserConfigurationsMax", conf_parse_unsigned, offsetof(ManagerConfig, user_configs_max) },
        { "Limits", "RcBytesMax", conf_parse_size, offsetof(ManagerConfig, rc_bytes_max) },
        { "Limits", "UserRcBytesMax", conf_parse_size, offsetof(ManagerConfig, user_rc_bytes_max) },
        { "Limits", "ConfigurationIdleSec", conf_parse_usec, offsetof(ManagerConfig, config_idle_usec) },
        { "Limits", "UserWatchDirectoriesMax", conf_parse_unsigned, offsetof(ManagerConfig, user_watch_dirs_max) },
        { "Limits", "UserLogIntervalSec", conf_parse_usec, offsetof(ManagerConfig, user_log_interval_usec) },
        { "Limits", "UserLogBurst", conf_parse_unsigned, offsetof(ManagerConfig, user_log_burst) },
        { "Limits", "AllUsersLogBurst", conf_parse_unsigned, offsetof(ManagerConfig, all_users_log_burst) },
        { "Sections", "Folders", conf_parse_string, offsetof(ManagerConfig, section_folders) },
        { "Sections", "RecursiveFolders", conf_parse_string, offsetof(ManagerConfig, section_recursive_folders) },
        { "Sections", "Schema", parse_section_schema, offsetof(ManagerConfig, section_schema) },
        { "Reports", "ReportsPerUserMax", conf_parse_unsigned, offsetof(ManagerConfig, reports_per_user_max) },
        { "Reports", "ReportsMax", conf_parse_unsigned, offsetof(ManagerConfig, reports_max) },
        { "Reports", "MemoryPerUserMax", conf_parse_size, offsetof(ManagerConfig, report_memory_per_user_max) },
        { "Reports", "MemoryMax", conf_parse_size, offsetof(ManagerConfig, report_memory_max) },
        { "Reports", "WorkerMemoryMax", parse_worker_memory, offsetof(ManagerConfig, report_worker_memory_max) },
        { "Reports", "OutputsPerUserMax", conf_parse_unsigned, offsetof(ManagerConfig, report_outputs_per_user_max) },
        { "Reports", "IdleSec", conf_parse_usec, offsetof(ManagerConfig, report_idle_usec) },
        { "Reports", "TimeoutSec", parse_report_timeout, offsetof(ManagerConfig, report_timeout_usec) },
        { "Export", "ExportTextfile", parse_export_textfile, offsetof(ManagerConfig, export_textfile) },
        { "Export", "ExportIntervalSec", parse_export_interval, offsetof(ManagerConfig, export_interval_usec) },
        { "Export", "ExportGroup", conf_parse_string, offsetof(ManagerConfig, export_group) },
        { "Export", "ExportProcessLabels", conf_parse_bool, offsetof(ManagerConfig, export_process_labels) },
        { 0 },
};

int manager_config_parse(ManagerConfig *c, const char *text, size_t size, char ***ret_messages)
{
        int r;

        r = conf_parse_text(text, size, items, c, ret_messages);
        manager_config_finish(c);
        return r;
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
