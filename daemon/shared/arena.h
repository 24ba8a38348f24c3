/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/* A bump allocator: everything one parsed rc file owns lives in one arena and is freed at once. It keeps
 * model building cheap (one malloc per chunk instead of one per string) and makes partial failures leak-
 * free by construction. */

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
        ArenaChunk *chunks;
        size_t used; /* bytes used in the current (first) chunk */
        size_t capacity; /* capacity of the current chunk */
        size_t total; /* bytes handed out, for accounting */
        size_t allocated; /* bytes of all chunks: what the arena holds from malloc */
        size_t chunk_max; /* when set, chunks stop doubling at this size (bounds the unused tail), and a
                           * block over 1/64 of it that does not fit gets a chunk of its own */
} Arena;

void arena_init(Arena *a);
void arena_done(Arena *a);
/* Forgets everything allocated but keeps the largest chunk for reuse (scratch space). */
void arena_reset(Arena *a);

/* Zeroed, aligned for any type; NULL on OOM or if size is absurd. */
void *arena_alloc(Arena *a, size_t size);
/* The same, not zeroed: for memory the caller fills entirely (decoders, scratch space). */
void *arena_alloc_raw(Arena *a, size_t size);
void *arena_alloc_array(Arena *a, size_t n, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
