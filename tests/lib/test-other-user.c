/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include <sys/stat.h>

#include "test-other-user.h"

char *test_copy_for_other_users(const char *dir, const char *file)
{
        g_autofree char *base = g_path_get_basename(file), *copy_dir = g_build_filename(dir, "for-others", NULL);
        char *copy = g_build_filename(copy_dir, base, NULL);
        g_autofree char *contents = NULL;
        g_autoptr(GError) error = NULL;
        gsize len;

        if (g_file_test(copy, G_FILE_TEST_EXISTS))
                return copy;
        g_assert_cmpint(g_mkdir_with_parents(copy_dir, 0755), ==, 0);
        g_assert_cmpint(chmod(copy_dir, 0755), ==, 0);
        g_file_get_contents(file, &contents, &len, &error);
        g_assert_no_error(error);
        g_file_set_contents(copy, contents, (gssize) len, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(copy, 0755), ==, 0);
        return copy;
}

char **test_environ_for_other_users(const char *dir)
{
        char **env = g_get_environ();
        const char *lsan = g_environ_getenv(env, "LSAN_OPTIONS");
        g_auto(GStrv) options = NULL;
        g_autofree char *joined = NULL;

        if (!lsan || !strstr(lsan, "suppressions="))
                return env;
        options = g_strsplit(lsan, ":", -1);
        for (char **o = options; *o; o++)
                if (g_str_has_prefix(*o, "suppressions=")) {
                        g_autofree char *copy = test_copy_for_other_users(dir, *o + strlen("suppressions="));

                        g_free(*o);
                        *o = g_strconcat("suppressions=", copy, NULL);
                }
        joined = g_strjoinv(":", options);
        return g_environ_setenv(env, "LSAN_OPTIONS", joined, TRUE);
}
