/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The history graph: a GtkWidget that draws with cairo (GTK 4.8 has no GskPath). It keeps a copy of the
 * samples in its window and asks usage_history_columns() for as many columns as its width holds when it
 * draws, so a resize redraws at the new width without waiting for the next sample. */
#include "history-graph.h"
#include "app.h"

/* The app samples once a second: a column narrower than two samples would leave every other column
 * empty, which would read as gaps that are not there. */
#define COLUMN_MIN_USEC (UINT64_C(2) * UINT64_C(1000000))
#define COLUMN_MIN_PX 2

#define HISTORY_TYPE_GRAPH (history_graph_get_type())
G_DECLARE_FINAL_TYPE(HistoryGraph, history_graph, HISTORY, GRAPH, GtkWidget)

struct _HistoryGraph {
        GtkWidget parent_instance;
        HistoryGraphStyle style;
        HistoryGraphUnit unit;
        UsageHistory samples; /* those in [now - window, now] at the last history_graph_set() */
        char *label, *description; /* as last given to the accessible: a screen reader hears changes only */
        uint64_t now_usec, window_usec;
        double max;
};

G_DEFINE_TYPE(HistoryGraph, history_graph, GTK_TYPE_WIDGET)

static void history_graph_finalize(GObject *object)
{
        HistoryGraph *self = HISTORY_GRAPH(object);

        usage_history_done(&self->samples);
        g_free(self->label);
        g_free(self->description);
        G_OBJECT_CLASS(history_graph_parent_class)->finalize(object);
}

static void history_graph_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                int *natural, int *minimum_baseline, int *natural_baseline)
{
        HistoryGraph *self = HISTORY_GRAPH(widget);
        bool full = self->style == HISTORY_GRAPH_FULL;

        /* Small minimums: the page must fit a 360 px window; the natural size is what a wide one gives. */
        if (orientation == GTK_ORIENTATION_HORIZONTAL) {
                *minimum = full ? 120 : 48;
                *natural = full ? 320 : 96;
        } else {
                *minimum = *natural = full ? 96 : 24;
        }
}

static void source_rgba(cairo_t *cr, const GdkRGBA *c, double alpha)
{
        cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha * alpha);
}

static char *format_value(HistoryGraphUnit unit, double value)
{
        if (unit == HISTORY_GRAPH_UNIT_BYTES)
                return format_bytes((guint64) MAX(value, 0));
        return format_percent(value);
}

static double y_of(double value, double y0, double h, double scale)
{
        return y0 + h - MIN(value, scale) / scale * h;
}

/* The line through the known columns [start, end): from the run's left edge through each column's
 * centre to its right edge. */
static void trace_run(cairo_t *cr, const double *columns, size_t start, size_t end, double x0, double y0,
                double column_w, double h, double scale)
{
        cairo_new_path(cr);
        cairo_move_to(cr, x0 + (double) start * column_w, y_of(columns[start], y0, h, scale));
        for (size_t i = start; i < end; i++)
                cairo_line_to(cr, x0 + ((double) i + 0.5) * column_w, y_of(columns[i], y0, h, scale));
        cairo_line_to(cr, x0 + (double) end * column_w, y_of(columns[end - 1], y0, h, scale));
}

static void draw_line(HistoryGraph *self, cairo_t *cr, double x0, double y0, double w, double h, double scale,
                const GdkRGBA *accent)
{
        size_t n = (size_t) MAX(w / COLUMN_MIN_PX, 1);
        g_autofree double *columns = NULL;
        double column_w;

        n = MIN(n, (size_t) MAX(self->window_usec / COLUMN_MIN_USEC, 1));
        columns = g_new(double, n);
        usage_history_columns(&self->samples, self->now_usec, self->window_usec, columns, n);
        column_w = w / (double) n;

        /* Each run of known columns is one filled shape, through the columns' centres and out to the
         * run's edges; an unknown column ends the run, so gaps stay gaps. */
        for (size_t c = 0; c < n;) {
                size_t end;

                if (columns[c] < 0) {
                        c++;
                        continue;
                }
                for (end = c; end < n && columns[end] >= 0; end++)
                        ;
                /* The area under the line, faint; then the line itself over it. */
                trace_run(cr, columns, c, end, x0, y0, column_w, h, scale);
                cairo_line_to(cr, x0 + (double) end * column_w, y0 + h);
                cairo_line_to(cr, x0 + (double) c * column_w, y0 + h);
                cairo_close_path(cr);
                source_rgba(cr, accent, 0.25);
                cairo_fill(cr);
                trace_run(cr, columns, c, end, x0, y0, column_w, h, scale);
                source_rgba(cr, accent, 1);
                cairo_set_line_width(cr, self->style == HISTORY_GRAPH_FULL ? 1.5 : 1);
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
                cairo_stroke(cr);
                c = end;
        }
}

static double window_peak(HistoryGraph *self)
{
        double peak = 0;

        (void) usage_history_stats(&self->samples, self->now_usec, self->window_usec, NULL, &peak);
        return peak;
}

static void history_graph_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
        HistoryGraph *self = HISTORY_GRAPH(widget);
        GtkStyleContext *style = gtk_widget_get_style_context(widget);
        int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
        bool full = self->style == HISTORY_GRAPH_FULL;
        double scale = self->max > 0 ? self->max : window_peak(self);
        double inset = full ? 1 : 0;
        GdkRGBA fg, accent;
        cairo_t *cr;

        if (width <= 2 || height <= 2 || self->window_usec == 0)
                return;
        if (scale <= 0)
                scale = 1;
        gtk_style_context_get_color(style, &fg);
        if (!gtk_style_context_lookup_color(style, "accent_color", &accent))
                accent = fg;

        cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, (float) width, (float) height));
        if (full) {
                g_autofree char *top = format_value(self->unit, scale);
                PangoLayout *layout = gtk_widget_create_pango_layout(widget, top);
                PangoAttrList *attrs = pango_attr_list_new();

                /* Frame and quarter lines in the text colour, faint, so both styles keep their contrast. */
                cairo_set_line_width(cr, 1);
                source_rgba(cr, &fg, 0.25);
                cairo_rectangle(cr, 0.5, 0.5, width - 1, height - 1);
                cairo_stroke(cr);
                source_rgba(cr, &fg, 0.1);
                for (int q = 1; q < 4; q++) {
                        double y = floor(inset + (height - 2 * inset) * q / 4.0) + 0.5;

                        cairo_move_to(cr, inset, y);
                        cairo_line_to(cr, width - inset, y);
                }
                cairo_stroke(cr);

                pango_attr_list_insert(attrs, pango_attr_scale_new(PANGO_SCALE_SMALL));
                pango_layout_set_attributes(layout, attrs);
                pango_attr_list_unref(attrs);
                source_rgba(cr, &fg, 0.6);
                cairo_move_to(cr, inset + 4, inset + 2);
                pango_cairo_show_layout(cr, layout);
                g_object_unref(layout);
        }
        draw_line(self, cr, inset, inset, width - 2 * inset, height - 2 * inset, scale, &accent);
        cairo_destroy(cr);
}

static void history_graph_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
        GTK_WIDGET_CLASS(history_graph_parent_class)->css_changed(widget, change);
        /* The colours come from the style: a switch to the dark style redraws. */
        gtk_widget_queue_draw(widget);
}

static void history_graph_class_init(HistoryGraphClass *klass)
{
        GObjectClass *object_class = G_OBJECT_CLASS(klass);
        GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

        object_class->finalize = history_graph_finalize;
        widget_class->measure = history_graph_measure;
        widget_class->snapshot = history_graph_snapshot;
        widget_class->css_changed = history_graph_css_changed;
        gtk_widget_class_set_css_name(widget_class, "historygraph");
        gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void history_graph_init(HistoryGraph *self)
{
        self->samples = USAGE_HISTORY_INIT;
        gtk_widget_set_focusable(GTK_WIDGET(self), FALSE);
}

GtkWidget *history_graph_new(HistoryGraphStyle style)
{
        HistoryGraph *self = g_object_new(HISTORY_TYPE_GRAPH, NULL);

        self->style = style;
        return GTK_WIDGET(self);
}

void history_graph_set_unit(GtkWidget *graph, HistoryGraphUnit unit)
{
        g_return_if_fail(HISTORY_IS_GRAPH(graph));
        HISTORY_GRAPH(graph)->unit = unit;
        gtk_widget_queue_draw(graph);
}

static char *describe(HistoryGraph *self, const UsageHistory *history, const char *what)
{
        /* The windows offered are whole minutes; a shorter one still reads as "the last minute". */
        guint minutes = (guint) MAX(
                        (self->window_usec + USAGE_HISTORY_WINDOW_1MIN_USEC / 2) / USAGE_HISTORY_WINDOW_1MIN_USEC, 1);
        g_autofree char *current_text = NULL, *peak_text = NULL;
        double current, peak;

        if (!usage_history_stats(history, self->now_usec, self->window_usec, &current, &peak))
                /* TRANSLATORS: a graph's accessible description: what, then the window it shows */
                return g_strdup_printf(ngettext("%s: no samples in the last minute",
                                                       "%s: no samples in the last %u minutes", minutes),
                                what, minutes);
        current_text = format_value(self->unit, current);
        peak_text = format_value(self->unit, peak);
        /* TRANSLATORS: a graph's accessible description: what, the current value, the peak value, the window */
        return g_strdup_printf(ngettext("%s: %s now, peak %s in the last minute",
                                               "%s: %s now, peak %s in the last %u minutes", minutes),
                        what, current_text, peak_text, minutes);
}

void history_graph_set(GtkWidget *graph, const UsageHistory *history, uint64_t now_usec, uint64_t window_usec,
                double max, const char *what)
{
        HistoryGraph *self;
        g_autofree char *description = NULL, *label = NULL;
        uint64_t since = now_usec > window_usec ? now_usec - window_usec : 0;

        g_return_if_fail(HISTORY_IS_GRAPH(graph));
        g_return_if_fail(history);
        g_return_if_fail(window_usec > 0);
        self = HISTORY_GRAPH(graph);

        self->now_usec = now_usec;
        self->window_usec = window_usec;
        self->max = max;
        usage_history_done(&self->samples);
        for (size_t i = 0; i < usage_history_size(history); i++) {
                uint64_t t;
                double v;

                usage_history_get(history, i, &t, &v);
                if (t >= since && t <= now_usec && usage_history_push(&self->samples, t, v) < 0)
                        break; /* out of memory: draw what was copied */
        }

        description = describe(self, history, what);
        /* TRANSLATORS: a graph's accessible name: what it shows the history of */
        label = g_strdup_printf(_("%s history"), what);
        if (g_strcmp0(label, self->label) != 0) {
                gtk_accessible_update_property(GTK_ACCESSIBLE(graph), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
                g_free(self->label);
                self->label = g_steal_pointer(&label);
        }
        if (g_strcmp0(description, self->description) != 0) {
                gtk_accessible_update_property(
                                GTK_ACCESSIBLE(graph), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
                g_free(self->description);
                self->description = g_steal_pointer(&description);
        }
        gtk_widget_queue_draw(graph);
}
