/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/stat.h>

#include "macro.h"

/* The DRM client usage stats a driver prints in /proc/<pid>/fdinfo/<fd>
 * (Documentation/gpu/drm-usage-stats.rst; ../shared/docs/drm-fdinfo.md). A pure parser over one
 * buffer: no I/O, no logging, so the sampler, nvprofilectl, the tests and the fuzz target feed it
 * directly.
 *
 * Decisions where the spec is silent:
 *   - any run of blanks (space, TAB) after ':' is skipped, trailing blanks and a '\r' are ignored;
 *   - a number is decimal digits, then optionally blanks and a unit; anything else (a sign, a second
 *     number, "22MiB" without a blank, an unknown unit, a value beyond 64 bits, a unit that makes it
 *     overflow) rejects that line alone, with its line number and a reason: the file's other keys
 *     still count, and the rejected line sets nothing;
 *   - a key given twice: the last valid line wins (a rejected line never changes a value);
 *   - engine times may carry " ns" or no unit; memory is bytes, KiB, MiB or GiB (the kernel never
 *     prints GiB; igt accepts it); drm-maxfreq is Hz (bare), Hz, KHz, kHz or MHz, stored in Hz;
 *   - drm-memory-<r> (deprecated, amdgpu) becomes resident only when drm-resident-<r> is absent, and
 *     is never added to it;
 *   - other lines, inside the drm- namespace (drm-curfreq-*, drm-internal-*) or outside it (pasid,
 *     amd-*, panthor-*, v3d-jobs-*), are kept verbatim as extras, except the generic fdinfo header
 *     (pos, flags, mnt_id, ino, lock), which says nothing about the GPU;
 *   - strings (driver, pdev, client name, extras) must be valid UTF-8 without NUL; drm-pdev must look
 *     like a PCI slot (dddd:bb:dd.f, hex). They are stored as found: escape before printing. */

/* Bounds: beyond them, entries are dropped and counted (n_*_dropped), never truncated. */
#define DRM_FDINFO_ENGINES_MAX 32u
#define DRM_FDINFO_REGIONS_MAX 32u
#define DRM_FDINFO_EXTRAS_MAX 64u
#define DRM_FDINFO_REJECTS_MAX 32u
#define DRM_FDINFO_NAME_MAX 63u /* engine and region names, bytes */
#define DRM_FDINFO_DRIVER_MAX 63u /* drm-driver */
#define DRM_FDINFO_PDEV_MAX 15u /* drm-pdev, "dddddddd:bb:dd.f" at most */
#define DRM_FDINFO_CLIENT_NAME_MAX 64u /* DRM_CLIENT_NAME_MAX_LEN in the kernel */
#define DRM_FDINFO_EXTRA_KEY_MAX 63u
#define DRM_FDINFO_EXTRA_VALUE_MAX 127u
#define DRM_FDINFO_REJECT_KEY_MAX 63u /* a rejected key is quoted up to this, then cut */

typedef enum DrmFdinfoKind {
        /* drm-driver is present: a DRM client's usage stats. */
        DRM_FDINFO_USAGE,
        /* Only the generic fdinfo header (pos, flags, mnt_id, ino, lock) or nothing: what a DRM fd of an
         * unplugged device or of nvidia-drm shows. Meaningful only for an fd the caller knows is a DRM
         * or accel char device; not an error. */
        DRM_FDINFO_NO_STATS,
        /* Anything else without a valid drm-driver: dma-buf fdinfo (exp_name: drm), the pre-standard
         * amdgpu format of kernels 5.14-5.18 (pdev:, pasid:, "vram mem:"), a truncated dump. */
        DRM_FDINFO_NOT_DRM,
        _DRM_FDINFO_KIND_MAX,
} DrmFdinfoKind;

typedef struct DrmFdinfoEngine {
        char name[DRM_FDINFO_NAME_MAX + 1];
        uint64_t busy_ns; /* drm-engine-<e> */
        uint64_t capacity; /* drm-engine-capacity-<e>, 1 when absent */
        uint64_t cycles; /* drm-cycles-<e> */
        uint64_t total_cycles; /* drm-total-cycles-<e> */
        uint64_t maxfreq_hz; /* drm-maxfreq-<e>, converted to Hz */
        bool has_busy_ns;
        bool has_capacity;
        bool has_cycles;
        bool has_total_cycles;
        bool has_maxfreq;
} DrmFdinfoEngine;

typedef enum DrmFdinfoMemStat {
        DRM_FDINFO_MEM_TOTAL,
        DRM_FDINFO_MEM_SHARED,
        DRM_FDINFO_MEM_RESIDENT,
        DRM_FDINFO_MEM_PURGEABLE,
        DRM_FDINFO_MEM_ACTIVE,
        _DRM_FDINFO_MEM_MAX,
} DrmFdinfoMemStat;

typedef struct DrmFdinfoRegion {
        char name[DRM_FDINFO_NAME_MAX + 1];
        uint64_t bytes[_DRM_FDINFO_MEM_MAX];
        bool has[_DRM_FDINFO_MEM_MAX];
        /* drm-memory-<r>, as found; already copied into resident when drm-resident-<r> is absent. */
        uint64_t legacy_bytes;
        bool has_legacy;
        bool resident_from_legacy;
} DrmFdinfoRegion;

typedef struct DrmFdinfoExtra {
        char *key;
        char *value; /* after the blanks that follow ':', trailing blanks removed */
        unsigned line;
} DrmFdinfoExtra;

typedef struct DrmFdinfoReject {
        unsigned line; /* 1-based */
        char key[DRM_FDINFO_REJECT_KEY_MAX + 1];
        bool key_cut; /* the key was longer than DRM_FDINFO_REJECT_KEY_MAX and is shown cut */
        const char *reason; /* a static string */
} DrmFdinfoReject;

typedef struct DrmFdinfo {
        DrmFdinfoKind kind;

        char driver[DRM_FDINFO_DRIVER_MAX + 1]; /* "" unless kind == DRM_FDINFO_USAGE */
        char pdev[DRM_FDINFO_PDEV_MAX + 1];
        bool has_pdev;
        uint64_t client_id;
        bool has_client_id;
        char client_name[DRM_FDINFO_CLIENT_NAME_MAX + 1];
        bool has_client_name;

        DrmFdinfoEngine *engines; /* in order of first appearance */
        size_t n_engines;
        DrmFdinfoRegion *regions; /* in order of first appearance */
        size_t n_regions;
        DrmFdinfoExtra *extras; /* in order of first appearance; a repeated key keeps its place */
        size_t n_extras;
        DrmFdinfoReject *rejects; /* in line order */
        size_t n_rejects;

        unsigned n_lines;
        unsigned n_drm_keys; /* lines whose key starts with "drm-", valid or not */
        unsigned n_duplicates; /* lines that repeated a key already seen */
        unsigned n_engines_dropped;
        unsigned n_regions_dropped;
        unsigned n_extras_dropped; /* over DRM_FDINFO_EXTRAS_MAX, or key/value too long */
        unsigned n_rejects_dropped;
        unsigned n_lines_ignored; /* lines that are no key: value pair (no ':', blank in the key) */

        struct DrmFdinfoLayout *layout; /* with DRM_FDINFO_PARSE_KEEP_LAYOUT: for drm_fdinfo_reparse() */
} DrmFdinfo;

typedef enum DrmFdinfoParseFlags {
        /* Do not keep extras (the sampler's fast path needs only the drm- keys). */
        DRM_FDINFO_PARSE_NO_EXTRAS = 1 << 0,
        /* Remember the text's lines and where each number went, for drm_fdinfo_reparse(). */
        DRM_FDINFO_PARSE_KEEP_LAYOUT = 1 << 1,
} DrmFdinfoParseFlags;

/* Parses size bytes of text (NUL bytes allowed, no terminating NUL or trailing newline needed). Only
 * -ENOMEM fails; everything about the content is in *ret. */
int drm_fdinfo_parse(const char *text, size_t size, DrmFdinfoParseFlags flags, DrmFdinfo **ret);

/* The sampler's fast path: a client's fdinfo keeps its lines from one read to the next, only counters
 * and sizes change. When text has the same lines as the text f was parsed from (with
 * DRM_FDINFO_PARSE_KEEP_LAYOUT) up to the values of its numeric keys (and of the header keys pos, flags,
 * ...), stores those values in f and returns 1: f is then what drm_fdinfo_parse() of text would give.
 * Otherwise (another line, order, key, string value, a value now rejected, no layout) returns 0 and f is
 * to be parsed afresh: its numbers may be partly updated. */
int drm_fdinfo_reparse(DrmFdinfo *f, const char *text, size_t size);

DrmFdinfo *drm_fdinfo_free(DrmFdinfo *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(DrmFdinfo *, drm_fdinfo_free);

const DrmFdinfoEngine *drm_fdinfo_find_engine(const DrmFdinfo *f, const char *name);
const DrmFdinfoRegion *drm_fdinfo_find_region(const DrmFdinfo *f, const char *name);
const DrmFdinfoExtra *drm_fdinfo_find_extra(const DrmFdinfo *f, const char *key);
/* The first rejection of key (exact match of the quoted key), or NULL. */
const DrmFdinfoReject *drm_fdinfo_find_reject(const DrmFdinfo *f, const char *key);

const char *drm_fdinfo_kind_to_string(DrmFdinfoKind k) _const_;
/* "total", "shared", "resident", "purgeable", "active" */
const char *drm_fdinfo_mem_stat_to_string(DrmFdinfoMemStat s) _const_;

/* DRM fds are found by the device number of what they point to, never by path (/dev/dri/by-path,
 * containers and renamed nodes all differ): char major 226 (card and render minors) and 261 for
 * /dev/accel (ACCEL_MAJOR). The majors are parameters so tests can use device nodes they can create. */
#define DRM_MAJOR_DEFAULT 226u
#define ACCEL_MAJOR_DEFAULT 261u

typedef enum DrmNodeType {
        DRM_NODE_NONE,
        DRM_NODE_DRM,
        DRM_NODE_ACCEL,
} DrmNodeType;

/* From a stat() that followed the /proc/<pid>/fd/<n> link. */
DrmNodeType drm_node_type(const struct stat *st, unsigned drm_major, unsigned accel_major);
