/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "system-text.h"

#define SYSTEM_TEXTS_MAX 2u

void system_text_done(SystemText *t)
{
        g_clear_pointer(&t->text, g_free);
        t->size = 0;
}

typedef struct SystemRead {
        App *app;
        const char *paths[SYSTEM_TEXTS_MAX];
        SystemText *out[SYSTEM_TEXTS_MAX];
        size_t n, next;
        SystemTextsReady ready;
        gpointer userdata;
} SystemRead;

static void read_next(SystemRead *r);

static void on_read_system_file(GObject *source, GAsyncResult *result, gpointer data)
{
        SystemRead *r = data;
        g_autoptr(GError) error = NULL;
        g_autofree char *text = NULL;
        gboolean exists = FALSE;
        SystemText *out = r->out[r->next];

        if (!nvp_profiles_call_read_system_file_finish(NVP_PROFILES(source), &exists, &text, result, &error)) {
                r->ready(error, r->userdata);
                g_free(r);
                return;
        }
        system_text_done(out);
        if (exists) {
                /* The daemon sends UTF-8 without NUL: the string is the file. */
                out->size = strlen(text);
                out->text = g_steal_pointer(&text);
        }
        if (++r->next < r->n) {
                read_next(r);
                return;
        }
        r->ready(NULL, r->userdata);
        g_free(r);
}

static void read_next(SystemRead *r)
{
        nvp_profiles_call_read_system_file(r->app->profiles, r->paths[r->next], G_DBUS_CALL_FLAGS_NONE, -1,
                        r->app->cancellable, on_read_system_file, r);
}

void system_texts_read(App *app, const char *const *paths, SystemText *const *out, size_t n, SystemTextsReady ready,
                gpointer userdata)
{
        SystemRead *r;

        g_return_if_fail(n > 0 && n <= SYSTEM_TEXTS_MAX);

        r = g_new0(SystemRead, 1);
        *r = (SystemRead){ .app = app, .n = n, .ready = ready, .userdata = userdata };
        for (size_t i = 0; i < n; i++) {
                r->paths[i] = paths[i];
                r->out[i] = out[i];
        }
        read_next(r);
}
