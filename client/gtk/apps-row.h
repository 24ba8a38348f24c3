/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One row of the Applications page's model: an application (the daemon's group) or one of its processes,
 * with the figures its cells show and sort by. The view updates the fields in place on each sample and
 * then says so (apps_row_changed()): the cells bound to it show them anew. */

#include <gio/gio.h>
#include <stdbool.h>

#include "usage-history.h"

#define APPS_TYPE_ROW (apps_row_get_type())
G_DECLARE_FINAL_TYPE(AppsRow, apps_row, APPS, ROW, GObject)

struct _AppsRow {
        GObject parent;
        struct _AppsRow *group; /* a process's application (not a reference); NULL for an application */
        char *key; /* application: the daemon's group key; process: "pid start_time" */
        char *name, *name_key; /* name_key: for sorting (g_utf8_collate_key of the folded name) */
        GIcon *icon;
        char *detail; /* the unit or id the name came from: the tooltip */
        char *device;
        char *engine; /* "gfx 40.0 %": the busiest engine */
        double busy; /* its percent; < 0: not known */
        guint64 vram;
        bool has_vram;
        char *profile, *settings;
        char *search; /* application: its folded name, key, detail and commands, which the search matches; process: its
                         command */
        guint processes; /* application: how many */
        bool named; /* application: its name looked up */
        bool seen;

        /* application */
        GListStore *children; /* AppsRow processes */
        GPtrArray *added; /* processes appended on this update, spliced in at its end */
        UsageHistory history; /* the busiest engine's percent at each sample */

        /* process */
        guint32 pid;
        guint64 start_time;
        char *comm;
        char *procname; /* the executable's name, as rules match it (GetProcess's facts); NULL until known */
        guint64 settings_generation; /* ConfigGeneration the settings were read at; 0: never */
        bool fetching;
};

void apps_row_set_name(AppsRow *r, const char *name);
/* Emits "changed": its figures changed. */
void apps_row_changed(AppsRow *r);

/* Sorters' comparisons (GCompareDataFunc). By use: the busiest engine, then VRAM, both descending, then
 * by name. */
int apps_row_compare_use(gconstpointer a, gconstpointer b, gpointer data);
int apps_row_compare_name(gconstpointer a, gconstpointer b, gpointer data);
int apps_row_compare_device(gconstpointer a, gconstpointer b, gpointer data);
int apps_row_compare_engine(gconstpointer a, gconstpointer b, gpointer data);
int apps_row_compare_vram(gconstpointer a, gconstpointer b, gpointer data);
int apps_row_compare_profile(gconstpointer a, gconstpointer b, gpointer data);
