/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "intmap.h"
#include "manager.h"
#include "proc-connector.h"
#include "proc-facts.h"
#include "rc-cache.h"
#include "rc-resolve.h"
#include "rc-watch.h"
#include "seen-names.h"

/* The profiles job's state (m->profiles): which processes exist, what applies to each, which rc
 * configurations are loaded, and how processes and GPU device opens are watched. Its own struct, as each
 * other job has one, so that the Manager every job is handed holds only what they share. Other jobs
 * follow processes through process-observers.h. */

struct Process {
        Manager *manager;
        ProcIdentity id;
        uid_t uid;
        uid_t fsuid; /* what its configuration was last read with (its file-system uid) */
        pid_t ppid; /* when it was first read */
        char *comm;
        char *exe;
        char *home; /* from its environment; NULL if unset */

        RcResolution *resolution; /* latest result */
        uint64_t result_hash; /* what signals compare */
        char **profiles; /* names of the profiles of matched rules, in precedence order */
        unsigned n_settings;
        bool gpu_user; /* has a GPU device node open */
        uint64_t fd_count; /* open files when its fd table was last walked; 0: unknown */
        bool announced; /* has a bus object */
        void *bus_data; /* owned by the bus layer */

        uint64_t detected_usec; /* CLOCK_MONOTONIC when we saw its exec */
        uint64_t scan_seen; /* last rescan that found it */
        unsigned settle_step;
        bool settling; /* waits for its next settle re-read, in m->profiles->settle (process.c) */
        Process *settle_prev, *settle_next;
};

typedef enum ManagerWatchState {
        MANAGER_WATCH_NONE,
        MANAGER_WATCH_PROC_CONNECTOR,
        MANAGER_WATCH_POLLING,
        _MANAGER_WATCH_STATE_MAX,
} ManagerWatchState;

/* Why processes are polled although Mode= did not ask for it (profiles/process-watch.c words each one). */
typedef enum ManagerWatchReason {
        MANAGER_WATCH_REASON_NONE, /* the connector, or polling as configured */
        MANAGER_WATCH_REASON_NOT_LIVE_PROC,
        MANAGER_WATCH_REASON_NO_CAPABILITY,
        MANAGER_WATCH_REASON_UNAVAILABLE,
        /* Degraded: the connector opened, but its events cannot be trusted or stopped coming. */
        MANAGER_WATCH_REASON_OTHER_PID_NAMESPACE,
        MANAGER_WATCH_REASON_NO_EVENTS,
        MANAGER_WATCH_REASON_OTHER_CLOCK,
        MANAGER_WATCH_REASON_UNVERIFIED,
        MANAGER_WATCH_REASON_FAILED,
        _MANAGER_WATCH_REASON_MAX,
} ManagerWatchReason;

/* One loaded configuration per (root, user's file access, $HOME). The home is keyed by the identity of the
 * directory as the user opens it, so "/root", "//root/" and "/home/../root" are one slot. */
typedef struct ConfigSlot {
        dev_t root_dev;
        ino_t root_ino;
        UserCreds creds; /* whose access every file of this configuration was opened with */
        uid_t uid; /* creds.uid */
        char *home; /* as first named; NULL: no $HOME */
        dev_t home_dev; /* identity of home opened as the user; both 0 when it cannot be opened */
        ino_t home_ino;
        RcConfig *config;
        uint64_t generation;
        uint64_t last_used; /* use counter, for LRU */
        uint64_t last_used_usec; /* CLOCK_MONOTONIC, for idle eviction */
} ConfigSlot;

typedef struct ManagerProfiles {
        /* Processes, keyed by pid. */
        IntMap processes;
        unsigned n_matched;
        /* Other jobs told about process events (profiles/process-observers.h). */
        struct ProcessObserver *process_observers;
        size_t n_process_observers, allocated_process_observers;

        /* Who is told about processes (manager-visibility.c). */
        IntMap subscribers; /* uid + 1 -> uid's subscribers */
        unsigned n_subscribers;

        /* Configuration. */
        RcFileCache file_cache;
        ConfigSlot *configs;
        size_t n_configs, allocated_configs;
        uint64_t generation; /* bumped by every reload */
        uint64_t use_counter;
        RcConfig *system_config; /* the system part as seen with no $HOME, for status */
        RcWatch *rc_watch;
        bool reloading;
        uint64_t n_config_evictions; /* configurations dropped for budgets or idleness */
        uid_t *watched_uids; /* users whose rc paths have a watch group (sorted) */
        size_t n_watched_uids;
        uid_t *unwatched_uids; /* ...of which those whose paths exceed their watch share (sorted) */
        size_t n_unwatched_uids;
        uid_t reload_cause; /* the user whose rc change the running reload follows; LOG_UID_NONE: nobody's */
        uint64_t n_reload_rereads; /* processes re-read after reloads: all, or the changed files' user's */

        /* Process watching (profiles/process-watch.c). */
        ManagerWatchState watch_state;
        ManagerWatchReason watch_reason;
        int connector_fd;
        sd_event_source *connector_source;
        sd_event_source *poll_timer;
        sd_event_source *rescan_timer;
        uint64_t n_overruns, n_rescans, n_execs, n_events;
        uint64_t n_connector_failures;
        int process_access; /* the start-up self-test (user_creds_self_test()): 0, a negative errno, or 1
                             * when not run (a fixture /proc, a parent of our own uid) */
        bool watch_degraded; /* the connector is unusable (its events are not of our namespace, or it failed
                              * and could not be reopened): polling instead */
        /* Added to a connector event's timestamp (CLOCK_MONOTONIC) to compare it with /proc start times
         * (CLOCK_BOOTTIME): the time spent suspended, measured at each batch on the live /proc; tests on a
         * fixture /proc set it. */
        uint64_t event_clock_offset_ns;
        uint64_t nsec_per_tick; /* of /proc start times */
        sd_event_source *resync_source; /* deferred rescan after an overrun */
        ProcEvent *event_buffer; /* one batch of connector events, reused */
        struct SettleQueue *settle; /* every process's settle re-reads, on one timer (process.c) */
        bool limit_logged;

        /* GPU device opens (profiles/gpu-opens.c). */
        int device_inotify_fd;
        sd_event_source *device_source;
        sd_event_source *device_timer;
        char **device_paths;
        uint64_t device_sweep_usec; /* when fd tables were last swept for device opens */
        uint64_t n_device_sweeps, n_fd_tables_walked;

        /* The names of processes seen, for the doctor (profiles/remembered-names.c); never NULL. */
        SeenNames *seen_names;
        sd_event_source *names_save_timer; /* a save after the first change since the last */
        sd_event_source *names_forget_timer; /* drops names older than [Doctor] RememberNamesSec= */
} ManagerProfiles;

/* The job's state with nothing loaded or watched yet; what it holds is released by the job's stop and free
 * steps (manager_free()), then the struct by manager_profiles_free(). */
int manager_profiles_new(ManagerProfiles **ret);
ManagerProfiles *manager_profiles_free(ManagerProfiles *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ManagerProfiles *, manager_profiles_free);

const char *manager_watch_state_to_string(ManagerWatchState s) _const_;
