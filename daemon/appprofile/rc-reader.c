/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "rc-reader.h"
#include "string-util.h"

/* What the scanner expects next inside the innermost container. */
typedef enum ExpectState {
        EXPECT_ROOT, /* top level, before the root value */
        EXPECT_END_OF_FILE, /* top level, after the root value */
        EXPECT_KEY_OR_CLOSE, /* object, after '{' */
        EXPECT_KEY, /* object, after ',' */
        EXPECT_COLON, /* object, after a member name */
        EXPECT_VALUE, /* object after ':', or array after ',' */
        EXPECT_VALUE_OR_CLOSE, /* array, after '[' */
        EXPECT_COMMA_OR_CLOSE, /* object or array, after a value */
        _EXPECT_STATE_MAX,
} ExpectState;

typedef struct Frame {
        uint32_t node;
        uint32_t last_child; /* RC_NODE_NONE while empty */
        ExpectState expect;
} Frame;

/* A place where the rewritten text got longer or shorter than the original, so json-c's error offsets
 * can be mapped back. Only hex integers wider than their decimal spelling cause these. */
typedef struct Shift {
        size_t out_offset; /* in the rewritten text, just after the edit */
        ptrdiff_t delta; /* rewritten minus original length so far */
} Shift;

typedef struct Scanner {
        const char *in;
        size_t size, pos;
        uint32_t line;
        size_t line_start;

        /* The rewritten text, created lazily on the first edit: most files need none. */
        char *out;
        size_t out_size, out_allocated;
        size_t copied; /* input consumed into out so far */
        Shift *shifts;
        size_t n_shifts, allocated_shifts;

        Frame stack[RC_DEPTH_MAX + 1];
        size_t depth; /* stack[0] is the top level */

        RcNode *nodes;
        size_t n_nodes, allocated_nodes;

        /* Member name waiting for its value. */
        bool have_key;
        uint32_t key_offset, key_length, key_line, key_column;
        bool key_escaped;

        /* Where the last ',' was, for trailing-comma reports. */
        size_t comma_pos;
        uint32_t comma_line, comma_column;

        /* What jansson (nvidia-settings) refuses although we read it: see RcPortability. */
        RcPortability portability;

        const RcSyntaxOptions *options;
        RcDiagnostics *diags;
} Scanner;

static uint32_t column_at(const Scanner *s, size_t pos)
{
        return (uint32_t) (pos - s->line_start + 1);
}

static int scan_error(Scanner *s, size_t pos, const char *fmt, ...) _printf_(3, 4);
static int scan_error(Scanner *s, size_t pos, const char *fmt, ...)
{
        _cleanup_free_ char *m = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;

        r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, s->line, column_at(s, pos), "%s", m);
        return r < 0 ? r : -EBADMSG;
}

/* Describes the byte at pos for messages, printable or as hex. */
static const char *describe_byte(const Scanner *s, size_t pos, char buf[static 16])
{
        unsigned char c;

        if (pos >= s->size)
                return "end of file";
        c = (unsigned char) s->in[pos];
        if (c >= 0x20 && c < 0x7f)
                snprintf(buf, 16, "'%c'", c);
        else
                snprintf(buf, 16, "byte 0x%02x", c);
        return buf;
}

/* Makes sure out exists and holds all input up to pos, with room for extra more bytes. */
static int out_sync(Scanner *s, size_t pos, size_t extra)
{
        size_t n = pos - s->copied;

        if (!s->out) {
                /* Only long hex integers grow, by at most 2 bytes each: size + slack is usually enough. */
                if (GREEDY_REALLOC(s->out, s->out_allocated, s->size + 64) < 0)
                        return -ENOMEM;
        }
        if (GREEDY_REALLOC(s->out, s->out_allocated, s->out_size + n + extra + 1) < 0)
                return -ENOMEM;

        memcpy(s->out + s->out_size, s->in + s->copied, n);
        s->out_size += n;
        s->copied = pos;
        return 0;
}

/* Replaces input [pos, pos+len) by repl in the rewritten text. */
static int out_replace(Scanner *s, size_t pos, size_t len, const char *repl, size_t repl_len)
{
        int r;

        r = out_sync(s, pos, repl_len);
        if (r < 0)
                return r;

        memcpy(s->out + s->out_size, repl, repl_len);
        s->out_size += repl_len;
        s->copied = pos + len;

        if (repl_len > len) {
                ptrdiff_t delta = (ptrdiff_t) (repl_len - len);

                if (s->n_shifts > 0)
                        delta += s->shifts[s->n_shifts - 1].delta;
                if (GREEDY_REALLOC(s->shifts, s->allocated_shifts, s->n_shifts + 1) < 0)
                        return -ENOMEM;
                s->shifts[s->n_shifts++] = (Shift){ .out_offset = s->out_size, .delta = delta };
        } else if (repl_len < len) {
                /* Pad with spaces so the length stays the same and no shift is needed. */
                memset(s->out + s->out_size, ' ', len - repl_len);
                s->out_size += len - repl_len;
        }
        return 0;
}

static int out_blank(Scanner *s, size_t pos, size_t len)
{
        int r;

        r = out_sync(s, pos, len);
        if (r < 0)
                return r;
        memset(s->out + s->out_size, ' ', len);
        s->out_size += len;
        s->copied = pos + len;
        return 0;
}

static Frame *top(Scanner *s)
{
        return &s->stack[s->depth];
}

static bool in_object(Scanner *s)
{
        return s->depth > 0 && s->nodes[top(s)->node].type == RC_NODE_OBJECT;
}

/* Called when a value starts at pos; links a node for it into the tree. */
static int value_start(Scanner *s, size_t pos, RcNodeType type, uint32_t *ret_index)
{
        char b[16];
        Frame *f = top(s);
        RcNode *n;
        uint32_t idx;

        switch (f->expect) {
        case EXPECT_ROOT:
        case EXPECT_VALUE:
        case EXPECT_VALUE_OR_CLOSE:
                break;
        case EXPECT_END_OF_FILE:
                return scan_error(s, pos,
                                "unexpected %s after the end of the root object; an rc file holds exactly "
                                "one object such as {\"rules\": [...], \"profiles\": [...]}",
                                describe_byte(s, pos, b));
        case EXPECT_KEY_OR_CLOSE:
        case EXPECT_KEY:
                return scan_error(
                                s, pos, "expected a member name in double quotes, found %s", describe_byte(s, pos, b));
        case EXPECT_COLON:
                return scan_error(s, pos, "expected ':' after the member name, found %s", describe_byte(s, pos, b));
        case EXPECT_COMMA_OR_CLOSE:
                return scan_error(s, pos, "expected ',' or '%c' before %s (missing comma?)", in_object(s) ? '}' : ']',
                                describe_byte(s, pos, b));
        case _EXPECT_STATE_MAX:
                assert(false);
        }

        if (s->n_nodes >= RC_NODES_MAX)
                return scan_error(s, pos, "more than %u values in one file", RC_NODES_MAX);
        if (GREEDY_REALLOC(s->nodes, s->allocated_nodes, s->n_nodes + 1) < 0)
                return -ENOMEM;

        idx = (uint32_t) s->n_nodes++;
        n = &s->nodes[idx];
        *n = (RcNode){
                .line = s->line,
                .column = column_at(s, pos),
                .offset = (uint32_t) pos,
                .end = (uint32_t) pos + 1, /* containers and strings: set when they end */
                .type = (uint8_t) type,
        };

        if (s->depth > 0) {
                RcNode *parent = &s->nodes[f->node];

                if (f->last_child == RC_NODE_NONE)
                        parent->first_child = idx;
                else
                        s->nodes[f->last_child].next_sibling = idx;
                f->last_child = idx;

                if (s->have_key) {
                        n->has_key = true;
                        n->key_offset = s->key_offset;
                        n->key_length = s->key_length;
                        n->key_escaped = s->key_escaped;
                        n->key_line = s->key_line;
                        n->key_column = s->key_column;
                        s->have_key = false;
                }
                f->expect = EXPECT_COMMA_OR_CLOSE;
        } else
                f->expect = EXPECT_END_OF_FILE;

        if (ret_index)
                *ret_index = idx;
        return 0;
}

static int scan_open(Scanner *s, RcNodeType type)
{
        uint32_t idx;
        int r;

        r = value_start(s, s->pos, type, &idx);
        if (r < 0)
                return r;

        if (s->depth >= RC_DEPTH_MAX)
                return scan_error(s, s->pos, "nesting deeper than %u levels", RC_DEPTH_MAX);

        s->stack[++s->depth] = (Frame){
                .node = idx,
                .last_child = RC_NODE_NONE,
                .expect = type == RC_NODE_OBJECT ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE,
        };
        s->pos++;
        return 0;
}

static int scan_close(Scanner *s, char c)
{
        char b[16];
        Frame *f = top(s);
        bool object = c == '}';
        int r;

        if (s->depth == 0 || (s->nodes[f->node].type == RC_NODE_OBJECT) != object)
                return scan_error(s, s->pos, "unexpected %s", describe_byte(s, s->pos, b));

        if ((object && f->expect == EXPECT_KEY) || (!object && f->expect == EXPECT_VALUE)) {
                /* A ',' directly before the closing bracket. */
                if (!s->options->accept_trailing_commas) {
                        r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, s->comma_line, s->comma_column,
                                        "trailing comma before '%c' (not valid JSON; the file is rejected)", c);
                        return r < 0 ? r : -EBADMSG;
                }
                if (s->portability.trailing_comma_line == 0) {
                        s->portability.trailing_comma_line = s->comma_line;
                        s->portability.trailing_comma_column = s->comma_column;
                }
                r = rc_diagnostics_add(s->diags, RC_SEVERITY_WARNING, s->comma_line, s->comma_column,
                                "trailing comma before '%c' ignored", c);
                if (r < 0)
                        return r;
                if (s->copied > s->comma_pos) {
                        /* A comment after the comma was blanked already, so the comma is in out. Only
                         * whitespace and comments lie between it and here, and those keep their length. */
                        ptrdiff_t delta = s->n_shifts > 0 ? s->shifts[s->n_shifts - 1].delta : 0;
                        s->out[(size_t) ((ptrdiff_t) s->comma_pos + delta)] = ' ';
                } else {
                        r = out_blank(s, s->comma_pos, 1);
                        if (r < 0)
                                return r;
                }
        } else if (object && f->expect == EXPECT_COLON)
                return scan_error(s, s->pos, "expected ':' after the member name, found '}'");
        else if (object && f->expect == EXPECT_VALUE)
                return scan_error(s, s->pos, "expected a value after ':', found '}'");

        s->nodes[f->node].end = (uint32_t) s->pos + 1;
        s->depth--;
        s->pos++;
        return 0;
}

static int scan_comma(Scanner *s)
{
        char b[16];
        Frame *f = top(s);

        if (s->depth == 0 || f->expect != EXPECT_COMMA_OR_CLOSE) {
                if (s->depth == 0 && f->expect == EXPECT_END_OF_FILE)
                        return scan_error(s, s->pos,
                                        "unexpected ',' after the end of the root object; an rc file holds "
                                        "exactly one object such as {\"rules\": [...]}");
                return scan_error(s, s->pos, "unexpected %s", describe_byte(s, s->pos, b));
        }

        f->expect = in_object(s) ? EXPECT_KEY : EXPECT_VALUE;
        s->comma_pos = s->pos;
        s->comma_line = s->line;
        s->comma_column = column_at(s, s->pos);
        s->pos++;
        return 0;
}

static int scan_colon(Scanner *s)
{
        char b[16];
        Frame *f = top(s);

        if (s->depth == 0 || f->expect != EXPECT_COLON)
                return scan_error(s, s->pos, "unexpected %s", describe_byte(s, s->pos, b));
        f->expect = EXPECT_VALUE;
        s->pos++;
        return 0;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "skip_plain_string_bytes() assumes little-endian; add a byte-wise fallback for this target"
#endif

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Bytes of x equal to b get their high bit set (the classic "has zero byte" trick on x ^ b). */
static inline uint64_t swar_eq(uint64_t x, unsigned char b)
{
        uint64_t y = x ^ (ONES * b);
        return (y - ONES) & ~y & HIGHS;
}

/* Skips ahead, 8 bytes at a time, to the first byte in [pos, size) that a string scan must look at:
 * either quote, a backslash, a newline, NUL, or a non-ASCII byte. Most string bytes are none of these. */
static size_t skip_plain_string_bytes(const char *in, size_t pos, size_t size)
{
        while (pos + 8 <= size) {
                uint64_t x, special;

                memcpy(&x, in + pos, 8);
                special = swar_eq(x, '"') | swar_eq(x, '\'') | swar_eq(x, '\\') | swar_eq(x, '\n') | swar_eq(x, 0) |
                                (x & HIGHS);
                if (special)
                        return pos + (size_t) (__builtin_ctzll(special) / 8); /* little-endian */
                pos += 8;
        }
        return pos;
}

/* ASCII bytes that need attention inside a string: both quotes, backslash, newline, NUL. */
static const bool string_special[128] = {
        ['"'] = true,
        ['\''] = true,
        ['\\'] = true,
        ['\n'] = true,
        [0] = true,
};

static int scan_string(Scanner *s)
{
        size_t start = s->pos;
        char quote = s->in[start];
        bool escaped = false, is_key;
        uint32_t line = s->line, column = column_at(s, start), idx = RC_NODE_NONE;
        int r;

        is_key = in_object(s) && (top(s)->expect == EXPECT_KEY || top(s)->expect == EXPECT_KEY_OR_CLOSE);

        if (quote == '\'' && !is_key)
                return scan_error(
                                s, start, "single-quoted strings are only allowed for member names; use double quotes");
        if (quote == '\'' && s->portability.single_quote_line == 0) {
                s->portability.single_quote_line = line;
                s->portability.single_quote_column = column;
        }

        if (!is_key) {
                r = value_start(s, start, RC_NODE_SCALAR, &idx);
                if (r < 0)
                        return r;
        }

        for (s->pos = start + 1; s->pos < s->size; s->pos++) {
                unsigned char c;

                s->pos = skip_plain_string_bytes(s->in, s->pos, s->size);
                if (s->pos >= s->size)
                        break;
                c = (unsigned char) s->in[s->pos];
                if (_likely_(c < 0x80 && !string_special[c]))
                        continue;
                if (c == (unsigned char) quote)
                        break;
                if (c == '\\') {
                        escaped = true;
                        s->pos++;
                        if (s->pos < s->size && s->in[s->pos] == '\n') {
                                s->line++;
                                s->line_start = s->pos + 1;
                        }
                } else if (c == '\n') {
                        s->line++;
                        s->line_start = s->pos + 1;
                } else if (c == '\0')
                        return scan_error(s, s->pos, "NUL byte inside a string");
                else if (c >= 0x80) {
                        /* Validated here rather than by json-c: cheaper, and the position is exact. Every
                         * string may end up in a D-Bus message, which must be valid UTF-8. */
                        size_t len = utf8_sequence_length(s->in + s->pos, s->size - s->pos);
                        if (len == 0)
                                return scan_error(s, s->pos, "invalid UTF-8 in string");
                        s->pos += len - 1;
                }
        }

        if (s->pos >= s->size) {
                r = rc_diagnostics_add(
                                s->diags, RC_SEVERITY_ERROR, line, column, "string starting here is not terminated");
                return r < 0 ? r : -EBADMSG;
        }

        if (is_key) {
                s->have_key = true;
                s->key_offset = (uint32_t) (start + 1);
                s->key_length = (uint32_t) (s->pos - start - 1);
                s->key_escaped = escaped;
                s->key_line = line;
                s->key_column = column;
                top(s)->expect = EXPECT_COLON;
        } else
                s->nodes[idx].end = (uint32_t) s->pos + 1;

        s->pos++; /* the closing quote */
        return 0;
}

static bool is_number_char(char c)
{
        return isalnum((unsigned char) c) || c == '.' || c == '_';
}

/* Numbers: decimal is left to json-c after a range check it does not do; 0NN and 0xNN are converted. */
static int scan_number(Scanner *s)
{
        size_t start = s->pos, digits, end;
        bool negative = false, hex = false, octal = false, real = false;
        uint64_t v = 0;
        char buf[160]; /* numbers are at most 128 bytes, checked below */
        uint32_t idx;
        int r;

        r = value_start(s, start, RC_NODE_SCALAR, &idx);
        if (r < 0)
                return r;

        end = start;
        if (s->in[end] == '-') {
                negative = true;
                end++;
        }
        digits = end;

        /* The run nvidia-settings converts: [0-9a-fA-FxX.] and, for reals, an exponent sign. */
        for (; end < s->size; end++) {
                char c = s->in[end];
                if (is_number_char(c))
                        continue;
                if ((c == '+' || c == '-') && end > digits && (s->in[end - 1] == 'e' || s->in[end - 1] == 'E') &&
                                !(s->in[digits] == '0' && end > digits + 1 &&
                                                (s->in[digits + 1] == 'x' || s->in[digits + 1] == 'X')))
                        continue;
                break;
        }
        s->pos = end;
        s->nodes[idx].end = (uint32_t) end;

        if (end == digits || !isdigit((unsigned char) s->in[digits]))
                return scan_error(s, start, "'-' must be followed by a number");
        if (end - start > 128)
                return scan_error(s, start, "number too long");

        if (s->in[digits] == '0' && end > digits + 1) {
                char c = s->in[digits + 1];
                if (c == 'x' || c == 'X')
                        hex = true;
                else if (isdigit((unsigned char) c))
                        octal = true;
        }

        for (size_t i = digits; i < end; i++)
                if (!hex && (s->in[i] == '.' || s->in[i] == 'e' || s->in[i] == 'E'))
                        real = true;

        if (hex || octal) {
                unsigned base = hex ? 16 : 8;
                size_t i = digits + (hex ? 2 : 1);

                if (i >= end)
                        return scan_error(s, start, "hexadecimal integer '%.*s' has no digits", (int) (end - start),
                                        s->in + start);

                for (; i < end; i++) {
                        char c = s->in[i];
                        unsigned d;

                        if (isdigit((unsigned char) c))
                                d = (unsigned) (c - '0');
                        else if (hex && isxdigit((unsigned char) c))
                                d = (unsigned) (tolower((unsigned char) c) - 'a' + 10);
                        else
                                d = 99;
                        if (d >= base)
                                return scan_error(s, start, "invalid %s integer '%.*s'",
                                                hex ? "hexadecimal" : "octal (leading 0)", (int) (end - start),
                                                s->in + start);
                        if (__builtin_mul_overflow(v, (uint64_t) base, &v) ||
                                        __builtin_add_overflow(v, (uint64_t) d, &v))
                                return scan_error(s, start, "integer '%.*s' does not fit in 64 bits",
                                                (int) (end - start), s->in + start);
                }
                if (negative && v > (uint64_t) INT64_MAX + 1)
                        return scan_error(s, start, "integer '%.*s' does not fit in 64 bits", (int) (end - start),
                                        s->in + start);

                r = snprintf(buf, sizeof(buf), "%s%" PRIu64, negative ? "-" : "", v);
                assert(r > 0 && (size_t) r < sizeof(buf));
                return out_replace(s, start, end - start, buf, (size_t) r);
        }

        if (real) {
                double d;
                char *e;

                assert(end - start < sizeof(buf));
                memcpy(buf, s->in + start, end - start);
                buf[end - start] = '\0';
                d = strtod(buf, &e);
                if (*e == '\0' && !isfinite(d))
                        return scan_error(s, start, "number '%s' is out of range", buf);
                return 0; /* syntax of reals is json-c's business */
        }

        for (size_t i = digits; i < end; i++) {
                if (!isdigit((unsigned char) s->in[i]))
                        return scan_error(s, start, "invalid number '%.*s'", (int) (end - start), s->in + start);
                if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, (uint64_t) (s->in[i] - '0'), &v) ||
                                (negative && v > (uint64_t) INT64_MAX + 1))
                        return scan_error(s, start, "integer '%.*s' does not fit in 64 bits", (int) (end - start),
                                        s->in + start);
        }
        return 0;
}

static int scan_word(Scanner *s)
{
        size_t start = s->pos, end = start;

        while (end < s->size && (isalnum((unsigned char) s->in[end]) || s->in[end] == '_'))
                end++;

        if ((end - start == 4 && (strneq(s->in + start, "true", 4) || strneq(s->in + start, "null", 4))) ||
                        (end - start == 5 && strneq(s->in + start, "false", 5))) {
                uint32_t idx;
                int r;

                s->pos = end;
                r = value_start(s, start, RC_NODE_SCALAR, &idx);
                if (r < 0)
                        return r;
                s->nodes[idx].end = (uint32_t) end;
                return 0;
        }

        return scan_error(s, start, "unexpected '%.*s'; values are strings, numbers, true, false, objects or arrays",
                        (int) MIN(end - start, (size_t) 40), s->in + start);
}

static int scan(Scanner *s)
{
        char b[16];
        int r;

        if (s->size >= 3 && memcmp(s->in, "\xef\xbb\xbf", 3) == 0) {
                r = rc_diagnostics_add(s->diags, RC_SEVERITY_WARNING, 1, 1, "UTF-8 byte-order mark ignored");
                if (r < 0)
                        return r;
                r = out_blank(s, 0, 3);
                if (r < 0)
                        return r;
                s->pos = 3;
        }

        while (s->pos < s->size) {
                char c = s->in[s->pos];

                switch (c) {
                case '\n':
                        s->line++;
                        s->line_start = ++s->pos;
                        break;
                case ' ':
                case '\t':
                case '\r':
                        do
                                s->pos++;
                        while (s->pos < s->size && (s->in[s->pos] == ' ' || s->in[s->pos] == '\t'));
                        break;
                case '#': {
                        const char *nl = memchr(s->in + s->pos, '\n', s->size - s->pos);
                        size_t end = nl ? (size_t) (nl - s->in) : s->size;

                        r = out_blank(s, s->pos, end - s->pos);
                        if (r < 0)
                                return r;
                        s->pos = end;
                        break;
                }
                case '/':
                        return scan_error(s, s->pos, "'/' is not rc syntax; comments start with '#'");
                case '{':
                case '[':
                        r = scan_open(s, c == '{' ? RC_NODE_OBJECT : RC_NODE_ARRAY);
                        if (r < 0)
                                return r;
                        break;
                case '}':
                case ']':
                        r = scan_close(s, c);
                        if (r < 0)
                                return r;
                        break;
                case ',':
                        r = scan_comma(s);
                        if (r < 0)
                                return r;
                        break;
                case ':':
                        r = scan_colon(s);
                        if (r < 0)
                                return r;
                        break;
                case '"':
                case '\'':
                        r = scan_string(s);
                        if (r < 0)
                                return r;
                        break;
                case '\0':
                        return scan_error(s, s->pos, "NUL byte in file");
                default:
                        if (c == '-' || isdigit((unsigned char) c)) {
                                r = scan_number(s);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        if (isalpha((unsigned char) c) || c == '_') {
                                r = scan_word(s);
                                if (r < 0)
                                        return r;
                                break;
                        }
                        return scan_error(s, s->pos, "unexpected %s", describe_byte(s, s->pos, b));
                }
        }

        if (s->n_nodes == 0) {
                r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, 0, 0,
                                "file is empty: an rc file must hold one object such as {\"rules\": []}");
                return r < 0 ? r : -EBADMSG;
        }
        if (s->depth > 0) {
                const RcNode *open = &s->nodes[top(s)->node];
                r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, open->line, open->column,
                                "%s opened here is not closed before the end of the file",
                                open->type == RC_NODE_OBJECT ? "object" : "array");
                return r < 0 ? r : -EBADMSG;
        }
        if (s->nodes[0].type != RC_NODE_OBJECT) {
                r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, s->nodes[0].line, s->nodes[0].column,
                                "the root value must be an object such as {\"rules\": [...]}");
                return r < 0 ? r : -EBADMSG;
        }
        return 0;
}

/* Maps an offset in the rewritten text back to the original and reports line:col there. */
static void position_of(const Scanner *s, size_t out_offset, uint32_t *ret_line, uint32_t *ret_column)
{
        ptrdiff_t delta = 0;
        size_t in_offset;
        uint32_t line = 1;
        size_t line_start = 0;

        for (size_t i = 0; i < s->n_shifts && s->shifts[i].out_offset <= out_offset; i++)
                delta = s->shifts[i].delta;
        in_offset = (size_t) MAX((ptrdiff_t) 0, (ptrdiff_t) out_offset - delta);
        in_offset = MIN(in_offset, s->size);

        for (size_t i = 0; i < in_offset; i++)
                if (s->in[i] == '\n') {
                        line++;
                        line_start = i + 1;
                }
        *ret_line = line;
        *ret_column = (uint32_t) (in_offset - line_start + 1);
}

static void scanner_done(Scanner *s)
{
        free(s->out);
        free(s->shifts);
        free(s->nodes);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_tokener *, json_tokener_free);

/* The scanned text as json-c is to read it: the rewritten copy if the scanner edited it, else the input. */
static int scanned_json(Scanner *s, const char **ret_json, size_t *ret_size)
{
        int r;

        if (!s->out) {
                *ret_json = s->in;
                *ret_size = s->size;
                return 0;
        }
        r = out_sync(s, s->size, 0);
        if (r < 0)
                return r;
        s->out[s->out_size] = '\0';
        *ret_json = s->out;
        *ret_size = s->out_size;
        return 0;
}

static int parse_json(Scanner *s, const char *json, size_t json_size, struct json_object **ret)
{
        _cleanup_(json_tokener_freep) struct json_tokener *tok = NULL;
        struct json_object *root;
        enum json_tokener_error jerr;
        uint32_t line, column;
        int r;

        tok = json_tokener_new_ex(RC_DEPTH_MAX + 1);
        if (!tok)
                return -ENOMEM;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT); /* UTF-8 is checked by the scanner */

        /* The scanner has checked that one complete object makes up the text, so json-c sees the end of
         * the object before the end of the buffer; numbers never sit at the very end. */
        root = json_tokener_parse_ex(tok, json, (int) MIN(json_size, (size_t) INT32_MAX));
        jerr = json_tokener_get_error(tok);
        if (root && jerr == json_tokener_success) {
                *ret = root;
                return 0;
        }

        json_object_put(root);
        position_of(s, json_tokener_get_parse_end(tok), &line, &column);
        r = rc_diagnostics_add(s->diags, RC_SEVERITY_ERROR, line, column, "JSON syntax error: %s",
                        json_tokener_error_desc(jerr == json_tokener_success ? json_tokener_continue : jerr));
        return r < 0 ? r : -EBADMSG;
}

int rc_document_parse(
                const char *text, size_t size, const RcSyntaxOptions *options, RcDiagnostics *diags, RcDocument *doc)
{
        static const RcSyntaxOptions default_options = { 0 };
        struct json_object *root;
        const char *json;
        size_t json_size;
        _cleanup_(scanner_done) Scanner s = {
                .in = text,
                .size = size,
                .line = 1,
                .options = options ? options : &default_options,
                .diags = diags,
        };
        int r;

        assert(text || size == 0);
        assert(diags);
        assert(doc);

        *doc = (RcDocument){ 0 };

        if (size > RC_FILE_SIZE_MAX) {
                r = rc_diagnostics_add(diags, RC_SEVERITY_ERROR, 0, 0, "file larger than %u bytes", RC_FILE_SIZE_MAX);
                return r < 0 ? r : -EBADMSG;
        }

        s.stack[0] = (Frame){ .expect = EXPECT_ROOT };

        /* Real files have one value per 15-20 bytes; reserving that saves most regrowth. Stay below glibc's
         * 64 KiB consolidation threshold, though: a larger block makes malloc walk every small chunk
         * json-c has just freed, which costs more than a late regrowth. */
        if (GREEDY_REALLOC(s.nodes, s.allocated_nodes, MIN(size / 16 + 16, (size_t) 1536)) < 0)
                return -ENOMEM;

        r = scan(&s);
        if (r < 0)
                return r;
        r = scanned_json(&s, &json, &json_size);
        if (r < 0)
                return r;
        r = parse_json(&s, json, json_size, &root);
        if (r < 0)
                return r;

        *doc = (RcDocument){
                .text = text,
                .size = size,
                .root = root,
                .nodes = TAKE_PTR(s.nodes),
                .n_nodes = s.n_nodes,
                .portability = s.portability,
        };
        return 0;
}

void rc_document_done(RcDocument *doc)
{
        if (!doc)
                return;
        json_object_put(doc->root);
        free(doc->nodes);
        *doc = (RcDocument){ 0 };
}

/* Decodes a JSON string body (no quotes) into buf; returns its length or -1 when it does not fit or is
 * malformed. Only used for member names with escapes, which no real file has. */
static ssize_t decode_json_string(const char *in, size_t len, char *buf, size_t bufsize)
{
        size_t o = 0;

        for (size_t i = 0; i < len; i++) {
                char c = in[i];

                if (c == '\\') {
                        if (++i >= len)
                                return -1;
                        switch (in[i]) {
                        case 'b':
                                c = '\b';
                                break;
                        case 'f':
                                c = '\f';
                                break;
                        case 'n':
                                c = '\n';
                                break;
                        case 'r':
                                c = '\r';
                                break;
                        case 't':
                                c = '\t';
                                break;
                        case 'u': {
                                unsigned cp = 0;
                                if (i + 4 >= len)
                                        return -1;
                                for (unsigned k = 1; k <= 4; k++) {
                                        char h = in[i + k];
                                        if (!isxdigit((unsigned char) h))
                                                return -1;
                                        cp = cp * 16 +
                                                        (unsigned) (isdigit((unsigned char) h)
                                                                                        ? h - '0'
                                                                                        : tolower((unsigned char) h) -
                                                                                                        'a' + 10);
                                }
                                i += 4;
                                /* Member names we look for are ASCII; anything else cannot match them. */
                                if (cp == 0 || cp >= 0x80)
                                        return -1;
                                c = (char) cp;
                                break;
                        }
                        default:
                                c = in[i];
                        }
                }
                if (o + 1 >= bufsize)
                        return -1;
                buf[o++] = c;
        }
        buf[o] = '\0';
        return (ssize_t) o;
}

bool rc_node_key_equals(const RcDocument *doc, const RcNode *n, const char *name)
{
        size_t len;
        char buf[64];
        ssize_t k;

        assert(doc);
        assert(n);
        assert(name);

        if (!n->has_key)
                return false;

        len = strlen(name);
        if (!n->key_escaped)
                return n->key_length == len && memcmp(doc->text + n->key_offset, name, len) == 0;

        k = decode_json_string(doc->text + n->key_offset, n->key_length, buf, sizeof(buf));
        return k >= 0 && (size_t) k == len && memcmp(buf, name, len) == 0;
}

const RcNode *rc_node_member(const RcDocument *doc, const RcNode *obj, const char *name, unsigned *ret_count)
{
        const RcNode *found = NULL;
        unsigned count = 0;

        assert(doc);
        assert(obj);

        for (const RcNode *c = rc_node_first_child(doc, obj); c; c = rc_node_next(doc, c))
                if (rc_node_key_equals(doc, c, name)) {
                        found = c;
                        count++;
                }

        if (ret_count)
                *ret_count = count;
        return found;
}
