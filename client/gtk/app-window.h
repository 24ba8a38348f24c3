/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "app.h"

/* The application's actions: app.quit (Ctrl+Q), app.hide (hides the window: the watch is released and
 * the app keeps running; activating the application again shows it), app.open-report (Ctrl+O). */
void app_window_install_actions(App *app);
/* Creates the window on first use (and connects to the daemon), then presents it. */
void app_window_present(App *app);
void app_window_free(App *app);
