/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every real dump of ../shared/corpus/fdinfo (provenance in its SOURCES.md), read in place, by name,
 * with its values written out by hand from the file: a file that is added, renamed or replaced without
 * being listed here fails. */

#include "drm-fdinfo.h"
#include "test-util.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmFdinfo, drm_fdinfo_free)

#define NO UINT64_MAX /* the key is absent */
#define KiB(x) (UINT64_C(x) * 1024)
#define MiB(x) (UINT64_C(x) * 1024 * 1024)

static DrmFdinfo *load(const char *name)
{
        g_autofree char *dir = test_corpus_path("fdinfo");
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        DrmFdinfo *f = NULL;
        gsize size;

        if (!g_file_get_contents(path, &text, &size, &error))
                g_error("%s: %s", path, error->message);
        /* The sampler's fast path: parsed with its layout, every number overwritten, then re-read from
         * the same text: what the tests below assert must all come back. */
        g_assert_cmpint(drm_fdinfo_parse(text, size, DRM_FDINFO_PARSE_KEEP_LAYOUT, &f), ==, 0);
        if (f->has_client_id)
                f->client_id = 12345;
        for (size_t i = 0; i < f->n_engines; i++) {
                DrmFdinfoEngine *e = &f->engines[i];

                e->busy_ns = e->has_busy_ns ? 12345 : e->busy_ns;
                e->capacity = e->has_capacity ? 12345 : e->capacity;
                e->cycles = e->has_cycles ? 12345 : e->cycles;
                e->total_cycles = e->has_total_cycles ? 12345 : e->total_cycles;
                e->maxfreq_hz = e->has_maxfreq ? 12345 : e->maxfreq_hz;
        }
        for (size_t i = 0; i < f->n_regions; i++) {
                DrmFdinfoRegion *r = &f->regions[i];

                r->legacy_bytes = r->has_legacy ? 12345 : r->legacy_bytes;
                for (size_t k = 0; k < _DRM_FDINFO_MEM_MAX; k++)
                        r->bytes[k] = r->has[k] ? 12345 : r->bytes[k];
        }
        g_assert_cmpint(drm_fdinfo_reparse(f, text, size), ==, 1);
        for (size_t i = 0; i < f->n_rejects; i++)
                g_test_message("%s:%u: %s: %s", name, f->rejects[i].line, f->rejects[i].key, f->rejects[i].reason);
        return f;
}

static void head(const DrmFdinfo *f, const char *driver, const char *pdev, uint64_t client_id, size_t n_engines,
                size_t n_regions, size_t n_extras)
{
        g_assert_cmpint(f->kind, ==, DRM_FDINFO_USAGE);
        g_assert_cmpstr(f->driver, ==, driver);
        g_assert_cmpint(f->has_pdev, ==, pdev != NULL);
        if (pdev)
                g_assert_cmpstr(f->pdev, ==, pdev);
        g_assert_true(f->has_client_id);
        g_assert_cmpuint(f->client_id, ==, client_id);
        g_assert_false(f->has_client_name);
        g_assert_cmpuint(f->n_engines, ==, n_engines);
        g_assert_cmpuint(f->n_regions, ==, n_regions);
        g_assert_cmpuint(f->n_extras, ==, n_extras);
        /* No corpus file has a value we reject, or anything over a bound. */
        g_assert_cmpuint(f->n_rejects, ==, 0);
        g_assert_cmpuint(f->n_engines_dropped + f->n_regions_dropped + f->n_extras_dropped + f->n_lines_ignored, ==, 0);
}

static void check_u64(bool has, uint64_t value, uint64_t expected, const char *what, const char *name)
{
        if (expected == NO) {
                if (has)
                        g_error("%s of %s present (%" PRIu64 "), expected absent", what, name, value);
                return;
        }
        if (!has)
                g_error("%s of %s absent, expected %" PRIu64, what, name, expected);
        if (value != expected)
                g_error("%s of %s is %" PRIu64 ", expected %" PRIu64, what, name, value, expected);
}

/* capacity: NO when drm-engine-capacity-<e> is absent (then it is 1). */
static void engine(const DrmFdinfo *f, const char *name, uint64_t busy_ns, uint64_t capacity, uint64_t cycles,
                uint64_t total_cycles, uint64_t maxfreq_hz)
{
        const DrmFdinfoEngine *e = drm_fdinfo_find_engine(f, name);

        if (!e)
                g_error("no engine %s", name);
        check_u64(e->has_busy_ns, e->busy_ns, busy_ns, "busy ns", name);
        check_u64(e->has_capacity, e->capacity, capacity, "capacity", name);
        if (capacity == NO)
                g_assert_cmpuint(e->capacity, ==, 1);
        check_u64(e->has_cycles, e->cycles, cycles, "cycles", name);
        check_u64(e->has_total_cycles, e->total_cycles, total_cycles, "total cycles", name);
        check_u64(e->has_maxfreq, e->maxfreq_hz, maxfreq_hz, "maxfreq", name);
}

/* resident: what the daemon uses (from drm-resident-<r>, or drm-memory-<r> when that is absent). */
static void region(const DrmFdinfo *f, const char *name, uint64_t total, uint64_t shared, uint64_t resident,
                uint64_t purgeable, uint64_t active, uint64_t legacy)
{
        const DrmFdinfoRegion *r = drm_fdinfo_find_region(f, name);
        const uint64_t expected[_DRM_FDINFO_MEM_MAX] = {
                [DRM_FDINFO_MEM_TOTAL] = total,
                [DRM_FDINFO_MEM_SHARED] = shared,
                [DRM_FDINFO_MEM_RESIDENT] = resident,
                [DRM_FDINFO_MEM_PURGEABLE] = purgeable,
                [DRM_FDINFO_MEM_ACTIVE] = active,
        };

        if (!r)
                g_error("no region %s", name);
        for (DrmFdinfoMemStat s = 0; s < _DRM_FDINFO_MEM_MAX; s++)
                check_u64(r->has[s], r->bytes[s], expected[s], drm_fdinfo_mem_stat_to_string(s), name);
        check_u64(r->has_legacy, r->legacy_bytes, legacy, "drm-memory", name);
}

static void extra(const DrmFdinfo *f, const char *key, const char *value)
{
        const DrmFdinfoExtra *x = drm_fdinfo_find_extra(f, key);

        if (!x)
                g_error("no extra %s", key);
        g_assert_cmpstr(x->value, ==, value);
}

static void test_amdgpu_1(void)
{
        g_autoptr(DrmFdinfo) f = load("amdgpu-1.txt");

        head(f, "amdgpu", "0000:04:00.0", 30, 1, 3, 7);
        region(f, "cpu", 0, 0, 0, NO, 0, 0);
        region(f, "gtt", MiB(22), 0, MiB(22), NO, MiB(10), KiB(22528));
        region(f, "vram", KiB(544428), KiB(13584), KiB(544428), NO, KiB(260356), KiB(544428));
        g_assert_false(drm_fdinfo_find_region(f, "gtt")->resident_from_legacy);
        engine(f, "gfx", UINT64_C(39456116802), NO, NO, NO, NO);
        extra(f, "pasid", "32785");
        extra(f, "amd-memory-visible-vram", "544428 KiB");
        extra(f, "amd-evicted-vram", "0 KiB");
        extra(f, "amd-evicted-visible-vram", "0 KiB");
        extra(f, "amd-requested-vram", "544428 KiB");
        extra(f, "amd-requested-visible-vram", "90112 KiB");
        extra(f, "amd-requested-gtt", "22528 KiB");
}

static void test_amdgpu_2(void)
{
        g_autoptr(DrmFdinfo) f = load("amdgpu-2.txt");

        head(f, "amdgpu", "0000:04:00.0", 4, 1, 3, 7);
        region(f, "cpu", 0, 0, 0, 0, 0, 0);
        region(f, "gtt", KiB(2392), 0, KiB(2392), 0, 0, KiB(2392));
        region(f, "vram", KiB(44564), KiB(31952), KiB(44564), 0, 0, KiB(44564));
        engine(f, "compute", 46464671, NO, NO, NO, NO);
        extra(f, "pasid", "32771");
        extra(f, "amd-memory-visible-vram", "44564 KiB");
        extra(f, "amd-evicted-vram", "0 KiB");
        extra(f, "amd-evicted-visible-vram", "0 KiB");
        extra(f, "amd-requested-vram", "44564 KiB");
        extra(f, "amd-requested-visible-vram", "11952 KiB");
        extra(f, "amd-requested-gtt", "2392 KiB");
}

static void test_amdgpu_3(void)
{
        g_autoptr(DrmFdinfo) f = load("amdgpu-3.txt");

        head(f, "amdgpu", "0000:04:00.0", 30, 1, 7, 4);
        region(f, "cpu", 0, 0, 0, 0, 0, 0);
        region(f, "gtt", MiB(20), 0, MiB(20), 0, 0, KiB(20480));
        region(f, "vram", KiB(155068), KiB(13584), KiB(155068), 0, 0, KiB(155068));
        region(f, "gds", 0, 0, 0, 0, 0, NO);
        region(f, "gws", 0, 0, 0, 0, 0, NO);
        region(f, "oa", 0, 0, 0, 0, 0, NO);
        region(f, "doorbell", 0, 0, 0, 0, 0, NO);
        engine(f, "gfx", UINT64_C(19291217545), NO, NO, NO, NO);
        extra(f, "pasid", "32785");
        extra(f, "amd-evicted-vram", "0 KiB");
        extra(f, "amd-requested-vram", "155068 KiB");
        extra(f, "amd-requested-gtt", "20480 KiB");
}

static void test_amdgpu_4(void)
{
        g_autoptr(DrmFdinfo) f = load("amdgpu-4.txt");

        /* Only the legacy keys: they are the resident values. */
        head(f, "amdgpu", "0000:08:00.0", 217, 1, 3, 1);
        region(f, "vram", NO, NO, KiB(2068), NO, NO, KiB(2068));
        region(f, "gtt", NO, NO, KiB(8192), NO, NO, KiB(8192));
        region(f, "cpu", NO, NO, 0, NO, NO, 0);
        g_assert_true(drm_fdinfo_find_region(f, "vram")->resident_from_legacy);
        engine(f, "gfx", 107322799, NO, NO, NO, NO);
        extra(f, "pasid", "32784");
}

static void test_amdxdna_1(void)
{
        g_autoptr(DrmFdinfo) f = load("amdxdna-1.txt");

        head(f, "amdxdna_accel_driver", "0000:c5:00.1", 76, 1, 1, 0);
        engine(f, "npu-amdxdna", 0, NO, NO, NO, NO);
        region(f, "memory", 0, 0, NO, NO, 0, NO);
}

static void test_i915_1(void)
{
        g_autoptr(DrmFdinfo) f = load("i915-1.txt");

        head(f, "i915", "0000:00:02.0", 7, 4, 0, 0);
        engine(f, "render", UINT64_C(9288864723), NO, NO, NO, NO);
        engine(f, "copy", UINT64_C(2035071108), NO, NO, NO, NO);
        engine(f, "video", 0, 2, NO, NO, NO);
        engine(f, "video-enhance", 0, NO, NO, NO, NO);
}

static void test_i915_2(void)
{
        g_autoptr(DrmFdinfo) f = load("i915-2.txt");

        head(f, "i915", "0000:00:02.0", 39, 4, 2, 0);
        region(f, "system0", KiB(6044), 0, KiB(6044), KiB(1688), 0, NO);
        region(f, "stolen-system0", 0, 0, 0, 0, 0, NO);
        engine(f, "render", 346249, NO, NO, NO, NO);
        engine(f, "copy", 0, NO, NO, NO, NO);
        engine(f, "video", 0, 2, NO, NO, NO);
        engine(f, "video-enhance", 0, NO, NO, NO, NO);
}

static void test_msm_1(void)
{
        g_autoptr(DrmFdinfo) f = load("msm-1.txt");

        head(f, "msm", NULL, 7, 1, 0, 0);
        engine(f, "gpu", 1734371319, NO, 1153645024, NO, 800000000);
}

static void test_nodrm_dmabuf_1(void)
{
        g_autoptr(DrmFdinfo) f = load("nodrm-dmabuf-1.txt");

        g_assert_cmpint(f->kind, ==, DRM_FDINFO_NOT_DRM);
        g_assert_cmpstr(f->driver, ==, "");
        g_assert_cmpuint(f->n_drm_keys, ==, 0);
        g_assert_cmpuint(f->n_engines + f->n_regions + f->n_rejects, ==, 0);
        g_assert_cmpuint(f->n_extras, ==, 3);
        extra(f, "size", "16384");
        extra(f, "count", "10");
        extra(f, "exp_name", "drm");
}

static void test_panfrost_1(void)
{
        g_autoptr(DrmFdinfo) f = load("panfrost-1.txt");

        head(f, "panfrost", NULL, 14, 2, 1, 2);
        engine(f, "fragment", 1846584880, NO, 1424359409, NO, 799999987);
        engine(f, "vertex-tiler", 71932239, NO, 52617357, NO, 799999987);
        region(f, "memory", MiB(290), 0, KiB(36496), KiB(128), MiB(226), NO);
        extra(f, "drm-curfreq-fragment", "799999987 Hz");
        extra(f, "drm-curfreq-vertex-tiler", "799999987 Hz");
}

static void test_panfrost_2(void)
{
        g_autoptr(DrmFdinfo) f = load("panfrost-2.txt");

        head(f, "panfrost", NULL, 6, 2, 1, 3);
        engine(f, "fragment", 481941638, NO, 60243117, NO, 799999987);
        engine(f, "vertex-tiler", 55546675, NO, 6943796, NO, 799999987);
        region(f, "memory", KiB(138420), KiB(7200), KiB(2196), KiB(128), 0, NO);
        extra(f, "drm-curfreq-fragment", "124999998 Hz");
        extra(f, "drm-curfreq-vertex-tiler", "124999998 Hz");
        /* Proposed, never merged: opaque. */
        extra(f, "drm-internal-memory", "0");
}

static void test_panthor_1(void)
{
        g_autoptr(DrmFdinfo) f = load("panthor-1.txt");

        head(f, "panthor", NULL, 10, 1, 1, 1);
        engine(f, "panthor", UINT64_C(111110952750), NO, UINT64_C(94439687187), NO, 1000000000);
        region(f, "memory", KiB(16480), 0, KiB(16480), 0, KiB(16200), NO);
        extra(f, "drm-curfreq-panthor", "1000000000 Hz");
}

static void test_panthor_2(void)
{
        g_autoptr(DrmFdinfo) f = load("panthor-2.txt");

        head(f, "panthor", NULL, 10, 1, 1, 3);
        engine(f, "panthor", UINT64_C(111110952750), NO, UINT64_C(94439687187), NO, 1000000000);
        region(f, "memory", KiB(16480), 0, KiB(16480), 0, KiB(16200), NO);
        extra(f, "drm-curfreq-panthor", "1000000000 Hz");
        extra(f, "panthor-resident-memory", "10396 KiB");
        extra(f, "panthor-active-memory", "10396 KiB");
}

static void test_panthor_3(void)
{
        g_autoptr(DrmFdinfo) f = load("panthor-3.txt");

        head(f, "panthor", NULL, 3, 1, 1, 2);
        engine(f, "panthor", UINT64_C(611046570346), NO, UINT64_C(1172733302061), NO, 1000000000);
        region(f, "memory", KiB(16480), 0, KiB(26876), 0, KiB(16200), NO);
        extra(f, "drm-curfreq-panthor", "1000000000 Hz");
        extra(f, "drm-internal-memory", "10396 KiB");
}

static void test_v3d_1(void)
{
        g_autoptr(DrmFdinfo) f = load("v3d-1.txt");

        head(f, "v3d", NULL, 44, 5, 0, 5);
        engine(f, "bin", 1661076898, NO, NO, NO, NO);
        engine(f, "render", UINT64_C(31469427170), NO, NO, NO, NO);
        engine(f, "tfu", 5002964, NO, NO, NO, NO);
        engine(f, "csd", UINT64_C(188038329691), NO, NO, NO, NO);
        engine(f, "cache_clean", UINT64_C(27736024038), NO, NO, NO, NO);
        extra(f, "v3d-jobs-bin", "19576 jobs");
        extra(f, "v3d-jobs-render", "19575 jobs");
        extra(f, "v3d-jobs-tfu", "13 jobs");
        extra(f, "v3d-jobs-csd", "250393 jobs");
        extra(f, "v3d-jobs-cache_clean", "250392 job");
}

static void test_v3d_2(void)
{
        g_autoptr(DrmFdinfo) f = load("v3d-2.txt");

        head(f, "v3d", NULL, 81, 6, 1, 6);
        engine(f, "bin", 4916187, NO, NO, NO, NO);
        engine(f, "render", 154563573, NO, NO, NO, NO);
        engine(f, "tfu", 10574, NO, NO, NO, NO);
        engine(f, "csd", 0, NO, NO, NO, NO);
        engine(f, "cache_clean", 0, NO, NO, NO, NO);
        engine(f, "cpu", 0, NO, NO, NO, NO);
        region(f, "memory", KiB(15168), KiB(9336), NO, NO, 0, NO);
        extra(f, "v3d-jobs-bin", "98 jobs");
        extra(f, "v3d-jobs-render", "98 jobs");
        extra(f, "v3d-jobs-tfu", "1 jobs");
        extra(f, "v3d-jobs-csd", "0 jobs");
        extra(f, "v3d-jobs-cache_clean", "0 jobs");
        extra(f, "v3d-jobs-cpu", "0 jobs");
}

static void test_v3d_3(void)
{
        g_autoptr(DrmFdinfo) f = load("v3d-3.txt");

        head(f, "v3d", NULL, 14, 6, 1, 0);
        engine(f, "bin", UINT64_C(25951428711), NO, NO, NO, NO);
        engine(f, "render", UINT64_C(1400777565939), NO, NO, NO, NO);
        engine(f, "tfu", UINT64_C(26324241848), NO, NO, NO, NO);
        engine(f, "csd", 0, NO, NO, NO, NO);
        engine(f, "cache_clean", 0, NO, NO, NO, NO);
        engine(f, "cpu", 0, NO, NO, NO, NO);
        region(f, "memory", KiB(74864), KiB(31600), KiB(43264), 0, 0, NO);
}

static void test_xe_1(void)
{
        g_autoptr(DrmFdinfo) f = load("xe-1.txt");
        const uint64_t t = UINT64_C(7655183225);

        head(f, "xe", "0000:03:00.0", 3, 5, 4, 0);
        region(f, "system", 0, 0, 0, 0, 0, NO);
        region(f, "gtt", KiB(192), 0, KiB(192), NO, 0, NO);
        region(f, "vram0", KiB(23992), MiB(16), KiB(23992), NO, 0, NO);
        region(f, "stolen", 0, 0, 0, NO, 0, NO);
        /* No drm-engine-* at all; capacities printed after the cycles, only when above 1. */
        engine(f, "rcs", NO, NO, 28257900, t, NO);
        engine(f, "bcs", NO, NO, 0, t, NO);
        engine(f, "vcs", NO, 2, 0, t, NO);
        engine(f, "vecs", NO, 2, 0, t, NO);
        engine(f, "ccs", NO, 4, 0, t, NO);
}

static const struct {
        const char *name;
        GTestFunc func; /* NULL: not a dump */
} files[] = {
        { "SOURCES.md", NULL },
        { "amdgpu-1.txt", test_amdgpu_1 },
        { "amdgpu-2.txt", test_amdgpu_2 },
        { "amdgpu-3.txt", test_amdgpu_3 },
        { "amdgpu-4.txt", test_amdgpu_4 },
        { "amdxdna-1.txt", test_amdxdna_1 },
        { "i915-1.txt", test_i915_1 },
        { "i915-2.txt", test_i915_2 },
        { "msm-1.txt", test_msm_1 },
        { "nodrm-dmabuf-1.txt", test_nodrm_dmabuf_1 },
        { "panfrost-1.txt", test_panfrost_1 },
        { "panfrost-2.txt", test_panfrost_2 },
        { "panthor-1.txt", test_panthor_1 },
        { "panthor-2.txt", test_panthor_2 },
        { "panthor-3.txt", test_panthor_3 },
        { "v3d-1.txt", test_v3d_1 },
        { "v3d-2.txt", test_v3d_2 },
        { "v3d-3.txt", test_v3d_3 },
        { "xe-1.txt", test_xe_1 },
};

/* Every file in the folder is listed, and every listed file is there. */
static void test_all_listed(void)
{
        g_autofree char *dir = test_corpus_path("fdinfo");
        g_autoptr(GError) error = NULL;
        g_autoptr(GDir) d = g_dir_open(dir, 0, &error);
        g_autoptr(GHashTable) present = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *name;
        unsigned dumps = 0;

        if (!d)
                g_error("%s: %s", dir, error->message);
        while ((name = g_dir_read_name(d))) {
                bool listed = false;

                for (size_t i = 0; i < G_N_ELEMENTS(files) && !listed; i++)
                        listed = streq(files[i].name, name);
                if (!listed)
                        g_error("%s/%s is not listed in %s: add it with its values", dir, name, __FILE__);
                g_hash_table_add(present, g_strdup(name));
        }
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
                if (!g_hash_table_contains(present, files[i].name))
                        g_error("%s/%s is listed but missing", dir, files[i].name);
                dumps += files[i].func != NULL;
        }
        /* ../shared/docs/drm-fdinfo.md §6: 18 files. */
        g_assert_cmpuint(dumps, ==, 18);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();

        g_test_add_func("/drm/corpus/all-listed", test_all_listed);
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
                if (files[i].func) {
                        g_autofree char *path = g_strdup_printf("/drm/corpus/%s", files[i].name);
                        g_test_add_func(path, files[i].func);
                }
        return g_test_run();
}
