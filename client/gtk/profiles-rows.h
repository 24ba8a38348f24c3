/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The rows of the Profiles page (view-profiles.c): a rule with its actions, a profile with its settings,
 * an rc file's problem with "Open file", and a disabled rule. Each row carries the text the search
 * entry matches (profiles_row_matches()). */

#include "app.h"

/* Where a file is, which says who writes it. */
typedef enum ProfilesFileKind {
        PROFILES_FILE_USER, /* the caller's own (~/.nv): written in-process, as the user */
        PROFILES_FILE_SYSTEM, /* /etc/nvidia: written by the daemon, with polkit */
        PROFILES_FILE_DRIVER, /* the driver's /usr/share/nvidia file: never written */
} ProfilesFileKind;

ProfilesFileKind profiles_file_kind(const char *file);

/* A rule as ListRules gives it; index: its 0-based place in its file. up/down: the file and position a
 * Move up/down puts it at (up_file NULL: no move that way). */
typedef struct ProfilesRule {
        char *file;
        guint32 line, column;
        size_t index;
        char *pattern;
        char *profile;
        char *location;
        char *up_file, *down_file;
        size_t up_position, down_position;
} ProfilesRule;

void profiles_rule_free(ProfilesRule *r);

/* The file rules are moved into to disable them: one the driver never reads (README, "Disabling a
 * rule"). Newly allocated. */
char *profiles_disabled_file(void);

/* settings: the searchable "key = value" text of the profile the rule refers to (may be NULL). Takes r. */
GtkWidget *profiles_rule_row_new(App *app, ProfilesRule *r, const char *settings);
/* A rule of the disabled file, with Enable and Remove. Takes r. */
GtkWidget *profiles_disabled_row_new(App *app, ProfilesRule *r);
/* A profile (ListProfiles' entry) and its settings a(sv), with Edit and Remove. */
GtkWidget *profiles_profile_row_new(
                App *app, const char *name, const char *file, guint32 line, guint32 column, GVariant *settings);
/* A problem of file at line:column (0: the whole file), with "Open file". */
GtkWidget *profiles_error_row_new(
                App *app, const char *file, const char *severity, guint32 line, guint32 column, const char *message);

/* A finding of the daemon's doctor (Manager.Doctor) at file:line:column: its kind and sentence, its fix
 * (an nvprofilectl command line, "" for none) shown and offered to copy, with "Open file". */
GtkWidget *profiles_finding_row_new(App *app, const char *file, const char *kind, guint32 line, guint32 column,
                const char *message, const char *fix);

/* "key = value, ..." of settings a(sv). */
char *profiles_settings_text(GVariant *settings, const char *separator);

/* Whether row's searchable text holds every word of query (case-folded); an empty query matches all. */
bool profiles_row_matches(GtkWidget *row, const char *query);
