/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The grammar and the error wording follow Google's TextFormat parser, so errors land where ncu
 * reports them: a message is a list of fields, "name: value", "name { ... }", "name: { ... }" or
 * "name < ... >", each optionally ended by ';' or ','; repeated fields repeat or use "[a, b]". */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "string-util.h"
#include "textformat-reader.h"

typedef enum TokenType {
        TOKEN_EOF,
        TOKEN_IDENTIFIER,
        TOKEN_INTEGER,
        TOKEN_FLOAT,
        TOKEN_STRING,
        TOKEN_SYMBOL,
} TokenType;

typedef struct Token {
        TokenType type;
        const char *start;
        size_t len;
        unsigned line; /* 0-based, as protobuf's tokenizer */
        unsigned column; /* 0-based; a tab advances to the next multiple of 8 */
} Token;

typedef struct Parser {
        const char *text;
        size_t len;
        size_t pos;
        unsigned line;
        unsigned column;
        Token cur;
        const TextFormatOptions *opts;
        TextFormatDiagnostics *diags;
        unsigned depth;
        size_t n_values;
        int error; /* first fatal error, sticky */
} Parser;

#define MAX_FIELDS_PER_MESSAGE 512U

void textformat_diagnostics_clear(TextFormatDiagnostics *d)
{
        if (!d)
                return;
        for (size_t i = 0; i < d->n; i++)
                free(d->items[i].message);
        d->items = mfree(d->items);
        d->n = d->allocated = 0;
}

int textformat_diagnostics_add(
                TextFormatDiagnostics *d, unsigned line, unsigned column, bool skipped, const char *fmt, ...)
{
        char *m = NULL;
        va_list ap;
        int r;

        if (!d || d->n >= TEXTFORMAT_MAX_DIAGNOSTICS)
                return 0;
        if (GREEDY_REALLOC(d->items, d->allocated, d->n + 1) < 0)
                return -ENOMEM;
        va_start(ap, fmt);
        r = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        d->items[d->n++] = (TextFormatDiagnostic){
                .line = line,
                .column = column,
                .ncu_line = line,
                .ncu_column = column > 0 ? column - 1 : 0,
                .skipped = skipped,
                .message = m,
        };
        return 0;
}

const TextFormatDiagnostic *textformat_diagnostics_error(const TextFormatDiagnostics *d)
{
        for (size_t i = 0; d && i < d->n; i++)
                if (!d->items[i].skipped)
                        return &d->items[i];
        return NULL;
}

/* Appends s[0..len) with anything outside printable ASCII escaped. */
static void escape_into(char *buf, size_t size, size_t *at, const char *s, size_t len)
{
        for (size_t i = 0; i < len && *at + 5 < size; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c >= 0x20 && c < 0x7f)
                        buf[(*at)++] = (char) c;
                else
                        *at += (size_t) snprintf(buf + *at, size - *at, "\\x%02x", c);
        }
        buf[*at] = '\0';
}

/* Formats a diagnostic; "%T" is not printf: callers pre-escape file text with escape_token(). */
_printf_(5, 6) static void diag(Parser *p, const Token *at, const Token *ncu_at, bool skipped, const char *fmt, ...)
{
        if (!skipped && p->error == 0)
                p->error = -EBADMSG;
        if (!p->diags || p->diags->n >= TEXTFORMAT_MAX_DIAGNOSTICS)
                return;
        if (GREEDY_REALLOC(p->diags->items, p->diags->allocated, p->diags->n + 1) < 0) {
                p->error = -ENOMEM;
                return;
        }
        char *m = NULL;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&m, fmt, ap) < 0)
                m = NULL;
        va_end(ap);
        if (!m) {
                p->error = -ENOMEM;
                return;
        }
        p->diags->items[p->diags->n++] = (TextFormatDiagnostic){
                .line = at->line + 1,
                .column = at->column + 1,
                .ncu_line = ncu_at->line + 1,
                .ncu_column = ncu_at->column,
                .skipped = skipped,
                .message = m,
        };
}

/* A token's text, escaped, in a caller's buffer (error messages only). */
static const char *token_text(const Token *t, char *buf, size_t size)
{
        size_t at = 0;
        if (t->type == TOKEN_EOF)
                return "end of input";
        escape_into(buf, size, &at, t->start, MIN(t->len, (size_t) 64));
        return buf;
}

static void next_char(Parser *p)
{
        char c = p->text[p->pos++];
        if (c == '\n') {
                p->line++;
                p->column = 0;
        } else if (c == '\t')
                p->column += 8 - p->column % 8;
        else
                p->column++;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

static bool is_letter(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* Moves to the next token. Tokenizer errors become fatal diagnostics and an EOF token. */
static void advance(Parser *p)
{
        for (;;) {
                while (p->pos < p->len && is_space(p->text[p->pos])) {
                        if (p->text[p->pos] == ' ' || p->text[p->pos] == '\r') {
                                p->pos++;
                                p->column++;
                        } else
                                next_char(p);
                }
                if (p->pos < p->len && p->text[p->pos] == '#') {
                        while (p->pos < p->len && p->text[p->pos] != '\n')
                                next_char(p);
                        continue;
                }
                break;
        }

        Token t = { .start = p->text + p->pos, .line = p->line, .column = p->column };
        if (p->pos >= p->len) {
                t.type = TOKEN_EOF;
                p->cur = t;
                return;
        }

        char c = p->text[p->pos];
        if (is_letter(c)) {
                t.type = TOKEN_IDENTIFIER;
                /* No line break or tab in a name: count columns once. */
                size_t from = p->pos;
                while (p->pos < p->len && (is_letter(p->text[p->pos]) || is_digit(p->text[p->pos])))
                        p->pos++;
                p->column += (unsigned) (p->pos - from);
        } else if (is_digit(c) || (c == '.' && p->pos + 1 < p->len && is_digit(p->text[p->pos + 1]))) {
                bool hex = c == '0' && p->pos + 1 < p->len &&
                                (p->text[p->pos + 1] == 'x' || p->text[p->pos + 1] == 'X');
                bool is_float = false;
                next_char(p);
                while (p->pos < p->len) {
                        char d = p->text[p->pos];
                        if (!hex && (d == 'e' || d == 'E')) {
                                is_float = true;
                                next_char(p);
                                if (p->pos < p->len && (p->text[p->pos] == '+' || p->text[p->pos] == '-'))
                                        next_char(p);
                                continue;
                        }
                        if (d == '.' && !hex)
                                is_float = true;
                        else if (!is_letter(d) && !is_digit(d))
                                break;
                        next_char(p);
                }
                char last = p->text[p->pos - 1];
                if (!hex && (last == 'f' || last == 'F'))
                        is_float = true;
                t.type = is_float ? TOKEN_FLOAT : TOKEN_INTEGER;
        } else if (c == '"' || c == '\'') {
                t.type = TOKEN_STRING;
                next_char(p);
                for (;;) {
                        if (p->pos >= p->len) {
                                Token here = { .line = p->line, .column = p->column };
                                diag(p, &t, &here, false, "Unexpected end of string.");
                                p->cur = (Token){ .type = TOKEN_EOF,
                                        .start = p->text + p->len,
                                        .line = p->line,
                                        .column = p->column };
                                return;
                        }
                        char d = p->text[p->pos];
                        if (d == '\n') {
                                Token here = { .line = p->line, .column = p->column };
                                diag(p, &t, &here, false, "String literals cannot cross line boundaries.");
                                p->cur = (Token){ .type = TOKEN_EOF,
                                        .start = p->text + p->len,
                                        .line = p->line,
                                        .column = p->column };
                                return;
                        }
                        next_char(p);
                        if (d == c)
                                break;
                        if (d == '\\' && p->pos < p->len && p->text[p->pos] != '\n')
                                next_char(p);
                }
        } else {
                t.type = TOKEN_SYMBOL;
                next_char(p);
        }
        t.len = (size_t) (p->text + p->pos - t.start);
        p->cur = t;
}

static bool at_symbol(const Parser *p, char c)
{
        return p->cur.type == TOKEN_SYMBOL && p->cur.start[0] == c;
}

static bool at_identifier(const Parser *p, const char *s)
{
        return p->cur.type == TOKEN_IDENTIFIER && p->cur.len == strlen(s) && strneq(p->cur.start, s, p->cur.len);
}

static int expect_symbol(Parser *p, char c)
{
        char buf[300];
        if (at_symbol(p, c)) {
                advance(p);
                return 0;
        }
        diag(p, &p->cur, &p->cur, false, "Expected \"%c\", found \"%s\".", c, token_text(&p->cur, buf, sizeof buf));
        return -EBADMSG;
}

/* ---- values ---- */

static int parse_unsigned_token(const Token *t, uint64_t *ret)
{
        char buf[80];
        if (t->type != TOKEN_INTEGER || t->len >= sizeof buf)
                return -EINVAL;
        memcpy(buf, t->start, t->len);
        buf[t->len] = '\0';
        char *end;
        errno = 0;
        /* Base 0: "0x" hex, leading 0 octal, as protobuf's tokenizer. */
        unsigned long long v = strtoull(buf, &end, 0);
        if (errno != 0 || *end != '\0' || buf[0] == '-')
                return -ERANGE;
        *ret = v;
        return 0;
}

static int parse_float_token(const Token *t, double *ret)
{
        char buf[128];
        if ((t->type != TOKEN_FLOAT && t->type != TOKEN_INTEGER) || t->len >= sizeof buf)
                return -EINVAL;
        if (t->type == TOKEN_INTEGER) {
                uint64_t u;
                if (parse_unsigned_token(t, &u) < 0)
                        return -EINVAL;
                *ret = (double) u;
                return 0;
        }
        size_t n = t->len;
        memcpy(buf, t->start, n);
        if (buf[n - 1] == 'f' || buf[n - 1] == 'F')
                n--;
        buf[n] = '\0';
        char *end;
        *ret = strtod(buf, &end);
        if (*end != '\0' || n == 0)
                return -EINVAL;
        return 0;
}

typedef union Value {
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
        protobuf_c_boolean b;
        char *s;
        ProtobufCBinaryData bytes;
        ProtobufCMessage *m;
} Value;

static size_t value_size(ProtobufCType type)
{
        switch (type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
        case PROTOBUF_C_TYPE_ENUM:
                return 4;
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
                return 8;
        case PROTOBUF_C_TYPE_FLOAT:
                return sizeof(float);
        case PROTOBUF_C_TYPE_DOUBLE:
                return sizeof(double);
        case PROTOBUF_C_TYPE_BOOL:
                return sizeof(protobuf_c_boolean);
        case PROTOBUF_C_TYPE_STRING:
                return sizeof(char *);
        case PROTOBUF_C_TYPE_BYTES:
                return sizeof(ProtobufCBinaryData);
        case PROTOBUF_C_TYPE_MESSAGE:
                return sizeof(ProtobufCMessage *);
        }
        assert_not_reached();
}

/* Decodes the escape sequence after a backslash at *s (bounded by e) into *ret and moves *s past it.
 * Returns -EBADMSG on a bad escape. */
static int read_escape(const char **s, const char *e, char *ret)
{
        char c = *(*s)++;
        /* The C escapes protobuf's tokenizer knows. */
        static const char letters[] = "abfnrtv", values[] = "\a\b\f\n\r\t\v";
        const char *l = c ? strchr(letters, c) : NULL;
        if (l) {
                *ret = values[l - letters];
                return 0;
        }
        switch (c) {
        case '\\':
        case '\'':
        case '"':
        case '?':
                *ret = c;
                return 0;
        case 'x':
        case 'X': {
                unsigned v = 0, k = 0;
                while (k < 2 && *s < e && strchr("0123456789abcdefABCDEF", **s) && **s) {
                        v = v * 16 + (unsigned) (is_digit(**s) ? **s - '0' : (**s | 0x20) - 'a' + 10);
                        (*s)++, k++;
                }
                if (k == 0)
                        return -EBADMSG;
                *ret = (char) v;
                return 0;
        }
        default:
                if (c >= '0' && c <= '7') {
                        unsigned v = (unsigned) (c - '0'), k = 1;
                        while (k < 3 && *s < e && **s >= '0' && **s <= '7')
                                v = v * 8 + (unsigned) (*(*s)++ - '0'), k++;
                        if (v > 0xff)
                                return -EBADMSG;
                        *ret = (char) v;
                        return 0;
                }
                return -EBADMSG;
        }
}

/* Decodes one (possibly concatenated) string literal. Returns -EBADMSG on a bad escape. */
static int read_string(Parser *p, bool allow_nul, char **ret, size_t *ret_len)
{
        size_t cap = 0, n = 0;
        _cleanup_free_ char *out = NULL;
        Token first = p->cur;

        while (p->cur.type == TOKEN_STRING) {
                const char *s = p->cur.start + 1, *e = p->cur.start + p->cur.len - 1;
                if (GREEDY_REALLOC(out, cap, n + (size_t) (e - s) + 1) < 0)
                        return -ENOMEM;
                while (s < e) {
                        char c = *s++;
                        if (c != '\\') {
                                out[n++] = c;
                                continue;
                        }
                        if (read_escape(&s, e, &out[n]) < 0) {
                                diag(p, &p->cur, &p->cur, false, "Invalid escape sequence in string literal.");
                                return -EBADMSG;
                        }
                        n++;
                }
                advance(p);
        }
        out[n] = '\0';
        if (!allow_nul && strlen(out) != n) {
                diag(p, &first, &p->cur, false, "String contains a NUL byte.");
                return -EBADMSG;
        }
        if (!allow_nul && !utf8_is_valid_n(out, n)) {
                diag(p, &first, &p->cur, false, "String is not valid UTF-8.");
                return -EBADMSG;
        }
        *ret = TAKE_PTR(out);
        *ret_len = n;
        return 0;
}

/* Reads a scalar value of field f into *v. Returns 0, -EBADMSG (reported), or -ENOENT for an unknown
 * enum value that lenient mode skipped (reported). */
static int read_scalar(Parser *p, const ProtobufCFieldDescriptor *f, Value *v)
{
        char buf[300];
        bool negative = false;
        Token start = p->cur;

        if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES) {
                if (p->cur.type != TOKEN_STRING) {
                        diag(p, &p->cur, &p->cur, false, "Expected string, got: %s",
                                        token_text(&p->cur, buf, sizeof buf));
                        return -EBADMSG;
                }
                char *s;
                size_t n;
                int r = read_string(p, f->type == PROTOBUF_C_TYPE_BYTES, &s, &n);
                if (r < 0)
                        return r;
                if (f->type == PROTOBUF_C_TYPE_STRING)
                        v->s = s;
                else
                        v->bytes = (ProtobufCBinaryData){ .len = n, .data = (uint8_t *) s };
                return 0;
        }

        if (at_symbol(p, '-')) {
                negative = true;
                advance(p);
        }
        Token t = p->cur;

        switch (f->type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64: {
                bool is_signed = IN_SET(f->type, PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32,
                                PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64,
                                PROTOBUF_C_TYPE_SFIXED64);
                bool wide = IN_SET(f->type, PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64,
                                PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64);
                uint64_t u;
                if (t.type != TOKEN_INTEGER) {
                        diag(p, &t, &t, false, "Expected integer, got: %s", token_text(&t, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
                int r = parse_unsigned_token(&t, &u);
                uint64_t limit = is_signed ? (wide ? (uint64_t) INT64_MAX : (uint64_t) INT32_MAX) + negative
                                           : (negative ? 0 : (wide ? UINT64_MAX : UINT32_MAX));
                if (r < 0 || u > limit) {
                        diag(p, &start, &p->cur, false, "Integer out of range (%s%s)", negative ? "-" : "",
                                        token_text(&t, buf, sizeof buf));
                        return -EBADMSG;
                }
                if (wide)
                        v->u64 = negative ? (uint64_t) 0 - u : u;
                else
                        v->u32 = (uint32_t) (negative ? (uint64_t) 0 - u : u);
                return 0;
        }
        case PROTOBUF_C_TYPE_FLOAT:
        case PROTOBUF_C_TYPE_DOUBLE: {
                double d;
                if (t.type == TOKEN_IDENTIFIER) {
                        char id[16] = "";
                        memcpy(id, t.start, MIN(t.len, sizeof id - 1));
                        if (t.len < sizeof id && (strcasecmp(id, "inf") == 0 || strcasecmp(id, "infinity") == 0))
                                d = INFINITY;
                        else if (t.len < sizeof id && strcasecmp(id, "nan") == 0)
                                d = NAN;
                        else {
                                diag(p, &t, &t, false, "Expected double, got: %s", token_text(&t, buf, sizeof buf));
                                return -EBADMSG;
                        }
                } else if (parse_float_token(&t, &d) < 0) {
                        diag(p, &t, &t, false, "Expected double, got: %s", token_text(&t, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
                if (negative)
                        d = -d;
                if (f->type == PROTOBUF_C_TYPE_FLOAT)
                        v->f = (float) d;
                else
                        v->d = d;
                return 0;
        }
        case PROTOBUF_C_TYPE_BOOL: {
                uint64_t u;
                if (!negative && t.type == TOKEN_IDENTIFIER &&
                                (at_identifier(p, "true") || at_identifier(p, "True") || at_identifier(p, "t"))) {
                        v->b = 1;
                } else if (!negative && t.type == TOKEN_IDENTIFIER &&
                                (at_identifier(p, "false") || at_identifier(p, "False") || at_identifier(p, "f"))) {
                        v->b = 0;
                } else if (!negative && t.type == TOKEN_INTEGER && parse_unsigned_token(&t, &u) == 0 && u <= 1) {
                        v->b = u == 1;
                } else {
                        diag(p, &t, &t, false, "Invalid value for boolean field \"%s\". Value: \"%s\".", f->name,
                                        token_text(&t, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
                return 0;
        }
        case PROTOBUF_C_TYPE_ENUM: {
                const ProtobufCEnumDescriptor *e = f->descriptor;
                const ProtobufCEnumValue *ev = NULL;
                uint64_t u;
                if (t.type == TOKEN_IDENTIFIER && !negative) {
                        char name[128];
                        if (t.len < sizeof name) {
                                memcpy(name, t.start, t.len);
                                name[t.len] = '\0';
                                ev = protobuf_c_enum_descriptor_get_value_by_name(e, name);
                        }
                } else if (t.type == TOKEN_INTEGER && parse_unsigned_token(&t, &u) == 0 && u <= INT32_MAX) {
                        ev = protobuf_c_enum_descriptor_get_value(e, negative ? -(int) u : (int) u);
                } else {
                        diag(p, &t, &t, false, "Expected integer or identifier, got: %s",
                                        token_text(&t, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
                if (ev && !nv_schema_has_enum_value(p->opts->schema, e, ev))
                        ev = NULL;
                if (!ev) {
                        diag(p, &start, &p->cur, p->opts->lenient,
                                        "Unknown enumeration value of \"%s%s\" for field \"%s\".", negative ? "-" : "",
                                        token_text(&t, buf, sizeof buf), f->name);
                        return p->opts->lenient ? -ENOENT : -EBADMSG;
                }
                v->i32 = ev->value;
                return 0;
        }
        case PROTOBUF_C_TYPE_STRING:
        case PROTOBUF_C_TYPE_BYTES:
        case PROTOBUF_C_TYPE_MESSAGE:
                break;
        }
        assert_not_reached();
}

/* ---- storing into protobuf-c structs ---- */

static void *member(ProtobufCMessage *m, unsigned offset)
{
        return (char *) m + offset;
}

static void free_value(const ProtobufCFieldDescriptor *f, Value *v)
{
        if (f->type == PROTOBUF_C_TYPE_STRING)
                free(v->s);
        else if (f->type == PROTOBUF_C_TYPE_BYTES)
                free(v->bytes.data);
        else if (f->type == PROTOBUF_C_TYPE_MESSAGE && v->m)
                protobuf_c_message_free_unpacked(v->m, NULL);
}

/* Stores v (taking ownership) into field f of m. For repeated fields appends; the array grows by
 * doubling whenever the count reaches a power of two, so its capacity needs no storage. */
static int store(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, Value *v)
{
        size_t sz = value_size(f->type);

        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                size_t *n = member(m, f->quantifier_offset);
                void **arr = member(m, f->offset);
                if (*n == 0 || (*n & (*n - 1)) == 0) {
                        size_t cap = *n == 0 ? 1 : *n * 2;
                        void *grown = reallocarray(*arr, cap, sz);
                        if (!grown) {
                                free_value(f, v);
                                return -ENOMEM;
                        }
                        *arr = grown;
                }
                memcpy((char *) *arr + *n * sz, v, sz);
                (*n)++;
                return 0;
        }

        void *slot = member(m, f->offset);
        if (f->type == PROTOBUF_C_TYPE_STRING) {
                char **s = slot;
                if (*s && *s != (const char *) f->default_value)
                        free(*s);
        }
        memcpy(slot, v, sz);
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
                *(uint32_t *) member(m, f->quantifier_offset) = f->id;
        else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset != 0 &&
                        !IN_SET(f->type, PROTOBUF_C_TYPE_STRING, PROTOBUF_C_TYPE_MESSAGE))
                *(protobuf_c_boolean *) member(m, f->quantifier_offset) = 1;
        return 0;
}

/* ---- skipping (lenient mode) ---- */

static int skip_value(Parser *p);

static int skip_block(Parser *p)
{
        char close = at_symbol(p, '<') ? '>' : '}';
        if (++p->depth > p->opts->max_depth) {
                diag(p, &p->cur, &p->cur, false, "Message nesting deeper than %u.", p->opts->max_depth);
                return -EBADMSG;
        }
        advance(p);
        while (!at_symbol(p, close)) {
                if (p->cur.type == TOKEN_EOF || p->error < 0)
                        return expect_symbol(p, close);
                if (p->cur.type != TOKEN_IDENTIFIER) {
                        char buf[300];
                        diag(p, &p->cur, &p->cur, false, "Expected identifier, got: %s",
                                        token_text(&p->cur, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
                int r = skip_value(p);
                if (r < 0)
                        return r;
                if (at_symbol(p, ';') || at_symbol(p, ','))
                        advance(p);
        }
        advance(p);
        p->depth--;
        return 0;
}

static int skip_scalar(Parser *p)
{
        if (at_symbol(p, '-'))
                advance(p);
        if (p->cur.type == TOKEN_STRING) {
                while (p->cur.type == TOKEN_STRING)
                        advance(p);
                return 0;
        }
        if (IN_SET(p->cur.type, TOKEN_IDENTIFIER, TOKEN_INTEGER, TOKEN_FLOAT)) {
                advance(p);
                return 0;
        }
        char buf[300];
        diag(p, &p->cur, &p->cur, false, "Expected value, got: %s", token_text(&p->cur, buf, sizeof buf));
        return -EBADMSG;
}

/* Skips what follows an unknown field's name. */
static int skip_value(Parser *p)
{
        if (at_symbol(p, ':'))
                advance(p);
        if (at_symbol(p, '{') || at_symbol(p, '<'))
                return skip_block(p);
        if (at_symbol(p, '[')) {
                advance(p);
                while (!at_symbol(p, ']')) {
                        int r = (at_symbol(p, '{') || at_symbol(p, '<')) ? skip_block(p) : skip_scalar(p);
                        if (r < 0)
                                return r;
                        if (at_symbol(p, ','))
                                advance(p);
                        else if (!at_symbol(p, ']'))
                                return expect_symbol(p, ']');
                }
                advance(p);
                return 0;
        }
        return skip_scalar(p);
}

/* ---- messages ---- */

static int parse_message_body(
                Parser *p, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m, char close, const Token *open);

static int new_message(const ProtobufCMessageDescriptor *d, ProtobufCMessage **ret)
{
        ProtobufCMessage *m = malloc(d->sizeof_message);
        if (!m)
                return -ENOMEM;
        protobuf_c_message_init(d, m);
        *ret = m;
        return 0;
}

static int read_one_value(Parser *p, ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
        Value v = { 0 };
        int r;

        if (++p->n_values > p->opts->max_values) {
                diag(p, &p->cur, &p->cur, false, "More than %zu values.", p->opts->max_values);
                return -EBADMSG;
        }

        if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (!at_symbol(p, '{') && !at_symbol(p, '<')) {
                        char buf[300];
                        diag(p, &p->cur, &p->cur, false, "Expected \"{\", found \"%s\".",
                                        token_text(&p->cur, buf, sizeof buf));
                        return -EBADMSG;
                }
                Token open = p->cur;
                char close = at_symbol(p, '<') ? '>' : '}';
                if (p->depth + 1 > p->opts->max_depth) {
                        diag(p, &open, &open, false, "Message nesting deeper than %u.", p->opts->max_depth);
                        return -EBADMSG;
                }
                advance(p);
                r = new_message(f->descriptor, &v.m);
                if (r < 0)
                        return r;
                /* Linked in first, so an error below frees it with the whole tree. */
                ProtobufCMessage *sub = v.m;
                r = store(m, f, &v);
                if (r < 0)
                        return r;
                p->depth++;
                r = parse_message_body(p, f->descriptor, sub, close, &open);
                p->depth--;
                if (r < 0)
                        return r;
                return expect_symbol(p, close);
        }

        r = read_scalar(p, f, &v);
        if (r == -ENOENT)
                return 0; /* skipped unknown enum value */
        if (r < 0)
                return r;
        return store(m, f, &v);
}

static bool bit_test(const uint8_t *bits, size_t i)
{
        return bits[i / 8] & (1U << (i % 8));
}

static int parse_field(Parser *p, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m, uint8_t *seen)
{
        char buf[300];
        Token name = p->cur;

        if (name.type != TOKEN_IDENTIFIER) {
                diag(p, &name, &name, false, "Expected identifier, got: %s", token_text(&name, buf, sizeof buf));
                return -EBADMSG;
        }
        advance(p);

        const ProtobufCFieldDescriptor *f = NULL;
        char fname[128];
        if (name.len < sizeof fname) {
                memcpy(fname, name.start, name.len);
                fname[name.len] = '\0';
                f = protobuf_c_message_descriptor_get_field_by_name(d, fname);
        }
        if (f && !nv_schema_has_field(p->opts->schema, d, f))
                f = NULL;
        if (!f) {
                diag(p, &name, &p->cur, p->opts->lenient, "Message type \"%s\" has no field named \"%s\".", d->name,
                                token_text(&name, buf, sizeof buf));
                if (!p->opts->lenient)
                        return -EBADMSG;
                return skip_value(p);
        }

        size_t idx = (size_t) (f - d->fields);
        if (f->label != PROTOBUF_C_LABEL_REPEATED) {
                if (bit_test(seen, idx)) {
                        diag(p, &name, &p->cur, false, "Non-repeated field \"%s\" is specified multiple times.",
                                        f->name);
                        return -EBADMSG;
                }
                if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
                        for (unsigned i = 0; i < d->n_fields; i++)
                                if (i != idx && bit_test(seen, i) &&
                                                (d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                                                d->fields[i].quantifier_offset == f->quantifier_offset) {
                                        diag(p, &name, &p->cur, false,
                                                        "Field \"%s\" is specified along with field \"%s\", another member of the same oneof.",
                                                        f->name, d->fields[i].name);
                                        return -EBADMSG;
                                }
        }
        seen[idx / 8] |= (uint8_t) (1U << (idx % 8));

        if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (at_symbol(p, ':'))
                        advance(p);
        } else {
                if (!at_symbol(p, ':')) {
                        diag(p, &p->cur, &p->cur, false, "Expected \":\", found \"%s\".",
                                        token_text(&p->cur, buf, sizeof buf));
                        return -EBADMSG;
                }
                advance(p);
        }

        if (at_symbol(p, '[')) {
                if (f->label != PROTOBUF_C_LABEL_REPEATED) {
                        diag(p, &p->cur, &p->cur, false, "Field \"%s\" is not repeated; a list is not allowed.",
                                        f->name);
                        return -EBADMSG;
                }
                advance(p);
                while (!at_symbol(p, ']')) {
                        int r = read_one_value(p, m, f);
                        if (r < 0)
                                return r;
                        if (at_symbol(p, ','))
                                advance(p);
                        else if (!at_symbol(p, ']'))
                                return expect_symbol(p, ']');
                }
                advance(p);
                return 0;
        }
        return read_one_value(p, m, f);
}

static int parse_message_body(
                Parser *p, const ProtobufCMessageDescriptor *d, ProtobufCMessage *m, char close, const Token *open)
{
        uint8_t seen[MAX_FIELDS_PER_MESSAGE / 8] = { 0 };

        assert(d->n_fields <= MAX_FIELDS_PER_MESSAGE);
        for (;;) {
                if (p->error < 0)
                        return p->error;
                if (p->cur.type == TOKEN_EOF) {
                        if (close != '\0') {
                                diag(p, &p->cur, &p->cur, false,
                                                "Expected \"%c\" to close the \"%c\" at line %u, found end of input.",
                                                close, open->start[0], open->line + 1);
                                return -EBADMSG;
                        }
                        break;
                }
                if (close != '\0' && at_symbol(p, close))
                        break;
                int r = parse_field(p, d, m, seen);
                if (r < 0)
                        return p->error < 0 ? p->error : r;
                if (at_symbol(p, ';') || at_symbol(p, ','))
                        advance(p);
        }

        for (unsigned i = 0; i < d->n_fields; i++)
                if (d->fields[i].label == PROTOBUF_C_LABEL_REQUIRED && !bit_test(seen, i)) {
                        diag(p, &p->cur, &p->cur, false, "Message type \"%s\" is missing required field \"%s\".",
                                        d->name, d->fields[i].name);
                        return -EBADMSG;
                }
        return 0;
}

int textformat_parse(const char *text, size_t len, const ProtobufCMessageDescriptor *desc,
                const TextFormatOptions *opts, ProtobufCMessage **ret, TextFormatDiagnostics *diags)
{
        TextFormatOptions o = opts ? *opts : (TextFormatOptions){ .schema = NV_SCHEMA_EXTENDED };
        ProtobufCMessage *m = NULL;

        assert(text || len == 0);
        assert(desc);
        assert(ret);

        if (o.max_input == 0)
                o.max_input = TEXTFORMAT_MAX_INPUT;
        if (o.max_depth == 0)
                o.max_depth = TEXTFORMAT_MAX_DEPTH;
        if (o.max_values == 0)
                o.max_values = TEXTFORMAT_MAX_VALUES;

        Parser p = { .text = text, .len = len, .opts = &o, .diags = diags };
        if (len > o.max_input) {
                Token here = { 0 };
                diag(&p, &here, &here, false, "Input of %zu bytes exceeds the limit of %zu.", len, o.max_input);
                return -EFBIG;
        }

        int r = new_message(desc, &m);
        if (r < 0)
                return r;
        advance(&p);
        Token open = p.cur;
        r = parse_message_body(&p, desc, m, '\0', &open);
        if (r >= 0 && p.error < 0)
                r = p.error;
        if (r < 0) {
                protobuf_c_message_free_unpacked(m, NULL);
                return r == -ENOMEM ? r : -EBADMSG;
        }
        *ret = m;
        return 0;
}
