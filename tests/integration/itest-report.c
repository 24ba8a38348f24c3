/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest-report.h"
#include "macro.h"
#include "test-bus.h"
#include "test-util.h"

int itest_open_corpus(const char *rel)
{
        g_autofree char *path = test_corpus_path(rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                g_error("%s: %s", path, g_strerror(errno));
        return fd;
}

char *itest_load_report(sd_bus *bus, int fd, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        const char *path;
        char *ret;

        if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "LoadReport", error, &reply, "h",
                            fd) < 0)
                return NULL;
        g_assert_cmpint(sd_bus_message_read(reply, "o", &path), >, 0);
        ret = g_strdup(path);
        sd_bus_message_unref(reply);
        return ret;
}

/* A memfd holding data, at offset 0. */

int itest_report_memfd_with(const void *data, size_t size)
{
        int fd = memfd_create("report", MFD_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(write(fd, data, size), ==, (ssize_t) size);
        g_assert_cmpint(lseek(fd, 0, SEEK_SET), ==, 0);
        return fd;
}

/* The daemon's children: its workers. */
unsigned itest_report_count_children(pid_t parent)
{
        g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
        const char *name;
        unsigned n = 0;

        g_assert_nonnull(dir);
        while ((name = g_dir_read_name(dir))) {
                g_autofree char *path = NULL, *stat = NULL;
                const char *p;
                int ppid;

                if (!g_ascii_isdigit(name[0]))
                        continue;
                path = g_strdup_printf("/proc/%s/stat", name);
                if (!g_file_get_contents(path, &stat, NULL, NULL))
                        continue;
                p = strrchr(stat, ')');
                if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == parent)
                        n++;
        }
        return n;
}

void itest_report_wait_children(pid_t parent, unsigned n)
{
        gint64 deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;

        while (itest_report_count_children(parent) != n) {
                if (g_get_monotonic_time() > deadline)
                        g_error("the daemon has %u children, not %u", itest_report_count_children(parent), n);
                g_usleep(20 * 1000);
        }
}

int itest_report_on_async_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        AsyncReply *a = userdata;

        a->done = true;
        if (sd_bus_message_is_method_error(m, NULL)) {
                a->error_name = g_strdup(sd_bus_message_get_error(m)->name);
                a->error_message = g_strdup(sd_bus_message_get_error(m)->message);
        }
        return 0;
}

void itest_report_process_until(sd_bus *bus, const bool *done)
{
        while (!*done) {
                int k = sd_bus_process(bus, NULL);
                g_assert_cmpint(k, >=, 0);
                if (k == 0)
                        g_assert_cmpint(sd_bus_wait(bus, 10 * G_USEC_PER_SEC), >=, 0);
        }
}

/* The cases count the daemon's children as its reports' workers: without a spare worker (tested on its own,
 * spare-worker). */
void itest_report_start_daemon(ITest *t, const char *fake_env, const char *config)
{
        g_autofree char *text = NULL;

        if (fake_env)
                g_assert_true(g_setenv("NVPROFILED_REPORT_WORKER", test_env_or_fail(fake_env), TRUE));
        if (config && g_str_has_prefix(config, "[Reports]\n"))
                config += strlen("[Reports]\n");
        text = g_strconcat("[Reports]\nSpareWorker=no\n", strempty(config), NULL);
        itest_setup(t);
        itest_use_fixture_proc(t);
        itest_start_daemon(t, text);
}

int itest_report_export_json(sd_bus *bus, const char *path, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        int fd, k;

        k = sd_bus_call_method(bus, BUS_NAME, path, BUS_REPORT_INTERFACE, "ExportJson", error, &reply, NULL);
        if (k < 0)
                return k;
        g_assert_cmpint(sd_bus_message_read(reply, "h", &fd), >, 0);
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        sd_bus_message_unref(reply);
        return fd;
}

/* Two JSON texts of the same document. */
void itest_assert_same_json(const char *x, const char *y)
{
        struct json_object *a = json_tokener_parse(x), *b = json_tokener_parse(y);

        if (!a || !b)
                g_error("not JSON: %.200s | %.200s", x, y);
        g_assert_true(json_object_equal(a, b));
        json_object_put(a);
        json_object_put(b);
}

/* The whole content of a memfd the daemon returned: the caller's descriptor is read-only, and the memfd
 * sealed against writes, growth and further seals by anyone (not against shrinking: the daemon empties it
 * when its caller leaves the bus, so that nobody keeps its pages charged to nobody). */
char *itest_read_sealed_memfd(sd_bus_message *reply, gsize *ret_size)
{
        GString *buf = g_string_new(NULL);
        char chunk[65536];
        int fd, seals;
        ssize_t k;

        g_assert_cmpint(sd_bus_message_read(reply, "h", &fd), >, 0);
        seals = fcntl(fd, F_GET_SEALS);
        g_assert_cmpint(seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), ==,
                        F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SEAL);
        g_assert_cmpint(fcntl(fd, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
        g_assert_cmpint(ftruncate(fd, 0), <, 0);
        while ((k = read(fd, chunk, sizeof(chunk))) > 0)
                g_string_append_len(buf, chunk, k);
        g_assert_cmpint(k, ==, 0);
        *ret_size = buf->len;
        return g_string_free(buf, false);
}
