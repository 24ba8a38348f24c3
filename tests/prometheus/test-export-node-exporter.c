/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fleet export read by the real parts: Debian's prometheus-node-exporter on a loopback port with its
 * textfile collector pointed at the export's directory, scraped over loopback, and `promtool check
 * metrics` on both the file and the scrape.
 *
 * /export/node-exporter/writer: a rich exposition from the writer itself (every corpus dump, NVML devices,
 * hostile unit and profile names, process labels).
 * /export/node-exporter/daemon: the real nvprofiled with ExportTextfile= over a fixture /proc whose
 * process holds a DRM fd (DrmMajor=1: a link to /dev/null, so no root is needed) with a corpus fdinfo, a
 * systemd unit in its cgroup and a profile from the rc rules: the sampler, the manager and the export end
 * to end. */

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "test-util.h"
#include "prometheus-metrics.h"
#include "usage-fixture.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DrmUsage, drm_usage_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrometheusMetrics, prometheus_metrics_free)

#define NODE_EXPORTER "prometheus-node-exporter"
#define WAIT_USEC (30 * G_USEC_PER_SEC)

typedef struct NodeExporter {
        GPid pid;
        int port;
        int log_fd;
} NodeExporter;

static void die_with_parent(gpointer userdata)
{
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static bool have_tools(void)
{
        g_autofree char *ne = g_find_program_in_path(NODE_EXPORTER), *pt = g_find_program_in_path("promtool");

        if (ne && pt)
                return true;
        g_test_skip("prometheus-node-exporter or promtool (Debian: prometheus) is not installed");
        return false;
}

/* A loopback port nobody listens on now. */
static int free_port(void)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof a;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(bind(fd, (struct sockaddr *) &a, sizeof a), ==, 0);
        g_assert_cmpint(getsockname(fd, (struct sockaddr *) &a, &len), ==, 0);
        close(fd);
        return ntohs(a.sin_port);
}

/* GET /metrics from 127.0.0.1:port; NULL while nothing listens. */
static char *http_get_metrics(int port)
{
        struct sockaddr_in a = {
                .sin_family = AF_INET, .sin_port = htons((uint16_t) port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)
        };
        static const char request[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        GString *response = g_string_new(NULL);
        char buf[16384];
        const char *body;
        ssize_t n;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        g_assert_cmpint(fd, >=, 0);
        if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0) {
                close(fd);
                g_string_free(response, TRUE);
                return NULL;
        }
        g_assert_cmpint(write(fd, request, sizeof request - 1), ==, (ssize_t) sizeof request - 1);
        while ((n = read(fd, buf, sizeof buf)) > 0)
                g_string_append_len(response, buf, n);
        close(fd);
        g_assert_true(g_str_has_prefix(response->str, "HTTP/1.0 200") ||
                        g_str_has_prefix(response->str, "HTTP/1.1 200"));
        body = strstr(response->str, "\r\n\r\n");
        g_assert_nonnull(body);
        {
                char *result = g_strdup(body + 4);
                g_string_free(response, TRUE);
                return result;
        }
}

static void node_exporter_start(NodeExporter *n, const char *textfile_dir, const char *scratch)
{
        g_autofree char *listen = NULL, *dir = g_strdup_printf("--collector.textfile.directory=%s", textfile_dir);
        g_autofree char *log = g_build_filename(scratch, "node-exporter.log", NULL);
        g_autoptr(GError) error = NULL;
        gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

        n->port = free_port();
        listen = g_strdup_printf("--web.listen-address=127.0.0.1:%i", n->port);
        n->log_fd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        g_assert_cmpint(n->log_fd, >=, 0);
        {
                /* Only the textfile collector: nothing of this machine's state in the scrape. */
                const char *argv[] = { NODE_EXPORTER, listen, "--collector.disable-defaults", "--collector.textfile",
                        dir, "--web.disable-exporter-metrics", NULL };

                g_spawn_async_with_fds(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                die_with_parent, NULL, &n->pid, -1, n->log_fd, n->log_fd, &error);
                g_assert_no_error(error);
        }
        for (;;) {
                g_autofree char *m = http_get_metrics(n->port);

                if (m)
                        return;
                if (g_get_monotonic_time() >= deadline)
                        g_error("node_exporter did not listen on 127.0.0.1:%i", n->port);
                g_usleep(50000);
        }
}

static void node_exporter_stop(NodeExporter *n)
{
        int status;

        kill(n->pid, SIGTERM);
        g_assert_cmpint(waitpid(n->pid, &status, 0), ==, n->pid);
        g_spawn_close_pid(n->pid);
        close(n->log_fd);
}

/* promtool check metrics on text: its exit status; what it said is logged. */
static int promtool_check(const char *what, const char *text)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "metrics.txt", NULL);
        g_autofree char *cmd = NULL, *out = NULL, *err = NULL;
        g_autoptr(GError) error = NULL;
        int status;

        g_assert_true(g_file_set_contents(path, text, -1, NULL));
        cmd = g_strdup_printf("sh -c 'promtool check metrics < \"$0\"' '%s'", path);
        g_assert_true(g_spawn_command_line_sync(cmd, &out, &err, &status, &error));
        g_assert_no_error(error);
        g_test_message("promtool check metrics (%s): %s%s", what, out, err);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

/* The scrape has no textfile error, its mtime for our file, and passes promtool. */
static char *scrape_and_check(NodeExporter *n, const char *needle)
{
        gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

        for (;;) {
                g_autofree char *m = http_get_metrics(n->port);

                g_assert_nonnull(m);
                if (strstr(m, needle)) {
                        g_assert_nonnull(strstr(m, "\nnode_textfile_scrape_error 0\n"));
                        g_assert_nonnull(strstr(m, "node_textfile_mtime_seconds{file=\""));
                        g_assert_cmpint(promtool_check("scrape", m), ==, 0);
                        return g_steal_pointer(&m);
                }
                if (g_get_monotonic_time() >= deadline)
                        g_error("the scrape never showed %s:\n%s", needle, m);
                g_usleep(100000);
        }
}

static int lookup(pid_t pid, void *userdata, PrometheusMetricsOwner *ret)
{
        static const char *const units[] = { "game.service", "we\"ird\\unit\nname", "bad\xff\xfe.scope", "" };
        static const char *const profiles[] = { "Game Profile", "", "x\"y", "p\\q\nr" };

        *ret = (PrometheusMetricsOwner){ .unit = units[pid % 4], .profile = profiles[pid % 4], .comm = "c\"omm\n" };
        return 0;
}

static void fdinfo_free(gpointer p)
{
        drm_fdinfo_free(p);
}

static void test_writer(void)
{
        const char *corpus = test_corpus_dir_or_skip();
        g_autofree char *fdinfo = g_build_filename(corpus, "fdinfo", NULL);
        g_autofree char *scratch = test_mkdtemp(), *dir = test_mkdtemp();
        g_autofree char *path = g_build_filename(dir, "nvprofiled.prom", NULL);
        g_autoptr(GDir) d = g_dir_open(fdinfo, 0, NULL);
        g_autoptr(DrmUsage) u = drm_usage_new();
        g_autoptr(GPtrArray) parsed = g_ptr_array_new_with_free_func(fdinfo_free);
        g_autoptr(GArray) reads = g_array_new(FALSE, TRUE, sizeof(DrmUsageRead));
        NvmlProcessUsage procs[] = { { .pid = 7, .memory_bytes = 1 << 20 }, { .pid = 8, .memory_bytes = 2 << 20 } };
        NvmlDeviceUsage nv = { .pci_bus_id = "0000:65:00.0",
                .name = "NVIDIA \"Fixture\"",
                .state = NVML_DEVICE_SAMPLED,
                .has_utilization = true,
                .gpu_percent = 37,
                .memory_percent = 5,
                .memory_used_bytes = 3 << 20,
                .memory_total_bytes = UINT64_C(24) << 30,
                .processes = procs,
                .n_processes = 2 };
        const NvmlDeviceUsage *nvs[] = { &nv };
        NodeExporter n;
        const char *name;

        if (!have_tools())
                return;
        g_assert_nonnull(d);
        for (pid_t pid = 1; (name = g_dir_read_name(d));) {
                g_autofree char *p = NULL, *text = NULL;
                DrmFdinfo *f;

                if (!g_str_has_suffix(name, ".txt"))
                        continue;
                p = g_build_filename(fdinfo, name, NULL);
                g_assert_true(g_file_get_contents(p, &text, NULL, NULL));
                g_assert_cmpint(drm_fdinfo_parse(text, strlen(text), 0, &f), ==, 0);
                g_ptr_array_add(parsed, f);
                g_array_append_val(reads,
                                ((DrmUsageRead){ .fdinfo = f,
                                                .device = name,
                                                .pid = pid++,
                                                .fd = 3,
                                                .timestamp_usec = 1 }));
        }
        g_assert_cmpint(drm_usage_update(u, (DrmUsageRead *) (void *) reads->data, reads->len), ==, 0);

        node_exporter_start(&n, dir, scratch);
        for (int flags = 0; flags <= PROMETHEUS_METRICS_PROCESS_LABELS; flags += PROMETHEUS_METRICS_PROCESS_LABELS) {
                g_autoptr(PrometheusMetrics) x = prometheus_metrics_new();
                PrometheusMetricsInput in = { .version = "1.2.3\"x",
                        .drm = u,
                        .nvml_devices = nvs,
                        .n_nvml_devices = 1,
                        .lookup = lookup,
                        .flags = (PrometheusMetricsFlags) flags };
                g_autofree char *text = NULL, *scraped = NULL, *needle = NULL;
                size_t size;

                g_assert_cmpint(prometheus_metrics_render(x, &in, &text, &size), ==, 0);
                g_assert_cmpint(promtool_check("file", text), ==, 0);
                g_assert_cmpint(prometheus_metrics_write_file(path, text, size, 0644, (gid_t) -1), ==, 0);
                needle = g_strdup_printf("nvprofiled_build_info{version=\"1.2.3\\\"x\"} 1\n");
                if (flags)
                        g_assert_nonnull(strstr(text, ",pid=\""));
                scraped = scrape_and_check(&n, flags ? ",pid=\"" : "nvprofiled_build_info");
                /* node_exporter parsed every family: what it serves again holds our series, escaped alike. */
                g_assert_nonnull(strstr(scraped, needle));
                g_assert_nonnull(strstr(scraped, "nvprofiled_engine_busy_seconds_total{"));
                g_assert_nonnull(strstr(scraped, "unit=\"we\\\"ird\\\\unit\\nname\""));
                g_assert_nonnull(strstr(scraped,
                                "nvprofiled_nvml_utilization_ratio{device=\"0000:65:00.0\",kind=\"gpu\"} "
                                "0.37\n"));
                g_assert_nonnull(strstr(scraped, "# TYPE nvprofiled_engine_busy_seconds_total counter\n"));
                g_assert_nonnull(strstr(scraped, "nvprofiled_memory_bytes{"));
                if (!flags)
                        g_assert_null(strstr(scraped, "pid=\""));
        }
        node_exporter_stop(&n);
}

static const char rules[] =
                "{ \"profiles\": [ { \"name\": \"Game Profile\", \"settings\": [ { \"key\": \"GLSharpenValue\", "
                "\"value\": 50 } ] } ],\n"
                "  \"rules\": [ { \"pattern\": \"glxgears\", \"profile\": \"Game Profile\" } ] }\n";

/* Tries to open path as nobody (in a child): 0 or the negative errno. */
static int read_as_nobody(const char *path)
{
        struct passwd *pw = getpwnam("nobody");
        int status;
        pid_t pid;

        g_assert_nonnull(pw);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                int fd;

                if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                        _exit(255);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                _exit(fd >= 0 ? 0 : errno);
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), !=, 255);
        return -WEXITSTATUS(status);
}

/* Process 4242's GPU fds and fdinfo (tests/drm/usage-fixture.h: fd 3 is a link to /dev/null, a DRM node
 * for FIXTURE_CONFIG's DrmMajor=1, so no device node and no root are needed) and its cgroup. */
#define FIXTURE_CONFIG "[Usage]\nDrmMajor=1\nNVML=no\n"

static void gpu_fixture(ITest *t, const char *script, const char *corpus, const char *cgroup)
{
        g_autofree char *error = NULL, *dir = g_strdup_printf("%s/4242", t->proc);

        test_symlink("/dev/null", dir, "fd/3");
        if (usage_fixture_apply(script, t->proc, NULL, corpus, 0, &error) < 0)
                g_error("fixture: %s", error);
        test_write_file(dir, "cgroup", cgroup);
}

static void test_daemon(void)
{
        const char *corpus = test_corpus_dir_or_skip();
        g_autofree char *dir = NULL, *path = NULL, *config = NULL, *text = NULL, *scraped = NULL;
        g_autofree char *top = NULL;
        NodeExporter n;
        struct stat st;
        ITest t;

        if (!have_tools())
                return;

        itest_setup(&t);
        itest_use_fixture_proc(&t);
        itest_write(&t, "etc/nvidia/nvidia-application-profiles-rc", rules);
        itest_fixture_process(&t, 4242, 1000, getuid(), "glxgears", "/usr/bin/glxgears", NULL);
        gpu_fixture(&t, "fdinfo 4242 3 corpus i915-1.txt\n", corpus,
                        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/glxgears.service\n");

        dir = g_build_filename(t.dir, "textfile", NULL);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        path = g_build_filename(dir, "nvprofiled.prom", NULL);
        config = g_strdup_printf(FIXTURE_CONFIG "[Export]\nExportTextfile=%s\nExportIntervalSec=1s\n", path);
        itest_start_daemon(&t, config);

        /* The file comes at start; the sampler's figures once it sampled, at the export's interval. */
        for (gint64 deadline = g_get_monotonic_time() + WAIT_USEC;; g_usleep(100000)) {
                g_clear_pointer(&text, g_free);
                if (g_file_get_contents(path, &text, NULL, NULL) &&
                                strstr(text, "nvprofiled_engine_busy_seconds_total"))
                        break;
                if (g_get_monotonic_time() >= deadline)
                        g_error("the export never showed the fixture's client; it holds:\n%s",
                                        text ? text : "(nothing)");
        }
        g_test_message("%s", text);
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0640);
        /* It names every user's units and profiles: an ordinary user cannot read it. */
        if (geteuid() == 0) {
                /* ...where a world-readable file beside it is readable by them (the mode decides). */
                g_autofree char *control = g_build_filename(dir, "control.txt", NULL);

                g_assert_true(g_file_set_contents(control, "x", 1, NULL));
                g_assert_cmpint(chmod(control, 0644), ==, 0);
                g_assert_cmpint(read_as_nobody(control), ==, 0);
                g_assert_cmpint(read_as_nobody(path), ==, -EACCES);
        }
        g_assert_nonnull(strstr(text, "nvprofiled_build_info{version=\""));
        /* i915-1.txt: render 1099511627776 ns... as cumulative seconds, with the unit and the profile. */
        g_assert_nonnull(strstr(text, "nvprofiled_engine_busy_seconds_total{device=\""));
        g_assert_nonnull(strstr(text, "unit=\"user@1000.service/glxgears.service\",profile=\"Game Profile\"}"));
        g_assert_null(strstr(text, "4242"));
        g_assert_cmpint(promtool_check("daemon file", text), ==, 0);

        node_exporter_start(&n, dir, t.dir);
        scraped = scrape_and_check(&n, "profile=\"Game Profile\"");
        g_assert_nonnull(strstr(scraped, "nvprofiled_unit_clients{"));
        node_exporter_stop(&n);

        /* top on the real daemon: the same process, its profile, its engines. */
        g_assert_cmpint(itest_ctl(&t, &top, "top", "--once", "--interval=0.2", NULL), ==, 0);
        g_test_message("%s", top);
        g_assert_nonnull(strstr(top, "\"comm\":\"glxgears\""));
        g_assert_nonnull(strstr(top, "\"profiles\":[\"Game Profile\"]"));
        g_assert_nonnull(strstr(top, "\"busy_percent\":"));

        itest_stop_daemon(&t, NULL);
        itest_teardown(&t);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/export/node-exporter/writer", test_writer);
        g_test_add_func("/export/node-exporter/daemon", test_daemon);
        return g_test_run();
}
