/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "rc-edit-move.h"
#include "string-util.h"

void rc_move_result_done(RcMoveResult *r)
{
        assert(r);

        r->source_text = mfree(r->source_text);
        r->destination_text = mfree(r->destination_text);
}

int rc_edit_move_rule(const char *source_path, const char *source_text, size_t source_size, size_t index,
                const char *destination_path, const char *destination_text, size_t destination_size, size_t position,
                RcDiagnostics *diags, RcMoveResult *ret)
{
        _cleanup_free_ char *rule_text = NULL, *removed = NULL, *added = NULL;
        size_t removed_size = 0, added_size = 0;
        RcEdit remove = { .operation = RC_EDIT_REMOVE_RULE, .index = index };
        RcEdit add = { .operation = RC_EDIT_ADD_RULE, .index = position };
        bool same = !destination_path || streq(destination_path, source_path);
        int r;

        assert(source_path);
        assert(ret);

        r = rc_edit_rule_text(source_path, source_text, source_size, index, diags, &rule_text);
        if (r < 0)
                return r;
        add.rule_text = rule_text;

        r = rc_edit_apply(source_path, source_text, source_size, &remove, diags, &removed, &removed_size);
        if (r < 0)
                return r;
        if (same)
                r = rc_edit_apply(source_path, removed, removed_size, &add, diags, &added, &added_size);
        else
                r = rc_edit_apply(
                                destination_path, destination_text, destination_size, &add, diags, &added, &added_size);
        if (r < 0)
                return r;

        if (same)
                *ret = (RcMoveResult){ .source_text = TAKE_PTR(added), .source_size = added_size, .index = position };
        else
                *ret = (RcMoveResult){ .source_text = TAKE_PTR(removed),
                        .source_size = removed_size,
                        .destination_text = TAKE_PTR(added),
                        .destination_size = added_size,
                        .index = position };
        return 0;
}

int rc_text_rule_id(const char *path, const char *text, size_t size, const RcSyntaxOptions *syntax, size_t index,
                char **ret)
{
        _cleanup_(rc_file_unrefp) RcFile *f = NULL;
        _cleanup_free_ char(*ids)[RC_RULE_ID_LENGTH + 1] = NULL;
        int r;

        assert(path);
        assert(ret);

        r = rc_file_parse(path, text ? text : "{}", text ? size : 2, syntax, &f);
        if (r < 0)
                return r;
        if (f->n_rules == 0)
                return -ENOENT;
        r = rc_file_rule_ids(f, &ids);
        if (r < 0)
                return r;
        *ret = strdup(ids[MIN(index, f->n_rules - 1)]);
        return *ret ? 0 : -ENOMEM;
}
