/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest-report.h"
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
