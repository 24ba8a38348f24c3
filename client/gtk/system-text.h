/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "app.h"

/* The system's rc files as the daemon reads them for the user (Profiles.ReadSystemFile): below the
 * daemon's root, which need not be this machine's / (the demo and the tests run it with --root), and with
 * the user's own access. The app never reads a system file by its path. */

typedef struct SystemText {
        char *text; /* NULL: the file does not exist */
        size_t size;
} SystemText;

void system_text_done(SystemText *t);

/* Called once every file is read (error NULL) or a read failed (error: why, the app's cancellable's
 * G_IO_ERROR_CANCELLED included). */
typedef void (*SystemTextsReady)(const GError *error, gpointer userdata);

/* Reads the n (1 or 2) files paths into out, one ReadSystemFile call after the other, then calls ready.
 * paths and out must stay valid until then. */
void system_texts_read(App *app, const char *const *paths, SystemText *const *out, size_t n, SystemTextsReady ready,
                gpointer userdata);
