/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>

#include "rc-diagnostic.h"

/* The rc syntax reader.
 *
 * rc files are JSON plus '#' comments and octal/hex integers (NVIDIA README, "Application Profiles").
 * json-c parses the JSON. Our pre-pass does only what json-c lacks:
 *
 *   - '#' comments outside strings become spaces, and 0NN / 0xNN integers become decimal, so json-c
 *     sees plain JSON (its own "//" comments stay rejected: they are not rc syntax);
 *   - every value's line and column are recorded in an index parallel to json-c's tree, so each rule
 *     and setting can say where it came from, and every error says file:line:col;
 *   - what json-c accepts silently but the rc format does not (or users would not expect) is reported:
 *     integers beyond 64 bits (json-c saturates them), NaN/Infinity and other bare words, trailing
 *     commas, single-quoted values, nesting deeper than RC_DEPTH_MAX, and duplicate member names
 *     (json-c keeps only the last; see rc_node_member()).
 *
 * Behaviour decided where the README is silent (../shared/docs/appprofiles.md §1.3, §4):
 *   - trailing commas: an error (strict JSON, as jansson in nvidia-settings); with
 *     RcSyntaxOptions.accept_trailing_commas they are removed with a warning;
 *   - single-quoted member names: accepted (the README's EBNF allows them); single-quoted values: error;
 *   - "08", "0x", "0x1.5": error (nvidia-settings leaves such runs unconverted and the JSON parse
 *     fails, dropping the file);
 *   - integers must fit in int64 (negative) or uint64 (positive); reals must be finite;
 *   - a UTF-8 byte-order mark is skipped with a warning; a NUL byte is an error;
 *   - the file must hold exactly one JSON value; anything after it (other than comments and
 *     whitespace) is an error. */

#define RC_FILE_SIZE_MAX (1024u * 1024u) /* the shipped 570 file is 20 KiB */
#define RC_DEPTH_MAX 32u /* json-c's default depth */
#define RC_NODES_MAX 65536u /* the shipped 570 file has ~1,100 values */

typedef struct RcSyntaxOptions {
        bool accept_trailing_commas;
} RcSyntaxOptions;

typedef enum RcNodeType {
        RC_NODE_OBJECT,
        RC_NODE_ARRAY,
        RC_NODE_SCALAR,
        _RC_NODE_TYPE_MAX,
} RcNodeType;

#define RC_NODE_NONE 0u /* node 0 is the root, which is nobody's child or sibling */

typedef struct RcNode {
        uint32_t line, column;
        uint32_t offset, end; /* the value's bytes [offset, end) in the original text, for span edits */
        uint32_t first_child, next_sibling; /* RC_NODE_NONE if none */
        uint32_t key_offset, key_length; /* raw member name in the original text, without quotes */
        uint32_t key_line, key_column; /* where the member name starts (its quote) */
        uint8_t type; /* RcNodeType */
        bool has_key : 1;
        bool key_escaped : 1; /* the raw name contains backslash escapes */
} RcNode;

/* Where a file first uses what the driver reads but jansson (nvidia-settings) refuses: an accepted
 * trailing comma, a single-quoted member name. Line 0: nowhere. */
typedef struct RcPortability {
        uint32_t trailing_comma_line, trailing_comma_column;
        uint32_t single_quote_line, single_quote_column;
} RcPortability;

typedef struct RcDocument {
        const char *text; /* the original text (borrowed) */
        size_t size;
        struct json_object *root; /* an object, if parsing succeeded */
        RcNode *nodes; /* nodes[0] is the root */
        size_t n_nodes;
        RcPortability portability;
} RcDocument;

/* Parses text (size bytes, need not be NUL-terminated). On a syntax error returns -EBADMSG with at least
 * one error in diags; -ENOMEM on OOM; 0 with doc->root set on success. The root value must be an object.
 * doc borrows text until rc_document_done(). */
int rc_document_parse(
                const char *text, size_t size, const RcSyntaxOptions *options, RcDiagnostics *diags, RcDocument *doc);
void rc_document_done(RcDocument *doc);

static inline const RcNode *rc_node_first_child(const RcDocument *doc, const RcNode *n)
{
        return n && n->first_child != RC_NODE_NONE ? &doc->nodes[n->first_child] : NULL;
}

static inline const RcNode *rc_node_next(const RcDocument *doc, const RcNode *n)
{
        return n && n->next_sibling != RC_NODE_NONE ? &doc->nodes[n->next_sibling] : NULL;
}

/* The node of member name in object node obj: the LAST one, because that is the value json-c keeps.
 * ret_count, if given, receives how many members carry that name (more than one is worth a warning). */
const RcNode *rc_node_member(const RcDocument *doc, const RcNode *obj, const char *name, unsigned *ret_count);

/* Whether node n (a member) is named name, decoding escapes if there are any. */
bool rc_node_key_equals(const RcDocument *doc, const RcNode *n, const char *name);
