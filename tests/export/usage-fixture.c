/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <unistd.h>

#include "test-util.h"
#include "usage-fixture.h"

void usage_fixture_gpu_process(
                ITest *t, pid_t pid, const char *comm, const char *exe, const char *cgroup, const char *fdinfo)
{
        g_autofree char *dir = NULL;

        itest_fixture_process(t, pid, 1000, getuid(), comm, exe, NULL);
        dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        test_symlink("/dev/null", dir, "fd/3");
        test_write_file(dir, "fdinfo/3", fdinfo);
        test_write_file(dir, "cgroup", cgroup);
}

void usage_fixture_set_fdinfo(ITest *t, pid_t pid, const char *fdinfo)
{
        g_autofree char *dir = g_strdup_printf("%s/%i", t->proc, (int) pid);
        g_autofree char *tmp = g_build_filename(dir, "fdinfo", ".3.new", NULL);
        g_autofree char *path = g_build_filename(dir, "fdinfo", "3", NULL);

        g_assert_true(g_file_set_contents(tmp, fdinfo, -1, NULL));
        g_assert_cmpint(rename(tmp, path), ==, 0);
}
