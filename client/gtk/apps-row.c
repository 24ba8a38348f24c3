/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "apps-row.h"

enum {
        ROW_CHANGED,
        N_ROW_SIGNALS
};
static guint row_signals[N_ROW_SIGNALS];

G_DEFINE_FINAL_TYPE(AppsRow, apps_row, G_TYPE_OBJECT)

static void apps_row_finalize(GObject *object)
{
        AppsRow *r = APPS_ROW(object);

        g_free(r->key);
        g_free(r->name);
        g_free(r->name_key);
        g_clear_object(&r->icon);
        g_free(r->detail);
        g_free(r->device);
        g_free(r->engine);
        g_free(r->profile);
        g_free(r->settings);
        g_free(r->search);
        g_clear_object(&r->children);
        g_clear_pointer(&r->added, g_ptr_array_unref);
        usage_history_done(&r->history);
        g_free(r->comm);
        g_free(r->procname);
        G_OBJECT_CLASS(apps_row_parent_class)->finalize(object);
}

static void apps_row_class_init(AppsRowClass *klass)
{
        G_OBJECT_CLASS(klass)->finalize = apps_row_finalize;
        /* Its figures changed: the cells showing it redraw. */
        row_signals[ROW_CHANGED] = g_signal_new(
                        "changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void apps_row_init(AppsRow *r)
{
        r->busy = -1;
        r->history = USAGE_HISTORY_INIT;
}

void apps_row_set_name(AppsRow *r, const char *name)
{
        g_autofree char *folded = g_utf8_casefold(name, -1);

        g_free(r->name);
        r->name = g_strdup(name);
        g_free(r->name_key);
        r->name_key = g_utf8_collate_key(folded, -1);
}

void apps_row_changed(AppsRow *r)
{
        g_signal_emit(r, row_signals[ROW_CHANGED], 0);
}

static int compare_double(double a, double b)
{
        return (a > b) - (a < b);
}

int apps_row_compare_use(gconstpointer a, gconstpointer b, gpointer data)
{
        const AppsRow *x = a, *y = b;
        int c = compare_double(y->busy, x->busy);

        if (c)
                return c;
        c = (y->vram > x->vram) - (y->vram < x->vram);
        if (c)
                return c;
        return g_strcmp0(x->name_key, y->name_key);
}

int apps_row_compare_name(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_strcmp0(((const AppsRow *) a)->name_key, ((const AppsRow *) b)->name_key);
}

int apps_row_compare_device(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_strcmp0(((const AppsRow *) a)->device, ((const AppsRow *) b)->device);
}

int apps_row_compare_engine(gconstpointer a, gconstpointer b, gpointer data)
{
        return compare_double(((const AppsRow *) a)->busy, ((const AppsRow *) b)->busy);
}

int apps_row_compare_vram(gconstpointer a, gconstpointer b, gpointer data)
{
        guint64 x = ((const AppsRow *) a)->vram, y = ((const AppsRow *) b)->vram;

        return (x > y) - (x < y);
}

int apps_row_compare_profile(gconstpointer a, gconstpointer b, gpointer data)
{
        return g_strcmp0(((const AppsRow *) a)->profile, ((const AppsRow *) b)->profile);
}
