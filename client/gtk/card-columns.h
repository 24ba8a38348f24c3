/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Cards in up to max_columns columns of equal width, as many as the width gives room for at min_width
 * each (one column on a narrow window), row by row, each row as high as its highest card. Unlike
 * GtkFlowBox it is no list: it takes no focus and keeps none, so Tab goes through what its cards hold. */

#include <gtk/gtk.h>

GtkWidget *card_columns_new(int min_width, unsigned max_columns, int spacing);
void card_columns_append(GtkWidget *columns, GtkWidget *card);
void card_columns_remove(GtkWidget *columns, GtkWidget *card);
