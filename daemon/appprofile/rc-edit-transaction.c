/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file-replace.h"
#include "rc-edit-move.h"
#include "rc-edit-transaction.h"
#include "rc-model.h"
#include "rc-rule-id.h"
#include "string-util.h"

static void rc_edit_file_done(RcEditFile *f)
{
        f->path = mfree(f->path);
        f->dir = mfree(f->dir);
        f->name = NULL;
        f->text = mfree(f->text);
        f->new_text = mfree(f->new_text);
        f->size = f->new_size = 0;
        f->remove = false;
}

void rc_edit_transaction_init(RcEditTransaction *t, const RcEditWriter *writer, const RcSyntaxOptions *syntax)
{
        assert(t);
        assert(writer);

        *t = (RcEditTransaction){ .writer = *writer };
        if (syntax)
                t->syntax = *syntax;
}

void rc_edit_transaction_done(RcEditTransaction *t)
{
        assert(t);

        rc_edit_file_done(&t->source);
        rc_edit_file_done(&t->destination);
        t->rule_id = mfree(t->rule_id);
        rc_diagnostics_done(&t->diagnostics);
}

static int read_in_dir(int dir_fd, void *userdata, char **ret, size_t *ret_size)
{
        const char *name = userdata;
        int r;

        r = file_read_regular(dir_fd, name, RC_FILE_SIZE_MAX, ret, ret_size);
        return r == -ENOENT ? 0 : r;
}

static int file_open(const RcEditWriter *w, const char *path, RcEditFile *f)
{
        const char *slash;
        int r;

        assert(path);

        rc_edit_file_done(f);
        slash = strrchr(path, '/');
        if (path[0] != '/' || !slash || isempty(slash + 1) || strlen(slash + 1) > NAME_MAX)
                return -EINVAL;
        f->path = strdup(path);
        f->dir = strndup(path, MAX(slash - path, 1));
        if (!f->path || !f->dir)
                return -ENOMEM;
        f->name = f->path + (slash - path) + 1;

        r = rc_edit_writer_run(w, f->dir, false, read_in_dir, (void *) f->name, &f->text, &f->size);
        if (r == -ENOENT)
                return 0; /* no directory (or home), no file: a new one */
        return r;
}

int rc_edit_transaction_open(RcEditTransaction *t, const char *path)
{
        assert(t);
        return file_open(&t->writer, path, &t->source);
}

int rc_edit_transaction_open_destination(RcEditTransaction *t, const char *path)
{
        assert(t);

        if (t->source.path && streq(path, t->source.path)) {
                rc_edit_file_done(&t->destination);
                return 0;
        }
        return file_open(&t->writer, path, &t->destination);
}

int rc_edit_transaction_find_rule(RcEditTransaction *t, const char *address, size_t *ret_index)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        int r;

        assert(t);
        assert(t->source.path);
        assert(address);
        assert(ret_index);

        if (!t->source.text)
                return -ENOENT;
        r = rc_file_parse(t->source.path, t->source.text, t->source.size, &t->syntax, &f);
        if (r < 0)
                return r;
        if (f->state != RC_FILE_LOADED) {
                r = rc_diagnostics_copy(&t->diagnostics, &f->diagnostics);
                return r < 0 ? r : -EBADMSG;
        }
        return rc_file_find_rule(f, address, ret_index);
}

/* The id of rule index in text, if it has one there. */
static int set_rule_id(RcEditTransaction *t, const RcEditFile *f, const char *text, size_t size, size_t index)
{
        int r;

        t->rule_id = mfree(t->rule_id);
        r = rc_text_rule_id(f->path, text, size, &t->syntax, index, &t->rule_id);
        return r == -ENOENT ? 0 : r;
}

int rc_edit_transaction_apply(RcEditTransaction *t, const RcEdit *edit)
{
        RcEditFile *f = &t->source;
        int r;

        assert(t);
        assert(f->path);
        assert(edit);

        f->new_text = mfree(f->new_text);
        r = rc_edit_apply(f->path, f->text, f->size, edit, &t->diagnostics, &f->new_text, &f->new_size);
        if (r < 0)
                return r;
        if (IN_SET(edit->operation, RC_EDIT_ADD_RULE, RC_EDIT_UPDATE_RULE))
                return set_rule_id(t, f, f->new_text, f->new_size, edit->index);
        return 0;
}

int rc_edit_transaction_move(RcEditTransaction *t, size_t index, size_t position)
{
        _cleanup_(rc_move_result_done) RcMoveResult moved = { 0 };
        RcEditFile *from = &t->source, *to = &t->destination;
        int r;

        assert(t);
        assert(from->path);

        r = rc_edit_move_rule(from->path, from->text, from->size, index, to->path, to->text, to->size, position,
                        &t->diagnostics, &moved);
        if (r < 0)
                return r;
        free(from->new_text);
        from->new_text = TAKE_PTR(moved.source_text);
        from->new_size = moved.source_size;
        if (to->path) {
                free(to->new_text);
                to->new_text = TAKE_PTR(moved.destination_text);
                to->new_size = moved.destination_size;
                return set_rule_id(t, to, to->new_text, to->new_size, moved.index);
        }
        return set_rule_id(t, from, from->new_text, from->new_size, moved.index);
}

static bool text_equal(const char *a, size_t a_size, const char *b, size_t b_size)
{
        if (!a || !b)
                return !a && !b;
        return a_size == b_size && memcmp(a, b, a_size) == 0;
}

int rc_edit_transaction_revert(RcEditTransaction *t, const char *path, const char *written, size_t written_size,
                const char *previous, size_t previous_size)
{
        RcEditFile *f = &t->source;
        int r;

        assert(t);
        assert(path);
        assert(written);

        r = rc_edit_transaction_open(t, path);
        if (r < 0)
                return r;
        /* Only what this edit wrote is taken back: a change made since (by hand, by another edit) stays. */
        if (!text_equal(f->text, f->size, written, written_size))
                return -ESTALE;
        if (previous) {
                _cleanup_(rc_file_unrefp) RcFile *parsed = NULL;

                if (previous_size > RC_FILE_SIZE_MAX)
                        return -E2BIG;
                r = rc_file_parse(path, previous, previous_size, &t->syntax, &parsed);
                if (r < 0)
                        return r;
                if (parsed->state != RC_FILE_LOADED) {
                        r = rc_diagnostics_copy(&t->diagnostics, &parsed->diagnostics);
                        return r < 0 ? r : -EBADMSG;
                }
                f->new_text = strndup(previous, previous_size);
                if (!f->new_text)
                        return -ENOMEM;
                f->new_size = previous_size;
                return 0;
        }
        f->remove = true;
        /* The diff shows the removal as every line going. */
        f->new_text = strdup("");
        return f->new_text ? 0 : -ENOMEM;
}

static int fail_at(RcEditTransaction *t, RcEditStep step, const char *path, int error)
{
        t->failed_step = step;
        t->failed_path = path;
        return error;
}

int rc_edit_transaction_prepare(RcEditTransaction *t, const RcEditRequest *req)
{
        RcEdit edit;
        size_t index;
        int r;

        assert(t);
        assert(req);
        assert(req->path);

        r = rc_edit_transaction_open(t, req->path);
        if (r < 0)
                return fail_at(t, RC_EDIT_STEP_READ, req->path, r);
        edit = req->edit;
        index = edit.index;
        if (req->rule) {
                r = rc_edit_transaction_find_rule(t, req->rule, &index);
                if (r < 0)
                        return fail_at(t, RC_EDIT_STEP_FIND_RULE, t->source.path, r);
                edit.index = index;
        }
        if (!req->move) {
                r = rc_edit_transaction_apply(t, &edit);
                return r < 0 ? fail_at(t, RC_EDIT_STEP_EDIT, t->source.path, r) : 0;
        }

        if (req->destination) {
                r = rc_edit_transaction_open_destination(t, req->destination);
                if (r < 0)
                        return fail_at(t, RC_EDIT_STEP_READ, req->destination, r);
        }
        r = rc_edit_transaction_move(t, index, req->position);
        return r < 0 ? fail_at(t, RC_EDIT_STEP_EDIT, t->source.path, r) : 0;
}

/* The files edited, in the order they are written. */
static size_t edited_files(const RcEditTransaction *t, const RcEditFile *ret[static 2])
{
        size_t n = 0;

        if (t->destination.path && t->destination.new_text)
                ret[n++] = &t->destination;
        if (t->source.path && t->source.new_text)
                ret[n++] = &t->source;
        return n;
}

int rc_edit_transaction_diff(const RcEditTransaction *t, char **ret)
{
        _cleanup_free_ char *diff = strdup("");
        const RcEditFile *files[2];
        size_t n;

        assert(t);
        assert(ret);

        if (!diff)
                return -ENOMEM;
        n = edited_files(t, files);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *d = NULL;
                char *joined;
                int r;

                r = rc_edit_diff(files[i]->path, files[i]->text, files[i]->size, files[i]->new_text, files[i]->new_size,
                                &d);
                if (r < 0)
                        return r;
                if (asprintf(&joined, "%s%s", diff, d) < 0)
                        return -ENOMEM;
                free(diff);
                diff = joined;
        }
        *ret = TAKE_PTR(diff);
        return 0;
}

int rc_edit_transaction_preview(const RcEditTransaction *t, RcEditPreviewFunc fn, void *userdata)
{
        const RcEditFile *files[2];
        size_t n = 0;

        assert(t);
        assert(fn);

        if (t->source.new_text)
                files[n++] = &t->source;
        if (t->destination.path && t->destination.new_text)
                files[n++] = &t->destination;
        return fn(files, n, userdata);
}

/* Compare and remove: a file some other writer replaced or removed in the few instructions between the
 * comparison and the unlink would be removed too, which a revert of a file's creation accepts (the
 * rename of a replacement is atomic, and the comparison just saw our own text there). */
static int remove_in_dir(int dir_fd, const RcEditFile *f)
{
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        r = file_read_regular(dir_fd, f->name, RC_FILE_SIZE_MAX, &text, &size);
        if (r == -ENOENT)
                return -ESTALE;
        if (r < 0)
                return r;
        if (!text_equal(text, size, f->text, f->size))
                return -ESTALE;
        if (unlinkat(dir_fd, f->name, 0) < 0)
                return -errno;
        return 0;
}

/* Compare and replace, in the file's directory as the writer. */
static int replace_in_dir(int dir_fd, void *userdata, char **ret, size_t *ret_size)
{
        const RcEditFile *f = userdata;

        if (f->remove)
                return remove_in_dir(dir_fd, f);
        return file_replace(dir_fd, f->name, f->text, f->size, f->new_text, f->new_size, 0644, NULL);
}

int rc_edit_transaction_commit(const RcEditTransaction *t, const char **ret_path)
{
        const RcEditFile *files[2];
        size_t n;

        assert(t);

        n = edited_files(t, files);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *unused = NULL;
                size_t unused_size = 0;
                int r;

                r = rc_edit_writer_run(&t->writer, files[i]->dir, true, replace_in_dir, (void *) files[i], &unused,
                                &unused_size);
                if (r < 0) {
                        if (ret_path)
                                *ret_path = files[i]->path;
                        return r;
                }
        }
        return 0;
}
