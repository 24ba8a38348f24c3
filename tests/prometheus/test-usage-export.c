/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fleet export's writer: the exposition text (HELP/TYPE, grouping, exact counters, escaping, no pid
 * by default), counters that never go down while their series exists, the cgroup-to-unit lookup, and the
 * atomic replacement of the file. promtool and node_exporter read it in test-export-node-exporter.c. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-util.h"
#include "prometheus-metrics.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmUsage, drm_usage_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrometheusMetrics, prometheus_metrics_free)

typedef struct R {
        const char *text;
        uint64_t usec;
        pid_t pid;
        int fd;
} R;

static void update_n(DrmUsage *u, const R *rs, size_t n)
{
        g_autofree DrmUsageRead *reads = g_new0(DrmUsageRead, MAX(n, (size_t) 1));
        g_autofree DrmFdinfo **f = g_new0(DrmFdinfo *, MAX(n, (size_t) 1));

        for (size_t i = 0; i < n; i++) {
                g_assert_cmpint(drm_fdinfo_parse(rs[i].text, strlen(rs[i].text), 0, &f[i]), ==, 0);
                reads[i] = (DrmUsageRead){
                        .fdinfo = f[i], .pid = rs[i].pid, .fd = rs[i].fd, .timestamp_usec = rs[i].usec
                };
        }
        g_assert_cmpint(drm_usage_update(u, reads, n), ==, 0);
        for (size_t i = 0; i < n; i++)
                drm_fdinfo_free(f[i]);
}
#define UPDATE(u, ...) update_n(u, (const R[]){ __VA_ARGS__ }, ELEMENTSOF(((const R[]){ __VA_ARGS__ })))

/* pid -> unit, profile, comm */
typedef struct Owners {
        struct {
                pid_t pid;
                const char *unit, *profile, *comm;
        } o[8];
        unsigned n_lookups;
} Owners;

static int lookup(pid_t pid, void *userdata, PrometheusMetricsOwner *ret)
{
        Owners *owners = userdata;

        owners->n_lookups++;
        for (size_t i = 0; i < ELEMENTSOF(owners->o); i++)
                if (owners->o[i].pid == pid) {
                        *ret = (PrometheusMetricsOwner){
                                .unit = owners->o[i].unit, .profile = owners->o[i].profile, .comm = owners->o[i].comm
                        };
                        return 0;
                }
        return -ESRCH;
}

static char *render(PrometheusMetrics *x, const DrmUsage *u, Owners *owners, PrometheusMetricsFlags flags)
{
        PrometheusMetricsInput in = {
                .version = "9.9",
                .drm = u,
                .lookup = lookup,
                .userdata = owners,
                .flags = flags,
        };
        char *text = NULL;
        size_t size = 0;

        g_assert_cmpint(prometheus_metrics_render(x, &in, &text, &size), ==, 0);
        g_assert_cmpuint(strlen(text), ==, size);
        return text;
}

/* The value of the series "name{labels}" exactly, or -1 when absent. */
static double series_value(const char *text, const char *series)
{
        g_autofree char *needle = g_strconcat("\n", series, " ", NULL);
        const char *p = strstr(text, needle);

        if (!p)
                return -1;
        return g_ascii_strtod(p + strlen(needle), NULL);
}

/* Every line is a HELP, a TYPE or a sample; each metric's samples follow its TYPE without interruption,
 * and no family appears twice. */
static void assert_well_formed(const char *text)
{
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autofree char *current = NULL;
        g_autoptr(GRegex) sample = g_regex_new(
                        "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*\\})? "
                        "[0-9.e+-]+$",
                        0, 0, NULL);

        g_assert_true(g_str_has_suffix(text, "\n"));
        for (size_t i = 0; lines[i]; i++) {
                const char *l = lines[i];
                g_autoptr(GMatchInfo) m = NULL;
                g_autofree char *name = NULL;

                if (l[0] == '\0') {
                        g_assert_null(lines[i + 1]); /* only after the final newline */
                        continue;
                }
                if (g_str_has_prefix(l, "# HELP "))
                        continue;
                if (g_str_has_prefix(l, "# TYPE ")) {
                        g_auto(GStrv) w = g_strsplit(l + 7, " ", 2);

                        g_assert_false(g_hash_table_contains(seen, w[0]));
                        g_hash_table_add(seen, g_strdup(w[0]));
                        g_free(current);
                        current = g_strdup(w[0]);
                        g_assert_true(g_str_has_prefix(lines[i - 1], "# HELP "));
                        continue;
                }
                if (!g_regex_match(sample, l, 0, &m))
                        g_error("not a sample line: %s", l);
                name = g_match_info_fetch(m, 1);
                g_assert_cmpstr(name, ==, current);
        }
}

#define I915(id, ns, kib)                                                                                 \
        "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: " id "\ndrm-engine-render: " ns " ns\n" \
        "drm-engine-video: 0 ns\ndrm-total-system0: " kib " KiB\ndrm-resident-system0: " kib " KiB\n"

static void test_render_basic(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        Owners owners = { .o = {
                                          { 100, "game.service", "Game Profile", "game" },
                                          { 200, "game.service", "Game Profile", "game" },
                                          { 300, "compositor.scope", "", "gnome-shell" },
                          } };
        g_autofree char *text = NULL;

        UPDATE(u, { I915("1", "1500000000", "4"), 1000000, 100, 5 }, { I915("2", "250", "8"), 1000000, 200, 5 },
                        { I915("3", "7", "16"), 1000000, 300, 9 });
        text = render(x, u, &owners, 0);
        g_test_message("%s", text);
        assert_well_formed(text);

        g_assert_nonnull(strstr(text, "# HELP nvprofiled_build_info "));
        g_assert_nonnull(
                        strstr(text, "# TYPE nvprofiled_build_info gauge\nnvprofiled_build_info{version=\"9.9\"} 1\n"));
        g_assert_nonnull(strstr(text, "# TYPE nvprofiled_engine_busy_seconds_total counter\n"));
        /* Two clients of one unit and profile are one series; the seconds are exact. */
        g_assert_nonnull(strstr(text,
                        "\nnvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\","
                        "engine=\"render\",unit=\"game.service\",profile=\"Game Profile\"} "
                        "1.500000250\n"));
        g_assert_nonnull(strstr(text,
                        "\nnvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\","
                        "engine=\"render\",unit=\"compositor.scope\",profile=\"\"} 0.000000007\n"));
        g_assert_cmpfloat(series_value(text,
                                          "nvprofiled_memory_bytes{device=\"0000:00:02.0\",driver=\"i915\",region="
                                          "\"system0\",stat=\"total\",unit=\"game.service\",profile=\"Game Profile\"}"),
                        ==, 12 * 1024);
        g_assert_cmpfloat(series_value(text,
                                          "nvprofiled_unit_clients{device=\"0000:00:02.0\",driver=\"i915\",unit="
                                          "\"game.service\",profile=\"Game Profile\"}"),
                        ==, 2);
        g_assert_cmpfloat(series_value(text, "nvprofiled_clients{device=\"0000:00:02.0\",driver=\"i915\"}"), ==, 3);
        g_assert_cmpfloat(series_value(text,
                                          "nvprofiled_device_memory_bytes{device=\"0000:00:02.0\",driver=\"i915\","
                                          "region=\"system0\",stat=\"resident\"}"),
                        ==, 28 * 1024);
        g_assert_cmpfloat(series_value(text,
                                          "nvprofiled_engine_capacity{device=\"0000:00:02.0\",driver=\"i915\","
                                          "engine=\"render\"}"),
                        ==, 1);
        g_assert_cmpfloat(series_value(text,
                                          "nvprofiled_device_info{device=\"0000:00:02.0\",driver=\"i915\",source="
                                          "\"fdinfo\",name=\"\"}"),
                        ==, 1);
        /* No DRM source, no NVML: no NVML metric. */
        g_assert_null(strstr(text, "nvml"));
}

static void test_no_pid_by_default(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        g_autoptr(PrometheusMetrics) y = prometheus_metrics_new();
        Owners owners = { .o = { { 4242, "a.service", "P", "proc-comm" } } };
        g_autofree char *text = NULL, *with_pid = NULL;

        UPDATE(u, { I915("1", "10", "4"), 1000000, 4242, 3 });
        text = render(x, u, &owners, 0);
        g_assert_null(strstr(text, "4242"));
        g_assert_null(strstr(text, "pid="));
        g_assert_null(strstr(text, "proc-comm"));

        with_pid = render(y, u, &owners, PROMETHEUS_METRICS_PROCESS_LABELS);
        assert_well_formed(with_pid);
        g_assert_nonnull(strstr(with_pid, "unit=\"a.service\",profile=\"P\",pid=\"4242\",comm=\"proc-comm\"}"));
}

static void test_escaping(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        g_autofree char *long_profile = g_strnfill(1000, 'p');
        Owners owners = { .o = {
                                          { 1, "we\"ird\\unit\nfake_metric{} 1", "bad\xff\xfeutf8", "" },
                                          { 2, "u2", NULL, NULL },
                          } };
        g_autofree char *text = NULL, *expected = NULL;

        owners.o[1].profile = long_profile;
        UPDATE(u, { I915("1", "10", "4"), 1000000, 1, 3 }, { I915("2", "10", "4"), 1000000, 2, 3 });
        text = render(x, u, &owners, 0);
        assert_well_formed(text);
        g_assert_nonnull(strstr(text,
                        "unit=\"we\\\"ird\\\\unit\\nfake_metric{} 1\",profile=\"bad\xef\xbf\xbd\xef\xbf\xbdutf8\""));
        /* No line starts with the forged metric. */
        g_assert_null(strstr(text, "\nfake_metric"));
        /* Cut at PROMETHEUS_METRICS_LABEL_MAX bytes. */
        expected = g_strdup_printf("profile=\"%.*s\"}", (int) PROMETHEUS_METRICS_LABEL_MAX, long_profile);
        g_assert_nonnull(strstr(text, expected));
        g_assert_null(strstr(text, "ppppp\xe2"));

        /* A multi-byte character is never cut in half at the limit. */
        {
                g_autofree char *s = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&s, &size);
                GString *in = g_string_new(NULL);

                g_string_append(in, "a");
                while (in->len < 2 * PROMETHEUS_METRICS_LABEL_MAX)
                        g_string_append(in, "\xc3\xa9"); /* é */
                prometheus_metrics_put_label_value(f, in->str);
                fclose(f);
                g_assert_cmpuint(size, ==, PROMETHEUS_METRICS_LABEL_MAX - 1);
                g_assert_true(g_utf8_validate(s, (gssize) size, NULL));
                g_string_free(in, TRUE);
        }
}

/* A unit's counter never goes down while the unit has a client: neither when one of its clients ends,
 * nor when the driver's counter goes backwards; the series goes when its last client does. */
static void test_counter_monotonic(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        Owners owners = { .o = {
                                          { 10, "w.service", "", "" },
                                          { 11, "w.service", "", "" },
                                          { 12, "w.service", "", "" },
                          } };
        const char *busy = "nvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\",engine="
                           "\"render\",unit=\"w.service\",profile=\"\"}";
        double v;

        UPDATE(u, { I915("1", "3000000000", "4"), 1000000, 10, 3 }, { I915("2", "1000000000", "4"), 1000000, 11, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, busy), ==, 4.0);
        }
        /* Client 1 ends; client 2 runs on: 4 s stays counted, plus client 2's new second. */
        UPDATE(u, { I915("2", "2000000000", "4"), 2000000, 11, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, busy), ==, 5.0);
        }
        /* Client 2's counter goes backwards (the spec: keep the larger value); a new client 3 arrives. */
        UPDATE(u, { I915("2", "1500000000", "4"), 3000000, 11, 3 }, { I915("3", "500000000", "4"), 3000000, 12, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                v = series_value(t, busy);
                g_assert_cmpfloat(v, ==, 5.5);
        }
        /* Client 2 ends too; client 3 goes on. */
        UPDATE(u, { I915("3", "600000000", "4"), 4000000, 12, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, busy), >=, v);
                g_assert_cmpfloat(series_value(t, busy), ==, 5.6);
        }
        /* The last client ends: the series is gone (Prometheus marks it stale), and nothing is carried for a
         * later client of the unit. */
        UPDATE(u, { I915("9", "1", "4"), 5000000, 99, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, busy), ==, -1);
        }
        UPDATE(u, { I915("9", "1", "4"), 6000000, 99, 3 }, { I915("4", "100000000", "4"), 6000000, 10, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, busy), ==, 0.1);
        }
}

/* A client whose profile changes moves to the other series; the old series keeps what it counted while
 * another client keeps it alive. */
static void test_counter_moves_with_profile(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        Owners owners = { .o = {
                                          { 10, "w.service", "A", "" },
                                          { 11, "w.service", "A", "" },
                          } };
        const char *a = "nvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\",engine=\"render\","
                        "unit=\"w.service\",profile=\"A\"}";
        const char *b = "nvprofiled_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\",engine=\"render\","
                        "unit=\"w.service\",profile=\"B\"}";

        UPDATE(u, { I915("1", "1000000000", "4"), 1000000, 10, 3 }, { I915("2", "2000000000", "4"), 1000000, 11, 3 });
        g_free(render(x, u, &owners, 0));
        owners.o[0].profile = "B";
        UPDATE(u, { I915("1", "1500000000", "4"), 2000000, 10, 3 }, { I915("2", "2000000000", "4"), 2000000, 11, 3 });
        {
                g_autofree char *t = render(x, u, &owners, 0);
                g_assert_cmpfloat(series_value(t, a), ==, 3.0);
                g_assert_cmpfloat(series_value(t, b), ==, 1.5);
        }
}

/* A client with several holders is labelled with the one a profile applied to, else with the last one
 * (logind keeps the fds it hands to compositors, and started first). */
static void test_shared_client_holder(void)
{
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        Owners owners = { .o = {
                                          { 10, "systemd-logind.service", "", "systemd-logind" },
                                          { 20, "game.service", "Game", "game" },
                                          { 30, "gnome-shell.scope", "", "gnome-shell" },
                          } };
        g_autofree char *t = NULL;

        UPDATE(u, { I915("1", "10", "4"), 1000000, 10, 3 }, { I915("1", "10", "4"), 1000000, 20, 5 },
                        { I915("2", "20", "4"), 1000000, 10, 4 }, { I915("2", "20", "4"), 1000000, 30, 7 });
        t = render(x, u, &owners, 0);
        g_assert_nonnull(strstr(t, "engine=\"render\",unit=\"game.service\",profile=\"Game\"} 0.000000010\n"));
        g_assert_nonnull(strstr(t, "engine=\"render\",unit=\"gnome-shell.scope\",profile=\"\"} 0.000000020\n"));
        g_assert_null(strstr(t, "systemd-logind"));
}

static void test_nvml(void)
{
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        NvmlProcessUsage procs[] = {
                { .pid = 10, .compute = true, .memory_bytes = 1 << 20 },
                { .pid = 11, .graphics = true, .memory_bytes = 3 << 20 },
                { .pid = 12, .graphics = true, .memory_bytes = NVML_SOURCE_UNKNOWN },
        };
        NvmlDeviceUsage d0 = {
                .pci_bus_id = "0000:01:00.0",
                .name = "NVIDIA \"Fake\" GPU",
                .state = NVML_DEVICE_SAMPLED,
                .has_utilization = true,
                .gpu_percent = 42,
                .memory_percent = 100,
                .memory_used_bytes = 4 << 20,
                .memory_total_bytes = UINT64_C(8) << 30,
                .processes = procs,
                .n_processes = ELEMENTSOF(procs),
        };
        NvmlDeviceUsage d1 = {
                .pci_bus_id = "0000:02:00.0",
                .state = NVML_DEVICE_SUSPENDED,
                .memory_used_bytes = NVML_SOURCE_UNKNOWN,
                .memory_total_bytes = NVML_SOURCE_UNKNOWN,
        };
        const NvmlDeviceUsage *devices[] = { &d0, &d1 };
        Owners owners = { .o = { { 10, "ml.service", "", "" }, { 11, "ml.service", "", "" } } };
        PrometheusMetricsInput in = {
                .version = "1",
                .nvml_devices = devices,
                .n_nvml_devices = 2,
                .lookup = lookup,
                .userdata = &owners,
        };
        g_autofree char *t = NULL;

        g_assert_cmpint(prometheus_metrics_render(x, &in, &t, NULL), ==, 0);
        g_test_message("%s", t);
        assert_well_formed(t);
        g_assert_cmpfloat(series_value(t, "nvprofiled_nvml_utilization_ratio{device=\"0000:01:00.0\",kind=\"gpu\"}"),
                        ==, 0.42);
        g_assert_nonnull(
                        strstr(t, "nvprofiled_nvml_utilization_ratio{device=\"0000:01:00.0\",kind=\"memory\"} 1.00\n"));
        g_assert_cmpfloat(series_value(t, "nvprofiled_nvml_memory_total_bytes{device=\"0000:01:00.0\"}"), ==,
                        8.0 * 1024 * 1024 * 1024);
        g_assert_cmpfloat(series_value(t, "nvprofiled_nvml_memory_used_bytes{device=\"0000:02:00.0\"}"), ==, -1);
        g_assert_cmpfloat(
                        series_value(t, "nvprofiled_device_suspended{device=\"0000:02:00.0\",source=\"nvml\"}"), ==, 1);
        g_assert_cmpfloat(
                        series_value(t, "nvprofiled_device_suspended{device=\"0000:01:00.0\",source=\"nvml\"}"), ==, 0);
        g_assert_cmpfloat(series_value(t,
                                          "nvprofiled_nvml_process_memory_bytes{device=\"0000:01:00.0\",driver="
                                          "\"nvidia\",unit=\"ml.service\",profile=\"\"}"),
                        ==, 4 << 20);
        g_assert_cmpfloat(series_value(t,
                                          "nvprofiled_nvml_processes{device=\"0000:01:00.0\",driver=\"nvidia\",unit="
                                          "\"ml.service\",profile=\"\"}"),
                        ==, 2);
        g_assert_cmpfloat(series_value(t,
                                          "nvprofiled_nvml_processes{device=\"0000:01:00.0\",driver=\"nvidia\",unit="
                                          "\"\",profile=\"\"}"),
                        ==, 1);
        g_assert_nonnull(strstr(t, "name=\"NVIDIA \\\"Fake\\\" GPU\""));
        g_assert_null(strstr(t, "nvprofiled_clients"));
}

/* Every corpus dump, one client each, renders into a well-formed exposition. */
static void test_corpus(void)
{
        const char *dir = test_corpus_dir_or_skip();
        g_autofree char *fdinfo_dir = g_build_filename(dir, "fdinfo", NULL);
        g_autoptr(GDir) d = g_dir_open(fdinfo_dir, 0, NULL);
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
        GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
        g_autofree DrmUsageRead *reads = NULL;
        g_autofree DrmFdinfo **parsed = NULL;
        g_autofree char *out = NULL;
        Owners owners = { 0 };
        const char *name;
        size_t n = 0;

        g_assert_nonnull(d);
        while ((name = g_dir_read_name(d)))
                if (g_str_has_suffix(name, ".txt")) {
                        g_autofree char *p = g_build_filename(fdinfo_dir, name, NULL);
                        char *content;

                        g_assert_true(g_file_get_contents(p, &content, NULL, NULL));
                        g_ptr_array_add(texts, content);
                }
        g_assert_cmpuint(texts->len, >=, 17);
        reads = g_new0(DrmUsageRead, texts->len);
        parsed = g_new0(DrmFdinfo *, texts->len);
        for (size_t i = 0; i < texts->len; i++) {
                const char *t = texts->pdata[i];

                g_assert_cmpint(drm_fdinfo_parse(t, strlen(t), 0, &parsed[i]), ==, 0);
                reads[n++] = (DrmUsageRead){
                        .fdinfo = parsed[i], .device = "platform", .pid = (pid_t) (i + 1), .fd = 3, .timestamp_usec = 1
                };
        }
        g_assert_cmpint(drm_usage_update(u, reads, n), ==, 0);
        out = render(x, u, &owners, 0);
        assert_well_formed(out);
        g_assert_cmpuint(u->n_devices, >, 3);
        for (size_t i = 0; i < u->n_devices; i++) {
                g_autofree char *needle = g_strdup_printf("nvprofiled_clients{device=\"%s\"", u->devices[i].device);
                g_assert_nonnull(strstr(out, needle));
        }
        for (size_t i = 0; i < n; i++)
                drm_fdinfo_free(parsed[i]);
        g_ptr_array_free(texts, TRUE);
}

static void assert_file(const char *path, const char *content)
{
        g_autofree char *got = NULL;
        struct stat st;

        g_assert_true(g_file_get_contents(path, &got, NULL, NULL));
        g_assert_cmpstr(got, ==, content);
        g_assert_cmpint(lstat(path, &st), ==, 0);
        g_assert_true(S_ISREG(st.st_mode));
        g_assert_cmpint(st.st_mode & 07777, ==, 0644);
}

static unsigned count_entries(const char *dir)
{
        g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
        unsigned n = 0;

        while (g_dir_read_name(d))
                n++;
        return n;
}

static void test_atomic_replace(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "nvprofiled.prom", NULL);
        g_autofree char *victim = g_build_filename(dir, "victim", NULL);
        g_autofree char *old = NULL;
        mode_t old_umask;
        struct stat before, after;
        int fd;

        old_umask = umask(077);
        g_assert_cmpint(prometheus_metrics_write_file(path, "a 1\n", 4, 0644, (gid_t) -1), ==, 0);
        assert_file(path, "a 1\n");
        g_assert_cmpint(count_entries(dir), ==, 1);

        /* A reader that opened the old file keeps reading the old content: replaced, not rewritten. */
        fd = open(path, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(fstat(fd, &before), ==, 0);
        g_assert_cmpint(prometheus_metrics_write_file(path, "b 2\n", 4, 0644, (gid_t) -1), ==, 0);
        assert_file(path, "b 2\n");
        g_assert_cmpint(stat(path, &after), ==, 0);
        g_assert_cmpuint(before.st_ino, !=, after.st_ino);
        {
                char buf[8] = { 0 };
                g_assert_cmpint(pread(fd, buf, sizeof buf - 1, 0), ==, 4);
                g_assert_cmpstr(buf, ==, "a 1\n");
        }
        close(fd);
        g_assert_cmpint(count_entries(dir), ==, 1);

        /* A symbolic link at the path is replaced, never written through. */
        test_write_file(dir, "victim", "precious\n");
        g_assert_cmpint(unlink(path), ==, 0);
        g_assert_cmpint(symlink(victim, path), ==, 0);
        g_assert_cmpint(prometheus_metrics_write_file(path, "c 3\n", 4, 0644, (gid_t) -1), ==, 0);
        assert_file(path, "c 3\n");
        g_assert_true(g_file_get_contents(victim, &old, NULL, NULL));
        g_assert_cmpstr(old, ==, "precious\n");

        /* Replacing a directory fails, leaves it, and leaves no temporary file behind. */
        {
                g_autofree char *sub = g_build_filename(dir, "sub.prom", NULL);
                test_mkdir_p(dir, "sub.prom/x");
                g_assert_cmpint(prometheus_metrics_write_file(sub, "d 4\n", 4, 0644, (gid_t) -1), <, 0);
                g_assert_true(g_file_test(sub, G_FILE_TEST_IS_DIR));
                g_assert_cmpint(count_entries(dir), ==, 3);
        }

        /* No directory: an error, nothing created. */
        {
                g_autofree char *missing = g_build_filename(dir, "nope", "x.prom", NULL);
                g_assert_cmpint(prometheus_metrics_write_file(missing, "e\n", 2, 0644, (gid_t) -1), ==, -ENOENT);
        }
        g_assert_cmpint(prometheus_metrics_write_file(dir, "e\n", 2, 0644, (gid_t) -1), <, 0);

        /* A large text is written whole. */
        {
                g_autofree char *big = g_strnfill(3 << 20, 'x');
                g_autofree char *got = NULL;
                gsize len = 0;

                g_assert_cmpint(prometheus_metrics_write_file(path, big, strlen(big), 0644, (gid_t) -1), ==, 0);
                g_assert_true(g_file_get_contents(path, &got, &len, NULL));
                g_assert_cmpuint(len, ==, strlen(big));
        }
        /* Mode and group as asked (the daemon: 0640 and node_exporter's group). */
        if (geteuid() == 0) {
                struct stat st;

                g_assert_cmpint(prometheus_metrics_write_file(path, "f 5\n", 4, 0640, 4321), ==, 0);
                g_assert_cmpint(stat(path, &st), ==, 0);
                g_assert_cmpint(st.st_mode & 07777, ==, 0640);
                g_assert_cmpint(st.st_gid, ==, 4321);
                g_assert_cmpint(st.st_uid, ==, 0);
        }
        umask(old_umask);
}

/* write() as the writer calls it (linked with -Wl,--wrap=write): while watching, the mode and group of
 * what each first write goes to, as anyone opening the file then would find them. */
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

static bool watching_writes;
static struct stat first_write;
static unsigned n_writes;

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
        if (watching_writes && n_writes++ == 0)
                g_assert_cmpint(fstat(fd, &first_write), ==, 0);
        return __real_write(fd, buf, n);
}

/* Issue 17 item 8: the temporary file has its final mode and group before its first byte (a umask of 022
 * once left it 0644 while every byte was written). */
static void test_final_mode_before_writing(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "nvprofiled.prom", NULL);
        gid_t gid = geteuid() == 0 ? 4321 : (gid_t) -1;
        mode_t old_umask;
        struct stat st;

        for (unsigned i = 0; i < 2; i++) {
                const mode_t umasks[] = { 022, 077 };

                old_umask = umask(umasks[i]);
                watching_writes = true;
                n_writes = 0;
                g_assert_cmpint(prometheus_metrics_write_file(path, "a 1\n", 4, 0640, gid), ==, 0);
                watching_writes = false;
                umask(old_umask);

                g_assert_cmpuint(n_writes, >=, 1);
                g_assert_cmpint(first_write.st_mode & 07777, ==, 0640);
                if (gid != (gid_t) -1)
                        g_assert_cmpint(first_write.st_gid, ==, gid);
                g_assert_cmpint(stat(path, &st), ==, 0);
                g_assert_cmpint(st.st_ino, ==, first_write.st_ino);
                g_assert_cmpint(st.st_mode & 07777, ==, 0640);
        }
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/export/render-basic", test_render_basic);
        g_test_add_func("/export/no-pid-by-default", test_no_pid_by_default);
        g_test_add_func("/export/escaping", test_escaping);
        g_test_add_func("/export/counter-monotonic", test_counter_monotonic);
        g_test_add_func("/export/counter-moves-with-profile", test_counter_moves_with_profile);
        g_test_add_func("/export/shared-client-holder", test_shared_client_holder);
        g_test_add_func("/export/nvml", test_nvml);
        g_test_add_func("/export/corpus", test_corpus);
        g_test_add_func("/export/atomic-replace", test_atomic_replace);
        g_test_add_func("/export/final-mode-before-writing", test_final_mode_before_writing);
        return g_test_run();
}
