/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's section folders over a fixture root, without a bus: nvprofiled.conf [Sections], the
 * search order (Folders= before RecursiveFolders=), inotify reload on the event loop, the last good
 * version of a file that breaks, a folder that appears later, and the strict schema. */

#include <sys/stat.h>
#include <unistd.h>

#include "manager-harness.h"
#include "manager-sections.h"
#include "strv.h"

#define TIMEOUT_USEC (5 * 1000 * 1000)

#define SECTION(id, order) "Identifier: \"" id "\"\nDisplayName: \"Display " id "\"\nOrder: " order "\n"

static bool generation_above(ManagerHarness *h, void *before)
{
        return h->manager->sections && h->manager->sections->generation > GPOINTER_TO_UINT(before);
}

static void wait_reload(ManagerHarness *h)
{
        uint64_t before = h->manager->sections->generation;
        g_assert_true(manager_harness_run_until(
                        h, generation_above, GUINT_TO_POINTER((unsigned) before), TIMEOUT_USEC));
}

static unsigned order_of(ManagerHarness *h, const char *id)
{
        const SectionEntry *e = section_catalog_find(manager_sections_catalog(h->manager), id);
        g_assert_nonnull(e);
        return e->section->order;
}

static void test_config(void)
{
        ManagerConfig c;
        char **messages = NULL;
        const char *text = "[Sections]\nFolders=/a /b\nRecursiveFolders=/c\nSchema=2024.1.1\n";

        manager_config_init(&c);
        g_assert_cmpstr(c.section_schema, ==, "extended");
        g_assert_cmpstr(c.section_recursive_folders, ==, "/usr/lib/x86_64-linux-gnu/nsight-compute/sections");
        g_assert_cmpint(manager_config_parse(&c, text, strlen(text), &messages), ==, 0);
        g_assert_cmpstr(c.section_folders, ==, "/a /b");
        g_assert_cmpstr(c.section_schema, ==, "2024.1.1");
        strv_free(messages);
        messages = NULL;
        const char *bad = "[Sections]\nSchema=2025\n";
        g_assert_cmpint(manager_config_parse(&c, bad, strlen(bad), &messages), ==, 1);
        g_assert_cmpstr(c.section_schema, ==, "2024.1.1"); /* unchanged */
        strv_free(messages);
        manager_config_done(&c);
}

static void test_reload(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        free(h.config.section_folders);
        free(h.config.section_recursive_folders);
        h.config.section_folders = g_strdup("/flat");
        h.config.section_recursive_folders = g_strdup("/deep /later");
        manager_harness_write(&h, "flat/a.section", SECTION("A", "1"));
        manager_harness_write(&h, "flat/sub/ignored.section", SECTION("Ignored", "1"));
        manager_harness_write(&h, "deep/x/y/b.section", SECTION("B", "2"));
        manager_harness_write(&h, "deep/a-again.section", SECTION("A", "99"));
        manager_harness_start(&h);

        const SectionCatalog *c = manager_sections_catalog(h.manager);
        g_assert_nonnull(c);
        g_assert_nonnull(section_catalog_find(c, "B"));
        g_assert_null(section_catalog_find(c, "Ignored")); /* /flat is not recursive */
        g_assert_cmpuint(order_of(&h, "A"), ==, 1); /* Folders= first: the second A is an error */
        const SectionEntry **broken = NULL;
        size_t n_broken;
        g_assert_cmpint(section_catalog_errors(c, &broken, &n_broken), ==, 0);
        g_assert_cmpuint(n_broken, ==, 1);
        g_assert_cmpstr(broken[0]->display, ==, "/deep/a-again.section");
        g_assert_nonnull(strstr(broken[0]->error, "already defined in /flat/a.section"));
        g_free(broken);

        /* An edit is seen through inotify. */
        manager_harness_write(&h, "deep/x/y/b.section", SECTION("B", "3"));
        wait_reload(&h);
        g_assert_cmpuint(order_of(&h, "B"), ==, 3);

        /* A file that breaks keeps its last good version, with its error. */
        manager_harness_write(&h, "deep/x/y/b.section", SECTION("B", "x"));
        wait_reload(&h);
        g_assert_cmpuint(order_of(&h, "B"), ==, 3);
        const SectionEntry *b = section_catalog_find(manager_sections_catalog(h.manager), "B");
        g_assert_nonnull(b->error);
        g_assert_nonnull(strstr(b->error, "Line=3"));
        g_assert_cmpuint(h.manager->sections->n_kept, ==, 1);

        /* A folder created after start is watched through its parent. */
        manager_harness_write(&h, "later/c.section", SECTION("C", "7"));
        wait_reload(&h);
        g_assert_cmpuint(order_of(&h, "C"), ==, 7);

        /* An explicit reload works too, and a fixed file loses its error. */
        manager_harness_write(&h, "deep/x/y/b.section", SECTION("B", "4"));
        g_assert_cmpint(manager_sections_reload(h.manager), ==, 0);
        g_assert_cmpuint(order_of(&h, "B"), ==, 4);
        g_assert_null(section_catalog_find(manager_sections_catalog(h.manager), "B")->error);
        manager_harness_done(&h);
}

static void test_strict_schema(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        free(h.config.section_recursive_folders);
        h.config.section_recursive_folders = g_strdup("/s");
        free(h.config.section_schema);
        h.config.section_schema = g_strdup("2024.1.1");
        manager_harness_write(&h, "s/new.section", SECTION("New", "1") "Filter { MinArch: CC_100 }\n");
        manager_harness_write(&h, "s/old.section", SECTION("Old", "1") "Filter { MinArch: CC_90 }\n");
        manager_harness_start(&h);
        const SectionCatalog *c = manager_sections_catalog(h.manager);
        g_assert_nonnull(section_catalog_find(c, "Old"));
        g_assert_null(section_catalog_find(c, "New"));
        manager_harness_done(&h);
}

/* The daemon parses these files itself: a file or folder others may write is not read, only listed. */
static void test_untrusted(void)
{
        ManagerHarness h;

        manager_harness_init(&h);
        free(h.config.section_recursive_folders);
        h.config.section_recursive_folders = g_strdup("/t");
        manager_harness_write(&h, "t/good.section", SECTION("Good", "1"));
        manager_harness_write(&h, "t/open.section", SECTION("Open", "1"));
        manager_harness_write(&h, "t/shared/inside.section", SECTION("Inside", "1"));
        g_autofree char *open_file = g_build_filename(h.root, "t/open.section", NULL);
        g_autofree char *shared_dir = g_build_filename(h.root, "t/shared", NULL);
        g_assert_cmpint(chmod(open_file, 0666), ==, 0);
        g_assert_cmpint(chmod(shared_dir, 0777), ==, 0);
        manager_harness_start(&h);

        const SectionCatalog *c = manager_sections_catalog(h.manager);
        g_assert_nonnull(section_catalog_find(c, "Good"));
        g_assert_null(section_catalog_find(c, "Open"));
        g_assert_null(section_catalog_find(c, "Inside"));
        const SectionEntry **broken = NULL;
        size_t n;
        g_assert_cmpint(section_catalog_errors(c, &broken, &n), ==, 0);
        g_assert_cmpuint(n, ==, 2);
        g_assert_cmpstr(broken[0]->display, ==, "/t/open.section");
        g_assert_cmpstr(broken[1]->display, ==, "/t/shared");
        g_assert_nonnull(strstr(broken[0]->error, "writable by group or others"));
        g_free(broken);
        manager_harness_done(&h);
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-sections/config", test_config);
        g_test_add_func("/manager-sections/reload", test_reload);
        g_test_add_func("/manager-sections/strict-schema", test_strict_schema);
        g_test_add_func("/manager-sections/untrusted", test_untrusted);
        return g_test_run();
}
