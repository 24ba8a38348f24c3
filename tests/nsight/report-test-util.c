/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <unistd.h>

#include "report-test-util.h"
#include "test-util.h"

const char *const report_corpus_names[REPORT_CORPUS_N] = {
        REPORT_ARMLETH,
        REPORT_EXTRAP,
        REPORT_ADD3,
        REPORT_SOBEL,
        REPORT_SYSWEA,
};

char *report_corpus_path(const char *name)
{
        g_autofree char *file = g_strconcat("reports/", name, ".ncu-rep", NULL);
        return test_corpus_path(file);
}

NcuReport *report_corpus_load(const char *name)
{
        g_autofree char *path = report_corpus_path(name);
        NcuReportError err;
        NcuReport *r = NULL;
        int fd, k;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                g_error("%s: %s", path, g_strerror(errno));
        k = ncu_report_load_fd(fd, NULL, &r, &err);
        close(fd);
        if (k < 0)
                g_error("%s: offset %" G_GUINT64_FORMAT ": %s (%s)", path, err.offset, err.message, g_strerror(-k));
        return r;
}

json_object *json_get(json_object *o, const char *key)
{
        json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}
