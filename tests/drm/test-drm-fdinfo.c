/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fdinfo parser: one test per parsing case of ../shared/docs/drm-fdinfo.md §7 (1-12, 15), with the
 * doc's own examples, plus the bounds. */

#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "drm-fdinfo.h"
#include "test-util.h"

static DrmFdinfo *parse(const char *text)
{
        DrmFdinfo *f = NULL;

        g_assert_cmpint(drm_fdinfo_parse(text, strlen(text), 0, &f), ==, 0);
        g_assert_nonnull(f);
        return f;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmFdinfo, drm_fdinfo_free)

static uint64_t engine_ns(const DrmFdinfo *f, const char *name)
{
        const DrmFdinfoEngine *e = drm_fdinfo_find_engine(f, name);

        g_assert_nonnull(e);
        g_assert_true(e->has_busy_ns);
        return e->busy_ns;
}

static uint64_t region_bytes(const DrmFdinfo *f, const char *name, DrmFdinfoMemStat s)
{
        const DrmFdinfoRegion *r = drm_fdinfo_find_region(f, name);

        g_assert_nonnull(r);
        g_assert_true(r->has[s]);
        return r->bytes[s];
}

static void assert_rejected(const DrmFdinfo *f, const char *key, unsigned line, const char *reason_part)
{
        const DrmFdinfoReject *x = drm_fdinfo_find_reject(f, key);

        if (!x)
                g_error("no rejection of '%s'", key);
        g_assert_cmpuint(x->line, ==, line);
        g_assert_nonnull(strstr(x->reason, reason_part));
}

/* 1. Any run of blanks after ':' (the amdgpu example is space+TAB). */
static void test_case01_blanks(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver:\tamdgpu\n"
                                       "drm-memory-gtt: \t2392 KiB\n"
                                       "drm-total-gtt:   \t  \t 1 MiB\n"
                                       "drm-engine-gfx:39456116802 ns\n"
                                       "drm-client-id:    30\n");

        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpstr(f->driver, ==, "amdgpu");
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_RESIDENT), ==, 2392 * 1024);
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_TOTAL), ==, 1024 * 1024);
        g_assert_cmpuint(engine_ns(f, "gfx"), ==, UINT64_C(39456116802));
        g_assert_cmpuint(f->client_id, ==, 30);
        g_assert_cmpuint(f->n_rejects, ==, 0);
}

/* 2. Non-drm- lines anywhere, without failing the file; kept as extras except the generic header. */
static void test_case02_other_lines(void)
{
        g_autoptr(DrmFdinfo) f = parse("pos:\t0\n"
                                       "flags:\t02100002\n"
                                       "mnt_id:\t24\n"
                                       "ino:\t1204\n"
                                       "lock:\t1: FLOCK  ADVISORY  WRITE 1234 00:05:6 0 EOF\n"
                                       "drm-driver:\tv3d\n"
                                       "pasid:\t32785\n"
                                       "drm-engine-bin:         1661076898 ns\n"
                                       "v3d-jobs-bin:   19576 jobs\n"
                                       "amd-requested-gtt:\t22528 KiB\n"
                                       "panthor-resident-memory:        10396 KiB\n"
                                       "future-key: whatever it says\n"
                                       "v3d-jobs-cache_clean:   250392 job\n");

        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpuint(f->n_rejects, ==, 0);
        g_assert_cmpuint(f->n_engines, ==, 1);
        g_assert_cmpuint(engine_ns(f, "bin"), ==, 1661076898);
        g_assert_cmpuint(f->n_extras, ==, 6);
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "pasid")->value, ==, "32785");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "v3d-jobs-bin")->value, ==, "19576 jobs");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "v3d-jobs-cache_clean")->value, ==, "250392 job");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "amd-requested-gtt")->value, ==, "22528 KiB");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "panthor-resident-memory")->value, ==, "10396 KiB");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "future-key")->value, ==, "whatever it says");
        g_assert_cmpuint(drm_fdinfo_find_extra(f, "future-key")->line, ==, 12);
        g_assert_null(drm_fdinfo_find_extra(f, "pos"));
        g_assert_null(drm_fdinfo_find_extra(f, "lock"));
        /* Not kept when the caller does not want them. */
        {
                static const char t[] = "drm-driver: v3d\npasid: 1\n";
                g_autoptr(DrmFdinfo) g = NULL;

                g_assert_cmpint(drm_fdinfo_parse(t, strlen(t), DRM_FDINFO_PARSE_NO_EXTRAS, &g), ==, 0);
                g_assert_cmpuint(g->n_extras, ==, 0);
                g_assert_cmpint(g->kind, ==, DRM_FDINFO_USAGE);
        }
}

/* 3. Key order is free: pasid before drm-driver (amdgpu <= 6.4), capacity after cycles (xe), client id
 * last. */
static void test_case03_key_order(void)
{
        g_autoptr(DrmFdinfo) f = parse("pasid:  32784\n"
                                       "drm-memory-vram:        2068 KiB\n"
                                       "drm-cycles-vcs: 5\n"
                                       "drm-total-cycles-vcs:   7655183225\n"
                                       "drm-engine-capacity-vcs:        2\n"
                                       "drm-driver:     amdgpu\n"
                                       "drm-pdev:       0000:08:00.0\n"
                                       "drm-client-id:  217\n");
        const DrmFdinfoEngine *e;

        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpstr(f->pdev, ==, "0000:08:00.0");
        g_assert_cmpuint(f->client_id, ==, 217);
        e = drm_fdinfo_find_engine(f, "vcs");
        g_assert_nonnull(e);
        g_assert_cmpuint(e->cycles, ==, 5);
        g_assert_cmpuint(e->total_cycles, ==, UINT64_C(7655183225));
        g_assert_cmpuint(e->capacity, ==, 2);
        g_assert_true(e->has_capacity);
        g_assert_cmpuint(region_bytes(f, "vram", DRM_FDINFO_MEM_RESIDENT), ==, 2068 * 1024);
}

/* 4. Prefix precedence. */
static void test_case04_prefixes(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: i915\n"
                                       "drm-engine-capacity-video:   2\n"
                                       "drm-engine-video:   7 ns\n"
                                       "drm-total-cycles-rcs: 100\n"
                                       "drm-cycles-rcs: 10\n"
                                       "drm-memory-gtt: 4 KiB\n"
                                       "drm-total-memory: 8 KiB\n");
        const DrmFdinfoEngine *video, *rcs;

        g_assert_cmpuint(f->n_engines, ==, 2);
        video = drm_fdinfo_find_engine(f, "video");
        g_assert_nonnull(video);
        g_assert_cmpuint(video->capacity, ==, 2);
        g_assert_cmpuint(video->busy_ns, ==, 7);
        g_assert_null(drm_fdinfo_find_engine(f, "capacity-video"));
        rcs = drm_fdinfo_find_engine(f, "rcs");
        g_assert_nonnull(rcs);
        g_assert_cmpuint(rcs->total_cycles, ==, 100);
        g_assert_cmpuint(rcs->cycles, ==, 10);
        g_assert_null(drm_fdinfo_find_region(f, "cycles-rcs"));
        /* drm-memory-gtt is region gtt's legacy resident; drm-total-memory is region "memory". */
        g_assert_cmpuint(f->n_regions, ==, 2);
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_RESIDENT), ==, 4096);
        g_assert_false(drm_fdinfo_find_region(f, "gtt")->has[DRM_FDINFO_MEM_TOTAL]);
        g_assert_cmpuint(region_bytes(f, "memory", DRM_FDINFO_MEM_TOTAL), ==, 8192);
        g_assert_false(drm_fdinfo_find_region(f, "memory")->has_legacy);
}

/* 5. Names with '-' and '_': the whole remainder after the known prefix. */
static void test_case05_names(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: x\n"
                                       "drm-total-stolen-system0:       0\n"
                                       "drm-engine-video-enhance:   3 ns\n"
                                       "drm-engine-vertex-tiler:        71932239 ns\n"
                                       "drm-engine-cache_clean:         27736024038 ns\n"
                                       "drm-engine-enc_1:\t5 ns\n"
                                       "drm-engine-npu-amdxdna:    0 ns\n"
                                       "drm-engine-video:   4 ns\n");

        g_assert_cmpuint(region_bytes(f, "stolen-system0", DRM_FDINFO_MEM_TOTAL), ==, 0);
        g_assert_null(drm_fdinfo_find_region(f, "stolen"));
        g_assert_cmpuint(engine_ns(f, "video-enhance"), ==, 3);
        g_assert_cmpuint(engine_ns(f, "video"), ==, 4);
        g_assert_cmpuint(engine_ns(f, "vertex-tiler"), ==, 71932239);
        g_assert_cmpuint(engine_ns(f, "cache_clean"), ==, UINT64_C(27736024038));
        g_assert_cmpuint(engine_ns(f, "enc_1"), ==, 5);
        g_assert_cmpuint(engine_ns(f, "npu-amdxdna"), ==, 0);
        g_assert_cmpuint(f->n_engines, ==, 6);
}

/* 6. Units. */
static void test_case06_units(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: x\n" /* 1 */
                                       "drm-total-a: 0\n" /* 2 */
                                       "drm-total-b: 1536\n" /* 3 */
                                       "drm-total-c: 3 KiB\n" /* 4 */
                                       "drm-total-d: 2 MiB\n" /* 5 */
                                       "drm-total-e: 1 GiB\n" /* 6 */
                                       "drm-total-gtt:\t22 MiB\n" /* 7 */
                                       "drm-memory-gtt: \t22528 KiB\n" /* 8 */
                                       "drm-total-f: 4 B\n" /* 9 */
                                       "drm-total-g: 4 kB\n" /* 10 */
                                       "drm-total-h: 4 TiB\n" /* 11 */
                                       "drm-engine-r: 5 ns\n" /* 12 */
                                       "drm-engine-s: 6\n" /* 13 */
                                       "drm-engine-t: 7 us\n" /* 14 */
                                       "drm-maxfreq-a: 800000000 Hz\n" /* 15 */
                                       "drm-maxfreq-b: 800000 KHz\n" /* 16 */
                                       "drm-maxfreq-c: 800000 kHz\n" /* 17 */
                                       "drm-maxfreq-d: 800 MHz\n" /* 18 */
                                       "drm-maxfreq-e: 800000000\n" /* 19 */
                                       "drm-maxfreq-f: 1 GHz\n" /* 20 */
                                       "drm-cycles-a: 5 cycles\n" /* 21 */
                                       "drm-engine-capacity-a: 2 engines\n" /* 22 */
                                       "drm-client-id: 3 ns\n"); /* 23 */

        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpuint(region_bytes(f, "a", DRM_FDINFO_MEM_TOTAL), ==, 0);
        g_assert_cmpuint(region_bytes(f, "b", DRM_FDINFO_MEM_TOTAL), ==, 1536);
        g_assert_cmpuint(region_bytes(f, "c", DRM_FDINFO_MEM_TOTAL), ==, 3072);
        g_assert_cmpuint(region_bytes(f, "d", DRM_FDINFO_MEM_TOTAL), ==, 2 * 1048576);
        g_assert_cmpuint(region_bytes(f, "e", DRM_FDINFO_MEM_TOTAL), ==, UINT64_C(1073741824));
        /* The same quantity in two units. */
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_TOTAL), ==, 23068672);
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_RESIDENT), ==, 23068672);
        assert_rejected(f, "drm-total-f", 9, "unknown unit");
        assert_rejected(f, "drm-total-g", 10, "unknown unit");
        assert_rejected(f, "drm-total-h", 11, "unknown unit");
        g_assert_null(drm_fdinfo_find_region(f, "f"));
        g_assert_null(drm_fdinfo_find_region(f, "g"));
        g_assert_null(drm_fdinfo_find_region(f, "h"));
        g_assert_cmpuint(engine_ns(f, "r"), ==, 5);
        g_assert_cmpuint(engine_ns(f, "s"), ==, 6);
        assert_rejected(f, "drm-engine-t", 14, "expected ns");
        g_assert_null(drm_fdinfo_find_engine(f, "t"));
        for (const char *n = "abcde"; *n; n++) {
                char name[2] = { *n, 0 };
                const DrmFdinfoEngine *e = drm_fdinfo_find_engine(f, name);

                g_assert_nonnull(e);
                g_assert_true(e->has_maxfreq);
                g_assert_cmpuint(e->maxfreq_hz, ==, 800000000);
        }
        assert_rejected(f, "drm-maxfreq-f", 20, "unknown unit");
        assert_rejected(f, "drm-cycles-a", 21, "unexpected unit");
        assert_rejected(f, "drm-engine-capacity-a", 22, "unexpected unit");
        assert_rejected(f, "drm-client-id", 23, "unexpected unit");
        g_assert_false(f->has_client_id);
        g_assert_cmpuint(f->n_rejects, ==, 8);
}

/* 7. Full 64-bit values; beyond 64 bits or with garbage: rejected per key, never misread. */
static void test_case07_64bit_and_garbage(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: x\n" /* 1 */
                                       "drm-engine-panthor:     611046570346 ns\n" /* 2 */
                                       "drm-engine-render:      1400777565939 ns\n" /* 3 */
                                       "drm-total-gtt: 25258000 KiB\n" /* 4 */
                                       "drm-cycles-max: 18446744073709551615\n" /* 5 */
                                       "drm-cycles-over: 18446744073709551616\n" /* 6 */
                                       "drm-total-over: 18014398509481984 KiB\n" /* 7 */
                                       "drm-total-edge: 18014398509481983 KiB\n" /* 8 */
                                       "drm-engine-g1: 123abc ns\n" /* 9 */
                                       "drm-engine-g2: 12 ns extra\n" /* 10 */
                                       "drm-engine-g3: -1 ns\n" /* 11 */
                                       "drm-engine-g4: +1 ns\n" /* 12 */
                                       "drm-total-g5: 0x10\n" /* 13 */
                                       "drm-total-g6: 1.5 MiB\n" /* 14 */
                                       "drm-total-g7: 22MiB\n" /* 15 */
                                       "drm-engine-g8:\n" /* 16 */
                                       "drm-maxfreq-over: 18446744073709551 MHz\n" /* 17 */
                                       "drm-client-id: 99999999999999999999999999\n"); /* 18 */

        g_assert_cmpuint(engine_ns(f, "panthor"), ==, UINT64_C(611046570346));
        g_assert_cmpuint(engine_ns(f, "render"), ==, UINT64_C(1400777565939));
        g_assert_cmpuint(region_bytes(f, "gtt", DRM_FDINFO_MEM_TOTAL), ==, UINT64_C(25864192000));
        g_assert_cmpuint(drm_fdinfo_find_engine(f, "max")->cycles, ==, UINT64_MAX);
        g_assert_cmpuint(region_bytes(f, "edge", DRM_FDINFO_MEM_TOTAL), ==, UINT64_C(18446744073709550592));
        assert_rejected(f, "drm-cycles-over", 6, "beyond 64 bits");
        assert_rejected(f, "drm-total-over", 7, "with its unit beyond 64 bits");
        assert_rejected(f, "drm-engine-g1", 9, "garbage after the number");
        assert_rejected(f, "drm-engine-g2", 10, "garbage after the number");
        assert_rejected(f, "drm-engine-g3", 11, "not a number");
        assert_rejected(f, "drm-engine-g4", 12, "not a number");
        assert_rejected(f, "drm-total-g5", 13, "garbage after the number");
        assert_rejected(f, "drm-total-g6", 14, "garbage after the number");
        assert_rejected(f, "drm-total-g7", 15, "garbage after the number");
        assert_rejected(f, "drm-engine-g8", 16, "empty value");
        assert_rejected(f, "drm-maxfreq-over", 17, "with its unit beyond 64 bits");
        assert_rejected(f, "drm-client-id", 18, "beyond 64 bits");
        g_assert_cmpuint(f->n_rejects, ==, 12);
        /* Nothing of a rejected line was kept. */
        g_assert_null(drm_fdinfo_find_engine(f, "over"));
        g_assert_null(drm_fdinfo_find_region(f, "over"));
        for (const char *const *n = (const char *const[]){ "g1", "g2", "g3", "g4", "g8", NULL }; *n; n++)
                g_assert_null(drm_fdinfo_find_engine(f, *n));
        g_assert_false(f->has_client_id);
        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
}

/* 8. Only drm-driver is mandatory. */
static void test_case08_driver_only(void)
{
        g_autoptr(DrmFdinfo) a = parse("drm-driver: etnaviv");
        g_autoptr(DrmFdinfo) b = parse("drm-driver:     panfrost\n"
                                       "drm-client-id:  14\n"
                                       "drm-maxfreq-fragment:   799999987 Hz\n"
                                       "drm-curfreq-fragment:   799999987 Hz\n"
                                       "drm-total-memory:       290 MiB\n");

        g_assert_cmpint(a->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpstr(a->driver, ==, "etnaviv");
        g_assert_false(a->has_pdev);
        g_assert_false(a->has_client_id);
        g_assert_false(a->has_client_name);
        g_assert_cmpuint(a->n_engines + a->n_regions + a->n_extras + a->n_rejects, ==, 0);

        /* A platform GPU with profiling off: no pdev, no engine time, only maxfreq/curfreq. */
        g_assert_cmpint(b->kind, ==, DRM_FDINFO_USAGE);
        g_assert_false(b->has_pdev);
        g_assert_false(drm_fdinfo_find_engine(b, "fragment")->has_busy_ns);
        g_assert_cmpuint(drm_fdinfo_find_engine(b, "fragment")->maxfreq_hz, ==, 799999987);
        g_assert_cmpstr(drm_fdinfo_find_extra(b, "drm-curfreq-fragment")->value, ==, "799999987 Hz");
        g_assert_cmpuint(region_bytes(b, "memory", DRM_FDINFO_MEM_TOTAL), ==, UINT64_C(290) * 1048576);
}

/* 9. No drm- lines: "no stats" for a DRM fd; dma-buf and the pre-standard amdgpu format: not DRM usage. */
static void test_case09_no_stats_and_not_drm(void)
{
        g_autoptr(DrmFdinfo) empty = parse("");
        g_autoptr(DrmFdinfo) header = parse("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1204\n");
        g_autoptr(DrmFdinfo) dmabuf = parse("pos:\t0\nflags:\t02000000\nmnt_id:\t10\nino:\t180\n"
                                            "size:\t16384\ncount:\t10\nexp_name:\tdrm\n");
        g_autoptr(DrmFdinfo) old_amdgpu = parse("pos:\t0\nflags:\t02100002\nmnt_id:\t24\n"
                                                "pdev:\t0000:04:00.0\npasid:\t32785\n"
                                                "vram mem:\t544428 kB\ngtt mem:\t22528 kB\n"
                                                "gfx0:\t12.34%\n");
        g_autoptr(DrmFdinfo) no_driver = parse("drm-client-id: 5\ndrm-engine-gfx: 1 ns\n");
        g_autoptr(DrmFdinfo) bad_driver = parse("drm-driver:\n");

        g_assert_cmpint(empty->kind, ==, DRM_FDINFO_NO_STATS);
        g_assert_cmpint(header->kind, ==, DRM_FDINFO_NO_STATS);
        g_assert_cmpuint(header->n_rejects, ==, 0);
        g_assert_cmpint(dmabuf->kind, ==, DRM_FDINFO_NOT_DRM);
        g_assert_cmpuint(dmabuf->n_drm_keys, ==, 0);
        g_assert_cmpint(old_amdgpu->kind, ==, DRM_FDINFO_NOT_DRM);
        g_assert_cmpuint(old_amdgpu->n_engines + old_amdgpu->n_regions, ==, 0);
        g_assert_cmpint(no_driver->kind, ==, DRM_FDINFO_NOT_DRM);
        g_assert_cmpint(bad_driver->kind, ==, DRM_FDINFO_NOT_DRM);
        assert_rejected(bad_driver, "drm-driver", 1, "empty value");
        g_assert_cmpstr(drm_fdinfo_kind_to_string(DRM_FDINFO_NO_STATS), ==, "no stats");
        g_assert_cmpstr(drm_fdinfo_kind_to_string(DRM_FDINFO_NOT_DRM), ==, "not DRM usage");
}

/* 10. Duplicate keys: the last valid line wins; drm-memory-R and drm-resident-R are never summed. */
static void test_case10_duplicates(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: a\n"
                                       "drm-driver: b\n"
                                       "drm-engine-gfx: 1 ns\n"
                                       "drm-engine-gfx: 2 ns\n"
                                       "drm-engine-copy: 3 ns\n"
                                       "drm-engine-copy: oops\n"
                                       "pasid: 1\n"
                                       "pasid: 2\n"
                                       "drm-resident-vram: 100 KiB\n"
                                       "drm-memory-vram: 200 KiB\n"
                                       "drm-memory-gtt: 300 KiB\n"
                                       "drm-resident-gtt: 400 KiB\n");
        const DrmFdinfoRegion *vram, *gtt;

        g_assert_cmpstr(f->driver, ==, "b");
        g_assert_cmpuint(engine_ns(f, "gfx"), ==, 2);
        g_assert_cmpuint(engine_ns(f, "copy"), ==, 3);
        assert_rejected(f, "drm-engine-copy", 6, "not a number");
        g_assert_cmpstr(drm_fdinfo_find_extra(f, "pasid")->value, ==, "2");
        g_assert_cmpuint(f->n_extras, ==, 1);
        g_assert_cmpuint(f->n_duplicates, ==, 3);

        vram = drm_fdinfo_find_region(f, "vram");
        gtt = drm_fdinfo_find_region(f, "gtt");
        g_assert_cmpuint(vram->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 100 * 1024);
        g_assert_false(vram->resident_from_legacy);
        g_assert_cmpuint(vram->legacy_bytes, ==, 200 * 1024);
        g_assert_cmpuint(gtt->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 400 * 1024);
        g_assert_false(gtt->resident_from_legacy);

        /* The same text parses the same way every time. */
        for (unsigned i = 0; i < 3; i++) {
                g_autoptr(DrmFdinfo) g = parse("drm-driver: a\ndrm-engine-x: 1 ns\ndrm-engine-x: 9 ns\n");
                g_assert_cmpuint(engine_ns(g, "x"), ==, 9);
        }
}

/* 11. Files beyond 4 KiB and no trailing newline; CR LF and NUL bytes do not confuse it. */
static void test_case11_size_and_newline(void)
{
        g_autoptr(GString) s = g_string_new("drm-driver: big\n");
        g_autoptr(DrmFdinfo) f = NULL, g = NULL, h = NULL;
        static const char crlf[] = "drm-driver: x\r\ndrm-engine-gfx: 5 ns\r\n";
        static const char nul[] = "drm-driver: x\ndrm-engine-a: 1\0 ns\ndrm-engine-b: 2 ns\n\0garbage:\n";

        for (unsigned i = 0; i < 400; i++)
                g_string_append_printf(s, "lock:\t%u: POSIX  ADVISORY  READ 4242 00:05:%u 0 EOF\n", i, i);
        g_assert_cmpuint(s->len, >, 16384);
        g_string_append(s, "drm-engine-render: 1400777565939 ns");
        f = parse(s->str);
        g_assert_cmpuint(engine_ns(f, "render"), ==, UINT64_C(1400777565939));
        g_assert_cmpuint(f->n_lines, ==, 402);

        g = parse(crlf);
        g_assert_cmpstr(g->driver, ==, "x");
        g_assert_cmpuint(engine_ns(g, "gfx"), ==, 5);

        g_assert_cmpint(drm_fdinfo_parse(nul, sizeof(nul) - 1, 0, &h), ==, 0);
        assert_rejected(h, "drm-engine-a", 2, "garbage after the number");
        g_assert_cmpuint(engine_ns(h, "b"), ==, 2);
}

/* 12. drm-client-name is an opaque string of at most 64 bytes, never a key part. */
static void test_case12_client_name(void)
{
        g_autoptr(DrmFdinfo) f = parse("drm-driver: amdgpu\n"
                                       "drm-client-name: drm-engine-gfx: 5 ns\n");
        g_autoptr(DrmFdinfo) g = NULL, h = NULL;
        g_autofree char *name64 = g_strnfill(64, 'n');
        g_autofree char *name65 = g_strnfill(65, 'n');
        g_autofree char *t64 = g_strdup_printf("drm-driver: x\ndrm-client-name: %s\n", name64);
        g_autofree char *t65 = g_strdup_printf("drm-driver: x\ndrm-client-name: %s\n", name65);

        g_assert_true(f->has_client_name);
        g_assert_cmpstr(f->client_name, ==, "drm-engine-gfx: 5 ns");
        g_assert_cmpuint(f->n_engines, ==, 0);

        g = parse(t64);
        g_assert_cmpstr(g->client_name, ==, name64);
        h = parse(t65);
        g_assert_false(h->has_client_name);
        assert_rejected(h, "drm-client-name", 2, "too long");
}

/* 15. DRM fds are told by device number (226, 261 for accel), not by path. */
static void test_case15_node_type(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = NULL;
        struct stat st = { .st_mode = S_IFCHR | 0666 };

        st.st_rdev = makedev(226, 128);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_DRM);
        st.st_rdev = makedev(226, 0);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_DRM);
        st.st_rdev = makedev(261, 0);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_ACCEL);
        st.st_rdev = makedev(195, 0); /* /dev/nvidia0 */
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_NONE);
        st.st_mode = S_IFBLK | 0660;
        st.st_rdev = makedev(226, 128);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_NONE);

        /* A regular file named like a render node is not one. */
        test_mkdir_p(dir, "dev/dri");
        test_write_file(dir, "dev/dri/renderD128", "");
        path = g_build_filename(dir, "dev/dri/renderD128", NULL);
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_NONE);

        /* The null device, under any name, is a DRM node when the test says its major is DRM's. */
        g_assert_cmpint(stat("/dev/null", &st), ==, 0);
        g_assert_cmpint(drm_node_type(&st, DRM_MAJOR_DEFAULT, ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_NONE);
        g_assert_cmpint(drm_node_type(&st, major(st.st_rdev), ACCEL_MAJOR_DEFAULT), ==, DRM_NODE_DRM);
}

/* Malformed keys, PCI slots, and the documented bounds. */
static void test_keys_and_bounds(void)
{
        g_autoptr(GString) s = g_string_new("drm-driver: x\n");
        g_autoptr(DrmFdinfo) f = NULL, g = NULL;
        g_autofree char *long_name = g_strnfill(DRM_FDINFO_NAME_MAX + 1, 'e');
        g_autofree char *ok_name = g_strnfill(DRM_FDINFO_NAME_MAX, 'e');
        g_autofree char *long_value = g_strnfill(DRM_FDINFO_EXTRA_VALUE_MAX + 1, 'v');

        for (unsigned i = 0; i < DRM_FDINFO_ENGINES_MAX + 3; i++)
                g_string_append_printf(s, "drm-engine-e%u: %u ns\n", i, i);
        for (unsigned i = 0; i < DRM_FDINFO_REGIONS_MAX + 2; i++)
                g_string_append_printf(s, "drm-total-r%u: %u\n", i, i);
        for (unsigned i = 0; i < DRM_FDINFO_EXTRAS_MAX + 4; i++)
                g_string_append_printf(s, "x-%u: %u\n", i, i);
        for (unsigned i = 0; i < DRM_FDINFO_REJECTS_MAX + 5; i++)
                g_string_append_printf(s, "drm-engine-bad%u: bad\n", i);
        g_string_append_printf(s, "drm-engine-%s: 1 ns\n", long_name);
        g_string_append_printf(s, "y-long: %s\n", long_value);
        f = parse(s->str);
        g_assert_cmpuint(f->n_engines, ==, DRM_FDINFO_ENGINES_MAX);
        g_assert_cmpuint(f->n_engines_dropped, ==, 3);
        g_assert_cmpuint(f->n_regions, ==, DRM_FDINFO_REGIONS_MAX);
        g_assert_cmpuint(f->n_regions_dropped, ==, 2);
        g_assert_cmpuint(f->n_extras, ==, DRM_FDINFO_EXTRAS_MAX);
        g_assert_cmpuint(f->n_extras_dropped, ==, 4 + 1);
        g_assert_cmpuint(f->n_rejects, ==, DRM_FDINFO_REJECTS_MAX);
        g_assert_cmpuint(f->n_rejects_dropped, ==, 5 + 1);

        g_string_assign(s, "drm-driver: x\n");
        g_string_append(s, "drm-engine-: 1 ns\n"); /* 2 */
        g_string_append(s, "drm-engine gfx: 1 ns\n"); /* 3 */
        g_string_append(s, "drm-engine-gfx 1 ns\n"); /* 4 */
        g_string_append(s, "drm-pdev: 0000:04:00\n"); /* 5 */
        g_string_append(s, "drm-engine-capacity-z: 0\n"); /* 6 */
        g_string_append_printf(s, "drm-engine-%s: 1 ns\n", long_name); /* 7 */
        g_string_append_printf(s, "drm-engine-%s: 2 ns\n", ok_name); /* 8 */
        g_string_append(s, "drm-client-name: \xff\xfe\n"); /* 9 */
        g_string_append(s, "drm-pdev: 0000:04:00.0\n"); /* 10 */
        g_string_append(s, "drm-pdev: 0000:04:00.0 \n"); /* 11: trailing blank ignored */
        g_string_append(s, "not a key\n"); /* 12 */
        g_string_append(s, "vram mem:\t544428 kB\n"); /* 13 */
        g = parse(s->str);
        assert_rejected(g, "drm-engine-", 2, "no engine or region name");
        assert_rejected(g, "drm-engine gfx", 3, "blank");
        assert_rejected(g, "drm-engine-gfx 1 ns", 4, "no ':'");
        assert_rejected(g, "drm-pdev", 5, "PCI slot");
        assert_rejected(g, "drm-engine-capacity-z", 6, "capacity 0");
        g_assert_true(g->rejects[4].line == 6);
        g_assert_cmpuint(g->rejects[5].line, ==, 7);
        g_assert_nonnull(strstr(g->rejects[5].reason, "too long"));
        g_assert_true(g->rejects[5].key_cut);
        g_assert_cmpuint(strlen(g->rejects[5].key), ==, DRM_FDINFO_REJECT_KEY_MAX);
        g_assert_cmpuint(engine_ns(g, ok_name), ==, 2);
        assert_rejected(g, "drm-client-name", 9, "UTF-8");
        g_assert_cmpstr(g->pdev, ==, "0000:04:00.0");
        g_assert_cmpuint(g->n_rejects, ==, 7);
        g_assert_cmpuint(g->n_lines_ignored, ==, 2);
        g_assert_null(drm_fdinfo_find_engine(g, "z"));
        g_assert_null(drm_fdinfo_find_engine(g, "gfx"));
}

/* The sampler's fast path: a text with the same lines as the one parsed (with its layout) up to the
 * numbers is re-read in place; anything else says "parse afresh". */
static void test_reparse(void)
{
        static const char first[] = "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                                    "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                                    "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n";
        static const char next[] = "pos:\t4096\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                                   "drm-client-name:\tgame\ndrm-engine-gfx:\t250 ns\ndrm-engine-capacity-gfx:\t2\n"
                                   "drm-memory-vram:\t8 KiB\ndrm-total-gtt:\t3 MiB\nbad line\n";
        static const char *const differ[] = {
                /* a string value */
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tother\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n",
                /* two lines swapped */
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-capacity-gfx:\t2\ndrm-engine-gfx:\t100 ns\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n",
                /* a value now rejected: capacity 0, garbage, another unit */
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t0\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n",
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100x ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n",
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 TiB\nbad line\n",
                /* one more blank before a value, a line more, a line less, another non-key line */
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t 100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\n",
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad line\ndrm-engine-dma:\t1 ns\n",
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\n",
                "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n"
                "drm-client-name:\tgame\ndrm-engine-gfx:\t100 ns\ndrm-engine-capacity-gfx:\t2\n"
                "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t1 MiB\nbad lines\n",
        };
        g_autoptr(DrmFdinfo) f = NULL;
        g_autoptr(DrmFdinfo) plain = NULL;
        const DrmFdinfoRegion *vram;

        g_assert_cmpint(drm_fdinfo_parse(first, strlen(first), DRM_FDINFO_PARSE_KEEP_LAYOUT, &f), ==, 0);
        g_assert_cmpint(drm_fdinfo_reparse(f, next, strlen(next)), ==, 1);
        g_assert_cmpuint(drm_fdinfo_find_engine(f, "gfx")->busy_ns, ==, 250);
        g_assert_cmpuint(drm_fdinfo_find_engine(f, "gfx")->capacity, ==, 2);
        vram = drm_fdinfo_find_region(f, "vram");
        /* drm-memory-R still stands in for resident. */
        g_assert_cmpuint(vram->legacy_bytes, ==, 8192);
        g_assert_cmpuint(vram->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 8192);
        g_assert_true(vram->resident_from_legacy);
        g_assert_cmpuint(drm_fdinfo_find_region(f, "gtt")->bytes[DRM_FDINFO_MEM_TOTAL], ==, 3u << 20);
        g_assert_cmpstr(f->client_name, ==, "game");
        g_assert_cmpuint(f->n_lines_ignored, ==, 1);

        /* The same as a fresh parse of the text. */
        g_assert_cmpint(drm_fdinfo_parse(next, strlen(next), 0, &plain), ==, 0);
        g_assert_cmpuint(plain->n_engines, ==, f->n_engines);
        g_assert_cmpuint(plain->n_regions, ==, f->n_regions);
        for (size_t i = 0; i < f->n_engines; i++) {
                g_assert_cmpuint(plain->engines[i].busy_ns, ==, f->engines[i].busy_ns);
                g_assert_cmpuint(plain->engines[i].capacity, ==, f->engines[i].capacity);
        }
        for (size_t i = 0; i < f->n_regions; i++) {
                g_assert_cmpmem(plain->regions[i].bytes, sizeof(plain->regions[i].bytes), f->regions[i].bytes,
                                sizeof(f->regions[i].bytes));
                g_assert_cmpmem(plain->regions[i].has, sizeof(plain->regions[i].has), f->regions[i].has,
                                sizeof(f->regions[i].has));
        }

        for (size_t i = 0; i < G_N_ELEMENTS(differ); i++) {
                g_autoptr(DrmFdinfo) g = NULL;

                g_assert_cmpint(drm_fdinfo_parse(first, strlen(first), DRM_FDINFO_PARSE_KEEP_LAYOUT, &g), ==, 0);
                g_assert_cmpint(drm_fdinfo_reparse(g, differ[i], strlen(differ[i])), ==, 0);
        }
        /* Without a layout, always afresh. */
        g_assert_cmpint(drm_fdinfo_reparse(plain, next, strlen(next)), ==, 0);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/drm/fdinfo/case01-blanks", test_case01_blanks);
        g_test_add_func("/drm/fdinfo/case02-other-lines", test_case02_other_lines);
        g_test_add_func("/drm/fdinfo/case03-key-order", test_case03_key_order);
        g_test_add_func("/drm/fdinfo/case04-prefixes", test_case04_prefixes);
        g_test_add_func("/drm/fdinfo/case05-names", test_case05_names);
        g_test_add_func("/drm/fdinfo/case06-units", test_case06_units);
        g_test_add_func("/drm/fdinfo/case07-64bit-and-garbage", test_case07_64bit_and_garbage);
        g_test_add_func("/drm/fdinfo/case08-driver-only", test_case08_driver_only);
        g_test_add_func("/drm/fdinfo/case09-no-stats-and-not-drm", test_case09_no_stats_and_not_drm);
        g_test_add_func("/drm/fdinfo/case10-duplicates", test_case10_duplicates);
        g_test_add_func("/drm/fdinfo/case11-size-and-newline", test_case11_size_and_newline);
        g_test_add_func("/drm/fdinfo/case12-client-name", test_case12_client_name);
        g_test_add_func("/drm/fdinfo/case15-node-type", test_case15_node_type);
        g_test_add_func("/drm/fdinfo/keys-and-bounds", test_keys_and_bounds);
        g_test_add_func("/drm/fdinfo/reparse", test_reparse);
        return g_test_run();
}
