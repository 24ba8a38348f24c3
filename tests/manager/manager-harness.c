/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "manager-harness.h"
#include "test-util.h"

#define USEC_PER_HOUR (UINT64_C(3600) * 1000 * 1000)
#define LOOP_STEP_USEC (10 * 1000)

static void harness_event_free(gpointer p)
{
        HarnessEvent *e = p;

        g_free(e->comm);
        g_free(e->settings);
        g_free(e);
}

char *manager_harness_settings(const Process *p)
{
        g_autoptr(GString) s = g_string_new(NULL);
        const RcResolution *r = p->resolution;

        if (!r || !rc_resolution_is_effective(r))
                return g_string_free(g_steal_pointer(&s), FALSE);

        for (size_t i = 0; i < r->n_settings; i++) {
                const RcSetting *setting = r->settings[i].setting;
                _cleanup_free_ char *value = NULL;

                g_assert_cmpint(rc_value_format(&setting->value, &value), >=, 0);
                g_string_append_printf(s, "%s%s=%s", i > 0 ? ", " : "", setting->key, value);
        }
        return g_string_free(g_steal_pointer(&s), FALSE);
}

static void record(ManagerHarness *h, HarnessEventType type, const Process *p)
{
        HarnessEvent *e = g_new0(HarnessEvent, 1);

        *e = (HarnessEvent){
                .type = type,
                .pid = p->id.pid,
                .start_time = p->id.start_time,
                .comm = g_strdup(p->comm),
                .settings = manager_harness_settings(p),
        };
        g_ptr_array_add(h->events, e);
}

static void on_process_changed(Manager *m, Process *p, void *userdata)
{
        ManagerHarness *h = userdata;

        g_assert_true(m == h->manager);
        /* Reported processes are tracked ones: the bus would publish an object for it. */
        g_assert_true(manager_get_process(m, p->id.pid) == p);
        record(h, HARNESS_EVENT_CHANGED, p);
}

static void on_process_removed(Manager *m, Process *p, void *userdata)
{
        ManagerHarness *h = userdata;

        g_assert_true(m == h->manager);
        record(h, HARNESS_EVENT_REMOVED, p);
}

static void on_reloaded(Manager *m, void *userdata)
{
        ManagerHarness *h = userdata;

        h->n_reloaded++;
}

static void on_status_changed(Manager *m, void *userdata)
{
        ManagerHarness *h = userdata;

        h->n_status_changed++;
}

void manager_harness_init(ManagerHarness *h)
{
        const char *level = g_getenv("NVPROFILED_TEST_LOG_LEVEL");

        log_setup("test-manager", LOG_TARGET_CONSOLE);
        log_set_max_level(level ? log_level_from_string(level) : LOG_WARNING);

        *h = (ManagerHarness){
                .root = test_mkdtemp(),
                .sys = test_mkdtemp(),
                .dev = test_mkdtemp(),
                .proc = proc_fixture_new(),
                .events = g_ptr_array_new_with_free_func(harness_event_free),
        };
        g_assert_cmpint(sd_event_new(&h->event), >=, 0);

        manager_config_init(&h->config);
        g_assert_nonnull(h->config.device_directory);
        free(h->config.device_directory);
        h->config.device_directory = strdup(h->dev);
        g_assert_nonnull(h->config.device_directory);
        h->config.settle_usec = 0;
        h->config.poll_interval_usec = USEC_PER_HOUR;
        h->config.reload_coalesce_usec = 20 * 1000;
        h->config.reload_max_delay_usec = 200 * 1000;
        h->config.log_applied = false;
}

void manager_harness_start(ManagerHarness *h)
{
        const ManagerCallbacks callbacks = {
                .process_changed = on_process_changed,
                .process_removed = on_process_removed,
                .reloaded = on_reloaded,
                .status_changed = on_status_changed,
        };

        g_assert_null(h->manager);
        manager_config_finish(&h->config);
        g_assert_cmpint(manager_new(h->event, &h->config, proc_fixture_path(h->proc), h->sys, h->root, &h->manager), ==,
                        0);
        /* A fixture is not the live /proc: no proc connector, whoever runs the test. */
        g_assert_false(h->manager->real_proc);
        /* Tests stamp their events from 0, and a fixture process starts at pid * 1000 ticks unless told:
         * the events' clock is put after any such start, so that only the tests of the rule that ties an
         * event to a process (manager_event_may_describe()) need to think about it. */
        h->manager->profiles->event_clock_offset_ns = HARNESS_EVENT_CLOCK_OFFSET_NS;
        manager_set_callbacks(h->manager, &callbacks, h);
        if (h->state_dir)
                g_assert_cmpint(manager_set_state_directory(h->manager, h->state_dir), ==, 0);
        g_assert_cmpint(manager_start(h->manager), ==, 0);
        g_assert_cmpint(h->manager->profiles->watch_state, ==, MANAGER_WATCH_POLLING);
}

void manager_harness_done(ManagerHarness *h)
{
        h->manager = manager_free(h->manager);
        manager_config_done(&h->config);
        h->event = sd_event_unref(h->event);
        h->proc = proc_fixture_free(h->proc);
        g_ptr_array_unref(h->events);
        g_free(h->root);
        g_free(h->sys);
        g_free(h->dev);
        *h = (ManagerHarness){ 0 };
}

void manager_harness_write(ManagerHarness *h, const char *rel, const char *content)
{
        /* test_write_file() goes through g_file_set_contents(): a temporary file renamed over the
         * target, so the target always gets a new inode and the file cache cannot take it for the
         * version it already has. */
        test_write_file(h->root, rel, content);
}

const HarnessEvent *manager_harness_last_event(const ManagerHarness *h, pid_t pid)
{
        for (guint i = h->events->len; i > 0; i--) {
                const HarnessEvent *e = g_ptr_array_index(h->events, i - 1);
                if (e->pid == pid)
                        return e;
        }
        return NULL;
}

size_t manager_harness_count_events(const ManagerHarness *h, HarnessEventType type, pid_t pid)
{
        size_t n = 0;

        for (guint i = 0; i < h->events->len; i++) {
                const HarnessEvent *e = g_ptr_array_index(h->events, i);
                n += e->type == type && e->pid == pid;
        }
        return n;
}

void manager_harness_clear_events(ManagerHarness *h)
{
        g_ptr_array_set_size(h->events, 0);
}

char *manager_harness_process_settings(ManagerHarness *h, pid_t pid)
{
        const Process *p = manager_get_process(h->manager, pid);

        if (!p)
                g_error("process %i is not tracked", (int) pid);
        return manager_harness_settings(p);
}

bool manager_harness_run_until(ManagerHarness *h, HarnessCondition done, void *userdata, uint64_t timeout_usec)
{
        gint64 deadline = g_get_monotonic_time() + (gint64) timeout_usec;

        while (!done(h, userdata)) {
                if (g_get_monotonic_time() >= deadline)
                        return false;
                g_assert_cmpint(sd_event_run(h->event, LOOP_STEP_USEC), >=, 0);
        }
        return true;
}

void manager_harness_run_for(ManagerHarness *h, uint64_t usec)
{
        gint64 deadline = g_get_monotonic_time() + (gint64) usec;

        while (g_get_monotonic_time() < deadline)
                g_assert_cmpint(sd_event_run(h->event, LOOP_STEP_USEC), >=, 0);
}

bool harness_reloaded_since(ManagerHarness *h, void *n_reloaded_before)
{
        return h->n_reloaded > GPOINTER_TO_UINT(n_reloaded_before);
}

bool harness_tracks(ManagerHarness *h, void *pid)
{
        return manager_get_process(h->manager, (pid_t) GPOINTER_TO_INT(pid)) != NULL;
}

bool harness_does_not_track(ManagerHarness *h, void *pid)
{
        return !harness_tracks(h, pid);
}
