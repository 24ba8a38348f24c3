/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "app.h"
#include "rc-edit.h"
#include "rc-model.h"

/* One setting of a profile, edited with the editor its key's type asks for (the known-keys table,
 * rc-settings.h): a switch for a boolean, a drop-down of the values and their meanings for an
 * enumeration, a spin button within the range for an integer, free text only for a string or an unknown
 * key. The key is chosen from the known keys (sorted, searchable) or typed. What is typed is checked at
 * once (rc_setting_check()) and the error shown under the row. */

/* A new row for key (NULL: the first known key) with value, the rc text (NULL: the type's default);
 * changed is called on every change. The row is a GtkWidget to add to a GtkBox or list. */
GtkWidget *setting_row_new(const char *key, const char *value, GCallback changed, gpointer userdata);

/* The key and the rc text of the value; false (and *ret_message, the reason) when it is not valid. A
 * warning (an unknown key) leaves it valid, with *ret_message set. */
bool setting_row_get(GtkWidget *row, char **ret_key, char **ret_value, char **ret_message);

/* Names a GtkDropDown for screen readers, and its button too (GTK 4.8 leaves that one named by its
 * type, which a screen reader would read out). */
void drop_down_name(GtkWidget *drop_down, const char *name);

/* The rc text of a value as a file holds it (true, 12, "DP-1"): what a row is filled with. */
char *setting_value_text(const RcValue *v);

/* The settings of a profile: setting rows with "Add Setting" and "Remove Last Setting" buttons; changed
 * as for a row. */
GtkWidget *setting_list_new(GCallback changed, gpointer userdata);
void setting_list_add(GtkWidget *list, const char *key, const char *value);
/* A row for each setting of p, whose keys are remembered: a key no row keeps is unset by the edit. */
void setting_list_fill(GtkWidget *list, const RcProfile *p);

/* The edit's settings into settings (RcEditSetting, strings owned by keep), and into unset the keys read
 * that no row keeps; false when a row is not valid (it says why). */
bool setting_list_collect(GtkWidget *list, GPtrArray *keep, GArray *settings, GPtrArray *unset);
