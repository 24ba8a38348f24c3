/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* The nvprofilectl built here ($NVPROFILECTL_BIN, set by meson). */
const char *ctl_bin(void);

/* The line of text that contains needle, or NULL. */
char *line_with(const char *text, const char *needle);

/* nvprofilectl top in a tmux pane of its own server, while serve(userdata) keeps the other side going. */
typedef struct Pane {
        char *socket;
        char *status_file; /* "exit status N" once top ended */
        void (*serve)(void *userdata, gint64 usec);
        void *userdata;
} Pane;

/* tmux -S SOCKET ARGS... of the pane's server: its output. */
char *tmux(Pane *p, const char *first, ...) G_GNUC_NULL_TERMINATED;
/* Whether tmux is installed (the test is skipped when not). */
bool have_tmux(void);
/* Starts "nvprofilectl --bus=ADDRESS top ARGS" in a 100x30 pane. */
void pane_start(Pane *p, const char *dir, const char *bus_address, const char *args,
                void (*serve)(void *userdata, gint64 usec), void *userdata);
/* Serves the other side until the pane shows every one of needles (NULL-terminated) at once; returns the
 * pane. */
char *wait_pane_all(Pane *p, const char *const *needles);
/* The same for one needle. */
char *wait_pane(Pane *p, const char *needle);
/* q, and top's exit status is 0. */
void pane_quit(Pane *p);
void pane_stop(Pane *p);
