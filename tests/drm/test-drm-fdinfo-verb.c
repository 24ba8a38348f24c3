/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "nvprofilectl fdinfo", the built binary, on the corpus and on crafted dumps: what it prints, its
 * JSON, its exit statuses, the escaping of what comes from the files, and --interval. */

#include <json-c/json.h>
#include <sys/wait.h>

#include "json-schema-check.h"
#include "test-util.h"

typedef struct Run {
        char *out;
        char *err;
        int status;
} Run;

static void run_done(Run *r)
{
        g_free(r->out);
        g_free(r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Run, run_done)

/* Runs nvprofilectl with the NULL-terminated arguments. */
static void run(Run *ret, ...)
{
        const char *bin = g_getenv("NVPROFILECTL_BIN");
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_autoptr(GError) error = NULL;
        const char *a;
        va_list ap;
        int wait_status;

        g_assert_nonnull(bin);
        g_ptr_array_add(argv, (char *) bin);
        va_start(ap, ret);
        while ((a = va_arg(ap, const char *)))
                g_ptr_array_add(argv, (char *) a);
        va_end(ap);
        g_ptr_array_add(argv, NULL);

        *ret = (Run){ 0 };
        if (!g_spawn_sync(NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &ret->out, &ret->err,
                            &wait_status, &error))
                g_error("%s: %s", bin, error->message);
        g_assert_true(WIFEXITED(wait_status));
        ret->status = WEXITSTATUS(wait_status);
        g_test_message("exit %d\nstdout:\n%s\nstderr:\n%s", ret->status, ret->out, ret->err);
}

static char *corpus(const char *name)
{
        g_autofree char *dir = test_corpus_path("fdinfo");
        return g_build_filename(dir, name, NULL);
}

static struct json_object *parse_json(const char *text)
{
        struct json_object *o = json_tokener_parse(text);

        if (!o)
                g_error("not JSON: %s", text);
        assert_json_valid(text);
        return o;
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_object, json_object_put)

static struct json_object *get(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v))
                g_error("no \"%s\" in %s", key, json_object_to_json_string(o));
        return v;
}

static struct json_object *find_named(struct json_object *array, const char *name)
{
        for (size_t i = 0; i < json_object_array_length(array); i++) {
                struct json_object *x = json_object_array_get_idx(array, i);

                if (g_str_equal(json_object_get_string(get(x, "name")), name))
                        return x;
        }
        g_error("no \"%s\" in %s", name, json_object_to_json_string(array));
}

/* Every corpus dump: 0 for DRM usage, 1 for the dma-buf; all together: 1, everything still printed. */
static void test_corpus_files(void)
{
        g_autofree char *dir = test_corpus_path("fdinfo");
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
        const char *name;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d))) {
                g_auto(Run) r = { 0 };
                g_autofree char *path = NULL;

                if (!g_str_has_suffix(name, ".txt"))
                        continue;
                path = g_build_filename(dir, name, NULL);
                run(&r, "fdinfo", path, NULL);
                g_assert_cmpint(r.status, ==, g_str_has_prefix(name, "nodrm-") ? 1 : 0);
                g_assert_true(g_str_has_prefix(r.out, path));
                g_assert_nonnull(strstr(r.out, g_str_has_prefix(name, "nodrm-") ? ": not DRM usage" : ": DRM usage\n"));
                g_ptr_array_add(all, g_steal_pointer(&path));
        }
        g_assert_cmpuint(all->len, ==, 18);

        g_ptr_array_insert(all, 0, g_strdup("fdinfo"));
        g_ptr_array_insert(all, 0, g_strdup(g_getenv("NVPROFILECTL_BIN")));
        g_ptr_array_add(all, NULL);
        {
                g_autofree char *out = NULL;
                int st;

                g_assert_true(g_spawn_sync(NULL, (char **) all->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                &out, NULL, &st, NULL));
                g_assert_cmpint(WEXITSTATUS(st), ==, 1);
                /* Each file has its heading. */
                for (unsigned i = 2; i < all->len - 1; i++)
                        g_assert_nonnull(strstr(out, all->pdata[i]));
        }
}

/* What the daemon takes from a dump, in text and in JSON, with units converted. */
static void test_corpus_values(void)
{
        g_autofree char *amdgpu = corpus("amdgpu-1.txt"), *xe = corpus("xe-1.txt"), *msm = corpus("msm-1.txt");
        g_auto(Run) t = { 0 }, j = { 0 };
        g_autoptr(json_object) o = NULL;
        struct json_object *files, *f, *x;

        run(&t, "fdinfo", amdgpu, NULL);
        g_assert_cmpint(t.status, ==, 0);
        g_assert_nonnull(strstr(t.out, "  driver:      amdgpu\n"));
        g_assert_nonnull(strstr(t.out, "  pdev:        0000:04:00.0\n"));
        g_assert_nonnull(strstr(t.out, "  client id:   30\n"));
        g_assert_nonnull(strstr(t.out, "busy 39456116802 ns capacity 1 (default)"));
        g_assert_nonnull(strstr(t.out, "total 557494272 shared 13910016 resident 557494272 active 266604544"));
        g_assert_nonnull(strstr(t.out, "    amd-requested-visible-vram: 90112 KiB\n"));
        g_assert_null(strstr(t.out, "rejected"));

        run(&j, "--json=short", "fdinfo", amdgpu, xe, msm, NULL);
        g_assert_cmpint(j.status, ==, 0);
        o = parse_json(j.out);
        files = get(o, "files");
        g_assert_cmpuint(json_object_array_length(files), ==, 3);

        f = json_object_array_get_idx(files, 0);
        g_assert_cmpstr(json_object_get_string(get(f, "kind")), ==, "DRM usage");
        g_assert_cmpstr(json_object_get_string(get(f, "driver")), ==, "amdgpu");
        g_assert_cmpstr(json_object_get_string(get(f, "pdev")), ==, "0000:04:00.0");
        g_assert_cmpuint(json_object_get_uint64(get(f, "client_id")), ==, 30);
        g_assert_true(json_object_is_type(get(f, "client_name"), json_type_null));
        x = find_named(get(f, "regions"), "gtt");
        g_assert_cmpuint(json_object_get_uint64(get(x, "total")), ==, 23068672);
        g_assert_cmpuint(json_object_get_uint64(get(x, "active")), ==, 10485760);
        g_assert_cmpuint(json_object_get_uint64(get(x, "memory_legacy")), ==, 23068672);
        g_assert_true(json_object_is_type(get(x, "purgeable"), json_type_null));
        g_assert_false(json_object_get_boolean(get(x, "resident_from_legacy")));
        g_assert_cmpuint(json_object_array_length(get(f, "extras")), ==, 7);
        g_assert_cmpuint(json_object_array_length(get(f, "rejected")), ==, 0);

        f = json_object_array_get_idx(files, 1);
        x = find_named(get(f, "engines"), "ccs");
        g_assert_cmpuint(json_object_get_uint64(get(x, "capacity")), ==, 4);
        g_assert_cmpuint(json_object_get_uint64(get(x, "total_cycles")), ==, UINT64_C(7655183225));
        g_assert_true(json_object_is_type(get(x, "busy_ns"), json_type_null));
        x = find_named(get(f, "regions"), "vram0");
        g_assert_cmpuint(json_object_get_uint64(get(x, "shared")), ==, 16777216);

        f = json_object_array_get_idx(files, 2);
        g_assert_true(json_object_is_type(get(f, "pdev"), json_type_null));
        x = find_named(get(f, "engines"), "gpu");
        g_assert_cmpuint(json_object_get_uint64(get(x, "maxfreq_hz")), ==, 800000000);
        g_assert_cmpuint(json_object_get_uint64(get(x, "cycles")), ==, 1153645024);
}

static char *write_dump(const char *dir, const char *name, const char *text)
{
        test_write_file(dir, name, text);
        return g_build_filename(dir, name, NULL);
}

/* Rejections with their line numbers; what is not DRM usage fails; unreadable files fail. */
static void test_crafted(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *bad = write_dump(dir, "bad",
                        "drm-driver: i915\n"
                        "drm-engine-render: 12abc ns\n"
                        "drm-total-system0: 4 TiB\n"
                        "drm-cycles-rcs: 18446744073709551616\n"
                        "drm-engine-copy: 5 ns\n");
        g_autofree char *nostats = write_dump(dir, "nostats", "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1\n");
        g_autofree char *old = write_dump(dir, "old-amdgpu", "pdev:\t0000:04:00.0\npasid:\t1\nvram mem:\t1 kB\n");
        g_autofree char *missing = g_build_filename(dir, "missing", NULL);
        g_auto(Run) a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 }, f = { 0 };
        g_autoptr(json_object) o = NULL;
        struct json_object *rej;

        run(&a, "fdinfo", bad, NULL);
        g_assert_cmpint(a.status, ==, 0);
        g_assert_nonnull(strstr(a.out, ":2: rejected drm-engine-render: garbage after the number\n"));
        g_assert_nonnull(strstr(a.out, ":3: rejected drm-total-system0: unknown unit"));
        g_assert_nonnull(strstr(a.out, ":4: rejected drm-cycles-rcs: number beyond 64 bits\n"));
        g_assert_nonnull(strstr(a.out, "    copy             busy 5 ns"));
        g_assert_null(strstr(a.out, "    render"));

        run(&b, "--json=short", "fdinfo", bad, NULL);
        o = parse_json(b.out);
        rej = get(json_object_array_get_idx(get(o, "files"), 0), "rejected");
        g_assert_cmpuint(json_object_array_length(rej), ==, 3);
        g_assert_cmpint(json_object_get_int(get(json_object_array_get_idx(rej, 1), "line")), ==, 3);
        g_assert_cmpstr(json_object_get_string(get(json_object_array_get_idx(rej, 1), "key")), ==, "drm-total-system0");

        run(&c, "fdinfo", nostats, NULL);
        g_assert_cmpint(c.status, ==, 1);
        g_assert_nonnull(strstr(c.out, ": no stats"));
        run(&d, "fdinfo", old, NULL);
        g_assert_cmpint(d.status, ==, 1);
        g_assert_nonnull(strstr(d.out, ": not DRM usage"));
        run(&e, "fdinfo", missing, bad, NULL);
        g_assert_cmpint(e.status, ==, 1);
        g_assert_nonnull(strstr(e.err, "missing: No such file or directory"));
        g_assert_nonnull(strstr(e.out, "busy 5 ns")); /* the readable one is still shown */
        run(&f, "fdinfo", dir, NULL);
        g_assert_cmpint(f.status, ==, 1);
        g_assert_nonnull(strstr(f.err, "not a regular file"));
}

/* Usage errors exit 2. */
static void test_usage(void)
{
        g_autofree char *msm = corpus("msm-1.txt");
        g_auto(Run) a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 };

        run(&a, "fdinfo", NULL);
        g_assert_cmpint(a.status, ==, 2);
        run(&b, "--interval=1", "fdinfo", msm, NULL);
        g_assert_cmpint(b.status, ==, 2);
        run(&c, "--interval=soon", "fdinfo", msm, msm, NULL);
        g_assert_cmpint(c.status, ==, 2);
        run(&d, "--interval=0", "fdinfo", msm, msm, NULL);
        g_assert_cmpint(d.status, ==, 2);
        run(&e, "--interval=1", "version", NULL);
        g_assert_cmpint(e.status, ==, 2);
}

/* Strings from a file reach the terminal escaped, and JSON exact. */
static void test_escaping(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = write_dump(dir, "evil\033[31m",
                        "drm-driver: i915\033]0;owned\007\n"
                        "drm-client-name: \033[2Jname\n"
                        "x-key: \342\200\256value\n"
                        "drm-engine-\033[5m: 1 ns\n");
        g_auto(Run) t = { 0 }, j = { 0 };
        g_autoptr(json_object) o = NULL;
        struct json_object *f;

        run(&t, "fdinfo", path, NULL);
        g_assert_cmpint(t.status, ==, 0);
        g_assert_null(strchr(t.out, '\033'));
        g_assert_null(strchr(t.out, '\007'));
        g_assert_null(strstr(t.out, "\342\200\256"));
        g_assert_nonnull(strstr(t.out, "evil\\x1b[31m: DRM usage"));
        g_assert_nonnull(strstr(t.out, "driver:      i915\\x1b]0;owned\\a"));
        g_assert_nonnull(strstr(t.out, "client name: \\x1b[2Jname"));
        g_assert_nonnull(strstr(t.out, "rejected drm-engine-\\x1b[5m: blank or control character"));

        run(&j, "--json=short", "fdinfo", path, NULL);
        o = parse_json(j.out);
        f = json_object_array_get_idx(get(o, "files"), 0);
        g_assert_cmpstr(json_object_get_string(get(f, "driver")), ==, "i915\033]0;owned\007");
        g_assert_cmpstr(json_object_get_string(get(f, "client_name")), ==, "\033[2Jname");
        g_assert_cmpstr(json_object_get_string(get(f, "file")), ==, path);
}

/* Two dumps of one client and the time between them: the utilisation, with the daemon's math. */
static void test_interval(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *a = write_dump(dir, "a",
                        "drm-driver:\tmsm\ndrm-client-id:\t7\ndrm-engine-gpu:\t1734371319 ns\n"
                        "drm-cycles-gpu:\t1153645024\ndrm-maxfreq-gpu:\t800000000 Hz\n"
                        "drm-engine-copy:\t5000000000 ns\n");
        g_autofree char *b = write_dump(dir, "b",
                        "drm-driver:\tmsm\ndrm-client-id:\t7\ndrm-engine-gpu:\t2734371319 ns\n"
                        "drm-cycles-gpu:\t1553645024\ndrm-maxfreq-gpu:\t800000000 Hz\n"
                        "drm-engine-copy:\t4000000000 ns\n");
        g_autofree char *other = write_dump(dir, "other", "drm-driver:\tmsm\ndrm-client-id:\t8\n");
        g_autofree char *xe1 = write_dump(dir, "xe1",
                        "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\n"
                        "drm-cycles-vcs: 0\ndrm-total-cycles-vcs: 1000\ndrm-engine-capacity-vcs: 2\n");
        g_autofree char *xe2 = write_dump(dir, "xe2",
                        "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\n"
                        "drm-cycles-vcs: 1000\ndrm-total-cycles-vcs: 2000\ndrm-engine-capacity-vcs: 2\n");
        g_auto(Run) t = { 0 }, j = { 0 }, x = { 0 }, y = { 0 };
        g_autoptr(json_object) o = NULL;
        struct json_object *gpu, *copy;

        /* 1 s of engine time in 2 s; 4e8 cycles in 2 s at 8e8 Hz; copy went backwards. */
        run(&t, "--interval=2", "fdinfo", a, b, NULL);
        g_assert_cmpint(t.status, ==, 0);
        g_assert_nonnull(strstr(t.out, "over 2.000 s:\n"));
        g_assert_nonnull(strstr(t.out, "  gpu              busy 50.0% at max. frequency 25.0%\n"));
        g_assert_nonnull(strstr(t.out, "  copy             busy 0.0% (a counter went backwards: 0)\n"));

        run(&j, "--json=short", "--interval=0.5", "fdinfo", a, b, NULL);
        g_assert_cmpint(j.status, ==, 0);
        o = parse_json(j.out);
        g_assert_cmpfloat_with_epsilon(json_object_get_double(get(o, "interval_seconds")), 0.5, 1e-9);
        gpu = find_named(get(o, "utilisation"), "gpu");
        /* 1 s of work in 0.5 s: 200 %, cut to 100 and said so. */
        g_assert_cmpfloat_with_epsilon(json_object_get_double(get(gpu, "busy_percent")), 100.0, 1e-9);
        g_assert_true(json_object_get_boolean(get(gpu, "clamped")));
        g_assert_true(json_object_is_type(get(gpu, "cycles_percent"), json_type_null));
        copy = find_named(get(o, "utilisation"), "copy");
        g_assert_true(json_object_get_boolean(get(copy, "went_backwards")));

        /* xe: cycles over total cycles, over the capacity. */
        run(&x, "--interval=1", "fdinfo", xe1, xe2, NULL);
        g_assert_cmpint(x.status, ==, 0);
        g_assert_nonnull(strstr(x.out, "  vcs              busy 50.0%\n"));

        run(&y, "--interval=1", "fdinfo", a, other, NULL);
        g_assert_cmpint(y.status, ==, 1);
        g_assert_nonnull(strstr(y.err, "not dumps of the same client"));
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        (void) test_corpus_dir_or_skip();

        g_test_add_func("/drm/fdinfo-verb/corpus-files", test_corpus_files);
        g_test_add_func("/drm/fdinfo-verb/corpus-values", test_corpus_values);
        g_test_add_func("/drm/fdinfo-verb/crafted", test_crafted);
        g_test_add_func("/drm/fdinfo-verb/usage", test_usage);
        g_test_add_func("/drm/fdinfo-verb/escaping", test_escaping);
        g_test_add_func("/drm/fdinfo-verb/interval", test_interval);
        return g_test_run();
}
