/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-event.h>

#include "cgroup-limits.h"
#include "nvprofiled-conf.h"
#include "proc-facts.h"
#include "rc-resolve.h"
#include "user-creds.h"

/* The daemon's state and behaviour, without D-Bus: which processes exist, what applies to each, and
 * which configuration is loaded. The bus layer (daemon/bus) observes it through ManagerCallbacks and
 * calls in for queries; tests drive it directly.
 *
 * One object, handed to every job: its own fields are what every job shares (the event loop, the
 * configuration, the callbacks, the descriptors of --proc, --sys and --root, the daemon's own credentials,
 * its cgroup's limits, the driver version, the collation); each job keeps its state in a struct of its
 * own behind one pointer (profiles/: ManagerProfiles, the process table, process watching, GPU node opens
 * and the rc configurations; usage/: ManagerUsage and PrometheusTextfile; sections/: ManagerSections;
 * reports/: ManagerReports), and the others follow processes through profiles/process-observers.h.
 * manager.c creates, starts and stops them. */

typedef struct Manager Manager;
typedef struct Process Process;
typedef struct ManagerSections ManagerSections;

typedef struct ManagerCallbacks {
        /* A process's result changed, or it appeared with a result worth reporting. */
        void (*process_changed)(Manager *m, Process *p, void *userdata);
        /* A tracked process is about to be freed. */
        void (*process_removed)(Manager *m, Process *p, void *userdata);
        /* Configuration reloaded (generation increased) or status counters changed. */
        void (*reloaded)(Manager *m, void *userdata);
        void (*status_changed)(Manager *m, void *userdata);
        /* GPU usage: a watch came or went, the sampling interval or a source's state changed. */
        void (*usage_changed)(Manager *m, void *userdata);
} ManagerCallbacks;

struct Manager {
        sd_event *event;
        ManagerConfig config;
        ManagerCallbacks callbacks;
        void *userdata;

        char *config_file; /* the daemon's configuration file, re-read by manager_reload_configuration() */
        bool config_file_optional; /* ...where a missing file means the defaults */

        int proc_fd; /* --proc */
        int sys_fd; /* --sys */
        int root_fd; /* --root: where /etc, /usr/share and homes are */
        int state_dir_fd; /* --state-directory: what is kept across restarts; -EBADF: nothing is */
        dev_t root_dev; /* ...and its identity, which config slots are compared with */
        ino_t root_ino;
        bool real_proc; /* --proc is the live /proc: events and pids are real */
        dev_t host_root_dev;
        ino_t host_root_ino;
        UserCreds own_creds; /* the daemon's file access, for the system view */
        CgroupLimits cgroup_limits; /* the daemon's cgroup's (its unit's TasksMax=, MemoryMax=), at start */
        char *driver_version;
        locale_t collation;

        /* What users make us log (manager-log.c). */
        sd_event_source *log_flush_timer;

        /* Which profile applies to each process (profiles/manager-profiles.h). */
        struct ManagerProfiles *profiles;
        /* Nsight Compute section files (sections/manager-sections.c). */
        ManagerSections *sections;
        /* Nsight Compute reports callers loaded (reports/manager-reports.c); created with the first. */
        struct ManagerReports *reports;
        /* GPU usage (usage/manager-usage.c). */
        struct ManagerUsage *usage;

        /* The Prometheus textfile export (usage/prometheus-textfile.c); created with its first use. */
        struct PrometheusTextfile *prometheus_textfile;
};

int manager_new(sd_event *e, const ManagerConfig *config, const char *proc_path, const char *sys_path,
                const char *root_path, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

void manager_set_callbacks(Manager *m, const ManagerCallbacks *cb, void *userdata);

/* The directory where what the daemon keeps across restarts lives (the remembered process names), opened
 * once here: every file in it is reached through that fd. Before manager_start(). */
int manager_set_state_directory(Manager *m, const char *path);

/* Loads configuration, starts watching processes and rc files, and scans /proc once: both steps below. */
int manager_start(Manager *m);

/* The two steps, for the daemon, which takes its bus name in between: once the name is ours, every
 * process event is already being captured (a client that starts a program as soon as the name appears
 * cannot race the subscription), and a second instance stops before it has looked at any process. */
int manager_start_watching(Manager *m);
int manager_scan(Manager *m);

/* Re-reads the rc files (keeping the last good version of files that broke) and re-evaluates every
 * tracked process. */
int manager_reload(Manager *m);

/* The daemon's configuration file, for manager_reload_configuration(); NULL: none. */
int manager_set_config_file(Manager *m, const char *path, bool optional);

/* SIGHUP and the Reload method: re-reads the configuration file and applies what changed, then the rc files
 * (manager_reload()). A file with errors changes nothing (each error logged with its line; -EBADMSG); a
 * setting that takes effect at start-up only keeps its running value, and a warning names it. */
int manager_reload_configuration(Manager *m);

/* Makes next the configuration in force (what takes effect at start-up only keeps its running value), and
 * applies it: timers, log limits, the export, the section folders. The log names what changed. */
int manager_apply_config(Manager *m, ManagerConfig *next);

/* The configuration for a process root and $HOME, loaded on demand, every file opened with creds's access
 * (a process's own credentials; NULL: the daemon's); root_fd: the configuration root (the daemon's, or a
 * container's). Per-user budgets apply (ManagerConfig [Limits]). */
int manager_get_config(Manager *m, int root_fd, const char *home, const UserCreds *creds, RcConfig **ret);

/* The configuration a D-Bus caller with creds asks about by naming home (NULL: the system files). The
 * caller must be able to open home itself (-EACCES otherwise; root may name any). */
int manager_get_config_for_caller(Manager *m, const char *home, const UserCreds *creds, RcConfig **ret);

/* Bytes of per-user rc files held by all configurations, and by one user's. */
uint64_t manager_rc_bytes(const Manager *m, uid_t uid);
uint64_t manager_rc_bytes_total(const Manager *m);

/* Resolves a live process afresh (for Explain): -ESRCH when gone or when start_time (if non-zero)
 * does not match. Updates the tracked state too. */
int manager_explain_process(
                Manager *m, pid_t pid, uint64_t start_time, RcResolution **ret_resolution, ProcFacts *ret_facts);

Process *manager_get_process(Manager *m, pid_t pid);
/* How many processes are tracked. */
size_t manager_n_processes(const Manager *m) _pure_;

/* The owner of pid, reading no more of /proc than one small file: the tracked process's when the identity
 * matches (or start_time is 0), else /proc/<pid>/status's. For privacy checks before any real work. */
int manager_process_owner(Manager *m, pid_t pid, uint64_t start_time, uid_t *ret);

/* Whether a process's root (an fd of /proc/<pid>/root) is not the host's: a container, whose own
 * configuration and files apply. */
bool manager_root_is_foreign(const Manager *m, int root_fd);

/* Handlers for the process watcher (exposed for tests and the polling path). */
int manager_process_exec(Manager *m, pid_t pid);
int manager_process_comm(Manager *m, pid_t pid);
void manager_process_exit(Manager *m, pid_t pid);
int manager_rescan(Manager *m);

/* Whether caller_uid may see the details of a process (or a file) of owner_uid: its own, or root. */
static inline bool manager_may_see(uid_t caller_uid, uid_t owner_uid)
{
        return caller_uid == 0 || caller_uid == owner_uid;
}

/* Whether caller_uid may know that the process exists at all (OtherUsersProcesses=hide). */
static inline bool manager_may_list(const Manager *m, uid_t caller_uid, uid_t owner_uid)
{
        return !m->config.hide_other_users || manager_may_see(caller_uid, owner_uid);
}

/* ProcessWatchMode: the state, and when polling for a reason, the reason ("polling (...)"). */
const char *manager_watch_mode(const Manager *m) _pure_;
/* The start-up self-test's result as the ProcessAccess property says it: "ok", "denied" or "untested". */
const char *manager_process_access(const Manager *m) _pure_;
