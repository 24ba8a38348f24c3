/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

#include "macro.h"

/* Every string nvprofilectl did not write itself (process names, paths, argv, setting values, rc file
 * contents quoted in messages, the daemon's error texts) reaches a terminal only through these: a
 * process may name itself "\x1b]0;...\x07" to retitle root's terminal or fake output lines.
 *
 * Printable UTF-8 is kept as it is. A backslash becomes "\\"; \a \b \t \n \v \f \r are written so; every
 * other byte of a control character (C0, DEL, C1), of a bidirectional-override or line-separator
 * character, and of invalid UTF-8 becomes "\xNN". The result is unambiguous: each escape stands for
 * exactly the bytes it names. JSON output does not use this; json-c escapes what JSON needs. */

/* A newly allocated escaped copy of the first len bytes of s (which may contain NUL); NULL on OOM. */
char *terminal_escape_n(const char *s, size_t len);

/* The same for a NUL-terminated string; NULL is taken as "". */
char *terminal_escape(const char *s);

/* Writes the first len bytes of s to f escaped as terminal_escape_n() does, except that every "\n" stays a
 * line break: text of many lines (a CSV export) as a terminal may show it. 0, or a negative errno. */
int terminal_write_escaped_lines(FILE *f, const char *s, size_t len);

/* The escaped copies of one output, freed together, so printf() calls stay readable:
 *
 *         _cleanup_(escape_pool_done) EscapePool e = { 0 };
 *         printf("%s: %s\n", esc(&e, path), esc(&e, message));
 */
typedef struct EscapePool {
        char **strings;
        size_t n_strings, allocated;
} EscapePool;

void escape_pool_done(EscapePool *pool);

/* The escaped copy of s, owned by pool. Never NULL: if memory runs out, a fixed placeholder is returned,
 * so what is printed is still never a raw byte from outside. */
const char *esc(EscapePool *pool, const char *s);
