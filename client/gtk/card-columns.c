/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "card-columns.h"

#define CARD_TYPE_COLUMNS (card_columns_get_type())
G_DECLARE_FINAL_TYPE(CardColumns, card_columns, CARD, COLUMNS, GtkWidget)

struct _CardColumns {
        GtkWidget parent_instance;
        int min_width, spacing;
        unsigned max_columns;
};

G_DEFINE_TYPE(CardColumns, card_columns, GTK_TYPE_WIDGET)

static unsigned n_cards(GtkWidget *widget)
{
        unsigned n = 0;

        for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
                if (gtk_widget_get_visible(c))
                        n++;
        return n;
}

static unsigned columns_for(CardColumns *self, int width)
{
        unsigned columns = MIN(n_cards(GTK_WIDGET(self)), self->max_columns);

        while (columns > 1 && (width - (int) (columns - 1) * self->spacing) / (int) columns < self->min_width)
                columns--;
        return MAX(columns, 1u);
}

static int column_width(CardColumns *self, int width, unsigned columns)
{
        return MAX((width - (int) (columns - 1) * self->spacing) / (int) columns, 0);
}

/* The height of the cards laid out at width; with heights, each row's. */
static int layout_height(CardColumns *self, int width, GArray *heights)
{
        unsigned columns = columns_for(self, width), i = 0;
        int card_width = column_width(self, width, columns), total = 0, row = 0;

        for (GtkWidget *c = gtk_widget_get_first_child(GTK_WIDGET(self)); c; c = gtk_widget_get_next_sibling(c)) {
                int minimum, natural;

                if (!gtk_widget_get_visible(c))
                        continue;
                gtk_widget_measure(c, GTK_ORIENTATION_VERTICAL, card_width, &minimum, &natural, NULL, NULL);
                row = MAX(row, natural);
                if (++i % columns == 0) {
                        total += row + (total > 0 ? self->spacing : 0);
                        if (heights)
                                g_array_append_val(heights, row);
                        row = 0;
                }
        }
        if (i % columns != 0) {
                total += row + (total > 0 ? self->spacing : 0);
                if (heights)
                        g_array_append_val(heights, row);
        }
        return total;
}

static void card_columns_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                int *natural, int *minimum_baseline, int *natural_baseline)
{
        CardColumns *self = CARD_COLUMNS(widget);

        *minimum = *natural = 0;
        if (orientation == GTK_ORIENTATION_HORIZONTAL) {
                unsigned i = 0;

                /* At least the widest card's minimum (one column); naturally the cards side by side. */
                for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
                        int card_minimum, card_natural;

                        if (!gtk_widget_get_visible(c))
                                continue;
                        gtk_widget_measure(c, orientation, -1, &card_minimum, &card_natural, NULL, NULL);
                        *minimum = MAX(*minimum, card_minimum);
                        if (i++ < self->max_columns)
                                *natural += card_natural + (i > 1 ? self->spacing : 0);
                }
                *natural = MAX(*natural, *minimum);
                return;
        }
        if (for_size < 0) {
                int width_minimum, width_natural;

                /* No width given: as high as at the narrowest, one card under the other. */
                card_columns_measure(
                                widget, GTK_ORIENTATION_HORIZONTAL, -1, &width_minimum, &width_natural, NULL, NULL);
                for_size = width_minimum;
        }
        *minimum = *natural = layout_height(self, for_size, NULL);
}

static void card_columns_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
        CardColumns *self = CARD_COLUMNS(widget);
        g_autoptr(GArray) heights = g_array_new(FALSE, FALSE, sizeof(int));
        unsigned columns, i = 0;
        int card_width, y = 0;

        layout_height(self, width, heights);
        columns = columns_for(self, width);
        card_width = column_width(self, width, columns);
        for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
                unsigned column = i % columns, row = i / columns;
                int row_height;

                if (!gtk_widget_get_visible(c))
                        continue;
                row_height = g_array_index(heights, int, row);
                gtk_widget_size_allocate(c,
                                &(GtkAllocation){ .x = (int) column * (card_width + self->spacing),
                                                .y = y,
                                                .width = card_width,
                                                .height = row_height },
                                -1);
                if (++i % columns == 0)
                        y += row_height + self->spacing;
        }
}

static GtkSizeRequestMode card_columns_get_request_mode(GtkWidget *widget)
{
        return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void card_columns_dispose(GObject *object)
{
        GtkWidget *c;

        while ((c = gtk_widget_get_first_child(GTK_WIDGET(object))))
                gtk_widget_unparent(c);
        G_OBJECT_CLASS(card_columns_parent_class)->dispose(object);
}

static void card_columns_class_init(CardColumnsClass *klass)
{
        GTK_WIDGET_CLASS(klass)->measure = card_columns_measure;
        GTK_WIDGET_CLASS(klass)->size_allocate = card_columns_size_allocate;
        GTK_WIDGET_CLASS(klass)->get_request_mode = card_columns_get_request_mode;
        G_OBJECT_CLASS(klass)->dispose = card_columns_dispose;
}

static void card_columns_init(CardColumns *self)
{
}

GtkWidget *card_columns_new(int min_width, unsigned max_columns, int spacing)
{
        CardColumns *self = g_object_new(CARD_TYPE_COLUMNS, NULL);

        self->min_width = min_width;
        self->max_columns = MAX(max_columns, 1u);
        self->spacing = spacing;
        return GTK_WIDGET(self);
}

void card_columns_append(GtkWidget *columns, GtkWidget *card)
{
        g_return_if_fail(CARD_IS_COLUMNS(columns));
        gtk_widget_set_parent(card, columns);
}

void card_columns_remove(GtkWidget *columns, GtkWidget *card)
{
        g_return_if_fail(CARD_IS_COLUMNS(columns));
        g_return_if_fail(gtk_widget_get_parent(card) == columns);
        gtk_widget_unparent(card);
}
