/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Edits of the system's rc files and previews (manager-edit.c), without a bus: a write changes only the
 * edited rule's bytes and reloads, so a tracked process's result follows at once; a dry run writes
 * nothing and says what would change; files the daemon never writes and edits that do not apply are
 * refused with a reason; a preview of a user's file concerns that home's processes only. */

#include <unistd.h>

#include "manager-edit.h"
#include "manager-harness.h"
#include "test-util.h"

#define RCD_FILE SYSTEM_RC_D "/50-edit"
#define OTHER_FILE SYSTEM_RC_D "/60-other"
#define ORIGINAL                                                                                                \
        "# a comment that stays\n"                                                                              \
        "{\n"                                                                                                   \
        "    \"rules\": [\n"                                                                                    \
        "        { \"pattern\": { \"feature\": \"procname\", \"matches\": \"vkcube\" }, \"profile\": \"P\" }\n" \
        "    ],\n"                                                                                              \
        "    \"profiles\": [ { \"name\": \"P\", \"settings\": [ \"GLSyncToVblank\", 0x0 ] } ]\n"                \
        "}\n"

static void add_process(ManagerHarness *h, pid_t pid, const char *exe, const char *home)
{
        g_autofree char *home_env = home ? g_strdup_printf("HOME=%s", home) : NULL;
        const char *const env[] = { "PATH=/usr/bin", home_env, NULL };

        proc_fixture_add(h->proc, &(ProcFixtureProcess){ .pid = pid, .uid = getuid(), .exe = exe, .environ = env });
        g_assert_cmpint(manager_process_exec(h->manager, pid), ==, 0);
}

static char *read_rel(ManagerHarness *h, const char *rel)
{
        g_autofree char *p = g_build_filename(h->root, rel, NULL);
        char *text = NULL;

        if (!g_file_get_contents(p, &text, NULL, NULL))
                return NULL;
        return text;
}

static UserCreds own_creds(void)
{
        UserCreds c;

        user_creds_self(&c);
        return c;
}

static const ManagerEditChange *find_change(const ManagerEditChanges *c, pid_t pid, const char *key)
{
        for (size_t i = 0; i < c->n_items; i++)
                if (c->items[i].pid == pid && g_str_equal(c->items[i].key, key))
                        return &c->items[i];
        return NULL;
}

static void test_add_rule_writes_and_reloads(void)
{
        ManagerHarness h;
        UserCreds creds = own_creds();
        RcEditSetting setting = { "GLVidHeapReuseRatio", "0" };
        ManagerEditRequest req = {
                .edit = { .operation = RC_EDIT_ADD_RULE,
                                .index = SIZE_MAX,
                                .pattern = "{\"feature\": \"procname\", \"matches\": \"niri\"}",
                                .settings = &setting,
                                .n_settings = 1 },
                .file = "/" RCD_FILE,
        };
        _cleanup_(manager_edit_result_done) ManagerEditResult result = { 0 };
        _cleanup_free_ char *message = NULL;
        g_autofree char *after = NULL, *settings = NULL;
        const ManagerEditChange *c;
        uint64_t g;

        manager_harness_init(&h);
        manager_harness_write(&h, RCD_FILE, ORIGINAL);
        manager_harness_start(&h);
        add_process(&h, 100, "/usr/bin/niri", NULL);
        add_process(&h, 101, "/usr/bin/vkcube", NULL);
        settings = manager_harness_process_settings(&h, 100);
        g_assert_cmpstr(settings, ==, "");

        /* Dry run: the diff and niri's change, nothing written, nothing reloaded. */
        req.dry_run = true;
        g = h.manager->profiles->generation;
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, 0);
        g_test_message("diff:\n%s", result.diff);
        g_assert_nonnull(strstr(result.diff, "/" RCD_FILE));
        g_assert_nonnull(strstr(result.diff, "+"));
        g_assert_nonnull(strstr(result.diff, "GLVidHeapReuseRatio"));
        c = find_change(&result.changes, 100, "GLVidHeapReuseRatio");
        g_assert_nonnull(c);
        g_assert_null(c->before);
        g_assert_cmpstr(c->after, ==, "0");
        g_assert_null(find_change(&result.changes, 101, "GLVidHeapReuseRatio"));
        g_assert_cmpuint(result.changes.n_items, ==, 1);
        g_assert_cmpuint(strlen(result.rule_id), ==, RC_RULE_ID_LENGTH);
        after = read_rel(&h, RCD_FILE);
        g_assert_cmpstr(after, ==, ORIGINAL);
        g_assert_cmpuint(h.manager->profiles->generation, ==, g);
        manager_edit_result_done(&result);

        /* The write: the old rule's bytes stay, the new rule follows them; reloaded, niri has it. */
        req.dry_run = false;
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, 0);
        g_clear_pointer(&after, g_free);
        after = read_rel(&h, RCD_FILE);
        g_assert_true(g_str_has_prefix(after,
                        "# a comment that stays\n{\n    \"rules\": [\n        { \"pattern\": { "
                        "\"feature\": \"procname\", \"matches\": \"vkcube\" }, \"profile\": \"P\" }"));
        g_assert_nonnull(strstr(after, "\"niri\""));
        g_assert_nonnull(strstr(after, "[ \"GLSyncToVblank\", 0x0 ]"));
        g_assert_cmpuint(h.manager->profiles->generation, >, g);
        g_clear_pointer(&settings, g_free);
        settings = manager_harness_process_settings(&h, 100);
        g_assert_cmpstr(settings, ==, "GLVidHeapReuseRatio=0");
        g_clear_pointer(&settings, g_free);
        settings = manager_harness_process_settings(&h, 101);
        g_assert_cmpstr(settings, ==, "GLSyncToVblank=0");

        manager_harness_done(&h);
}

static void test_rule_by_id_and_line(void)
{
        ManagerHarness h;
        UserCreds creds = own_creds();
        _cleanup_(manager_edit_result_done) ManagerEditResult result = { 0 };
        _cleanup_free_ char *message = NULL;
        _cleanup_free_ char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;
        g_autofree char *after = NULL, *settings = NULL;
        const RcFile *f = NULL;
        ManagerEditRequest req = { .edit = { .operation = RC_EDIT_REMOVE_RULE } };

        manager_harness_init(&h);
        manager_harness_write(&h, RCD_FILE, ORIGINAL);
        manager_harness_write(&h, OTHER_FILE, "{ \"rules\": [] }\n");
        manager_harness_start(&h);
        add_process(&h, 101, "/usr/bin/vkcube", NULL);

        for (size_t i = 0; i < h.manager->profiles->system_config->n_files; i++)
                if (g_str_equal(h.manager->profiles->system_config->files[i]->path, "/" RCD_FILE))
                        f = h.manager->profiles->system_config->files[i];
        g_assert_nonnull(f);
        g_assert_cmpint(rc_file_rule_ids(f, &ids), ==, 0);

        /* Moved into the other file by id: there first, then gone from here. */
        req.move = true;
        req.rule = ids[0];
        req.file = "/" OTHER_FILE;
        req.edit.index = SIZE_MAX;
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, 0);
        after = read_rel(&h, OTHER_FILE);
        g_assert_nonnull(strstr(after, "\"vkcube\""));
        g_clear_pointer(&after, g_free);
        after = read_rel(&h, RCD_FILE);
        g_assert_null(strstr(after, "vkcube"));
        g_assert_true(g_str_has_prefix(after, "# a comment that stays\n"));
        /* The profile it names is still defined in the first file: the process keeps its setting. */
        settings = manager_harness_process_settings(&h, 101);
        g_assert_cmpstr(settings, ==, "GLSyncToVblank=0");
        manager_edit_result_done(&result);

        /* Removed by FILE:LINE, and a line no rule starts on. */
        req = (ManagerEditRequest){ .edit = { .operation = RC_EDIT_REMOVE_RULE }, .rule = "/" OTHER_FILE ":999" };
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -ENOENT);
        g_assert_nonnull(strstr(message, "no rule"));
        g_clear_pointer(&message, free);
        manager_harness_done(&h);
}

static void test_refusals(void)
{
        ManagerHarness h;
        UserCreds creds = own_creds();
        _cleanup_(manager_edit_result_done) ManagerEditResult result = { 0 };
        char *message = NULL;
        RcEditSetting setting = { "K", "1" };
        ManagerEditRequest req = {
                .edit = { .operation = RC_EDIT_ADD_RULE,
                                .index = SIZE_MAX,
                                .pattern = "\"x\"",
                                .settings = &setting,
                                .n_settings = 1 },
        };
        g_autofree char *broken = NULL;

        manager_harness_init(&h);
        manager_harness_write(&h, "usr/share/nvidia/nvidia-application-profiles-570.153.02-rc", "{ \"rules\": [] }\n");
        manager_harness_write(
                        &h, SYSTEM_RC_D "/70-broken", "{ \"rules\": [ { \"pattern\": \"x\" \"profile\": \"P\" } ] }\n");
        manager_harness_start(&h);

        req.file = "/usr/share/nvidia/nvidia-application-profiles-570.153.02-rc";
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -EPERM);
        g_assert_nonnull(strstr(message, "never written"));
        message = mfree(message);

        req.file = "/home/someone/.nv/nvidia-application-profiles-rc";
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -EPERM);
        message = mfree(message);

        /* A file that does not parse is never edited: the error says where it is broken. */
        req.file = "/" SYSTEM_RC_D "/70-broken";
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -EBADMSG);
        g_assert_nonnull(strstr(message, "/" SYSTEM_RC_D "/70-broken:1:"));
        message = mfree(message);
        broken = read_rel(&h, SYSTEM_RC_D "/70-broken");
        g_assert_cmpstr(broken, ==, "{ \"rules\": [ { \"pattern\": \"x\" \"profile\": \"P\" } ] }\n");

        /* A known key with a value of the wrong type, or in the wrong case, is refused by name. */
        req.file = "/" RCD_FILE;
        setting = (RcEditSetting){ "GLSyncToVblank", "\"yes\"" };
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -EINVAL);
        g_assert_nonnull(strstr(message, "GLSyncToVblank"));
        message = mfree(message);
        setting = (RcEditSetting){ "glsynctovblank", "false" };
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -EINVAL);
        g_assert_nonnull(strstr(message, "GLSyncToVblank"));
        message = mfree(message);
        g_assert_null(read_rel(&h, RCD_FILE));
        setting = (RcEditSetting){ "K", "1" };

        /* Bounded: too many settings. */
        req.file = "/" RCD_FILE;
        req.edit.n_settings = MANAGER_EDIT_SETTINGS_MAX + 1;
        g_assert_cmpint(manager_edit_system(h.manager, &creds, &req, &result, &message), ==, -E2BIG);
        message = mfree(message);

        manager_harness_done(&h);
}

static void test_preview_user_file(void)
{
        ManagerHarness h;
        UserCreds creds = own_creds();
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        g_autofree char *home_a = NULL, *home_b = NULL, *path = NULL;
        char *message = NULL;
        const char *text = "{ \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": [ \"GLSharpenValue\", 50 ] } ] }";

        manager_harness_init(&h);
        manager_harness_start(&h);
        home_a = g_strdup("/home/a");
        home_b = g_strdup("/home/b");
        manager_harness_write(&h, "home/a/.keep", "");
        manager_harness_write(&h, "home/b/.keep", "");
        add_process(&h, 200, "/usr/bin/glxgears", home_a);
        add_process(&h, 201, "/usr/bin/glxgears", home_b);

        path = g_strdup_printf("%s/" USER_RC_D "/10-x", home_a);
        g_assert_cmpint(manager_edit_preview(h.manager, &creds, home_a, path, text, strlen(text), &changes, &message),
                        ==, 0);
        g_assert_nonnull(find_change(&changes, 200, "GLSharpenValue"));
        g_assert_null(find_change(&changes, 201, "GLSharpenValue"));
        g_assert_cmpuint(changes.n_items, ==, 1);
        manager_edit_changes_done(&changes);

        /* Only files of that home's search path. */
        g_assert_cmpint(manager_edit_preview(h.manager, &creds, home_a, "/home/b/.nv/nvidia-application-profiles-rc",
                                        text, strlen(text), &changes, &message),
                        ==, -EINVAL);
        message = mfree(message);

        manager_harness_done(&h);
}

/* Processes whose root is the configuration root (as in a fixture tree) read the host's configuration:
 * each resolved against the home's one configuration, the first included, and a preview lists them all. */
static void test_preview_processes_in_configuration_root(void)
{
        ManagerHarness h;
        UserCreds creds = own_creds();
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        char *message = NULL;
        const char *const env[] = { "PATH=/usr/bin", "HOME=/home/a", NULL };
        const char *path = "/home/a/" USER_RC;
        const char *text = "{ \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": [ \"GLSharpenValue\", 50 ] } ] }";

        manager_harness_init(&h);
        manager_harness_write(&h, "home/a/" USER_RC, "{}\n");
        manager_harness_start(&h);
        for (pid_t pid = 200; pid <= 201; pid++) {
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){ .pid = pid,
                                                .uid = getuid(),
                                                .exe = "/usr/bin/glxgears",
                                                .environ = env,
                                                .root = h.root });
                g_assert_cmpint(manager_process_exec(h.manager, pid), ==, 0);
        }

        g_assert_cmpint(manager_edit_preview(
                                        h.manager, &creds, "/home/a", path, text, strlen(text), &changes, &message),
                        ==, 0);
        g_assert_nonnull(find_change(&changes, 200, "GLSharpenValue"));
        g_assert_nonnull(find_change(&changes, 201, "GLSharpenValue"));
        g_assert_cmpuint(changes.n_items, ==, 2);

        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-edit/add-rule-writes-and-reloads", test_add_rule_writes_and_reloads);
        g_test_add_func("/manager-edit/rule-by-id-and-line", test_rule_by_id_and_line);
        g_test_add_func("/manager-edit/refusals", test_refusals);
        g_test_add_func("/manager-edit/preview-user-file", test_preview_user_file);
        g_test_add_func("/manager-edit/preview-processes-in-configuration-root",
                        test_preview_processes_in_configuration_root);
        return g_test_run();
}
