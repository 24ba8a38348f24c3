/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A graph of one UsageHistory over a chosen window (the last 1, 5 or 10 minutes), drawn with cairo in
 * the widget's own foreground and accent colours, so that it reads in the light and the dark style. A
 * time with no sample (the window was hidden, the daemon was away) stays a gap. Its accessible
 * description states the current and peak values ("gfx: 42.0 % now, peak 80.0 % in the last minute");
 * it is a read-only image, never a Tab stop. */

#include <gtk/gtk.h>
#include <stdint.h>

#include "usage-history.h"

typedef enum HistoryGraphStyle {
        HISTORY_GRAPH_FULL, /* a framed graph with grid lines and the scale's top value (the GPU page) */
        HISTORY_GRAPH_SPARKLINE, /* compact, no frame or text (a column-view cell) */
} HistoryGraphStyle;

/* How values are written in the accessible description and on the scale. */
typedef enum HistoryGraphUnit {
        HISTORY_GRAPH_UNIT_PERCENT, /* the default */
        HISTORY_GRAPH_UNIT_BYTES,
} HistoryGraphUnit;

GtkWidget *history_graph_new(HistoryGraphStyle style);

void history_graph_set_unit(GtkWidget *graph, HistoryGraphUnit unit);

/* Shows history over [now_usec - window_usec, now_usec] (CLOCK_MONOTONIC microseconds, as pushed).
 * max: the top of the scale: 100 for percent, else the region's size, or 0 for the window's own peak.
 * what: the figure's name for the accessible description ("gfx", "VRAM", an application's name). The
 * samples are copied: history may change or go away afterwards. */
void history_graph_set(GtkWidget *graph, const UsageHistory *history, uint64_t now_usec, uint64_t window_usec,
                double max, const char *what);
