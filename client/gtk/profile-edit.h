/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "app.h"
#include "rc-edit.h"

/* Every change of an rc file the app makes goes through here: previewed (the diff of the file and the
 * running processes whose settings change), written only when the user applies it, then offered for
 * Undo until the next change. A user's own file is edited in-process, as the user, by the rc edit
 * transaction nvprofilectl and the daemon run (rc-edit-transaction.h); a system file by the daemon's
 * Profiles methods (a dry run for the preview, polkit for the write). After a write the profiles view
 * is reloaded. */

/* Called once the edit is written (written true) or the preview is closed without writing. */
typedef void (*ProfileEditDone)(bool written, gpointer userdata);

/* Previews edit of file (system: through the daemon) and writes it when the user applies. */
void profile_edit_run(App *app, const char *file, bool system, const RcEdit *edit, const char *what);

/* Moves rule index of file to position (SIZE_MAX: the end) of destination (NULL: within file), through
 * the same preview, write and Undo (a move into another file writes and undoes both files). */
void profile_edit_move(App *app, const char *file, bool system, size_t index, const char *destination, size_t position,
                const char *what);

/* The same, the preview transient for parent (NULL: the app's window), and done told how it ended. */
void profile_edit_run_full(App *app, GtkWindow *parent, const char *file, bool system, const RcEdit *edit,
                const char *what, ProfileEditDone done, gpointer userdata);

/* A ProfileEdit done callback for an editor window: closes it (userdata, a reference handed over) once
 * the edit is written, and drops the reference. */
void profile_edit_close_when_written(bool written, gpointer window);

/* Parses text (NULL: the file does not exist, -ENOENT) of the rc file path as the app reads the files it
 * edits: -EBADMSG when it does not load. */
int profile_edit_parse(const char *path, const char *text, size_t size, RcFile **ret);

/* Reads and parses path so, with the user's own access: the user's own files (a system file is read
 * through the daemon, system-text.h). */
int profile_edit_read_file(const char *path, RcFile **ret);

/* Reverts the last change written, if the file still holds exactly what it wrote; else says so. */
void profile_edit_undo(App *app);

/* dialog-rule.c: adds a rule to file (rule_id NULL; procname/commname prefill its pattern) or edits the
 * rule rule_id of file in place. file NULL: the user's own default file. */
void rule_dialog_show(App *app, const char *file, const char *rule_id, const char *procname, const char *commname);

/* dialog-profile.c: adds a profile to file (name NULL) or edits the settings of the profile name. */
void profile_dialog_show(App *app, const char *file, const char *name);

/* The app's actions of profile editing: undo-profile-edit (Ctrl+Z), edit-rule (FILE, RULE_ID),
 * edit-profile (FILE, NAME; "" a new profile), remove-profile (FILE, NAME). */
void profile_edit_install_actions(App *app);

/* The user's own file an edit goes into when none is named (rc.d/RC_EDIT_DEFAULT_FILE_NAME). */
char *profile_edit_default_file(void);

/* Whether path is one of the system's files (the daemon writes it), not the user's own. */
bool profile_edit_file_is_system(const char *path);
