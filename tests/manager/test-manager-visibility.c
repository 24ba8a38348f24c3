/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What each caller may be told about processes without asking about one (issue 17 items 4 and 5): who
 * is told about a process's changes (its owner's subscribers and root's, no one else's), how many
 * subscribers one user and everybody may hold, which processes get an object, and the matched processes
 * each caller may count (a private rule's match moves no other user's count). No root needed. */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "manager-harness.h"
#include "manager-visibility.h"
#include "test-util.h"

#define OWNER ((uid_t) 1000)
#define OTHER ((uid_t) 1001)

static int compare_names(gconstpointer a, gconstpointer b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void collect(ManagerSubscriber *s, void *userdata)
{
        GPtrArray *names = userdata;
        g_ptr_array_add(names, (char *) manager_subscriber_who(s));
}

/* The names of the subscribers told about processes of owner, sorted and comma-joined. */
static char *told_about(Manager *m, uid_t owner)
{
        g_autoptr(GPtrArray) names = g_ptr_array_new();

        manager_foreach_subscriber_of(m, owner, collect, names);
        g_ptr_array_sort(names, compare_names);
        g_ptr_array_add(names, NULL);
        return g_strjoinv(",", (char **) names->pdata);
}

static void test_subscribers_told(void)
{
        ManagerHarness h;
        ManagerSubscriber *a, *again, *b, *root;
        g_autofree char *owner = NULL, *other = NULL, *roots = NULL, *after = NULL;

        manager_harness_init(&h);
        manager_harness_start(&h);

        g_assert_cmpint(manager_subscribe(h.manager, OWNER, ":1.1", &a), ==, 1);
        g_assert_cmpint(manager_subscribe(h.manager, OTHER, ":1.2", &b), ==, 1);
        g_assert_cmpint(manager_subscribe(h.manager, 0, ":1.3", &root), ==, 1);
        g_assert_cmpuint(manager_subscriber_uid(a), ==, OWNER);
        /* Subscribing again is the same subscription. */
        g_assert_cmpint(manager_subscribe(h.manager, OWNER, ":1.1", &again), ==, 0);
        g_assert_true(again == a);
        g_assert_true(manager_subscriber_find(h.manager, OWNER, ":1.1") == a);
        g_assert_null(manager_subscriber_find(h.manager, OTHER, ":1.1"));
        g_assert_cmpuint(h.manager->profiles->n_subscribers, ==, 3);

        /* About a process: its owner's subscribers and root's, never another user's. */
        owner = told_about(h.manager, OWNER);
        g_assert_cmpstr(owner, ==, ":1.1,:1.3");
        other = told_about(h.manager, OTHER);
        g_assert_cmpstr(other, ==, ":1.2,:1.3");
        roots = told_about(h.manager, 0);
        g_assert_cmpstr(roots, ==, ":1.3");

        /* Gone is gone. */
        g_assert_null(manager_unsubscribe(a));
        after = told_about(h.manager, OWNER);
        g_assert_cmpstr(after, ==, ":1.3");
        g_assert_null(manager_subscriber_find(h.manager, OWNER, ":1.1"));
        g_assert_cmpuint(h.manager->profiles->n_subscribers, ==, 2);

        /* The rest go with the manager. */
        manager_harness_done(&h);
}

static void test_subscriber_limits(void)
{
        ManagerHarness h;
        ManagerSubscriber *s, *first = NULL;
        char who[32];

        manager_harness_init(&h);
        manager_harness_start(&h);

        /* One user's share... */
        for (unsigned i = 0; i < MANAGER_SUBSCRIBERS_PER_USER; i++) {
                snprintf(who, sizeof(who), ":1.%u", i);
                g_assert_cmpint(manager_subscribe(h.manager, OWNER, who, &s), ==, 1);
                if (!first)
                        first = s;
        }
        g_assert_cmpint(manager_subscribe(h.manager, OWNER, ":2.0", &s), ==, -E2BIG);
        /* ...costs nobody else anything, and a user recycles its own. */
        g_assert_cmpint(manager_subscribe(h.manager, OTHER, ":2.0", &s), ==, 1);
        manager_unsubscribe(first);
        g_assert_cmpint(manager_subscribe(h.manager, OWNER, ":2.1", &s), ==, 1);

        /* Root has no share of its own, only the total. */
        for (unsigned i = h.manager->profiles->n_subscribers; i < MANAGER_SUBSCRIBERS_MAX; i++) {
                snprintf(who, sizeof(who), ":3.%u", i);
                g_assert_cmpint(manager_subscribe(h.manager, 0, who, &s), ==, 1);
        }
        g_assert_cmpuint(h.manager->profiles->n_subscribers, ==, MANAGER_SUBSCRIBERS_MAX);
        g_assert_cmpint(manager_subscribe(h.manager, 0, ":4.0", &s), ==, -E2BIG);
        g_assert_cmpint(manager_subscribe(h.manager, 4242, ":4.0", &s), ==, -E2BIG);

        manager_harness_done(&h);
}

static void exec_process(ManagerHarness *h, pid_t pid, const char *exe, const char *home)
{
        g_autofree char *env = home ? g_strdup_printf("HOME=%s", home) : NULL;
        const char *env_list[] = { env, NULL };

        proc_fixture_add(h->proc,
                        &(ProcFixtureProcess){
                                        .pid = pid, .uid = getuid(), .exe = exe, .environ = env ? env_list : NULL });
        g_assert_cmpint(manager_process_exec(h->manager, pid), ==, 0);
        g_assert_nonnull(manager_get_process(h->manager, pid));
}

static void test_matched_per_caller(void)
{
        ManagerHarness h;
        /* The processes' owner, and some user who is neither the owner nor root. */
        uid_t owner = getuid(), other = owner == 0 ? OTHER : owner + 1;
        Process *p;

        manager_harness_init(&h);
        manager_harness_write(&h, SYSTEM_RC,
                        "{\"rules\": [{\"pattern\": \"system-match\", \"profile\": "
                        "[\"GLSharpenValue\", 1]}]}\n");
        /* A rule only the owner's own rc file holds. */
        manager_harness_write(&h, "home/u/" USER_RC,
                        "{\"rules\": [{\"pattern\": \"private-match\", \"profile\": "
                        "[\"GLSharpenValue\", 2]}]}\n");
        manager_harness_start(&h);

        exec_process(&h, 100, "/usr/bin/private-match", "/home/u");
        exec_process(&h, 101, "/usr/bin/system-match", NULL);
        exec_process(&h, 102, "/usr/bin/no-match", "/home/u");

        /* The owner counts its own, root everything, another user none of them. */
        g_assert_cmpuint(manager_matched_processes(h.manager, owner), ==, 2);
        g_assert_cmpuint(manager_matched_processes(h.manager, 0), ==, 2);
        g_assert_cmpuint(manager_matched_processes(h.manager, other), ==, 0);

        /* Objects: for what a rule matched and for GPU users. */
        g_assert_true(manager_process_has_object(manager_get_process(h.manager, 100)));
        g_assert_true(manager_process_has_object(manager_get_process(h.manager, 101)));
        p = manager_get_process(h.manager, 102);
        g_assert_false(manager_process_has_object(p));
        p->gpu_user = true;
        g_assert_true(manager_process_has_object(p));

        /* The private rule goes: the owner's count follows, and still nobody else's moved. */
        manager_harness_write(&h, "home/u/" USER_RC, "{\"rules\": []}\n");
        g_assert_cmpint(manager_reload(h.manager), ==, 0);
        g_assert_cmpuint(manager_matched_processes(h.manager, owner), ==, 1);
        g_assert_cmpuint(manager_matched_processes(h.manager, other), ==, 0);
        g_assert_false(manager_process_has_object(manager_get_process(h.manager, 100)));

        /* An exit counts too. */
        proc_fixture_remove(h.proc, 101);
        manager_process_exit(h.manager, 101);
        g_assert_cmpuint(manager_matched_processes(h.manager, owner), ==, 0);
        g_assert_cmpuint(manager_matched_processes(h.manager, 0), ==, 0);

        manager_harness_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager/visibility/subscribers-told", test_subscribers_told);
        g_test_add_func("/manager/visibility/subscriber-limits", test_subscriber_limits);
        g_test_add_func("/manager/visibility/matched-per-caller", test_matched_per_caller);
        return g_test_run();
}
