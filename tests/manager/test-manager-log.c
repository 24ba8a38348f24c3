/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Issue 17 item 10: what one user makes the daemon log is rate-limited per user. A user's own processes
 * matching a rule ("Profile applied", LogApplied=yes) and the reloads the user's own edits start count
 * against that uid: past UserLogBurst= the window's messages are dropped, a summary (MESSAGE_ID
 * LOG_MESSAGE_USER_SUPPRESSED) says how many when the window ends, and the system's messages are still
 * logged meanwhile. The journal entries are the ones the daemon would hand journald (journal-capture.h). */
#include <unistd.h>

#include "journal-capture.h"
#include "log.h"
#include "manager-harness.h"
#include "process-watch.h"

#define WINDOW_USEC (5 * G_USEC_PER_SEC) /* far longer than the flood below takes, even under ASan */
#define BURST 5
#define FLOOD 30
#define TIMEOUT_USEC (20 * G_USEC_PER_SEC)

static bool entry_is(const char *const *e, const char *message_id, const char *uid)
{
        return g_strcmp0(journal_field(e, "MESSAGE_ID"), message_id) == 0 &&
                        (!uid || g_strcmp0(journal_field(e, "NVPROFILED_UID"), uid) == 0);
}

/* The entries with this MESSAGE_ID (and, unless NULL, this NVPROFILED_UID). */
static guint count_entries(const char *message_id, const char *uid)
{
        guint n = 0;

        for (guint i = 0; i < journal_capture_entries->len; i++)
                n += entry_is(journal_capture_entries->pdata[i], message_id, uid);
        return n;
}

static const char *const *summary_of(const char *uid)
{
        for (guint i = 0; i < journal_capture_entries->len; i++)
                if (entry_is(journal_capture_entries->pdata[i], LOG_MESSAGE_USER_SUPPRESSED, uid))
                        return journal_capture_entries->pdata[i];
        return NULL;
}

static bool summary_logged(ManagerHarness *h, void *uid)
{
        return summary_of(uid) != NULL;
}

static void exec_game(ManagerHarness *h, pid_t pid)
{
        const char *const env[] = { "HOME=/home/u", NULL };

        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){ .pid = pid, .uid = getuid(), .exe = "/usr/bin/game", .environ = env });
        g_assert_cmpint(manager_process_exec(h->manager, pid), ==, 0);
        proc_fixture_remove(h->proc, pid);
        manager_process_exit(h->manager, pid);
}

static void reload_after_write(ManagerHarness *h, const char *rel, const char *content)
{
        unsigned before = h->n_reloaded;

        manager_harness_write(h, rel, content);
        g_assert_true(manager_harness_run_until(h, harness_reloaded_since, GUINT_TO_POINTER(before), TIMEOUT_USEC));
}

static void test_user_flood(void)
{
        g_autofree char *uid = g_strdup_printf("%u", (unsigned) getuid());
        g_autofree char *message = NULL, *text = NULL;
        const char *const *summary;
        ManagerHarness h;
        guint reloads;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC,
                        "{ \"rules\": [ { \"pattern\": { \"feature\": \"procname\", \"matches\": \"game\" }, "
                        "\"profile\": [ \"GLSharpenValue\", 1 ] } ] }\n");
        manager_harness_write(&h, "home/u/" USER_RC, "{}\n");
        h.config.log_applied = true;
        h.config.user_log_interval_usec = WINDOW_USEC;
        h.config.user_log_burst = BURST;
        h.config.all_users_log_burst = 0;
        manager_harness_start(&h);
        log_set_target(LOG_TARGET_JOURNAL);
        log_set_max_level(LOG_INFO);
        journal_capture_clear();

        /* The user's short-lived processes: BURST lines, the rest of the window dropped. */
        for (pid_t pid = 1000; pid < 1000 + FLOOD; pid++)
                exec_game(&h, pid);
        g_assert_cmpuint(count_entries(LOG_MESSAGE_PROFILE_APPLIED, uid), ==, BURST);
        g_assert_null(summary_of(uid));

        /* A reload the user's own edit starts is theirs too: its line is dropped with the rest... */
        reloads = count_entries(LOG_MESSAGE_RC_RELOADED, NULL);
        reload_after_write(&h, "home/u/" USER_RC, "{ \"rules\": [] }\n");
        g_assert_cmpuint(count_entries(LOG_MESSAGE_RC_RELOADED, NULL), ==, reloads);
        /* ...while one the system's files start is logged, the flood notwithstanding. */
        reload_after_write(&h, SYSTEM_RC,
                        "{ \"rules\": [ { \"pattern\": { \"feature\": \"procname\", \"matches\": \"game\" }, "
                        "\"profile\": [ \"GLSharpenValue\", 2 ] } ] }\n");
        g_assert_cmpuint(count_entries(LOG_MESSAGE_RC_RELOADED, NULL), ==, reloads + 1);

        /* When the window ends, with no further message to trigger it, the summary says how many. */
        g_assert_true(manager_harness_run_until(&h, summary_logged, uid, TIMEOUT_USEC));
        summary = summary_of(uid);
        g_assert_cmpuint(g_ascii_strtoull(journal_field(summary, "NVPROFILED_SUPPRESSED"), NULL, 10), >=,
                        FLOOD - BURST + 1);
        g_assert_cmpstr(journal_field(summary, "PRIORITY"), ==, "4");
        message = g_strdup_printf("suppressed %s messages caused by uid %s in the last ",
                        journal_field(summary, "NVPROFILED_SUPPRESSED"), uid);
        text = g_ascii_strdown(journal_field(summary, "MESSAGE"), -1);
        g_assert_nonnull(strstr(text, message));
        g_assert_cmpuint(count_entries(LOG_MESSAGE_USER_SUPPRESSED, NULL), ==, 1);

        /* A new window: the user's next process is logged again. */
        exec_game(&h, 2000);
        g_assert_cmpuint(count_entries(LOG_MESSAGE_PROFILE_APPLIED, uid), ==, BURST + 1);

        log_set_target(LOG_TARGET_CONSOLE);
        manager_harness_done(&h);
}

/* Issue 18: degraded process watching is logged once, with its MESSAGE_ID and ProcessWatchMode, at
 * warning level; no user caused it, so no rate limit hides it. */
static void test_watch_degraded(void)
{
        const char *const *e;
        ManagerHarness h;

        manager_harness_init(&h);
        manager_harness_start(&h);
        log_set_target(LOG_TARGET_JOURNAL);
        journal_capture_clear();

        /* A fixture /proc has no connector to reopen: polling, degraded. */
        g_assert_cmpint(manager_procwatch_recover(h.manager, -EIO), ==, 0);
        e = journal_entry_with(LOG_MESSAGE_WATCH_DEGRADED);
        g_assert_nonnull(e);
        g_assert_cmpstr(journal_field(e, "PRIORITY"), ==, "4");
        g_assert_cmpstr(journal_field(e, "NVPROFILED_WATCH_MODE"), ==,
                        "polling (the proc connector failed and could not be reopened)");
        g_assert_null(journal_field(e, "NVPROFILED_UID"));
        g_assert_nonnull(strstr(journal_field(e, "MESSAGE"), "Process watching is degraded"));

        log_set_target(LOG_TARGET_CONSOLE);
        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-log/user-flood", test_user_flood);
        g_test_add_func("/manager-log/watch-degraded", test_watch_degraded);
        return g_test_run();
}
