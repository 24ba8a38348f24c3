/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one way the app changes an rc file (profile-edit.h): preview, write, Undo. The edit itself is the
 * rc edit transaction's (user files, here, as the user) or the daemon's (system files: its Profiles
 * methods, a dry run for the preview); nothing here edits text. */
#include <stdint.h>
#include <stdlib.h>

#include "profile-edit.h"
#include "rc-edit-transaction.h"
#include "rc-rule-id.h"
#include "rc-searchpath.h"
#include "system-text.h"

#define EDIT_FLAG_DRY_RUN G_GUINT64_CONSTANT(1)
#define UNDO_TOAST_SECONDS 20u

/* A deep copy of an RcEdit: the caller's strings do not outlive its call. */
typedef struct EditCopy {
        RcEdit edit;
        GPtrArray *strings; /* owns every string the copy points to */
        RcEditSetting *settings;
        char **unset;
} EditCopy;

static const char *keep(EditCopy *c, const char *s)
{
        char *copy;

        if (!s)
                return NULL;
        copy = g_strdup(s);
        g_ptr_array_add(c->strings, copy);
        return copy;
}

static void edit_copy_init(EditCopy *c, const RcEdit *edit)
{
        c->strings = g_ptr_array_new_with_free_func(g_free);
        c->edit = *edit;
        c->edit.pattern = keep(c, edit->pattern);
        c->edit.profile = keep(c, edit->profile);
        c->edit.rule_text = keep(c, edit->rule_text);
        c->settings = g_new0(RcEditSetting, edit->n_settings + 1);
        for (size_t i = 0; i < edit->n_settings; i++)
                c->settings[i] = (RcEditSetting){ keep(c, edit->settings[i].key), keep(c, edit->settings[i].value) };
        c->edit.settings = c->settings;
        c->unset = g_new0(char *, edit->n_unset + 1);
        for (size_t i = 0; i < edit->n_unset; i++)
                c->unset[i] = g_strdup(edit->unset[i]);
        c->edit.unset = c->unset;
}

static void edit_copy_done(EditCopy *c)
{
        g_clear_pointer(&c->strings, g_ptr_array_unref);
        g_clear_pointer(&c->settings, g_free);
        g_clear_pointer(&c->unset, g_strfreev);
}

/* A file the last change wrote: it goes back to previous only while it holds written. */
typedef struct UndoFile {
        char *file;
        char *written;
        size_t written_size;
        char *previous; /* NULL: the change created the file */
        size_t previous_size;
} UndoFile;

/* The last change written, for Undo: one file, or two for a move into another file. */
typedef struct UndoRecord {
        bool system;
        size_t n_files, next; /* next: the file a system revert waits on */
        UndoFile files[2];
        char *what;
        App *app;
} UndoRecord;

static UndoRecord *last_change;

static void undo_record_free(UndoRecord *u)
{
        if (!u)
                return;
        for (size_t i = 0; i < u->n_files; i++) {
                g_free(u->files[i].file);
                g_free(u->files[i].written);
                g_free(u->files[i].previous);
        }
        g_free(u->what);
        g_free(u);
}

typedef struct ProfileEdit {
        App *app;
        GtkWindow *window;
        char *file, *what;
        bool system;
        EditCopy edit;
        ProfileEditDone done;
        gpointer userdata;
        bool written;

        GtkLabel *message, *changes;
        GtkTextBuffer *diff;
        GtkWidget *apply_button, *content;
        bool previewed, busy, writing;

        RcEditTransaction *transaction; /* a user's file */
        char *rule_address; /* a system file's rule, as the daemon names it: its id */
        SystemText previous, now; /* a system file before the write and as written, for Undo */
        char *written_diff; /* the daemon's diff of the write */

        /* A move of rule edit.index to position of destination (NULL: within file). */
        bool move;
        char *destination;
        size_t position;
        SystemText destination_previous, destination_now; /* a system destination, likewise */
} ProfileEdit;

static void profile_edit_free(gpointer data)
{
        ProfileEdit *p = data;

        if (p->done)
                p->done(p->written, p->userdata);
        g_free(p->file);
        g_free(p->what);
        edit_copy_done(&p->edit);
        if (p->transaction) {
                rc_edit_transaction_done(p->transaction);
                g_free(p->transaction);
        }
        g_free(p->rule_address);
        system_text_done(&p->previous);
        system_text_done(&p->now);
        g_free(p->written_diff);
        g_free(p->destination);
        system_text_done(&p->destination_previous);
        system_text_done(&p->destination_now);
        g_free(p);
}

char *profile_edit_default_file(void)
{
        g_autofree char *dir = NULL;

        if (rc_entry_path(RC_ENTRY_USER_DIR, g_get_home_dir(), NULL, &dir) < 0)
                return g_build_filename(g_get_home_dir(), ".nv", "nvidia-application-profiles-rc.d",
                                RC_EDIT_DEFAULT_FILE_NAME, NULL);
        return g_strdup_printf("%s/%s", dir, RC_EDIT_DEFAULT_FILE_NAME);
}

bool profile_edit_file_is_system(const char *path)
{
        g_autofree char *prefix = g_strdup_printf("%s/", g_get_home_dir());

        return !g_str_has_prefix(path, prefix);
}

static void say(ProfileEdit *p, const char *text)
{
        gtk_label_set_text(p->message, text ? text : "");
}

static void update_buttons(ProfileEdit *p)
{
        gtk_widget_set_sensitive(p->apply_button, p->previewed && !p->busy && !p->writing);
}

static void show_changes(ProfileEdit *p, GVariant *changes)
{
        GString *out = g_string_new(NULL);
        const char *comm, *key, *before, *after;
        guint32 pid, uid;
        GVariantIter iter;

        g_variant_iter_init(&iter, changes);
        while (g_variant_iter_next(&iter, "(uu&s&s&s&s)", &pid, &uid, &comm, &key, &before, &after))
                g_string_append_printf(out, "%s%u %s: %s = %s (%s)", out->len ? "\n" : "", pid, comm, key,
                                *after ? after : _("unset"), *before ? before : _("new"));
        if (!out->len)
                g_string_append(out, _("No running process of yours would change."));
        gtk_label_set_text(p->changes, out->str);
        g_string_free(out, TRUE);
}

static void preview_ready(ProfileEdit *p, const char *diff, GVariant *changes)
{
        gtk_text_buffer_set_text(p->diff, diff, -1);
        show_changes(p, changes);
        p->previewed = true;
        update_buttons(p);
        say(p, _("Check the change below, then apply it."));
}

static void say_error(ProfileEdit *p, const GError *error)
{
        g_autofree char *message = app_error_message(error);

        say(p, message);
}

static bool error_is_refusal(const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);

        return g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED) ||
                        g_strcmp0(name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0;
}

/* A write refused by polkit says so, and that the file is as it was: Apply may be tried again. */
static void say_write_error(ProfileEdit *p, const GError *error)
{
        g_autofree char *message = app_error_message(error);
        g_autofree char *text = NULL;

        if (error_is_refusal(error))
                text = g_strdup_printf(
                                _("You are not allowed to write the system's file: %s Nothing was written."), message);
        say(p, text ? text : message);
}

static char *file_read_or_null(const char *path, size_t *ret_size)
{
        char *text = NULL;
        gsize size = 0;

        if (!g_file_get_contents(path, &text, &size, NULL))
                return NULL;
        *ret_size = size;
        return text;
}

/* The toast of a change written, with its Undo. */
static void on_undo_clicked(AdwToast *toast, gpointer data)
{
        profile_edit_undo(data);
}

static void toast_with_undo(App *app, const char *text)
{
        AdwToast *toast = adw_toast_new(text);

        adw_toast_set_button_label(toast, _("_Undo"));
        adw_toast_set_timeout(toast, UNDO_TOAST_SECONDS);
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH);
        g_signal_connect(toast, "button-clicked", G_CALLBACK(on_undo_clicked), app);
        adw_toast_overlay_add_toast(app->toasts, toast);
}

static UndoRecord *undo_record_new(ProfileEdit *p)
{
        UndoRecord *u = g_new0(UndoRecord, 1);

        u->system = p->system;
        u->what = g_strdup(p->what);
        return u;
}

static void undo_record_add(UndoRecord *u, const char *file, const char *written, size_t written_size,
                const char *previous, size_t previous_size)
{
        UndoFile *f;

        g_assert(u->n_files < G_N_ELEMENTS(u->files));
        f = &u->files[u->n_files++];
        f->file = g_strdup(file);
        f->written = g_memdup2(written, written_size + 1);
        f->written_size = written_size;
        f->previous = previous ? g_memdup2(previous, previous_size + 1) : NULL;
        f->previous_size = previous_size;
}

static void remember_change(UndoRecord *u)
{
        undo_record_free(last_change);
        last_change = u;
}

static void written(ProfileEdit *p, bool undoable)
{
        g_autofree char *text = g_strdup_printf(_("%s: written to %s."), p->what, p->file);

        p->written = true;
        if (undoable)
                toast_with_undo(p->app, text);
        else
                app_toast(p->app, text);
        if (p->app->profiles_view)
                profiles_view_reload(p->app->profiles_view);
        gtk_window_close(p->window);
}

/* The system's files: the daemon's method for the edit, its arguments, a dry run or the write. */
static const char *system_method(ProfileEdit *p, guint64 flags, GVariant **ret_args)
{
        const RcEdit *e = &p->edit.edit;
        GVariantBuilder settings;

        g_variant_builder_init(&settings, G_VARIANT_TYPE("a(ss)"));
        for (size_t i = 0; i < e->n_settings; i++)
                g_variant_builder_add(&settings, "(ss)", e->settings[i].key, e->settings[i].value);
        if (p->move) {
                g_variant_builder_clear(&settings);
                *ret_args = g_variant_new("(ssit)", p->rule_address, p->destination ? p->destination : "",
                                p->position == SIZE_MAX ? -1 : (gint32) p->position, flags);
                return "MoveRule";
        }
        switch (e->operation) {
        case RC_EDIT_ADD_RULE:
                *ret_args = g_variant_new("(sissa(ss)t)", p->file, e->index == SIZE_MAX ? -1 : (gint32) e->index,
                                e->pattern ? e->pattern : "", e->profile ? e->profile : "", &settings, flags);
                return "AddRule";
        case RC_EDIT_UPDATE_RULE:
                *ret_args = g_variant_new("(sssa(ss)^ast)", p->rule_address, e->pattern ? e->pattern : "",
                                e->profile ? e->profile : "", &settings, e->unset, flags);
                return "UpdateRule";
        case RC_EDIT_REMOVE_RULE:
                g_variant_builder_clear(&settings);
                *ret_args = g_variant_new("(st)", p->rule_address, flags);
                return "RemoveRule";
        case RC_EDIT_ADD_PROFILE:
                *ret_args = g_variant_new("(ssa(ss)t)", p->file, e->profile, &settings, flags);
                return "AddProfile";
        case RC_EDIT_UPDATE_PROFILE:
                *ret_args = g_variant_new("(ssa(ss)^ast)", p->file, e->profile, &settings, e->unset, flags);
                return "UpdateProfile";
        case RC_EDIT_REMOVE_PROFILE:
                g_variant_builder_clear(&settings);
                *ret_args = g_variant_new("(sst)", p->file, e->profile, flags);
                return "RemoveProfile";
        case _RC_EDIT_OPERATION_MAX:
                break;
        }
        g_assert_not_reached();
}

/* Reads the system files path and (if set) second_path as the daemon sees them, into *out and *second_out,
 * then calls done (error: why a read failed), the window held meanwhile. */
typedef void (*SystemReadDone)(ProfileEdit *p, const GError *error);

typedef struct SystemRead {
        ProfileEdit *p;
        SystemReadDone done;
        const char *paths[2];
        SystemText *out[2];
} SystemRead;

static void on_system_texts_read(const GError *error, gpointer userdata)
{
        SystemRead *r = userdata;
        ProfileEdit *p = r->p;

        if (!error || !app_error_is_cancelled(error))
                r->done(p, error);
        g_object_unref(p->window);
        g_free(r);
}

static void read_system_files(ProfileEdit *p, const char *path, SystemText *out, const char *second_path,
                SystemText *second_out, SystemReadDone done)
{
        SystemRead *r = g_new0(SystemRead, 1);

        *r = (SystemRead){ .p = p, .done = done, .paths = { path, second_path }, .out = { out, second_out } };
        g_object_ref(p->window);
        system_texts_read(p->app, r->paths, r->out, second_path ? 2 : 1, on_system_texts_read, r);
}

/* After a write: Undo needs what was written, the files as the daemon reads them now, and is offered only
 * if the daemon's diff of the write says they are this edit's result (else someone wrote in between, and
 * Undo would take back theirs). */
static void on_written_read(ProfileEdit *p, const GError *error)
{
        g_autofree char *check = NULL, *destination_check = NULL, *joined = NULL;
        bool undoable = !error && p->now.text &&
                        rc_edit_diff(p->file, p->previous.text, p->previous.size, p->now.text, p->now.size, &check) >=
                                        0;

        /* A move into another file: the daemon's diff is the source's, then the destination's. */
        if (undoable && p->destination)
                undoable = p->destination_now.text &&
                                rc_edit_diff(p->destination, p->destination_previous.text, p->destination_previous.size,
                                                p->destination_now.text, p->destination_now.size,
                                                &destination_check) >= 0;
        joined = g_strconcat(check ? check : "", destination_check ? destination_check : "", NULL);
        undoable = undoable && g_strcmp0(joined, p->written_diff) == 0;
        if (undoable) {
                UndoRecord *u = undo_record_new(p);

                undo_record_add(u, p->file, p->now.text, p->now.size, p->previous.text, p->previous.size);
                if (p->destination)
                        undo_record_add(u, p->destination, p->destination_now.text, p->destination_now.size,
                                        p->destination_previous.text, p->destination_previous.size);
                remember_change(u);
        }
        written(p, undoable);
}

static void on_system_reply(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfileEdit *p = data;
        g_autoptr(GVariant) reply = NULL, changes = NULL;
        g_autoptr(GError) error = NULL;
        const char *diff;

        reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);
        if (!reply && app_error_is_cancelled(error)) {
                g_object_unref(p->window);
                return;
        }
        p->busy = false;
        update_buttons(p);
        if (!reply) {
                if (p->previewed)
                        say_write_error(p, error);
                else
                        say_error(p, error);
                g_object_unref(p->window);
                return;
        }
        g_variant_get(reply, "(&s&s@a(uussss))", NULL, &diff, &changes);
        if (!p->previewed)
                preview_ready(p, diff, changes);
        else {
                /* Written: nothing more to apply while the files are read for Undo. */
                p->busy = true;
                update_buttons(p);
                g_free(p->written_diff);
                p->written_diff = g_strdup(diff);
                read_system_files(p, p->file, &p->now, p->destination, &p->destination_now, on_written_read);
        }
        g_object_unref(p->window);
}

static void system_call(ProfileEdit *p, guint64 flags, GDBusCallFlags call_flags)
{
        GVariant *args = NULL;
        const char *method = system_method(p, flags, &args);

        p->busy = true;
        update_buttons(p);
        g_object_ref(p->window);
        g_dbus_proxy_call(G_DBUS_PROXY(p->app->profiles), method, args, call_flags, -1, p->app->cancellable,
                        on_system_reply, p);
}

int profile_edit_parse(const char *path, const char *text, size_t size, RcFile **ret)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        if (!text)
                return -ENOENT;
        r = rc_file_parse(path, text, size, NULL, &f);
        if (r < 0)
                return r;
        if (f->state != RC_FILE_LOADED)
                return -EBADMSG;
        *ret = TAKE_PTR(f);
        return 0;
}

int profile_edit_read_file(const char *path, RcFile **ret)
{
        g_autofree char *text = NULL;
        size_t size = 0;

        text = file_read_or_null(path, &size);
        return profile_edit_parse(path, text, size, ret);
}

void profile_edit_close_when_written(bool written, gpointer window)
{
        if (written)
                gtk_window_close(window);
        g_object_unref(window);
}

/* The daemon names a system rule by its id ("FILE:LINE" or an id; an id names its file too), computed from
 * the file as the daemon reads it (p->previous, its ReadSystemFile), not from the path here: the daemon may
 * run under another root. */
static int system_rule_address(ProfileEdit *p)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        g_autofree char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;
        int r;

        r = profile_edit_parse(p->file, p->previous.text, p->previous.size, &f);
        if (r < 0)
                return r;
        if (p->edit.edit.index >= f->n_rules)
                return -ENOENT;
        r = rc_file_rule_ids(f, &ids);
        if (r < 0)
                return r;
        p->rule_address = g_strdup(ids[p->edit.edit.index]);
        return 0;
}

static void on_preview_edit(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfileEdit *p = data;
        g_autoptr(GVariant) changes = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *diff = NULL;

        if (!nvp_profiles_call_preview_edit_finish(NVP_PROFILES(source), &changes, result, &error)) {
                if (!app_error_is_cancelled(error)) {
                        p->busy = false;
                        update_buttons(p);
                        say_error(p, error);
                }
                g_object_unref(p->window);
                return;
        }
        p->busy = false;
        if (rc_edit_transaction_diff(p->transaction, &diff) >= 0)
                preview_ready(p, diff, changes);
        g_object_unref(p->window);
}

/* Whether the driver reads path: the user's rc file or a file of the user's rc.d. */
static bool user_file_is_read(const char *path)
{
        g_autofree char *file = NULL, *dir = NULL, *parent = g_path_get_dirname(path);

        if (rc_entry_path(RC_ENTRY_USER_FILE, g_get_home_dir(), NULL, &file) < 0 ||
                        rc_entry_path(RC_ENTRY_USER_DIR, g_get_home_dir(), NULL, &dir) < 0)
                return false;
        return g_str_equal(path, file) || g_str_equal(parent, dir);
}

static int preview_user_file(const RcEditFile *const *files, size_t n, void *userdata)
{
        ProfileEdit *p = userdata;
        size_t i = n;

        /* A move into another file: the processes it changes are those the destination's new text
         * changes, as nvprofilectl previews it; a rule moved out of what the driver reads (disabled):
         * those its source's new text changes. */
        g_assert(n > 0);
        while (i > 1 && !user_file_is_read(files[i - 1]->path))
                i--;
        g_object_ref(p->window);
        p->busy = true;
        nvp_profiles_call_preview_edit(p->app->profiles, g_get_home_dir(), files[i - 1]->path, files[i - 1]->new_text,
                        G_DBUS_CALL_FLAGS_NONE, -1, p->app->cancellable, on_preview_edit, p);
        return 0;
}

static void say_diagnostics(ProfileEdit *p, const RcDiagnostics *d, int error)
{
        for (size_t i = 0; i < d->n_items; i++)
                if (d->items[i].severity == RC_SEVERITY_ERROR) {
                        g_autofree char *text =
                                        g_strdup_printf("%s:%u:%u: %s", d->items[i].path ? d->items[i].path : p->file,
                                                        d->items[i].line, d->items[i].column, d->items[i].message);

                        say(p, text);
                        return;
                }
        say(p, g_strerror(-error));
}

static void preview_user(ProfileEdit *p)
{
        RcEditWriter writer = { .home = g_get_home_dir(), .root_fd = -1 };
        RcEditRequest req = { .path = p->file, .edit = p->edit.edit };
        int r;

        if (p->move) {
                req.move = true;
                req.destination = p->destination;
                req.position = p->position;
        }

        p->transaction = g_new0(RcEditTransaction, 1);
        rc_edit_transaction_init(p->transaction, &writer, NULL);
        r = rc_edit_transaction_prepare(p->transaction, &req);
        if (r < 0 && p->transaction->failed_step == RC_EDIT_STEP_READ) {
                g_autofree char *text = g_strdup_printf(_("Cannot read %s: %s"), p->file, g_strerror(-r));

                say(p, text);
                return;
        }
        if (r < 0) {
                say_diagnostics(p, &p->transaction->diagnostics, r);
                return;
        }
        say(p, _("Asking nvprofiled which processes it changes…"));
        (void) rc_edit_transaction_preview(p->transaction, preview_user_file, p);
}

/* The user's file is written in a thread (a slow or network home), from the previewed transaction, which
 * nothing touches meanwhile (the window is insensitive and the task holds it). */
static void user_write_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        if (g_task_return_error_if_cancelled(task))
                return;
        g_task_return_int(task, rc_edit_transaction_commit(data, NULL));
}

static void on_user_written(GObject *source, GAsyncResult *result, gpointer data)
{
        ProfileEdit *p = data;
        g_autoptr(GError) error = NULL;
        gssize r = g_task_propagate_int(G_TASK(result), &error);
        const RcEditFile *f = &p->transaction->source;

        if (error)
                return;
        p->writing = false;
        gtk_widget_set_sensitive(p->content, TRUE);
        if (r == -ESTALE) {
                p->previewed = false;
                update_buttons(p);
                say(p, _("The file changed since the preview: nothing was written. Close and try again."));
                return;
        }
        if (r < 0) {
                g_autofree char *text = g_strdup_printf(_("Cannot write %s: %s"), p->file, g_strerror((int) -r));

                say(p, text);
                update_buttons(p);
                return;
        }
        {
                UndoRecord *u = undo_record_new(p);
                const RcEditFile *d = &p->transaction->destination;

                undo_record_add(u, f->path, f->new_text, f->new_size, f->text, f->size);
                if (d->path)
                        undo_record_add(u, d->path, d->new_text, d->new_size, d->text, d->size);
                remember_change(u);
        }
        written(p, true);
}

static void on_previous_read(ProfileEdit *p, const GError *error)
{
        if (error) {
                p->busy = false;
                update_buttons(p);
                say_error(p, error);
                return;
        }
        say(p, _("Writing (an administrator's password may be asked)…"));
        system_call(p, 0, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION);
}

static void on_apply(GtkButton *button, gpointer data)
{
        ProfileEdit *p = data;
        g_autoptr(GTask) task = NULL;

        if (!p->previewed || p->busy || p->writing)
                return;
        if (p->system) {
                /* Undo needs the files as they were: read first, as the daemon reads them. */
                p->busy = true;
                update_buttons(p);
                read_system_files(p, p->file, &p->previous, p->destination, &p->destination_previous, on_previous_read);
                return;
        }
        task = g_task_new(p->window, p->app->cancellable, on_user_written, p);
        g_task_set_task_data(task, p->transaction, NULL);
        p->writing = true;
        update_buttons(p);
        gtk_widget_set_sensitive(p->content, FALSE);
        say(p, _("Writing your file…"));
        g_task_run_in_thread(task, user_write_thread);
}

static void on_cancel(GtkButton *button, gpointer data)
{
        ProfileEdit *p = data;

        gtk_window_close(p->window);
}

static gboolean on_close_request(GtkWindow *window, gpointer data)
{
        ProfileEdit *p = data;

        return p->writing;
}

static void build_window(ProfileEdit *p, GtkWindow *parent)
{
        GtkWidget *window = adw_window_new();
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *header = adw_header_bar_new();
        GtkWidget *body = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        GtkWidget *diff_view = gtk_text_view_new(), *scroll = gtk_scrolled_window_new();
        GtkWidget *cancel = app_button_new(_("_Cancel"), NULL);
        GtkWidget *title = gtk_label_new(p->what);
        g_autofree char *heading = g_strdup_printf(_("Preview: %s"), p->what);

        p->window = GTK_WINDOW(window);
        g_object_set_data_full(G_OBJECT(window), "profile-edit", p, profile_edit_free);
        gtk_window_set_title(p->window, heading);
        gtk_window_set_transient_for(p->window, parent ? parent : p->app->window);
        gtk_window_set_modal(p->window, TRUE);
        gtk_window_set_default_size(p->window, 760, 560);
        gtk_box_append(GTK_BOX(box), header);

        p->apply_button = app_button_new(_("_Apply"), NULL);
        gtk_widget_add_css_class(p->apply_button, "suggested-action");
        adw_header_bar_pack_start(ADW_HEADER_BAR(header), cancel);
        adw_header_bar_pack_end(ADW_HEADER_BAR(header), p->apply_button);

        gtk_widget_set_margin_start(body, 12);
        gtk_widget_set_margin_end(body, 12);
        gtk_widget_set_margin_bottom(body, 12);
        gtk_label_set_wrap(GTK_LABEL(title), TRUE);
        gtk_label_set_xalign(GTK_LABEL(title), 0);
        gtk_widget_add_css_class(title, "heading");
        gtk_box_append(GTK_BOX(body), title);
        {
                g_autofree char *where = g_strdup_printf(
                                p->system ? _("The system's file %s (written by nvprofiled, with an administrator's "
                                              "authorisation)")
                                          : _("Your own file %s"),
                                p->file);
                GtkWidget *label = gtk_label_new(where);

                gtk_label_set_wrap(GTK_LABEL(label), TRUE);
                gtk_label_set_xalign(GTK_LABEL(label), 0);
                gtk_label_set_selectable(GTK_LABEL(label), TRUE);
                gtk_box_append(GTK_BOX(body), label);
        }
        p->message = GTK_LABEL(gtk_label_new(_("Computing the change…")));
        gtk_label_set_wrap(p->message, TRUE);
        gtk_label_set_xalign(p->message, 0);
        gtk_label_set_selectable(p->message, TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(p->message), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Status of the edit"), -1);
        gtk_box_append(GTK_BOX(body), GTK_WIDGET(p->message));
        p->changes = GTK_LABEL(gtk_label_new(""));
        gtk_label_set_wrap(p->changes, TRUE);
        gtk_label_set_xalign(p->changes, 0);
        gtk_label_set_selectable(p->changes, TRUE);
        gtk_accessible_update_property(GTK_ACCESSIBLE(p->changes), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                        _("Running processes whose settings change"), -1);
        gtk_box_append(GTK_BOX(body), GTK_WIDGET(p->changes));
        gtk_text_view_set_editable(GTK_TEXT_VIEW(diff_view), FALSE);
        gtk_text_view_set_monospace(GTK_TEXT_VIEW(diff_view), TRUE);
        gtk_accessible_update_property(
                        GTK_ACCESSIBLE(diff_view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Difference of the file"), -1);
        p->diff = gtk_text_view_get_buffer(GTK_TEXT_VIEW(diff_view));
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), diff_view);
        gtk_widget_set_vexpand(scroll, TRUE);
        gtk_box_append(GTK_BOX(body), scroll);
        gtk_box_append(GTK_BOX(box), body);
        adw_window_set_content(ADW_WINDOW(window), box);
        p->content = box;

        g_signal_connect(p->apply_button, "clicked", G_CALLBACK(on_apply), p);
        g_signal_connect(cancel, "clicked", G_CALLBACK(on_cancel), p);
        g_signal_connect(window, "close-request", G_CALLBACK(on_close_request), p);
        update_buttons(p);
}

static ProfileEdit *profile_edit_new(App *app, const char *file, bool system, const RcEdit *edit, const char *what)
{
        ProfileEdit *p = g_new0(ProfileEdit, 1);

        p->app = app;
        p->file = g_strdup(file);
        p->what = g_strdup(what);
        p->system = system;
        edit_copy_init(&p->edit, edit);
        return p;
}

static void ask_system_preview(ProfileEdit *p)
{
        say(p, _("Asking nvprofiled for a preview…"));
        system_call(p, EDIT_FLAG_DRY_RUN, G_DBUS_CALL_FLAGS_NONE);
}

/* A rule of a system file is named by its id in the file as the daemon reads it. */
static void on_rule_file_read(ProfileEdit *p, const GError *error)
{
        if (error) {
                say_error(p, error);
                return;
        }
        if (system_rule_address(p) < 0) {
                say(p, _("The rule is no longer in the file: reload the profiles and try again."));
                return;
        }
        ask_system_preview(p);
}

static void profile_edit_start(ProfileEdit *p, GtkWindow *parent, ProfileEditDone done, gpointer userdata)
{
        const RcEdit *edit = &p->edit.edit;

        build_window(p, parent);
        p->done = done;
        p->userdata = userdata;
        gtk_window_present(p->window);

        if (!p->system) {
                preview_user(p);
                return;
        }
        if (p->move || IN_SET(edit->operation, RC_EDIT_UPDATE_RULE, RC_EDIT_REMOVE_RULE)) {
                read_system_files(p, p->file, &p->previous, NULL, NULL, on_rule_file_read);
                return;
        }
        ask_system_preview(p);
}

void profile_edit_run_full(App *app, GtkWindow *parent, const char *file, bool system, const RcEdit *edit,
                const char *what, ProfileEditDone done, gpointer userdata)
{
        g_return_if_fail(file && edit && what);

        profile_edit_start(profile_edit_new(app, file, system, edit, what), parent, done, userdata);
}

void profile_edit_run(App *app, const char *file, bool system, const RcEdit *edit, const char *what)
{
        profile_edit_run_full(app, NULL, file, system, edit, what, NULL, NULL);
}

void profile_edit_move(App *app, const char *file, bool system, size_t index, const char *destination, size_t position,
                const char *what)
{
        RcEdit edit = { .operation = RC_EDIT_ADD_RULE, .index = index };
        ProfileEdit *p;

        g_return_if_fail(file && what);

        p = profile_edit_new(app, file, system, &edit, what);
        p->move = true;
        p->destination = destination && !g_str_equal(destination, file) ? g_strdup(destination) : NULL;
        p->position = position;
        profile_edit_start(p, NULL, NULL, NULL);
}

static void undone(App *app, const UndoRecord *u)
{
        g_autofree char *text = g_strdup_printf(_("Undone: %s."), u->what);

        app_toast(app, text);
        if (app->profiles_view)
                profiles_view_reload(app->profiles_view);
}

static void say_not_undone(App *app, const char *file, const char *why)
{
        g_autofree char *text = g_strdup_printf(_("%s was not undone: %s"), file, why);

        app_toast(app, text);
}

static void revert_next_system_file(UndoRecord *u);

static void on_revert_edit(GObject *source, GAsyncResult *result, gpointer data)
{
        UndoRecord *u = data;
        g_autoptr(GVariant) reply = NULL;
        g_autoptr(GError) error = NULL;

        reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);
        if (!reply && app_error_is_cancelled(error)) {
                undo_record_free(u);
                return;
        }
        if (!reply) {
                g_autofree char *message = app_error_message(error);

                say_not_undone(u->app, u->files[u->next].file, message);
                undo_record_free(u);
                return;
        }
        u->next++;
        if (u->next < u->n_files) {
                revert_next_system_file(u);
                return;
        }
        undone(u->app, u);
        undo_record_free(u);
}

/* The system's files are put back by the daemon, one call per file (a move: the source, then the
 * destination), each only while the file holds what the change wrote. */
static void revert_next_system_file(UndoRecord *u)
{
        const UndoFile *f = &u->files[u->next];

        g_dbus_proxy_call(G_DBUS_PROXY(u->app->profiles), "RevertEdit",
                        g_variant_new("(ssbst)", f->file, f->written, f->previous != NULL,
                                        f->previous ? f->previous : "", G_GUINT64_CONSTANT(0)),
                        G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, -1, u->app->cancellable, on_revert_edit, u);
}

static void revert_user_files(App *app, const UndoRecord *u)
{
        RcEditTransaction t[G_N_ELEMENTS(u->files)];
        RcEditWriter writer = { .home = g_get_home_dir(), .root_fd = -1 };
        const char *failed = u->files[0].file;
        int r = 0;

        /* Small and local: done here, on the main loop, as the preview's read is. Every file is checked
         * before any is written back, so a move is undone whole or not at all. */
        for (size_t i = 0; i < u->n_files; i++)
                rc_edit_transaction_init(&t[i], &writer, NULL);
        for (size_t i = 0; i < u->n_files && r >= 0; i++) {
                const UndoFile *f = &u->files[i];

                failed = f->file;
                r = rc_edit_transaction_revert(
                                &t[i], f->file, f->written, f->written_size, f->previous, f->previous_size);
        }
        for (size_t i = 0; i < u->n_files && r >= 0; i++) {
                failed = u->files[i].file;
                r = rc_edit_transaction_commit(&t[i], NULL);
        }
        for (size_t i = 0; i < u->n_files; i++)
                rc_edit_transaction_done(&t[i]);
        if (r == -ESTALE)
                say_not_undone(app, failed, _("it changed since; nothing was written."));
        else if (r < 0)
                say_not_undone(app, failed, g_strerror(-r));
        else
                undone(app, u);
}

void profile_edit_undo(App *app)
{
        UndoRecord *u = g_steal_pointer(&last_change);

        if (!u) {
                app_toast(app, _("There is no change to undo."));
                return;
        }
        u->app = app;
        if (u->system) {
                revert_next_system_file(u);
                return;
        }
        revert_user_files(app, u);
        undo_record_free(u);
}

static void on_undo_action(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        profile_edit_undo(data);
}

static void on_edit_rule_action(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        const char *file, *rule;

        g_variant_get(parameter, "(&s&s)", &file, &rule);
        rule_dialog_show(data, file, rule, NULL, NULL);
}

static void on_edit_profile_action(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        const char *file, *name;

        g_variant_get(parameter, "(&s&s)", &file, &name);
        profile_dialog_show(data, file, *name ? name : NULL);
}

static void on_remove_profile_action(GSimpleAction *action, GVariant *parameter, gpointer data)
{
        const char *file, *name;
        g_autofree char *what = NULL;

        g_variant_get(parameter, "(&s&s)", &file, &name);
        what = g_strdup_printf(_("Remove the profile %s"), name);
        profile_edit_run(data, file, profile_edit_file_is_system(file),
                        &(RcEdit){ .operation = RC_EDIT_REMOVE_PROFILE, .profile = name }, what);
}

void profile_edit_install_actions(App *app)
{
        static const GActionEntry actions[] = {
                { "undo-profile-edit", on_undo_action, NULL, NULL, NULL, { 0 } },
                { "edit-rule", on_edit_rule_action, "(ss)", NULL, NULL, { 0 } },
                { "edit-profile", on_edit_profile_action, "(ss)", NULL, NULL, { 0 } },
                { "remove-profile", on_remove_profile_action, "(ss)", NULL, NULL, { 0 } },
        };

        g_action_map_add_action_entries(G_ACTION_MAP(app->application), actions, G_N_ELEMENTS(actions), app);
        gtk_application_set_accels_for_action(GTK_APPLICATION(app->application), "app.undo-profile-edit",
                        (const char *const[]){ "<Control>z", NULL });
}
