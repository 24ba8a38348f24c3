/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Our own small set of systemd-style helpers. libsystemd does not export its internal cleanup
 * macros, so we define the few we use here (see ../shared/docs/daemon-design.md §6 and HACKING.md). */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _const_ __attribute__((const))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))
#define _fallthrough_ __attribute__((fallthrough))

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* Marks code that cannot be reached; aborts loudly if it is (assert() may be compiled out). */
#define assert_not_reached() __builtin_trap()

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline bool in_set_int(int x, const int *values, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (values[i] == x)
                        return true;
        return false;
}
/* Whether the int x is one of the values: IN_SET(r, -EACCES, -EPERM). */
#define IN_SET(x, ...) in_set_int((x), (const int[]){ __VA_ARGS__ }, ELEMENTSOF(((const int[]){ __VA_ARGS__ })))

/* GLib (in tests) defines the same. */
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)

static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline const char *strempty(const char *s)
{
        return s ? s : "";
}

static inline const char *strna(const char *s)
{
        return s ? s : "n/a";
}

/* Takes ownership of a pointer out of a _cleanup_ variable. */
#define TAKE_PTR(p)                        \
        __extension__({                    \
                __typeof__(p) _ptr_ = (p); \
                (p) = NULL;                \
                _ptr_;                     \
        })

#define TAKE_FD(fd)              \
        __extension__({          \
                int _fd_ = (fd); \
                (fd) = -EBADF;   \
                _fd_;            \
        })

static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}

static inline void freep(void *p)
{
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

/* Defines "<func>p(type **p)" calling func(*p) when *p is non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
        static inline void func##p(type *p)     \
        {                                       \
                if (*p)                         \
                        func(*p);               \
        }                                       \
        struct __useless_struct_to_allow_trailing_semicolon__

/* qsort() with n == 0 and base == NULL is undefined (glibc marks base nonnull): sort only what exists. */
static inline void qsort_safe(void *base, size_t n, size_t size, int (*compare)(const void *, const void *))
{
        if (n > 1)
                qsort(base, n, size, compare);
}

/* Overflow-checked size arithmetic for everything sized from outside input. */
static inline bool size_mul_overflow(size_t a, size_t b, size_t *ret)
{
        return __builtin_mul_overflow(a, b, ret);
}

/* Grows *array so that it holds at least need elements of size elsize. Doubles, so appends are amortised
 * O(1). Returns 0 or -ENOMEM; *array and *allocated are unchanged on failure. */
int greedy_realloc(void **array, size_t *allocated, size_t need, size_t elsize);
#define GREEDY_REALLOC(array, allocated, need) \
        ((allocated) >= (need) ? 0 : greedy_realloc((void **) &(array), &(allocated), (need), sizeof((array)[0])))
