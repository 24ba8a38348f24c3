/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's structured journal entries, read back from a real journal; and the catalog for them.
 *
 * A real systemd-journald runs for a private journal namespace, in a mount namespace of this test where
 * /run/systemd is a fresh tmpfs and /var/log/journal a scratch directory: nothing of the machine's own
 * journal is touched. The daemon logs with sd_journal_sendv() to /run/systemd/journal/socket, which
 * here is that journald's socket, and the entries are read back with journalctl --directory. Needs root
 * (mount namespace, the proc connector). */

#include <json-c/json.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-world.h"
#include "log.h"
#include "macro.h"
#include "test-mount.h"

#define NAMESPACE "nvptest"
#define JOURNALD "/lib/systemd/systemd-journald"

static char *journal_dir; /* bind-mounted over /var/log/journal */
static const char *journald_unavailable; /* why, when a private journald cannot run here */
static GPid journald_pid;

static char *machine_id(void)
{
        g_autofree char *text = NULL;

        g_assert_true(g_file_get_contents("/etc/machine-id", &text, NULL, NULL));
        return g_strstrip(g_strdup(text));
}

/* Returns an empty string on success, else why a private journald cannot run here. */
static const char *start_private_journald(void)
{
        g_autoptr(GError) error = NULL;
        const char *argv[] = { JOURNALD, NAMESPACE, NULL };
        const char *why;
        gint64 deadline;

        if (!g_file_test(JOURNALD, G_FILE_TEST_IS_EXECUTABLE))
                return JOURNALD " is not installed";
        if (!g_file_test("/var/log/journal", G_FILE_TEST_IS_DIR))
                return "no /var/log/journal to mount over";
        why = test_private_mount_namespace();
        if (why)
                return why;
        /* A fresh /run/systemd; where there is none (a chroot without systemd), a fresh /run to make it in. */
        if (g_file_test("/run/systemd", G_FILE_TEST_IS_DIR))
                g_assert_cmpint(mount("tmpfs", "/run/systemd", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), ==, 0);
        else {
                g_assert_cmpint(mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), ==, 0);
                g_assert_cmpint(mkdir("/run/systemd", 0755), ==, 0);
        }
        journal_dir = g_dir_make_tmp("nvprofiled-journal-XXXXXX", &error);
        g_assert_no_error(error);
        g_assert_cmpint(mount(journal_dir, "/var/log/journal", NULL, MS_BIND, NULL), ==, 0);

        g_spawn_async(NULL, (char **) argv, NULL,
                        G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                        &journald_pid, &error);
        g_assert_no_error(error);
        deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
        while (!g_file_test("/run/systemd/journal." NAMESPACE "/socket", G_FILE_TEST_EXISTS) &&
                        g_get_monotonic_time() < deadline)
                g_usleep(20 * 1000);
        g_assert_true(g_file_test("/run/systemd/journal." NAMESPACE "/socket", G_FILE_TEST_EXISTS));

        /* Where sd_journal_sendv() sends: the default namespace's socket, pointed at ours. */
        g_assert_cmpint(mkdir("/run/systemd/journal", 0755), ==, 0);
        g_assert_cmpint(symlink("../journal." NAMESPACE "/socket", "/run/systemd/journal/socket"), ==, 0);
        return "";
}

static void stop_private_journald(void)
{
        g_autofree char *cmd = NULL;

        if (journald_pid > 0) {
                kill(journald_pid, SIGTERM);
                waitpid(journald_pid, NULL, 0);
        }
        (void) umount("/var/log/journal");
        if (journal_dir) {
                cmd = g_strdup_printf("rm -rf '%s'", journal_dir);
                (void) !system(cmd);
        }
}

static void json_free(gpointer o)
{
        json_object_put(o);
}

/* Every entry of the private journal with this MESSAGE_ID, as json-c objects. */
static GPtrArray *entries_with_id(const char *message_id)
{
        g_autofree char *mid = machine_id();
        g_autofree char *dir = g_strdup_printf("%s/%s." NAMESPACE, journal_dir, mid);
        g_autofree char *match = g_strdup_printf("MESSAGE_ID=%s", message_id);
        g_autofree char *out = NULL, *err = NULL;
        g_autoptr(GError) error = NULL;
        const char *argv[] = { "journalctl", "--directory", dir, "--output=json", "--no-pager", match, NULL };
        GPtrArray *entries = g_ptr_array_new_with_free_func(json_free);
        g_auto(GStrv) lines = NULL;
        int status;

        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error);
        g_assert_no_error(error);
        lines = g_strsplit(out, "\n", -1);
        for (char **l = lines; *l; l++) {
                struct json_object *o;

                if (!**l)
                        continue;
                o = json_tokener_parse(*l);
                g_assert_nonnull(o);
                g_ptr_array_add(entries, o);
        }
        return entries;
}

static const char *field(struct json_object *o, const char *name)
{
        struct json_object *v = json_object_object_get(o, name);
        return v ? json_object_get_string(v) : NULL;
}

/* The first entry with message_id whose MESSAGE contains text, waiting for journald to write it. */
static struct json_object *wait_entry(const char *message_id, const char *text)
{
        gint64 deadline = g_get_monotonic_time() + WORLD_WAIT_MS * 1000;

        for (;;) {
                g_autoptr(GPtrArray) entries = entries_with_id(message_id);

                for (guint i = 0; i < entries->len; i++) {
                        const char *message = field(entries->pdata[i], "MESSAGE");
                        if (message && strstr(message, text))
                                return json_object_get(entries->pdata[i]);
                }
                if (g_get_monotonic_time() >= deadline) {
                        g_test_message("no entry %s with \"%s\"", message_id, text);
                        return NULL;
                }
                g_usleep(100 * 1000);
        }
}

static void test_message_ids_in_journal(void)
{
        BusWorld w;
        g_autofree char *dev = NULL, *config = NULL, *broken = NULL, *pid_text = NULL;
        struct json_object *e;
        GPid pid;

        /* We are root here: a private journald that cannot run is a failure, with its reason (meson
         * would count a skipped subtest of a passing binary as a pass). */
        if (*journald_unavailable) {
                g_test_message("no private journald: %s", journald_unavailable);
                g_test_fail();
                return;
        }
        world_setup(&w);
        dev = g_build_filename(w.dir, "dev", NULL);
        g_assert_cmpint(g_mkdir_with_parents(dev, 0755), ==, 0);
        config = g_strdup_printf("[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=0\n[Profiles]\nLogApplied=yes\n", dev);
        world_write(&w, "etc/nvidia/nvidia-application-profiles-rc",
                        "{\"rules\": [{\"pattern\": \"nvptest-journal\", \"profile\": [\"GLSharpenEnable\", true]}]}\n");
        world_write(&w, "etc/nvidia/nvidia-application-profiles-rc.d/50-broken", "{\"rules\": [ 08 ]}\n");
        broken = g_build_filename("/etc/nvidia/nvidia-application-profiles-rc.d/50-broken", NULL);

        world_start_daemon(&w, config, (const char *const[]){ "--log-target=journal", NULL });
        pid = world_spawn(&w, "nvptest-journal", 0, true);
        pid_text = g_strdup_printf("%i", (int) pid);

        /* rc file broken: at start-up, with the file's path in a field of its own. */
        e = wait_entry(LOG_MESSAGE_RC_FILE_BROKEN, "is broken");
        g_assert_nonnull(e);
        g_assert_nonnull(strstr(field(e, "MESSAGE"), "50-broken"));
        g_assert_true(g_str_has_suffix(field(e, "NVPROFILED_RC_FILE"), "50-broken"));
        g_assert_cmpstr(field(e, "SYSLOG_IDENTIFIER"), ==, "nvprofiled");
        g_assert_cmpstr(field(e, "PRIORITY"), ==, "4");
        json_object_put(e);

        /* Reloaded: at start-up (generation 1) and after a Reload (generation 2). */
        g_assert_cmpint(sd_bus_call_method(w.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", NULL, NULL,
                                        ""),
                        >=, 0);
        e = wait_entry(LOG_MESSAGE_RC_RELOADED, "(generation 2)");
        g_assert_nonnull(e);
        g_assert_true(g_str_has_prefix(field(e, "MESSAGE"), "Application profiles loaded:"));
        g_assert_cmpstr(field(e, "NVPROFILED_GENERATION"), ==, "2");
        g_assert_cmpstr(field(e, "SYSLOG_IDENTIFIER"), ==, "nvprofiled");
        json_object_put(e);

        /* Profile applied: for the process, with its pid in a field. */
        {
                g_autofree char *text = g_strdup_printf("Profile applied to nvptest-journal[%s]", pid_text);
                e = wait_entry(LOG_MESSAGE_PROFILE_APPLIED, text);
        }
        g_assert_nonnull(e);
        g_assert_cmpstr(field(e, "NVPROFILED_PID"), ==, pid_text);
        g_assert_cmpstr(field(e, "NVPROFILED_UID"), ==, "0");
        g_assert_cmpstr(field(e, "SYSLOG_IDENTIFIER"), ==, "nvprofiled");
        json_object_put(e);

        world_kill(pid);
        world_teardown(&w);
}

/* The catalog parses and explains every id of log.h (journalctl --root builds a database of its own). */
static void test_catalog(void)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *root = g_dir_make_tmp("nvprofiled-catalog-XXXXXX", &error);
        g_autofree char *dir = NULL, *text = NULL, *target = NULL, *out = NULL, *cmd = NULL;
        const char *ids[] = { LOG_MESSAGE_PROFILE_APPLIED, LOG_MESSAGE_RC_FILE_BROKEN, LOG_MESSAGE_RC_RELOADED,
                LOG_MESSAGE_EXPORT_FAILED, LOG_MESSAGE_GPU_SUSPENDED, LOG_MESSAGE_USER_SUPPRESSED,
                LOG_MESSAGE_WATCH_DEGRADED, LOG_MESSAGE_CONFIG_RELOADED, LOG_MESSAGE_PROCESS_ACCESS_DENIED };
        int status;

        g_assert_no_error(error);
        dir = g_build_filename(root, "usr/lib/systemd/catalog", NULL);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_true(g_file_get_contents(g_getenv("NVPROFILED_CATALOG"), &text, NULL, NULL));
        target = g_build_filename(dir, "nvprofiled.catalog", NULL);
        g_assert_true(g_file_set_contents(target, text, -1, NULL));

        {
                const char *argv[] = { "journalctl", "--root", root, "--update-catalog", NULL };
                g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
                g_assert_no_error(error);
                g_assert_cmpint(status, ==, 0);
        }
        {
                const char *argv[] = { "journalctl", "--root", root, "--list-catalog", NULL };
                g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, &error);
                g_assert_no_error(error);
                g_assert_cmpint(status, ==, 0);
        }
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                g_autofree char *line = g_strdup_printf("%s nvprofiled: ", ids[i]);
                g_assert_nonnull(strstr(out, line));
        }
        cmd = g_strdup_printf("rm -rf '%s'", root);
        (void) !system(cmd);
}

int main(int argc, char *argv[])
{
        int r;

        g_test_init(&argc, &argv, NULL);
        if (geteuid() != 0) {
                printf("1..0 # SKIP needs root\n");
                return 0;
        }
        g_test_add_func("/bus/catalog", test_catalog);
        journald_unavailable = start_private_journald();
        g_test_add_func("/bus/message-ids-in-journal", test_message_ids_in_journal);
        r = g_test_run();
        stop_private_journald();
        return r;
}
