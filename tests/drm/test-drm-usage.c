/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The usage math over samples: one test per aggregation case of ../shared/docs/drm-fdinfo.md §7
 * (13-22; 15 is in test-drm-fdinfo.c, 23 belongs to the sampler). */

#include "drm-usage.h"
#include "test-util.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmUsage, drm_usage_free)

#define SEC UINT64_C(1000000)

typedef struct R {
        const char *text;
        uint64_t usec;
        pid_t pid;
        int fd;
        const char *device;
        uid_t uid;
} R;

/* One round: parses every text and hands the reads to drm_usage_update(). */
static void update_n(DrmUsage *u, const R *rs, size_t n)
{
        g_autofree DrmUsageRead *reads = g_new0(DrmUsageRead, MAX(n, (size_t) 1));
        g_autofree DrmFdinfo **f = g_new0(DrmFdinfo *, MAX(n, (size_t) 1));

        for (size_t i = 0; i < n; i++) {
                g_assert_cmpint(drm_fdinfo_parse(rs[i].text, strlen(rs[i].text), DRM_FDINFO_PARSE_NO_EXTRAS, &f[i]), ==,
                                0);
                g_assert_cmpuint(f[i]->n_rejects, ==, 0);
                reads[i] = (DrmUsageRead){
                        .fdinfo = f[i],
                        .device = rs[i].device,
                        .pid = rs[i].pid,
                        .uid = rs[i].uid,
                        .fd = rs[i].fd,
                        .timestamp_usec = rs[i].usec,
                };
        }
        g_assert_cmpint(drm_usage_update(u, reads, n), ==, 0);
        for (size_t i = 0; i < n; i++)
                drm_fdinfo_free(f[i]);
}
#define UPDATE(u, ...) update_n(u, (const R[]){ __VA_ARGS__ }, ELEMENTSOF(((const R[]){ __VA_ARGS__ })))

static const DrmUsageClient *client(const DrmUsage *u, const char *device, uint64_t id)
{
        const DrmUsageClient *c = drm_usage_find_client(u, device, id);

        if (!c)
                g_error("no client %s/%" PRIu64, device, id);
        return c;
}

static const DrmUsageEngine *engine(const DrmUsageClient *c, const char *name)
{
        const DrmUsageEngine *e = drm_usage_client_find_engine(c, name);

        if (!e)
                g_error("no engine %s", name);
        return e;
}

static double engine_pct(const DrmUsageClient *c, const char *name)
{
        const DrmUsageEngine *e = engine(c, name);

        g_assert_true(e->has_engine_percent);
        return e->engine_percent;
}

static char *text_engine(uint64_t id, const char *name, uint64_t ns)
{
        return g_strdup_printf("drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: %" PRIu64
                               "\ndrm-engine-%s: %" PRIu64 " ns\n"
                               "drm-total-system0: 4 KiB\n",
                        id, name, ns);
}

/* 13. One drm_file in two fds of one process and in a forked child: one client, three holders. */
static void test_case13_dedupe(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autofree char *a = text_engine(7, "render", UINT64_C(1000000000));
        g_autofree char *b = text_engine(7, "render", UINT64_C(1500000000));
        const DrmUsageClient *c;
        const DrmUsageDevice *d;

        UPDATE(u, { a, 1 * SEC, 100, 5 }, { a, 1 * SEC, 200, 3 }, { a, 1 * SEC, 100, 9 });
        UPDATE(u, { b, 2 * SEC, 200, 3 }, { b, 2 * SEC, 100, 9 }, { b, 2 * SEC, 100, 5 }, { b, 2 * SEC, 100, 5 });
        g_assert_cmpuint(u->n_clients, ==, 1);
        c = client(u, "0000:00:02.0", 7);
        g_assert_cmpuint(c->n_holders, ==, 3);
        g_assert_cmpint(c->holders[0].pid, ==, 100);
        g_assert_cmpint(c->holders[0].fd, ==, 5);
        g_assert_cmpint(c->holders[1].pid, ==, 100);
        g_assert_cmpint(c->holders[1].fd, ==, 9);
        g_assert_cmpint(c->holders[2].pid, ==, 200);
        g_assert_cmpint(c->holders[2].fd, ==, 3);
        g_assert_cmpfloat_with_epsilon(engine_pct(c, "render"), 50.0, 1e-9);

        /* The device counts the client once: 50 %, not 150 %, and 4 KiB, not 12. */
        g_assert_cmpuint(u->n_devices, ==, 1);
        d = drm_usage_find_device(u, "0000:00:02.0");
        g_assert_nonnull(d);
        g_assert_cmpuint(d->n_clients, ==, 1);
        g_assert_cmpfloat_with_epsilon(drm_usage_device_find_engine(d, "render")->busy_percent, 50.0, 1e-9);
        g_assert_cmpuint(drm_usage_device_find_region(d, "system0")->bytes[DRM_FDINFO_MEM_TOTAL], ==, 4096);
        g_assert_cmpuint(d->n_clamped, ==, 0);

        /* One holder closes its fd: the client stays, with two holders. */
        UPDATE(u, { b, 3 * SEC, 100, 5 }, { b, 3 * SEC, 200, 3 });
        c = client(u, "0000:00:02.0", 7);
        g_assert_cmpuint(c->n_holders, ==, 2);
        g_assert_cmpfloat_with_epsilon(engine_pct(c, "render"), 0.0, 1e-9);
}

/* 14. The same client id on two devices (pre-6.5 per-device ids) is two clients. */
static void test_case14_per_device_ids(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const char a[] = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 7\n";
        static const char b[] = "drm-driver: amdgpu\ndrm-pdev: 0000:04:00.0\ndrm-client-id: 7\n";
        static const char p[] = "drm-driver: v3d\ndrm-client-id: 7\n";
        static const char noid[] = "drm-driver: etnaviv\ndrm-total-memory: 1 KiB\n";

        UPDATE(u, { a, SEC, 1, 3 }, { b, SEC, 1, 4 }, { p, SEC, 1, 5, "226:0" }, { p, SEC, 1, 6, "226:1" },
                        { noid, SEC, 2, 3, "226:2" }, { noid, SEC, 2, 4, "226:2" });
        g_assert_cmpuint(u->n_clients, ==, 6);
        g_assert_cmpstr(client(u, "0000:00:02.0", 7)->driver, ==, "i915");
        g_assert_cmpstr(client(u, "0000:04:00.0", 7)->driver, ==, "amdgpu");
        /* Without drm-pdev, the caller's device tells them apart. */
        g_assert_cmpstr(client(u, "226:0", 7)->driver, ==, "v3d");
        g_assert_cmpstr(client(u, "226:1", 7)->driver, ==, "v3d");
        g_assert_cmpuint(u->n_devices, ==, 5);
        /* Without drm-client-id, every fd is its own client. */
        g_assert_cmpuint(drm_usage_find_device(u, "226:2")->n_clients, ==, 2);
        g_assert_cmpuint(drm_usage_device_find_region(drm_usage_find_device(u, "226:2"), "memory")
                                         ->bytes[DRM_FDINFO_MEM_TOTAL],
                        ==, 2048);
}

/* 16. A counter that goes backwards gives 0 and keeps the larger baseline until it catches up. */
static void test_case16_backwards(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const uint64_t ns[] = { 1000000000, 1500000000, 1200000000, 1600000000, 2600000000, 0, 500000000 };
        static const double expect[] = { -1, 50.0, 0.0, 5.0, 100.0, 0.0, 0.0 };
        const DrmUsageClient *c;

        for (size_t i = 0; i < ELEMENTSOF(ns); i++) {
                g_autofree char *t = text_engine(3, "gfx", ns[i]);

                UPDATE(u, { t, (i + 1) * SEC, 10, 4 });
                c = client(u, "0000:00:02.0", 3);
                if (expect[i] < 0)
                        g_assert_false(engine(c, "gfx")->has_engine_percent);
                else
                        g_assert_cmpfloat_with_epsilon(engine_pct(c, "gfx"), expect[i], 1e-9);
        }
        /* Dropped at 3, then at 6 and 7; never a wrap to a huge figure; never clamped. */
        g_assert_cmpuint(engine(c, "gfx")->n_backwards, ==, 3);
        g_assert_cmpuint(engine(c, "gfx")->busy_ns.value, ==, UINT64_C(2600000000));
        g_assert_cmpuint(engine(c, "gfx")->n_clamped, ==, 0);

        /* cycles and total-cycles: either going back holds both. */
        {
                g_autoptr(DrmUsage) v = drm_usage_new();
                static const char s1[] =
                                "drm-driver: xe\ndrm-client-id: 1\ndrm-cycles-rcs: 100\ndrm-total-cycles-rcs: 1000\n";
                static const char s2[] =
                                "drm-driver: xe\ndrm-client-id: 1\ndrm-cycles-rcs: 90\ndrm-total-cycles-rcs: 2000\n";
                static const char s3[] =
                                "drm-driver: xe\ndrm-client-id: 1\ndrm-cycles-rcs: 400\ndrm-total-cycles-rcs: 3000\n";

                UPDATE(v, { s1, SEC, 1, 1, "d" });
                UPDATE(v, { s2, 2 * SEC, 1, 1, "d" });
                c = client(v, "d", 1);
                g_assert_true(engine(c, "rcs")->has_cycles_percent);
                g_assert_cmpfloat_with_epsilon(engine(c, "rcs")->cycles_percent, 0.0, 1e-9);
                UPDATE(v, { s3, 3 * SEC, 1, 1, "d" });
                c = client(v, "d", 1);
                /* (400 - 100) / (3000 - 1000): over the interval since the held baseline. */
                g_assert_cmpfloat_with_epsilon(engine(c, "rcs")->cycles_percent, 15.0, 1e-9);
                g_assert_cmpuint(engine(c, "rcs")->n_backwards, ==, 1);
        }
}

/* 17. A new client shows no utilisation on its first sample; a vanished one is dropped. */
static void test_case17_new_and_vanished(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autofree char *a1 = text_engine(1, "render", 1000);
        g_autofree char *a2 = text_engine(1, "render", 500001000);
        g_autofree char *b1 = text_engine(2, "render", 7000000000);
        const DrmUsageClient *c;

        UPDATE(u, { a1, SEC, 1, 3 });
        c = client(u, "0000:00:02.0", 1);
        g_assert_cmpuint(c->n_samples, ==, 1);
        g_assert_cmpuint(c->interval_usec, ==, 0);
        g_assert_false(engine(c, "render")->has_engine_percent);
        g_assert_false(drm_usage_device_find_engine(drm_usage_find_device(u, "0000:00:02.0"), "render")
                                        ->has_busy_percent);

        UPDATE(u, { a2, 2 * SEC, 1, 3 }, { b1, 2 * SEC, 2, 3 });
        g_assert_cmpfloat_with_epsilon(engine_pct(client(u, "0000:00:02.0", 1), "render"), 50.0, 1e-9);
        g_assert_false(engine(client(u, "0000:00:02.0", 2), "render")->has_engine_percent);
        g_assert_cmpuint(client(u, "0000:00:02.0", 1)->interval_usec, ==, SEC);

        /* Client 1 is gone; client 2 stays. */
        UPDATE(u, { b1, 3 * SEC, 2, 3 });
        g_assert_cmpuint(u->n_clients, ==, 1);
        g_assert_null(drm_usage_find_client(u, "0000:00:02.0", 1));
        g_assert_cmpuint(drm_usage_find_device(u, "0000:00:02.0")->n_clients, ==, 1);

        /* It comes back: a fresh client, no stale delta from before. */
        UPDATE(u, { a2, 4 * SEC, 1, 3 }, { b1, 4 * SEC, 2, 3 });
        c = client(u, "0000:00:02.0", 1);
        g_assert_cmpuint(c->n_samples, ==, 1);
        g_assert_false(engine(c, "render")->has_engine_percent);

        /* Nothing at all: everything goes. */
        update_n(u, NULL, 0);
        g_assert_cmpuint(u->n_clients, ==, 0);
        g_assert_cmpuint(u->n_devices, ==, 0);
}

/* 18. Engine time over this client's own measured interval and its capacity; clamping counted. */
static void test_case18_capacity_interval_clamp(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const char a1[] =
                        "drm-driver: i915\ndrm-client-id: 1\ndrm-engine-video: 0 ns\ndrm-engine-capacity-video: 2\n";
        static const char a2[] =
                        "drm-driver: i915\ndrm-client-id: 1\ndrm-engine-video: 2000000000 ns\ndrm-engine-capacity-video: 2\n";
        static const char a3[] =
                        "drm-driver: i915\ndrm-client-id: 1\ndrm-engine-video: 5000000000 ns\ndrm-engine-capacity-video: 2\n";
        static const char b1[] = "drm-driver: i915\ndrm-client-id: 2\ndrm-engine-video: 0 ns\n";
        static const char b2[] = "drm-driver: i915\ndrm-client-id: 2\ndrm-engine-video: 250000000 ns\n";
        const DrmUsageClient *a, *b;

        /* b is read half a second after a in the first round, at the same time in the second. */
        UPDATE(u, { a1, 1 * SEC, 1, 3, "d" }, { b1, 1 * SEC + SEC / 2, 2, 3, "d" });
        UPDATE(u, { a2, 2 * SEC, 1, 3, "d" }, { b2, 2 * SEC, 2, 3, "d" });
        a = client(u, "d", 1);
        b = client(u, "d", 2);
        /* 200 % of one instance of a class of 2 is 100 %. */
        g_assert_cmpfloat_with_epsilon(engine_pct(a, "video"), 100.0, 1e-9);
        g_assert_cmpuint(engine(a, "video")->capacity, ==, 2);
        g_assert_cmpuint(engine(a, "video")->n_clamped, ==, 0);
        /* 0.25 s over b's own 0.5 s, not the round's 1 s. */
        g_assert_cmpfloat_with_epsilon(engine_pct(b, "video"), 50.0, 1e-9);
        g_assert_cmpuint(b->interval_usec, ==, SEC / 2);
        /* The device's sum, 150 %, is cut to 100 and counted. */
        g_assert_cmpfloat_with_epsilon(
                        drm_usage_device_find_engine(drm_usage_find_device(u, "d"), "video")->busy_percent, 100.0,
                        1e-9);
        g_assert_cmpuint(drm_usage_find_device(u, "d")->n_clamped, ==, 1);
        g_assert_cmpuint(u->n_clamped, ==, 1);

        /* 3 s of work in 1 s on 2 engines: 150 %, cut to 100 and counted on the engine and the client. */
        UPDATE(u, { a3, 3 * SEC, 1, 3, "d" });
        a = client(u, "d", 1);
        g_assert_cmpfloat_with_epsilon(engine_pct(a, "video"), 100.0, 1e-9);
        g_assert_cmpuint(engine(a, "video")->n_clamped, ==, 1);
        g_assert_cmpuint(a->n_clamped, ==, 1);
        g_assert_cmpuint(u->n_clamped, ==, 2);

        /* A read no later than the client's last one measures nothing and changes nothing. */
        UPDATE(u, { a1, 3 * SEC, 1, 3, "d" });
        a = client(u, "d", 1);
        g_assert_cmpuint(u->n_reads_skipped, ==, 1);
        g_assert_cmpuint(engine(a, "video")->busy_ns.value, ==, UINT64_C(5000000000));
}

static char *text_xe(uint64_t rcs, uint64_t vcs, uint64_t total, bool cycles)
{
        if (!cycles)
                return g_strdup("drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\ndrm-total-gtt: 192 KiB\n");
        return g_strdup_printf("drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\ndrm-total-gtt: 192 KiB\n"
                               "drm-cycles-rcs: %" PRIu64 "\ndrm-total-cycles-rcs: %" PRIu64 "\n"
                               "drm-cycles-vcs: %" PRIu64 "\ndrm-total-cycles-vcs: %" PRIu64 "\n"
                               "drm-engine-capacity-vcs: 2\n",
                        rcs, total, vcs, total);
}

/* 19. xe: cycles over total cycles only; Δtotal 0 is 0 %; classes missing in one sample keep theirs. */
static void test_case19_xe_cycles(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autofree char *s1 = text_xe(28257900, 0, UINT64_C(7655183225), true);
        g_autofree char *s2 = text_xe(28257900 + 250, 500, UINT64_C(7655183225) + 1000, true);
        g_autofree char *s3 = text_xe(28257900 + 260, 500, UINT64_C(7655183225) + 1000, true);
        g_autofree char *s4 = text_xe(0, 0, 0, false);
        g_autofree char *s5 = text_xe(28257900 + 1260, 500, UINT64_C(7655183225) + 3000, true);
        const DrmUsageClient *c;
        double pct;

        UPDATE(u, { s1, 1 * SEC, 1, 3 });
        UPDATE(u, { s2, 2 * SEC, 1, 3 });
        c = client(u, "0000:03:00.0", 3);
        g_assert_false(engine(c, "rcs")->has_engine_percent);
        g_assert_cmpfloat_with_epsilon(engine(c, "rcs")->cycles_percent, 25.0, 1e-9);
        /* 500 of 1000 ticks on a class of 2 engines. */
        g_assert_cmpfloat_with_epsilon(engine(c, "vcs")->cycles_percent, 25.0, 1e-9);
        g_assert_true(drm_usage_engine_busy(engine(c, "rcs"), &pct));
        g_assert_cmpfloat_with_epsilon(pct, 25.0, 1e-9);
        g_assert_false(engine(c, "rcs")->has_freq_percent);

        /* The GPU timestamp did not move (while the cycles did): 0 %, no division by zero, no clamp. */
        UPDATE(u, { s3, 3 * SEC, 1, 3 });
        c = client(u, "0000:03:00.0", 3);
        g_assert_true(engine(c, "rcs")->has_cycles_percent);
        g_assert_cmpfloat_with_epsilon(engine(c, "rcs")->cycles_percent, 0.0, 1e-9);
        g_assert_cmpuint(c->n_clamped, ==, 0);

        /* Forcewake failed: no cycles lines. The classes stay, with their figures, marked stale. */
        UPDATE(u, { s4, 4 * SEC, 1, 3 });
        c = client(u, "0000:03:00.0", 3);
        g_assert_cmpuint(c->n_engines, ==, 2);
        g_assert_true(engine(c, "rcs")->stale);
        g_assert_true(engine(c, "rcs")->has_cycles_percent);
        g_assert_cmpuint(engine(c, "vcs")->capacity, ==, 2);
        g_assert_true(drm_usage_device_find_engine(drm_usage_find_device(u, "0000:03:00.0"), "rcs")->has_busy_percent);

        /* Back: measured from the last baseline, across the gap: 1000 of 2000 ticks. */
        UPDATE(u, { s5, 5 * SEC, 1, 3 });
        c = client(u, "0000:03:00.0", 3);
        g_assert_false(engine(c, "rcs")->stale);
        g_assert_cmpfloat_with_epsilon(engine(c, "rcs")->cycles_percent, 50.0, 1e-9);
        g_assert_cmpfloat_with_epsilon(engine(c, "vcs")->cycles_percent, 0.0, 1e-9);
        g_assert_cmpuint(engine(c, "rcs")->n_backwards, ==, 0);
}

/* 20. msm, panfrost, panthor: engine time first, cycles over maxfreq as the frequency-normalised
 * figure; keys that come and go with profiling. */
static void test_case20_maxfreq(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const char m1[] = "drm-driver:\tmsm\ndrm-client-id:\t7\ndrm-engine-gpu:\t1734371319 ns\n"
                                 "drm-cycles-gpu:\t1153645024\ndrm-maxfreq-gpu:\t800000000 Hz\n";
        static const char m2[] = "drm-driver:\tmsm\ndrm-client-id:\t7\ndrm-engine-gpu:\t2234371319 ns\n"
                                 "drm-cycles-gpu:\t1353645024\ndrm-maxfreq-gpu:\t800000000 Hz\n";
        static const char off[] = "drm-driver: panfrost\ndrm-client-id: 14\ndrm-maxfreq-fragment: 799999987 Hz\n"
                                  "drm-curfreq-fragment: 799999987 Hz\n";
        static const char on1[] = "drm-driver: panfrost\ndrm-client-id: 14\ndrm-maxfreq-fragment: 800 MHz\n"
                                  "drm-engine-fragment: 1846584880 ns\ndrm-cycles-fragment: 1424359409\n";
        static const char on2[] = "drm-driver: panfrost\ndrm-client-id: 14\ndrm-maxfreq-fragment: 800 MHz\n"
                                  "drm-engine-fragment: 2046584880 ns\ndrm-cycles-fragment: 1584359409\n";
        const DrmUsageClient *c;
        const DrmUsageEngine *e;
        double pct;

        UPDATE(u, { m1, 1 * SEC, 1, 6, "msm" });
        UPDATE(u, { m2, 2 * SEC, 1, 6, "msm" });
        c = client(u, "msm", 7);
        e = engine(c, "gpu");
        g_assert_cmpfloat_with_epsilon(e->engine_percent, 50.0, 1e-9);
        /* 2e8 cycles in 1 s at 8e8 Hz. */
        g_assert_true(e->has_freq_percent);
        g_assert_cmpfloat_with_epsilon(e->freq_percent, 25.0, 1e-9);
        g_assert_false(e->has_cycles_percent);
        g_assert_true(drm_usage_engine_busy(e, &pct));
        g_assert_cmpfloat_with_epsilon(pct, 50.0, 1e-9);
        g_assert_cmpfloat_with_epsilon(
                        drm_usage_device_find_engine(drm_usage_find_device(u, "msm"), "gpu")->freq_percent, 25.0, 1e-9);

        /* Profiling off: only maxfreq; the engine exists but has nothing to say. */
        UPDATE(u, { off, 1 * SEC, 1, 6, "pf" });
        c = client(u, "pf", 14);
        e = engine(c, "fragment");
        g_assert_false(drm_usage_engine_busy(e, NULL));
        g_assert_false(e->has_freq_percent);
        /* Profiling switched on: the counters' first appearance is a baseline, not a delta. */
        UPDATE(u, { on1, 2 * SEC, 1, 6, "pf" });
        e = engine(client(u, "pf", 14), "fragment");
        g_assert_false(drm_usage_engine_busy(e, NULL));
        g_assert_false(e->has_freq_percent);
        UPDATE(u, { on2, 3 * SEC, 1, 6, "pf" });
        e = engine(client(u, "pf", 14), "fragment");
        g_assert_cmpfloat_with_epsilon(e->engine_percent, 20.0, 1e-9);
        g_assert_cmpfloat_with_epsilon(e->freq_percent, 20.0, 1e-9);
        /* Off again: the engine stays with its last figures, stale. */
        UPDATE(u, { off, 4 * SEC, 1, 6, "pf" });
        e = engine(client(u, "pf", 14), "fragment");
        g_assert_true(e->stale);
        g_assert_true(e->has_engine_percent);
        g_assert_cmpfloat_with_epsilon(e->engine_percent, 20.0, 1e-9);
}

/* 21. Memory per region and per stat, never summed across stats; shared memory shows in each client. */
static void test_case21_memory(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const char a[] = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 39\n"
                                "drm-total-system0: 6044 KiB\ndrm-shared-system0: 0\ndrm-active-system0: 0\n"
                                "drm-resident-system0: 6044 KiB\ndrm-purgeable-system0: 1688 KiB\n"
                                "drm-total-stolen-system0: 0\ndrm-total-local0: 1 MiB\n";
        static const char b[] = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 40\n"
                                "drm-total-system0: 100 KiB\ndrm-shared-system0: 100 KiB\n";
        static const char a2[] = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 39\n"
                                 "drm-total-system0: 8 MiB\n";
        const DrmUsageClient *c;
        const DrmUsageRegion *r;
        const DrmUsageDeviceRegion *dr;

        UPDATE(u, { a, SEC, 1, 3 }, { b, SEC, 2, 3 });
        c = client(u, "0000:00:02.0", 39);
        g_assert_cmpuint(c->n_regions, ==, 3);
        r = drm_usage_client_find_region(c, "system0");
        g_assert_cmpuint(r->bytes[DRM_FDINFO_MEM_TOTAL], ==, 6044 * 1024);
        g_assert_cmpuint(r->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 6044 * 1024);
        g_assert_cmpuint(r->bytes[DRM_FDINFO_MEM_PURGEABLE], ==, 1688 * 1024);
        g_assert_true(r->has[DRM_FDINFO_MEM_SHARED]);
        g_assert_cmpuint(r->bytes[DRM_FDINFO_MEM_SHARED], ==, 0);
        g_assert_cmpuint(drm_usage_client_find_region(c, "stolen-system0")->bytes[DRM_FDINFO_MEM_TOTAL], ==, 0);

        dr = drm_usage_device_find_region(drm_usage_find_device(u, "0000:00:02.0"), "system0");
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_TOTAL], ==, 6144 * 1024);
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_SHARED], ==, 100 * 1024);
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 6044 * 1024);
        g_assert_true(dr->has[DRM_FDINFO_MEM_ACTIVE]);
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_PURGEABLE], ==, 1688 * 1024);
        g_assert_cmpuint(drm_usage_device_find_region(drm_usage_find_device(u, "0000:00:02.0"), "local0")
                                         ->bytes[DRM_FDINFO_MEM_TOTAL],
                        ==, 1048576);

        /* Values replace, never add up over samples; a region missing in a sample keeps its values. */
        UPDATE(u, { a2, 2 * SEC, 1, 3 });
        c = client(u, "0000:00:02.0", 39);
        r = drm_usage_client_find_region(c, "system0");
        g_assert_cmpuint(r->bytes[DRM_FDINFO_MEM_TOTAL], ==, 8 * 1048576);
        g_assert_false(r->stale);
        g_assert_true(drm_usage_client_find_region(c, "local0")->stale);
        g_assert_cmpuint(drm_usage_client_find_region(c, "local0")->bytes[DRM_FDINFO_MEM_TOTAL], ==, 1048576);
        dr = drm_usage_device_find_region(drm_usage_find_device(u, "0000:00:02.0"), "system0");
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_TOTAL], ==, 8 * 1048576);
}

/* 22. amdgpu: GTT counts; drm-memory-* only without drm-resident-*; an engine missing is not gone. */
/* One user's processes opening clients without end (5,000, past DRM_USAGE_CLIENTS_MAX) fill only that
 * user's share: another user's clients, whose ids sort after the flood's, are still tracked. */
static void test_user_share(void)
{
        const size_t n_flood = 5000, n = n_flood + 3;
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
        g_autofree R *rs = g_new0(R, n);

        for (size_t i = 0; i < n; i++) {
                bool flood = i < n_flood;
                char *text = g_strdup_printf("drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: %zu\n", i + 1);

                g_ptr_array_add(texts, text);
                rs[i] = (R){
                        .text = text, .usec = SEC, .pid = flood ? 100 : 200, .fd = (int) i, .uid = flood ? 1000 : 1001
                };
        }
        for (unsigned round = 1; round <= 2; round++) {
                for (size_t i = 0; i < n; i++)
                        rs[i].usec = round * SEC;
                update_n(u, rs, n);
                g_assert_cmpuint(u->n_clients, ==, DRM_USAGE_CLIENTS_PER_USER_MAX + 3);
                g_assert_cmpuint(u->n_clients_dropped, ==, n_flood - DRM_USAGE_CLIENTS_PER_USER_MAX);
                for (size_t i = n_flood; i < n; i++)
                        g_assert_nonnull(client(u, "0000:00:02.0", i + 1));
                g_assert_null(drm_usage_find_client(u, "0000:00:02.0", DRM_USAGE_CLIENTS_PER_USER_MAX + 1));
        }
}

static void test_case22_amdgpu(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        static const char s1[] = "pasid:\t32785\ndrm-driver:\tamdgpu\ndrm-client-id:\t30\ndrm-pdev:\t0000:04:00.0\n"
                                 "drm-total-gtt:\t22 MiB\ndrm-resident-gtt:\t22 MiB\ndrm-resident-vram:\t544428 KiB\n"
                                 "drm-memory-vram:\t544428 KiB\ndrm-memory-gtt: \t22528 KiB\n"
                                 "drm-engine-gfx:\t39456116802 ns\n";
        static const char s2[] = "pasid:\t32785\ndrm-driver:\tamdgpu\ndrm-client-id:\t30\ndrm-pdev:\t0000:04:00.0\n"
                                 "drm-total-gtt:\t22 MiB\ndrm-resident-gtt:\t22 MiB\ndrm-resident-vram:\t544428 KiB\n"
                                 "drm-memory-vram:\t544428 KiB\ndrm-memory-gtt: \t22528 KiB\n";
        static const char s3[] = "pasid:\t32785\ndrm-driver:\tamdgpu\ndrm-client-id:\t30\ndrm-pdev:\t0000:04:00.0\n"
                                 "drm-total-gtt:\t22 MiB\ndrm-resident-gtt:\t22 MiB\ndrm-resident-vram:\t544428 KiB\n"
                                 "drm-memory-vram:\t544428 KiB\ndrm-memory-gtt: \t22528 KiB\n"
                                 "drm-engine-gfx:\t40456116802 ns\ndrm-engine-compute:\t5 ns\n";
        static const char legacy[] = "pasid:  32784\ndrm-driver:     amdgpu\ndrm-pdev:       0000:08:00.0\n"
                                     "drm-client-id:  217\ndrm-memory-vram:        2068 KiB\n"
                                     "drm-memory-gtt:         8192 KiB\ndrm-engine-gfx: 107322799 ns\n";
        const DrmUsageClient *c;
        const DrmUsageDeviceRegion *dr;

        UPDATE(u, { s1, 1 * SEC, 1, 3 }, { legacy, 1 * SEC, 2, 99 });
        c = client(u, "0000:04:00.0", 30);
        /* Resident is 544428 KiB, not twice that. */
        g_assert_cmpuint(drm_usage_client_find_region(c, "vram")->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 544428 * 1024);
        g_assert_cmpuint(drm_usage_client_find_region(c, "gtt")->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 22 * 1048576);
        dr = drm_usage_device_find_region(drm_usage_find_device(u, "0000:04:00.0"), "gtt");
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_TOTAL], ==, 22 * 1048576);
        g_assert_cmpuint(dr->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 22 * 1048576);
        /* Only the legacy key: it is resident. */
        c = client(u, "0000:08:00.0", 217);
        g_assert_cmpuint(drm_usage_client_find_region(c, "vram")->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 2068 * 1024);
        g_assert_cmpuint(drm_usage_client_find_region(c, "gtt")->bytes[DRM_FDINFO_MEM_RESIDENT], ==, 8192 * 1024);
        g_assert_false(drm_usage_client_find_region(c, "gtt")->has[DRM_FDINFO_MEM_TOTAL]);

        /* gfx not printed (amdgpu prints only engines it has used): still there, unchanged. */
        UPDATE(u, { s2, 2 * SEC, 1, 3 });
        c = client(u, "0000:04:00.0", 30);
        g_assert_cmpuint(c->n_engines, ==, 1);
        g_assert_true(engine(c, "gfx")->stale);
        g_assert_cmpuint(engine(c, "gfx")->busy_ns.value, ==, UINT64_C(39456116802));

        /* Back, one second of work over the two seconds since its baseline; compute appears. */
        UPDATE(u, { s3, 3 * SEC, 1, 3 });
        c = client(u, "0000:04:00.0", 30);
        g_assert_cmpfloat_with_epsilon(engine_pct(c, "gfx"), 50.0, 1e-9);
        g_assert_cmpuint(c->n_engines, ==, 2);
        g_assert_false(engine(c, "compute")->has_engine_percent);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/drm/usage/case13-dedupe", test_case13_dedupe);
        g_test_add_func("/drm/usage/case14-per-device-ids", test_case14_per_device_ids);
        g_test_add_func("/drm/usage/case16-backwards", test_case16_backwards);
        g_test_add_func("/drm/usage/case17-new-and-vanished", test_case17_new_and_vanished);
        g_test_add_func("/drm/usage/case18-capacity-interval-clamp", test_case18_capacity_interval_clamp);
        g_test_add_func("/drm/usage/case19-xe-cycles", test_case19_xe_cycles);
        g_test_add_func("/drm/usage/case20-maxfreq", test_case20_maxfreq);
        g_test_add_func("/drm/usage/case21-memory", test_case21_memory);
        g_test_add_func("/drm/usage/case22-amdgpu", test_case22_amdgpu);
        g_test_add_func("/drm/usage/user-share", test_user_share);
        return g_test_run();
}
