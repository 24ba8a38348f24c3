/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* A systemd-style configuration file: "[Section]" headers, "Key=Value" lines, '#' and ';' comments.
 * Table-driven: each known key names a parser and where in a struct its value goes. */

#define CONF_FILE_SIZE_MAX (64u * 1024u)
#define CONF_LINE_MAX 4096u

typedef int (*ConfValueParser)(const char *value, void *data);

typedef struct ConfItem {
        const char *section;
        const char *key;
        ConfValueParser parse;
        size_t offset; /* into the struct passed as base */
        size_t size; /* bytes of the value there, for conf_item_differs() (0: never differs) */
        bool string; /* the value is a char *, compared by what it points to */
        unsigned flags; /* the caller's own */
} ConfItem;

/* Parses text into base. Unknown sections or keys are warnings; a bad value or a malformed line is an
 * error. Every message is "LINE: text" in *ret_messages (a strv, may be NULL). Returns the number of
 * errors (0 = all fine), or negative errno on OOM / oversize. */
int conf_parse_text(const char *text, size_t size, const ConfItem *items, void *base, char ***ret_messages);

/* Whether two structs parsed with items hold different values for item (a reload tells what changed). */
bool conf_item_differs(const ConfItem *item, const void *a, const void *b);

int conf_parse_bool(const char *value, void *data); /* bool */
int conf_parse_usec(const char *value, void *data); /* uint64_t, "2s", "250ms", ... */
int conf_parse_size(const char *value, void *data); /* uint64_t, "8M", ... */
int conf_parse_unsigned(const char *value, void *data); /* unsigned */
int conf_parse_string(const char *value, void *data); /* char *, replaced; "" means NULL */
