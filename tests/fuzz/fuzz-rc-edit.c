/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for span edits: the input is three bytes that choose an edit (operation, index, which
 * keys and names), then the original file's text up to the first NUL, then the caller's text (a pattern,
 * a value or a whole rule). No input may crash, and any text an edit returns must load again, with a
 * diff that can be made. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rc-edit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const names[] = { "P", "No VidMem Reuse", "a\"b", "\xc3\xa9", "" };
        static const char *const keys[] = { "GLVidHeapReuseRatio", "k", "0x166c5e", "a\\b" };
        _cleanup_free_ char *arg = NULL, *out = NULL, *diff = NULL, *rule = NULL;
        RcDiagnostics diags = { 0 };
        const char *text, *nul;
        size_t text_size, out_size = 0;
        RcEditSetting setting;
        char *unset[1];
        RcEdit edit;
        uint8_t flags;
        int r;

        if (size < 3)
                return 0;
        flags = data[2];
        text = (const char *) data + 3;
        nul = memchr(text, '\0', size - 3);
        text_size = nul ? (size_t) (nul - text) : size - 3;
        arg = nul ? strndup(nul + 1, size - 3 - text_size - 1) : strdup("\"x\"");
        if (!arg)
                return 0;

        setting = (RcEditSetting){ .key = keys[flags % 4], .value = arg };
        unset[0] = (char *) keys[(flags >> 2) % 4];
        edit = (RcEdit){
                .operation = data[0] % _RC_EDIT_OPERATION_MAX,
                .index = data[1] == 0xff ? SIZE_MAX : data[1],
                .pattern = flags & 0x10 ? arg : NULL,
                .profile = flags & 0x20 ? names[(flags >> 6) % 5] : NULL,
                .settings = flags & 0x40 ? &setting : NULL,
                .n_settings = flags & 0x40 ? 1 : 0,
                .unset = flags & 0x80 ? unset : NULL,
                .n_unset = flags & 0x80 ? 1 : 0,
                .rule_text = (flags & 0x18) == 0x08 ? arg : NULL,
        };
        if (edit.operation == RC_EDIT_ADD_RULE && !edit.pattern && !edit.rule_text)
                edit.pattern = "\"fuzz\"";

        r = rc_edit_apply("fuzz.rc", (flags & 0x0c) == 0x0c && text_size == 0 ? NULL : text, text_size, &edit, &diags,
                        &out, &out_size);
        rc_diagnostics_done(&diags);
        if (r >= 0) {
                RcFile *f = NULL;

                if (rc_file_parse("fuzz.rc", out, out_size, NULL, &f) < 0)
                        return 0;
                if (f->state != RC_FILE_LOADED)
                        abort(); /* an edit returned text that does not load */
                rc_file_unref(f);
                if (rc_edit_diff("fuzz.rc", text, text_size, out, out_size, &diff) < 0)
                        abort();
        }
        (void) rc_edit_rule_text("fuzz.rc", text, text_size, data[1], &diags, &rule);
        rc_diagnostics_done(&diags);
        return 0;
}
