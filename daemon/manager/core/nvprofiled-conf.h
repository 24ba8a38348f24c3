/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "proc-facts.h"

/* nvprofiled.conf: the daemon's own settings (ManagerConfig), read, checked and compared on reload;
 * conf/nvprofiled.conf documents each one and its default. (The rc files' configurations, which say what
 * applies to processes, are profiles/rc-config-slots.c.) */

typedef enum ProcWatchMode {
        PROC_WATCH_AUTO, /* proc connector when permitted, else polling */
        PROC_WATCH_PROC_CONNECTOR, /* proc connector or fail */
        PROC_WATCH_POLL, /* poll /proc */
        _PROC_WATCH_MODE_MAX,
} ProcWatchMode;

typedef struct ManagerConfig {
        /* [ProcessWatch] */
        ProcWatchMode watch_mode;
        uint64_t poll_interval_usec;
        uint64_t rescan_interval_usec; /* 0 = rescan only on overrun */
        uint64_t settle_usec; /* re-read maps and comm for this long after exec */
        uint64_t event_coalesce_usec; /* process events are read in batches this far apart; 0: at once */
        uint64_t receive_buffer;
        unsigned max_processes;
        char *device_directory; /* where GPU device nodes live, watched for opens */

        /* [Profiles] */
        char *driver_version; /* NULL = detect */
        bool accept_trailing_commas;
        char *collation; /* locale for rc.d order; NULL = "C" */
        uint64_t reload_coalesce_usec;
        uint64_t reload_max_delay_usec;
        bool log_applied; /* journal entry for each process a profile applies to */

        /* [Privacy] */
        bool hide_other_users; /* non-root callers do not see other users' processes at all */

        /* [Doctor] */
        uint64_t remember_names_usec; /* how long names of processes seen are kept; 0: not at all */
        unsigned names_per_user_max; /* remembered name combinations of one user */
        uint64_t name_bytes_per_user_max; /* ... and their bytes */
        unsigned names_max; /* ... of all users */

        /* [Usage] */
        uint64_t usage_watch_interval_usec; /* while somebody watches */
        uint64_t usage_idle_interval_usec; /* otherwise; 0: not at all */
        uint64_t usage_min_interval_usec; /* no watch samples faster */
        uint64_t usage_rescan_interval_usec; /* full /proc sweep for DRM fds; 0: never */
        unsigned usage_watchers_per_user;
        unsigned drm_major, accel_major; /* char majors of DRM and accel nodes (tests declare others) */
        unsigned usage_open_files_max; /* fdinfo files kept open between samples */
        bool nvml; /* load NVML */
        char *nvml_library; /* NULL: libnvidia-ml.so.1 */
        char *pci_ids; /* the PCI ID database for DRM devices' names; NULL: pci.ids or hwdata's */
        bool drm_profiling; /* set panfrost/panthor "profiling" while sampling */

        /* [Limits] */
        ProcLimits proc_limits;
        uint64_t maps_max, cmdline_max, environ_max;
        unsigned dsos_max;
        unsigned bus_list_max; /* entries in a list argument */
        unsigned bus_string_max; /* bytes in a string argument */
        unsigned max_configs; /* cached configurations (one per user, $HOME and root) */
        unsigned user_configs_max; /* of which one user's */
        uint64_t rc_bytes_max; /* text and model of every per-user rc file loaded, all users */
        uint64_t user_rc_bytes_max; /* ... one user's share */
        uint64_t config_idle_usec; /* a per-home configuration unused this long is dropped */
        unsigned user_watch_dirs_max; /* inotify watches for one user's rc paths */
        uint64_t user_log_interval_usec; /* window of the log's rate limits per user (0: no limits) */
        unsigned user_log_burst; /* messages one user's actions may cause per window (0: no limit) */
        unsigned all_users_log_burst; /* ...all users' together (0: no limit) */

        /* [Sections] */
        char *section_folders; /* space-separated, each read without its subfolders */
        char *section_recursive_folders; /* space-separated, each read with its subfolders */
        char *section_schema; /* "extended" or "2024.1.1" */
        /* [Reports] */
        /* As configured; report_budget_fit() gives those in force within the daemon's cgroup. */
        unsigned reports_per_user_max; /* reports (each a worker) one user may hold; 0: a share */
        unsigned reports_max; /* ... all users */
        uint64_t report_memory_per_user_max; /* workers, replies and outputs charged to one user */
        uint64_t report_memory_max; /* ... to all users */
        uint64_t report_worker_memory_max; /* one worker's ceiling */
        unsigned report_outputs_per_user_max; /* export and diff memfds one user holds */
        uint64_t report_idle_usec; /* a report without a call this long is closed; 0: never */
        uint64_t report_timeout_usec; /* a load, and each call */
        bool report_spare_worker; /* a confined worker started ahead of the next LoadReport */
        /* [Export] */
        char *export_textfile; /* node_exporter textfile; NULL = no export */
        uint64_t export_interval_usec;
        char *export_group; /* group the file is given to (mode 0640); NULL = root's */
        bool export_process_labels; /* pid and comm labels: one series per process */
} ManagerConfig;

void manager_config_init(ManagerConfig *c);
void manager_config_done(ManagerConfig *c);
/* dst becomes a copy of src with strings of its own; -ENOMEM leaves dst empty. */
int manager_config_copy(ManagerConfig *dst, const ManagerConfig *src);

/* Parses configuration text over c. Messages are "LINE: ..." (strv). Returns the number of errors. */
int manager_config_parse(ManagerConfig *c, const char *text, size_t size, char ***ret_messages);

/* Reads the daemon's configuration file (from the real /, with the daemon's rights) over the defaults into
 * ret; a missing file is the defaults when optional. Returns the number of errors ("PATH:LINE: ..." in
 * ret_messages, warnings too): ret is what the file says only when that is 0. A negative errno when the
 * file cannot be read. */
int manager_config_load_file(const char *path, bool optional, ManagerConfig *ret, char ***ret_messages);

/* For a reload from running to next: the settings that differ, as "[Section] Key=" strings. Those that take
 * effect at start-up only get running's value back in next, so that next is what will be in force, and are
 * listed in ret_at_start rather than ret_changed. */
int manager_config_compare(
                ManagerConfig *next, const ManagerConfig *running, char ***ret_changed, char ***ret_at_start);
/* Whether changed (from manager_config_compare()) has a setting of [section]. */
bool manager_config_changed(char *const *changed, const char *section);

/* Applies the byte limits to c->proc_limits. */
void manager_config_finish(ManagerConfig *c);

const char *proc_watch_mode_to_string(ProcWatchMode m) _const_;
