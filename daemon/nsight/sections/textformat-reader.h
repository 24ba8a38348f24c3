/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>

#include "macro.h"
#include "nvproto-schema.h"

/* A protobuf text-format reader driven by protobuf-c's descriptors: it fills any protobuf-c message
 * from text, as Google's TextFormat parser (and hence ncu) reads .section and .chart files. */

typedef struct TextFormatDiagnostic {
        unsigned line; /* 1-based, of the offending token */
        unsigned column; /* 1-based */
        /* Where protobuf's own parser, and so ncu, reports it: the token after the offending one, line
         * 1-based and column 0-based ("Line=13 Column=4"). */
        unsigned ncu_line;
        unsigned ncu_column;
        bool skipped; /* lenient mode: the field or value was skipped and reading went on */
        char *message; /* printable ASCII: bytes from the file are escaped */
} TextFormatDiagnostic;

typedef struct TextFormatDiagnostics {
        TextFormatDiagnostic *items;
        size_t n;
        size_t allocated;
} TextFormatDiagnostics;

void textformat_diagnostics_clear(TextFormatDiagnostics *d);
/* Adds a diagnostic found by a caller after parsing (line and column 1-based; ncu's position is the
 * same line, column - 1). Returns 0, or -ENOMEM. */
int textformat_diagnostics_add(TextFormatDiagnostics *d, unsigned line, unsigned column, bool skipped, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
/* The first diagnostic that is an error (not skipped), or NULL. */
const TextFormatDiagnostic *textformat_diagnostics_error(const TextFormatDiagnostics *d);

typedef struct TextFormatOptions {
        NvSchema schema;
        bool lenient; /* unknown fields and enum values are skipped and reported, not fatal */
        size_t max_input; /* bytes; 0 = TEXTFORMAT_MAX_INPUT */
        unsigned max_depth; /* message nesting; 0 = TEXTFORMAT_MAX_DEPTH */
        size_t max_values; /* field assignments in total; 0 = TEXTFORMAT_MAX_VALUES */
} TextFormatOptions;

#define TEXTFORMAT_MAX_INPUT (16U * 1024U * 1024U)
#define TEXTFORMAT_MAX_DEPTH 32U
#define TEXTFORMAT_MAX_VALUES (1U << 20)
#define TEXTFORMAT_MAX_DIAGNOSTICS 64U

/* Parses text (len bytes, need not be NUL-terminated) as a message of type desc. On success returns 0
 * and a message to free with protobuf_c_message_free_unpacked(m, NULL); skipped items (lenient mode)
 * are in diags. On a syntax or schema error returns -EBADMSG with the error in diags; -EFBIG when
 * the input exceeds max_input; -ENOMEM. */
int textformat_parse(const char *text, size_t len, const ProtobufCMessageDescriptor *desc,
                const TextFormatOptions *opts, ProtobufCMessage **ret, TextFormatDiagnostics *diags);
