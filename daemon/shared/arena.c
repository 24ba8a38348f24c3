/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdalign.h>

#include "arena.h"

#define ARENA_CHUNK_MIN 4096u
#define ARENA_ALIGN alignof(max_align_t)

struct ArenaChunk {
        ArenaChunk *next;
        alignas(max_align_t) unsigned char data[];
};

void arena_init(Arena *a)
{
        assert(a);
        *a = (Arena){ 0 };
}

void arena_done(Arena *a)
{
        if (!a)
                return;
        while (a->chunks) {
                ArenaChunk *next = a->chunks->next;
                free(a->chunks);
                a->chunks = next;
        }
        *a = (Arena){ 0 };
}

void *arena_alloc_raw(Arena *a, size_t size)
{
        size_t aligned;
        void *p;

        assert(a);

        if (size > SIZE_MAX / 2)
                return NULL;
        aligned = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
        if (aligned == 0)
                aligned = ARENA_ALIGN;

        if (a->chunks && a->chunk_max > 0 && aligned > a->chunk_max / 64 && a->capacity - a->used < aligned) {
                /* A large block that does not fit: its own chunk, behind the current one, whose free tail
                 * stays in use (starting a new chunk would leave up to a block's size unused each time). */
                ArenaChunk *c = malloc(sizeof(ArenaChunk) + aligned);
                if (!c)
                        return NULL;
                c->next = a->chunks->next;
                a->chunks->next = c;
                a->allocated += aligned;
                a->total += aligned;
                return c->data;
        }
        if (!a->chunks || a->capacity - a->used < aligned) {
                /* Grow geometrically so a big file needs few chunks. */
                size_t cap = MAX(MAX((size_t) ARENA_CHUNK_MIN, aligned), a->capacity * 2);
                if (a->chunk_max > 0 && cap > a->chunk_max)
                        cap = MAX(aligned, a->chunk_max);
                ArenaChunk *c = malloc(sizeof(ArenaChunk) + cap);
                if (!c)
                        return NULL;
                c->next = a->chunks;
                a->chunks = c;
                a->capacity = cap;
                a->allocated += cap;
                a->used = 0;
        }

        p = a->chunks->data + a->used;
        a->used += aligned;
        a->total += aligned;
        return p;
}

void *arena_alloc(Arena *a, size_t size)
{
        void *p = arena_alloc_raw(a, size);

        if (p)
                memset(p, 0, size);
        return p;
}

void *arena_alloc_array(Arena *a, size_t n, size_t size)
{
        size_t bytes;

        if (size_mul_overflow(n, size, &bytes))
                return NULL;
        return arena_alloc(a, bytes);
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
        char *p;

        assert(s || n == 0);

        p = arena_alloc(a, n + 1);
        if (!p)
                return NULL;
        if (n > 0)
                memcpy(p, s, n);
        p[n] = '\0';
        return p;
}

char *arena_strdup(Arena *a, const char *s)
{
        assert(s);
        return arena_strndup(a, s, strlen(s));
}

void arena_reset(Arena *a)
{
        assert(a);
        if (!a->chunks)
                return;
        /* The first chunk is the newest and largest: keep it, so a reused arena stops allocating. */
        while (a->chunks->next) {
                ArenaChunk *next = a->chunks->next->next;
                free(a->chunks->next);
                a->chunks->next = next;
        }
        a->used = 0;
        a->total = 0;
        a->allocated = a->capacity;
}
