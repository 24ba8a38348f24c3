/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include <sys/uio.h>

#include "journal-capture.h"

int __wrap_sd_journal_sendv_with_location(
                const char *file, const char *line, const char *func, const struct iovec *iov, int n);

GPtrArray *journal_capture_entries;

static void ensure_entries(void)
{
        if (!journal_capture_entries)
                journal_capture_entries = g_ptr_array_new_with_free_func((GDestroyNotify) g_strfreev);
}

void journal_capture_clear(void)
{
        ensure_entries();
        g_ptr_array_set_size(journal_capture_entries, 0);
}

int __wrap_sd_journal_sendv_with_location(
                const char *file, const char *line, const char *func, const struct iovec *iov, int n)
{
        GStrv e = g_new0(char *, (size_t) n + 1);

        ensure_entries();
        for (int i = 0; i < n; i++)
                e[i] = g_strndup(iov[i].iov_base, iov[i].iov_len);
        g_ptr_array_add(journal_capture_entries, e);
        return 0;
}

const char *journal_field(const char *const *e, const char *name)
{
        size_t len = strlen(name);

        for (; *e; e++)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return *e + len + 1;
        return NULL;
}

const char *const *journal_entry_with(const char *message_id)
{
        ensure_entries();
        for (guint i = 0; i < journal_capture_entries->len; i++) {
                const char *const *e = journal_capture_entries->pdata[i];
                if (g_strcmp0(journal_field(e, "MESSAGE_ID"), message_id) == 0)
                        return e;
        }
        return NULL;
}
