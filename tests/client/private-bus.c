/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>

#include "private-bus.h"
#include "test-bus-daemon.h"
#include "test-util.h"

/* A failed assertion must not leave nvprofilectl behind. */
static void die_with_parent(gpointer userdata)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
}

bool private_bus_start(PrivateBus *b)
{
        pid_t pid;
        char *address;
        int r;

        if (!test_bus_daemon_available())
                return false;
        b->dir = test_mkdtemp();
        g_assert_cmpint(chmod(b->dir, 0755), ==, 0); /* for a client running as nobody */
        r = test_bus_daemon_start(b->dir, TEST_BUS_OPEN, NULL, &pid, &address);
        if (r < 0)
                g_error("dbus-daemon did not start in %s: %s", b->dir, g_strerror(-r));
        b->pid = pid;
        b->address = g_strdup(address);
        free(address);

        /* Ready once a client gets through. */
        for (int i = 0; i < 200; i++) {
                sd_bus *bus = NULL;

                if (sd_bus_new(&bus) >= 0 && sd_bus_set_address(bus, b->address) >= 0 &&
                                sd_bus_set_bus_client(bus, true) >= 0 && sd_bus_start(bus) >= 0) {
                        sd_bus_flush_close_unref(bus);
                        return true;
                }
                sd_bus_unref(bus);
                g_usleep(25000);
        }
        g_error("the private bus did not come up at %s", b->address);
}

void private_bus_stop(PrivateBus *b)
{
        test_bus_daemon_stop(b->pid);
        g_spawn_close_pid(b->pid);
        g_free(b->dir);
        g_free(b->address);
}

int private_bus_run_ctl(const PrivateBus *b, void (*serve)(void *userdata), void *userdata, char **ret_out,
                char **ret_err, const char *first, ...)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GError) error = NULL;
        GString *out = g_string_new(NULL), *err = g_string_new(NULL);
        gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        int out_fd, err_fd, status;
        va_list ap;
        GPid pid;

        if (!bin)
                g_error("NVPROFILECTL_BIN is not set; run this test through meson");
        g_ptr_array_add(argv, g_strdup(bin));
        g_ptr_array_add(argv, g_strdup_printf("--bus=%s", b->address));
        va_start(ap, first);
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(argv, g_strdup(a));
        va_end(ap);
        g_ptr_array_add(argv, NULL);

        g_spawn_async_with_pipes(NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, die_with_parent, NULL,
                        &pid, NULL, &out_fd, &err_fd, &error);
        g_assert_no_error(error);
        g_assert_cmpint(fcntl(out_fd, F_SETFL, O_NONBLOCK), ==, 0);
        g_assert_cmpint(fcntl(err_fd, F_SETFL, O_NONBLOCK), ==, 0);

        for (bool done = false;;) {
                char buf[4096];
                ssize_t n;

                /* After the child ended, once more: what was left in the pipes. */
                while ((n = read(out_fd, buf, sizeof(buf))) > 0)
                        g_string_append_len(out, buf, n);
                while ((n = read(err_fd, buf, sizeof(buf))) > 0)
                        g_string_append_len(err, buf, n);
                if (done)
                        break;
                serve(userdata);
                pid_t r = waitpid(pid, &status, WNOHANG);
                g_assert_cmpint(r, >=, 0);
                done = r == pid;
                if (!done && g_get_monotonic_time() >= deadline)
                        g_error("nvprofilectl did not finish");
        }
        close(out_fd);
        close(err_fd);
        g_spawn_close_pid(pid);
        if (err->len > 0)
                g_test_message("nvprofilectl stderr: %s", err->str);
        *ret_out = g_string_free(out, FALSE);
        if (ret_err)
                *ret_err = g_string_free(err, FALSE);
        else
                g_string_free(err, TRUE);
        g_assert_true(WIFEXITED(status));
        return WEXITSTATUS(status);
}
