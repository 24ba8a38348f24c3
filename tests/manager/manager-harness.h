/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "manager-profiles.h"
#include "manager.h"
#include "proc-fixture.h"

/* The manager as the daemon runs it, minus the bus: an sd-event loop, a fixture /proc (proc-fixture.h),
 * a fixture root for the rc files and homes, an empty --sys and an empty device directory. What the
 * callbacks report is recorded, with the result as it was when the callback ran.
 *
 * Typical use:
 *
 *         ManagerHarness h;
 *         manager_harness_init(&h);
 *         manager_harness_write(&h, SYSTEM_RC, "{ \"rules\": [ ... ] }");
 *         h.config.max_processes = 3;            // optional: any ManagerConfig change
 *         manager_harness_start(&h);             // manager_new(), callbacks, manager_start()
 *         proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = getuid(), .exe = "/usr/bin/x" });
 *         manager_process_exec(h.manager, 100);
 *         g_assert_cmpstr(manager_harness_last_event(&h, 100)->settings, ==, "GLSharpenValue=50");
 *         manager_harness_done(&h);
 *
 * Nothing needs root; the fixture's files belong to the test's own user. The manager logs to stderr at
 * LOG_WARNING; NVPROFILED_TEST_LOG_LEVEL=debug (or any level name) shows more. */

#define SYSTEM_RC "etc/nvidia/nvidia-application-profiles-rc"
#define SYSTEM_RC_D "etc/nvidia/nvidia-application-profiles-rc.d"
#define USER_RC ".nv/nvidia-application-profiles-rc" /* below a home */
#define USER_RC_D ".nv/nvidia-application-profiles-rc.d"

typedef enum HarnessEventType {
        HARNESS_EVENT_CHANGED, /* process_changed */
        HARNESS_EVENT_REMOVED, /* process_removed */
        _HARNESS_EVENT_TYPE_MAX,
} HarnessEventType;

typedef struct HarnessEvent {
        HarnessEventType type;
        pid_t pid;
        uint64_t start_time;
        char *comm;
        char *settings; /* manager_harness_settings() at the time of the callback */
} HarnessEvent;

typedef struct ManagerHarness {
        char *root; /* --root: etc/nvidia, usr/share/nvidia, home/<user> */
        char *sys; /* --sys: empty, so no driver version is found there */
        char *dev; /* DeviceDirectory=: empty, so no GPU node is watched */
        ProcFixture *proc; /* --proc */
        sd_event *event;

        /* Test defaults (manager_harness_init()); change before manager_harness_start(): no settle
         * re-reads, a poll interval no test waits for, a short reload coalescing time, no journal
         * entry per applied profile. */
        ManagerConfig config;
        const char *state_dir; /* --state-directory for manager_harness_start(); NULL: none */
        Manager *manager;

        GPtrArray *events; /* HarnessEvent, in callback order */
        unsigned n_reloaded, n_status_changed;
} ManagerHarness;

/* What the harness's manager adds to event timestamps to compare them with fixture start times: 10^6 s,
 * after any fixture process's start (pid * 10 s by default). A test of the rule sets its own. */
#define HARNESS_EVENT_CLOCK_OFFSET_NS (UINT64_C(1000000) * UINT64_C(1000000000))

void manager_harness_init(ManagerHarness *h);
void manager_harness_start(ManagerHarness *h);
void manager_harness_done(ManagerHarness *h);

/* Creates or replaces root/rel the way editors save (a new file renamed over the old one), creating
 * the directories above it. The manager notices through inotify once the loop runs, or at
 * manager_reload(). */
void manager_harness_write(ManagerHarness *h, const char *rel, const char *content);

/* The effective settings of p's current result, "Key=value, Key=value" in the order the keys were set;
 * "" when none. Settings of a result that does not take effect (profiles disabled) are left out. */
char *manager_harness_settings(const Process *p);

/* The latest event about pid (of any type), or NULL. */
const HarnessEvent *manager_harness_last_event(const ManagerHarness *h, pid_t pid);
size_t manager_harness_count_events(const ManagerHarness *h, HarnessEventType type, pid_t pid);
void manager_harness_clear_events(ManagerHarness *h);

/* The settings of the tracked process pid ("" when none); fails the test when pid is not tracked. */
char *manager_harness_process_settings(ManagerHarness *h, pid_t pid);

/* Runs the event loop until done(h, userdata) is true or timeout_usec passed; returns done's last word. */
typedef bool (*HarnessCondition)(ManagerHarness *h, void *userdata);
bool manager_harness_run_until(ManagerHarness *h, HarnessCondition done, void *userdata, uint64_t timeout_usec);

/* Runs the event loop for usec, whatever happens. */
void manager_harness_run_for(ManagerHarness *h, uint64_t usec);

/* Conditions for manager_harness_run_until(). */
bool harness_reloaded_since(ManagerHarness *h, void *n_reloaded_before); /* GUINT_TO_POINTER(count) */
bool harness_tracks(ManagerHarness *h, void *pid); /* GINT_TO_POINTER(pid) */
bool harness_does_not_track(ManagerHarness *h, void *pid);

/* The number of tracked processes. */
static inline size_t manager_harness_n_tracked(const ManagerHarness *h)
{
        return intmap_size(&h->manager->profiles->processes);
}
