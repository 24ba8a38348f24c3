/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>

#include "client.h"
#include "run-ctl.h"
#include "test-util.h"

int run_ctl(char **ret_out, char **ret_err, const char *first, ...)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *err = NULL;
        TestCapture capture;
        va_list ap;
        int status;

        g_ptr_array_add(args, g_strdup("nvprofilectl"));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, g_strdup(a));
        va_end(ap);
        g_ptr_array_add(args, NULL);

        test_capture_begin(&capture);
        /* parse_argv() permutes the array, not the strings: args keeps them all to free. */
        {
                g_autofree char **argv = g_memdup2(args->pdata, sizeof(char *) * args->len);
                status = client_run((int) args->len - 1, argv);
        }
        test_capture_end(&capture, ret_out, &err);

        if (*err)
                g_test_message("stderr: %s", err);
        if (ret_err)
                *ret_err = g_steal_pointer(&err);
        return status;
}
