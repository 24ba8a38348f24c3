/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rc file watching with real inotify through sd-event: missing entries, rc.d directories, atomic
 * renames, symlink targets, unrelated files, coalescing of bursts, and per-user groups that cannot
 * disturb the system's watches. */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fd-util.h"
#include "rc-watch.h"
#include "test-util.h"

#define COALESCE_USEC (50 * 1000)

typedef struct Ctx {
        sd_event *event;
        RcWatch *watch;
        unsigned calls;
        uint64_t cause; /* of the latest call */
        bool cause_alone;
} Ctx;

static void on_changed(RcWatch *w, void *userdata)
{
        Ctx *c = userdata;
        c->calls++;
        c->cause = rc_watch_cause(w);
        c->cause_alone = rc_watch_cause_alone(w);
}

/* Runs the loop until a callback came or timeout_usec passed; returns the calls seen. */
static unsigned run_until_call(Ctx *c, uint64_t timeout_usec)
{
        gint64 deadline = g_get_monotonic_time() + (gint64) timeout_usec;
        unsigned before = c->calls;

        while (c->calls == before && g_get_monotonic_time() < deadline)
                g_assert_cmpint(sd_event_run(c->event, 10 * 1000), >=, 0);
        return c->calls - before;
}

static void set_paths(Ctx *c, const char *const *paths)
{
        g_assert_cmpint(rc_watch_set_paths(c->watch, RC_WATCH_GROUP_SYSTEM, NULL, (char *const *) paths, SIZE_MAX), ==,
                        0);
}

static void test_watch(void)
{
        g_autofree char *root = test_mkdtemp();
        g_autofree char *tmp = NULL, *dst = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *paths[] = { "/etc/nvidia/nvidia-application-profiles-rc.d",
                "/etc/nvidia/nvidia-application-profiles-rc", NULL };
        Ctx c = { 0 };

        test_mkdir_p(root, "etc");
        fd = test_open_dir(root);
        g_assert_cmpint(sd_event_new(&c.event), >=, 0);
        g_assert_cmpint(rc_watch_new(c.event, fd, COALESCE_USEC, 500 * 1000, on_changed, &c, &c.watch), ==, 0);

        /* Nothing exists below /etc: /etc is watched for "nvidia". */
        set_paths(&c, paths);
        g_assert_cmpuint(rc_watch_count(c.watch), ==, 1);

        /* Unrelated names in a watched directory say nothing. */
        test_write_file(root, "etc/hostname", "x");
        g_assert_cmpuint(run_until_call(&c, 4 * COALESCE_USEC), ==, 0);

        /* Creating the directory chain is seen. */
        test_mkdir_p(root, "etc/nvidia/nvidia-application-profiles-rc.d");
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        set_paths(&c, paths);

        /* A burst of writes in rc.d is one report. */
        for (int i = 0; i < 20; i++) {
                g_autofree char *name = g_strdup_printf("etc/nvidia/nvidia-application-profiles-rc.d/%02d", i);
                test_write_file(root, name, "{}");
        }
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        g_assert_cmpuint(run_until_call(&c, 4 * COALESCE_USEC), ==, 0);

        /* An editor's save: write a temporary file elsewhere in /etc/nvidia, rename over the rc file. */
        test_write_file(root, "etc/nvidia/.rc.tmp", "{}");
        (void) run_until_call(&c, 4 * COALESCE_USEC); /* the temporary's name is not one we watch */
        tmp = g_build_filename(root, "etc/nvidia/.rc.tmp", NULL);
        dst = g_build_filename(root, "etc/nvidia/nvidia-application-profiles-rc", NULL);
        g_assert_cmpint(rename(tmp, dst), ==, 0);
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);

        /* A file in rc.d that links elsewhere: its target's directory is watched too. */
        test_write_file(root, "srv/target.json", "{}");
        test_symlink("/srv/target.json", root, "etc/nvidia/nvidia-application-profiles-rc.d/link");
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        {
                const char *with_link[] = { paths[0], paths[1], "/etc/nvidia/nvidia-application-profiles-rc.d/link",
                        NULL };
                set_paths(&c, with_link);
        }
        test_write_file(root, "srv/target.json", "{\"rules\": []}");
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        test_write_file(root, "srv/unrelated", "x");
        g_assert_cmpuint(run_until_call(&c, 4 * COALESCE_USEC), ==, 0);

        rc_watch_free(c.watch);
        sd_event_unref(c.event);
}

/* A user's group that asks for more directories than allowed is refused (-E2BIG) without touching the
 * system group: edits under /etc are still reported, during and after, and dropping the user's group
 * leaves the system's alone. */
/* Whose burst it is: a user's alone only when no other group changed in it (the daemon then re-reads that
 * user's processes only), the first user's cause when another user's change joined it. */
static void test_cause_alone(void)
{
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int fd = test_open_dir(root);
        Ctx c = { 0 };

        g_assert_cmpint(sd_event_new(&c.event), >=, 0);
        g_assert_cmpint(rc_watch_new(c.event, fd, COALESCE_USEC, 500 * 1000, on_changed, &c, &c.watch), ==, 0);

        rc_watch_trigger(c.watch, 1001);
        rc_watch_trigger(c.watch, 1001);
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        g_assert_cmpuint(c.cause, ==, 1001);
        g_assert_true(c.cause_alone);

        rc_watch_trigger(c.watch, 1001);
        rc_watch_trigger(c.watch, 1002);
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        g_assert_cmpuint(c.cause, ==, 1001);
        g_assert_false(c.cause_alone);

        rc_watch_trigger(c.watch, 1001);
        rc_watch_trigger(c.watch, RC_WATCH_GROUP_SYSTEM);
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        g_assert_cmpuint(c.cause, ==, RC_WATCH_GROUP_SYSTEM);
        g_assert_false(c.cause_alone);

        rc_watch_trigger(c.watch, 1002);
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        g_assert_true(c.cause_alone);

        c.watch = rc_watch_free(c.watch);
        sd_event_unref(c.event);
}

static void test_user_group_cannot_disturb_system(void)
{
        g_autofree char *root = test_mkdtemp();
        _cleanup_close_ int fd = -EBADF;
        const char *system_paths[] = { "/etc/nvidia/nvidia-application-profiles-rc", NULL };
        g_autoptr(GPtrArray) user_paths = g_ptr_array_new_with_free_func(g_free);
        const uint64_t user_group = 1000 + 1;
        Ctx c = { 0 };

        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc", "{}");
        for (unsigned i = 0; i < 40; i++) {
                g_autofree char *rel = g_strdup_printf("home/u/d%u", i);
                test_mkdir_p(root, rel);
                g_ptr_array_add(user_paths, g_strdup_printf("/home/u/d%u/nvidia-application-profiles-rc", i));
        }
        g_ptr_array_add(user_paths, NULL);

        fd = test_open_dir(root);
        g_assert_cmpint(sd_event_new(&c.event), >=, 0);
        g_assert_cmpint(rc_watch_new(c.event, fd, COALESCE_USEC, 500 * 1000, on_changed, &c, &c.watch), ==, 0);
        set_paths(&c, system_paths);

        g_assert_cmpint(rc_watch_set_paths(c.watch, user_group, NULL, (char *const *) user_paths->pdata, 8), ==,
                        -E2BIG);
        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc", "{\"rules\": []}");
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);

        rc_watch_drop_group(c.watch, user_group);
        test_write_file(root, "etc/nvidia/nvidia-application-profiles-rc", "{}");
        g_assert_cmpuint(run_until_call(&c, 5 * 1000 * 1000), ==, 1);
        /* The user's directories are no longer watched. */
        test_write_file(root, "home/u/d0/nvidia-application-profiles-rc", "{}");
        g_assert_cmpuint(run_until_call(&c, 4 * COALESCE_USEC), ==, 0);

        rc_watch_free(c.watch);
        sd_event_unref(c.event);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-watch/watch", test_watch);
        g_test_add_func("/rc-watch/cause-alone", test_cause_alone);
        g_test_add_func("/rc-watch/user-group-cannot-disturb-system", test_user_group_cannot_disturb_system);
        return g_test_run();
}
