/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Profiles interface on the real daemon and a private bus: edits of the system's rc files are root's,
 * or polkit's to allow (python3-dbusmock's polkitd); a dry run needs nothing and reads with the caller's
 * own access, so it shows nobody a file they could not read; the driver's files are never written; a
 * preview shows a caller only its own processes; a write reloads and is journalled with the caller's uid.
 * Needs root (the unprivileged callers are a user the test creates). */

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-world.h"
#include "macro.h"
#include "test-other-user.h"

#define TEST_USER "nvptest-edit"
#define RCD "/etc/nvidia/nvidia-application-profiles-rc.d"
#define TARGET RCD "/50-test"
/* The most bytes an rc file may have (RC_FILE_SIZE_MAX of daemon/appprofile/rc-reader.h). */
#define RC_FILE_SIZE_MAX (1024u * 1024u)
#define NIRI_PATTERN "{\"feature\": \"procname\", \"matches\": \"niri\"}"

static const char *const edit_allowed[] = { POLKIT_ACTION_EDIT_SYSTEM_PROFILES, NULL };
static const char *const reload_allowed[] = { POLKIT_ACTION_RELOAD, NULL };

enum {
        CALL_REPLY_MISMATCH = 30,
        CALL_FILE_CHANGED = 31,
        CALL_EDIT_REFUSED = 32,
        CALL_LIMITS = 33,
};

/* One AddRule call, made in a child as some user; the reply is checked there. */
typedef struct AddCall {
        const char *file, *pattern;
        const char *key, *value;
        size_t n_settings; /* copies of (key, value); 1 unless testing the limit */
        bool dry_run;
        const char *diff_has; /* the diff must contain this, if set */
        const char *diff_lacks; /* ...and not this */
        pid_t change_pid; /* changes must name this pid (0: must be empty) */
        pid_t no_change_pid; /* ...and must not name this one */
        const char *error_has; /* the error message must contain this, if set */
} AddCall;

static int call_add(sd_bus *bus, void *userdata)
{
        const AddCall *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *rule, *diff, *comm, *key, *before, *after;
        uint32_t pid, uid;
        bool saw_pid = false, saw_other = false;
        unsigned n_changes = 0;
        int r;

        if (sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "AddRule") < 0 ||
                        sd_bus_message_append(m, "siss", c->file, -1, c->pattern, "") < 0 ||
                        sd_bus_message_open_container(m, 'a', "(ss)") < 0)
                return CALL_OTHER_ERROR;
        for (size_t i = 0; i < MAX(c->n_settings, 1u); i++)
                if (sd_bus_message_append(m, "(ss)", c->key, c->value) < 0)
                        return CALL_OTHER_ERROR;
        if (sd_bus_message_close_container(m) < 0 || sd_bus_message_append(m, "t", (uint64_t) c->dry_run) < 0)
                return CALL_OTHER_ERROR;

        r = sd_bus_call(bus, m, 0, &e, &reply);
        if (r < 0) {
                if (c->error_has && (!e.message || !strstr(e.message, c->error_has))) {
                        fprintf(stderr, "error \"%s\" lacks \"%s\"\n", strna(e.message), c->error_has);
                        return CALL_REPLY_MISMATCH;
                }
                if (sd_bus_error_has_name(&e, BUS_ERROR_FILE_CHANGED))
                        return CALL_FILE_CHANGED;
                if (sd_bus_error_has_name(&e, BUS_ERROR_EDIT_REFUSED))
                        return CALL_EDIT_REFUSED;
                if (sd_bus_error_has_name(&e, BUS_ERROR_LIMITS_EXCEEDED))
                        return CALL_LIMITS;
                return world_outcome(r, &e);
        }
        if (sd_bus_message_read(reply, "ss", &rule, &diff) < 0 ||
                        sd_bus_message_enter_container(reply, 'a', "(uussss)") < 0)
                return CALL_OTHER_ERROR;
        while ((r = sd_bus_message_read(reply, "(uussss)", &pid, &uid, &comm, &key, &before, &after)) > 0) {
                n_changes++;
                if ((pid_t) pid == c->change_pid && streq(key, c->key) && streq(before, "") && streq(after, c->value))
                        saw_pid = true;
                if (c->no_change_pid && (pid_t) pid == c->no_change_pid)
                        saw_other = true;
        }
        if (r < 0)
                return CALL_OTHER_ERROR;
        if (strlen(rule) != 12 || (c->diff_has && !strstr(diff, c->diff_has)) ||
                        (c->diff_lacks && strstr(diff, c->diff_lacks))) {
                fprintf(stderr, "rule \"%s\", diff:\n%s\n", rule, diff);
                return CALL_REPLY_MISMATCH;
        }
        if (c->change_pid ? !saw_pid : n_changes > 0) {
                fprintf(stderr, "changes: %u, none for pid %d\n", n_changes, (int) c->change_pid);
                return CALL_REPLY_MISMATCH;
        }
        if (saw_other) {
                fprintf(stderr, "a change of pid %d, which the caller may not see\n", (int) c->no_change_pid);
                return CALL_REPLY_MISMATCH;
        }
        return CALL_OK;
}

static char *read_root_file(BusWorld *w, const char *rel)
{
        g_autofree char *p = g_build_filename(w->root, rel, NULL);
        char *text = NULL;

        if (!g_file_get_contents(p, &text, NULL, NULL))
                return NULL;
        return text;
}

static uint64_t generation(BusWorld *w)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t g = 0;

        g_assert_cmpint(sd_bus_get_property_trivial(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ConfigGeneration", &e, 't', &g),
                        >=, 0);
        return g;
}

static void test_system_edit_authorized_by_polkit(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        AddCall add = { .file = TARGET, .pattern = NIRI_PATTERN, .key = "GLVidHeapReuseRatio", .value = "0" };
        g_autofree char *text = NULL, *log = NULL, *uid_field = NULL;
        uint64_t g;

        world_setup(&w);
        world_write(&w, RCD "/10-other", "# kept as it is\n{ \"rules\": [] }\n");
        world_start_daemon(&w, NULL, NULL);

        /* Without polkit on the bus: only root may write. Nothing is created for the refused caller. */
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_ACCESS_DENIED);
        text = read_root_file(&w, TARGET);
        g_assert_null(text);

        /* polkit answers no, then allows only Reload: still refused. */
        world_start_polkit(&w);
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_ACCESS_DENIED);
        world_polkit_set_allowed(&w, reload_allowed);
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_ACCESS_DENIED);
        g_assert_null(read_root_file(&w, TARGET));

        /* Allowed: written, reloaded, journalled with the caller's uid; the other file is untouched. */
        world_polkit_set_allowed(&w, edit_allowed);
        g = generation(&w);
        add.diff_has = "GLVidHeapReuseRatio";
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_OK);
        g_assert_cmpuint(generation(&w), >, g);
        text = read_root_file(&w, TARGET);
        g_assert_nonnull(text);
        g_assert_nonnull(strstr(text, "\"niri\""));
        g_assert_nonnull(strstr(text, "GLVidHeapReuseRatio"));
        g_free(text);
        text = read_root_file(&w, RCD "/10-other");
        g_assert_cmpstr(text, ==, "# kept as it is\n{ \"rules\": [] }\n");
        {
                g_autofree char *p = g_build_filename(w.root, TARGET, NULL);
                struct stat st;

                /* Readable by every user's processes (the driver reads it there), owned by root. */
                g_assert_cmpint(stat(p, &st), ==, 0);
                g_assert_cmpuint(st.st_mode & 07777, ==, 0644);
                g_assert_cmpuint(st.st_uid, ==, 0);
        }
        log = world_daemon_log(&w);
        uid_field = g_strdup_printf("uid %u: add-rule", (unsigned) uid);
        if (!strstr(log, uid_field))
                g_test_message("daemon log:\n%s", log);
        g_assert_nonnull(strstr(log, uid_field));

        /* A second add goes after the first, and leaves its bytes as they are. */
        {
                g_autofree char *before = read_root_file(&w, TARGET), *after = NULL;
                AddCall second = add;

                second.pattern = "{\"feature\": \"procname\", \"matches\": \"Hyprland\"}";
                g_assert_cmpint(world_call_as(&w, 0, call_add, &second), ==, CALL_OK);
                after = read_root_file(&w, TARGET);
                g_assert_nonnull(strstr(after, "Hyprland"));
                g_assert_true(strstr(after, "\"niri\"") < strstr(after, "Hyprland"));
                g_assert_cmpuint(strlen(after), >, strlen(before));
        }

        world_teardown(&w);
        world_remove_user(TEST_USER);
}

/* One RevertEdit call, made in a child as some user. */
typedef struct RevertCall {
        const char *file, *written, *previous; /* previous NULL: the edit created file */
        bool dry_run;
        const char *diff_has;
} RevertCall;

static int call_revert(sd_bus *bus, void *userdata)
{
        const RevertCall *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *rule, *diff;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "RevertEdit", &e, &reply, "ssbst",
                        c->file, c->written, c->previous != NULL, strempty(c->previous), (uint64_t) c->dry_run);
        if (r < 0) {
                if (sd_bus_error_has_name(&e, BUS_ERROR_FILE_CHANGED))
                        return CALL_FILE_CHANGED;
                if (sd_bus_error_has_name(&e, BUS_ERROR_EDIT_REFUSED))
                        return CALL_EDIT_REFUSED;
                return world_outcome(r, &e);
        }
        if (sd_bus_message_read(reply, "ss", &rule, &diff) < 0)
                return CALL_OTHER_ERROR;
        if (!streq(rule, "") || (c->diff_has && !strstr(diff, c->diff_has))) {
                fprintf(stderr, "rule \"%s\", diff:\n%s\n", rule, diff);
                return CALL_REPLY_MISMATCH;
        }
        return CALL_OK;
}

/* Undo of a system edit: RevertEdit puts the file back byte for byte (removes the file the edit created),
 * authorised as the edits are, and only while the file holds exactly what the edit wrote. */
static void test_revert_edit(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        AddCall add = { .file = TARGET, .pattern = NIRI_PATTERN, .key = "GLVidHeapReuseRatio", .value = "0" };
        const char *kept = "# kept as it is\n{ \"rules\": [] }\n";
        g_autofree char *written = NULL, *now = NULL, *log = NULL;
        RevertCall revert = { .file = TARGET };

        world_setup(&w);
        world_write(&w, RCD "/10-other", kept);
        world_start_daemon(&w, NULL, NULL);

        /* No polkit on the bus: the user's write is refused, and the file is as it was. */
        revert = (RevertCall){ .file = RCD "/10-other", .written = kept };
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_ACCESS_DENIED);
        now = read_root_file(&w, RCD "/10-other");
        g_assert_cmpstr(now, ==, kept);
        g_clear_pointer(&now, g_free);
        revert = (RevertCall){ .file = TARGET };

        world_start_polkit(&w);
        world_polkit_set_allowed(&w, edit_allowed);

        /* A created file: the revert removes it; a dry run only shows the diff. */
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_OK);
        written = read_root_file(&w, TARGET);
        g_assert_nonnull(written);
        revert.written = written;
        revert.dry_run = true;
        revert.diff_has = "-";
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_OK);
        now = read_root_file(&w, TARGET);
        g_assert_cmpstr(now, ==, written);
        g_clear_pointer(&now, g_free);

        /* Refused by polkit: nothing is touched. */
        world_polkit_set_allowed(&w, reload_allowed);
        revert.dry_run = false;
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_ACCESS_DENIED);
        now = read_root_file(&w, TARGET);
        g_assert_cmpstr(now, ==, written);
        g_clear_pointer(&now, g_free);

        world_polkit_set_allowed(&w, edit_allowed);
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_OK);
        g_assert_null(read_root_file(&w, TARGET));
        log = world_daemon_log(&w);
        g_assert_nonnull(strstr(log, "revert"));

        /* An existing file: back byte for byte; a second revert finds it changed and leaves it. */
        world_write(&w, TARGET, kept);
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_OK);
        g_clear_pointer(&written, g_free);
        written = read_root_file(&w, TARGET);
        g_assert_nonnull(written);
        revert.written = written;
        revert.previous = kept;
        revert.diff_has = "niri";
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_OK);
        now = read_root_file(&w, TARGET);
        g_assert_cmpstr(now, ==, kept);
        g_clear_pointer(&now, g_free);
        revert.diff_has = NULL;
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_FILE_CHANGED);

        /* A previous text that is no rc file is never written; the driver's files are never reverted. */
        revert.written = kept;
        revert.previous = "{ \"rules\": [";
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_EDIT_REFUSED);
        now = read_root_file(&w, TARGET);
        g_assert_cmpstr(now, ==, kept);
        revert.file = "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc";
        g_assert_cmpint(world_call_as(&w, uid, call_revert, &revert), ==, CALL_ACCESS_DENIED);

        world_teardown(&w);
        world_remove_user(TEST_USER);
}

/* One ReadSystemFile call, made in a child as some user; the reply is checked there. */
typedef struct ReadCall {
        const char *file;
        const char *text; /* the exact text expected; NULL: the file must not exist */
        const char *error_has; /* an error's message must contain this, if set */
} ReadCall;

static int call_read(sd_bus *bus, void *userdata)
{
        const ReadCall *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *text;
        int exists, r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "ReadSystemFile", &e, &reply, "s",
                        c->file);
        if (r < 0) {
                if (c->error_has && (!e.message || !strstr(e.message, c->error_has))) {
                        fprintf(stderr, "error \"%s\" lacks \"%s\"\n", strna(e.message), c->error_has);
                        return CALL_REPLY_MISMATCH;
                }
                if (sd_bus_error_has_name(&e, BUS_ERROR_EDIT_REFUSED))
                        return CALL_EDIT_REFUSED;
                if (sd_bus_error_has_name(&e, BUS_ERROR_LIMITS_EXCEEDED))
                        return e.message && strlen(e.message) < 256 ? CALL_LIMITS : CALL_REPLY_MISMATCH;
                return world_outcome(r, &e);
        }
        if (sd_bus_message_read(reply, "bs", &exists, &text) < 0)
                return CALL_OTHER_ERROR;
        if (!!exists != !!c->text || !streq(text, strempty(c->text))) {
                fprintf(stderr, "exists %d, %zu bytes, expected %s\n", exists, strlen(text),
                                c->text ? "the file's bytes" : "none");
                return CALL_REPLY_MISMATCH;
        }
        return CALL_OK;
}

/* ReadSystemFile: a system file's exact bytes as the daemon sees them (below its --root), read with the
 * caller's own access; nothing outside the files the edits write, nothing beyond an rc file's size, no
 * link. */
static void test_read_system_file(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        const char *text = "# kept as it is, \xc3\xa4\n{ \"rules\": [] }\n";
        const char *secret = "# SECRET-COMMENT only root may read\n{ \"rules\": [] }\n";
        ReadCall call = { .file = RCD "/10-other", .text = text };
        g_autofree char *secret_path = NULL, *link_path = NULL, *large = NULL, *long_path = NULL;

        world_setup(&w);
        world_write(&w, RCD "/10-other", text);
        world_write(&w, "etc/nvidia/nvidia-application-profiles-rc", secret);
        world_write(&w, RCD "/60-secret", secret);
        world_write(&w, "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", "{ \"rules\": [] }\n");
        world_write(&w, "etc/passwd", "root:x:0:0::/root:/bin/sh\n");
        secret_path = g_build_filename(w.root, RCD "/60-secret", NULL);
        g_assert_cmpint(chmod(secret_path, 0600), ==, 0);
        link_path = g_build_filename(w.root, RCD "/20-link", NULL);
        g_assert_cmpint(symlink("10-other", link_path), ==, 0);
        /* An rc file at the size limit is read; one byte more is not. */
        large = g_strnfill(RC_FILE_SIZE_MAX, ' ');
        world_write(&w, RCD "/80-largest", large);
        g_free(large);
        large = g_strnfill(RC_FILE_SIZE_MAX + 1, ' ');
        world_write(&w, RCD "/90-too-large", large);
        world_start_daemon(&w, NULL, NULL);

        /* No polkit on the bus: none is needed. The exact bytes, for the user and for root. */
        g_assert_cmpint(world_call_as(&w, uid, call_read, &call), ==, CALL_OK);
        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_OK);
        call.file = "/etc/nvidia/nvidia-application-profiles-rc";
        call.text = secret;
        g_assert_cmpint(world_call_as(&w, uid, call_read, &call), ==, CALL_OK);

        /* Absent: no file, no error (a file an edit would create). */
        call = (ReadCall){ .file = RCD "/70-absent" };
        g_assert_cmpint(world_call_as(&w, uid, call_read, &call), ==, CALL_OK);

        /* A root-only file: refused for the user, whose error does not quote it; root reads it. */
        call = (ReadCall){ .file = RCD "/60-secret", .error_has = "cannot read" };
        g_assert_cmpint(world_call_as(&w, uid, call_read, &call), ==, CALL_ACCESS_DENIED);
        call = (ReadCall){ .file = RCD "/60-secret", .text = secret };
        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_OK);

        /* Outside the files the edits write: refused even for root, the driver's file too. */
        {
                static const char *const refused[] = {
                        "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc",
                        "/etc/passwd",
                        RCD "/../../passwd",
                        RCD "/.hidden",
                        "/etc/nvidia/other",
                        "etc/nvidia/nvidia-application-profiles-rc",
                };

                for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                        g_test_message("%s", refused[i]);
                        call = (ReadCall){ .file = refused[i], .error_has = "never written" };
                        if (i > 0)
                                call.error_has = "is not a system rc file";
                        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_ACCESS_DENIED);
                }
        }

        /* A path beyond PATH_MAX, from the user: refused by its length, and not quoted back. */
        long_path = g_strconcat(RCD "/", NULL);
        while (strlen(long_path) <= PATH_MAX) {
                char *longer = g_strconcat(long_path, "a", NULL);

                g_free(long_path);
                long_path = longer;
        }
        call = (ReadCall){ .file = long_path, .error_has = "longer than" };
        g_assert_cmpint(world_call_as(&w, uid, call_read, &call), ==, CALL_LIMITS);

        /* Only a regular file (a link is not followed), and at most RC_FILE_SIZE_MAX bytes. */
        call = (ReadCall){ .file = RCD "/20-link" };
        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_EDIT_REFUSED);
        call = (ReadCall){ .file = RCD "/80-largest", .text = g_strnfill(RC_FILE_SIZE_MAX, ' ') };
        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_OK);
        g_free((char *) call.text);
        call = (ReadCall){ .file = RCD "/90-too-large", .error_has = "larger than an rc file" };
        g_assert_cmpint(world_call_as(&w, 0, call_read, &call), ==, CALL_EDIT_REFUSED);

        world_teardown(&w);
        world_remove_user(TEST_USER);
}

static void become_user(gpointer userdata)
{
        const struct passwd *pw = getpwuid(*(const uid_t *) userdata);

        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (!pw || setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                _exit(127);
}

/* nvprofilectl --system refused by polkit without asking (no authentication agent; here polkit says no):
 * the message says the two ways that work, root and an agent. */
static void test_ctl_refused_says_sudo(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        g_autoptr(GError) error = NULL;
        g_autofree char *bin = NULL, *bus_arg = NULL, *out = NULL, *err = NULL;
        g_auto(GStrv) envp = NULL;
        int status;

        world_setup(&w);
        world_start_daemon(&w, NULL, NULL);
        world_start_polkit(&w);
        bin = test_copy_for_other_users(w.dir, g_getenv("NVPROFILECTL_BIN"));
        envp = test_environ_for_other_users(w.dir);
        bus_arg = g_strdup_printf("--bus=%s", w.bus_address);
        {
                const char *argv[] = { bin, bus_arg, "rules", "add", "--system", "--procname", "niri", "--setting",
                        "GLVidHeapReuseRatio=0", NULL };

                g_spawn_sync("/", (char **) argv, envp, 0, become_user, &uid, &out, &err, &status, &error);
        }
        g_assert_no_error(error);
        g_test_message("nvprofilectl stderr: %s", err);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, EXIT_FAILURE);
        g_assert_nonnull(strstr(err, "Could not add the rule: permission denied: Access denied by polkit.\n"));
        g_assert_nonnull(strstr(err, "sudo nvprofilectl"));
        g_assert_nonnull(strstr(err, "polkit authentication agent"));
        g_assert_null(read_root_file(&w, TARGET));

        world_teardown(&w);
        world_remove_user(TEST_USER);
}

static void test_dry_run_reads_as_caller(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        g_autofree char *secret_path = NULL, *after = NULL;
        AddCall add = { .file = RCD "/60-secret",
                .pattern = NIRI_PATTERN,
                .key = "GLVidHeapReuseRatio",
                .value = "0",
                .dry_run = true };

        world_setup(&w);
        world_write(&w, RCD "/60-secret", "# SECRET-COMMENT only root may read\n{ \"rules\": [] }\n");
        secret_path = g_build_filename(w.root, RCD "/60-secret", NULL);
        g_assert_cmpint(chmod(secret_path, 0600), ==, 0);
        world_start_daemon(&w, NULL, NULL);

        /* No polkit at all: a dry run of a new file needs none, and writes nothing. */
        {
                AddCall fresh = add;

                fresh.file = RCD "/70-new";
                fresh.diff_has = "+++ b" RCD "/70-new";
                g_assert_cmpint(world_call_as(&w, uid, call_add, &fresh), ==, CALL_OK);
                g_assert_null(read_root_file(&w, RCD "/70-new"));
        }

        /* A file the caller cannot read: refused, and its content is nowhere in the answer. */
        add.error_has = "60-secret";
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_ACCESS_DENIED);
        add.error_has = NULL;
        /* Root's dry run shows the file's bytes in the diff's context, and changes nothing. */
        add.diff_has = "SECRET-COMMENT";
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_OK);
        after = read_root_file(&w, RCD "/60-secret");
        g_assert_cmpstr(after, ==, "# SECRET-COMMENT only root may read\n{ \"rules\": [] }\n");

        world_teardown(&w);
        world_remove_user(TEST_USER);
}

static void test_never_written(void)
{
        BusWorld w;
        AddCall add = { .pattern = NIRI_PATTERN, .key = "GLVidHeapReuseRatio", .value = "0" };
        static const char *const refused[] = {
                "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", /* the driver's */
                "/root/.nv/nvidia-application-profiles-rc", /* a user's: the client writes those, as the user */
                RCD "/../../passwd",
                RCD "/.hidden",
                RCD "/sub/file",
                "/etc/nvidia/other",
        };

        world_setup(&w);
        world_write(&w, "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", "{ \"rules\": [] }\n");
        world_start_daemon(&w, NULL, NULL);

        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                add.file = refused[i];
                add.error_has = i == 0 ? "never written" : NULL;
                g_test_message("%s", refused[i]);
                g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_ACCESS_DENIED);
        }
        {
                g_autofree char *shipped =
                                read_root_file(&w, "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc");
                g_assert_cmpstr(shipped, ==, "{ \"rules\": [] }\n");
                g_assert_null(read_root_file(&w, "etc/passwd"));
        }

        /* Bounded: more settings than an edit may name. */
        add.file = TARGET;
        add.error_has = NULL;
        add.n_settings = 300;
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_LIMITS);
        /* Refused by the editor, with the reason: a value that is not rc text. */
        add.n_settings = 1;
        add.value = "0, \"injected\": 1";
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_EDIT_REFUSED);
        g_assert_null(read_root_file(&w, TARGET));

        world_teardown(&w);
}

static void test_preview_shows_own_processes(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);
        GPid mine, roots;
        AddCall add = {
                .file = TARGET, .pattern = NIRI_PATTERN, .key = "GLVidHeapReuseRatio", .value = "0", .dry_run = true
        };

        world_setup(&w);
        /* A rule already matches niri, so that the processes have objects to wait for. */
        world_write(&w, RCD "/10-base",
                        "{ \"rules\": [ { \"pattern\": \"niri\", \"profile\": [ \"GLSyncToVblank\", false ] } ] }\n");
        world_start_daemon(&w, NULL, NULL);
        mine = world_spawn(&w, "niri", uid, true);
        roots = world_spawn(&w, "niri", 0, true);

        /* The user's dry run: its own process gains the setting; root's is not even mentioned. */
        add.change_pid = mine;
        add.no_change_pid = roots;
        g_assert_cmpint(world_call_as(&w, uid, call_add, &add), ==, CALL_OK);
        /* Root's: both. */
        add.no_change_pid = 0;
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_OK);
        add.change_pid = roots;
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_OK);
        /* A pattern that matches neither: no change at all. */
        add.pattern = "{\"feature\": \"procname\", \"matches\": \"sway\"}";
        add.change_pid = 0;
        g_assert_cmpint(world_call_as(&w, 0, call_add, &add), ==, CALL_OK);

        world_kill(mine);
        world_kill(roots);
        world_teardown(&w);
        world_remove_user(TEST_USER);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        if (geteuid() != 0) {
                g_test_skip("needs root: creates a user and runs the daemon's writes");
                return g_test_run();
        }
        g_test_add_func("/bus-profile-edit/revert-edit", test_revert_edit);
        g_test_add_func("/bus-profile-edit/read-system-file", test_read_system_file);
        g_test_add_func("/bus-profile-edit/system-edit-authorized-by-polkit", test_system_edit_authorized_by_polkit);
        g_test_add_func("/bus-profile-edit/dry-run-reads-as-caller", test_dry_run_reads_as_caller);
        g_test_add_func("/bus-profile-edit/ctl-refused-says-sudo", test_ctl_refused_says_sudo);
        g_test_add_func("/bus-profile-edit/never-written", test_never_written);
        g_test_add_func("/bus-profile-edit/preview-shows-own-processes", test_preview_shows_own_processes);
        return g_test_run();
}
