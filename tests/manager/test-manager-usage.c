/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU usage in the manager, without a bus: when sampling runs (watches, their intervals and bounds, no
 * sampling with nobody watching), and the merged snapshot over fixture /proc and /sys trees (holders'
 * owners, the privacy helper, process entries, holders becoming GPU users). */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "drm-usage.h"
#include "manager-harness.h"
#include "process-watch.h"
#include "manager-usage.h"
#include "usage-fixture.h"

static void test_watches(void)
{
        ManagerHarness h;
        UsageWatch *a = NULL, *b = NULL, *c = NULL, *d = NULL;

        manager_harness_init(&h);
        h.config.nvml = false;
        h.config.usage_watch_interval_usec = 1000000;
        h.config.usage_min_interval_usec = 100000;
        h.config.usage_watchers_per_user = 2;
        manager_harness_start(&h);

        /* Nobody watches: no timer, no sample, and GPU node opens cost nothing. */
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 0);
        manager_usage_nodes_opened(h.manager);
        manager_harness_run_for(&h, 200000);
        g_assert_cmpuint(manager_usage_n_samples(h.manager), ==, 0);

        g_assert_cmpint(manager_usage_watch(h.manager, 1000, 500000, -1, &a), ==, 0);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 500000);
        /* The fastest watch sets the pace, never faster than MinIntervalSec=. */
        g_assert_cmpint(manager_usage_watch(h.manager, 1000, 1000, -1, &b), ==, 0);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 100000);
        /* WatchersPerUser= per user; other users are not affected. */
        g_assert_cmpint(manager_usage_watch(h.manager, 1000, 0, -1, &c), ==, -E2BIG);
        g_assert_cmpint(manager_usage_watch(h.manager, 1001, 0, -1, &d), ==, 0);
        g_assert_cmpuint(manager_usage_n_watchers(h.manager), ==, 3);

        manager_harness_run_for(&h, 350000);
        g_assert_cmpuint(manager_usage_n_samples(h.manager), >=, 2);

        manager_usage_unwatch(b);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 500000);
        manager_usage_unwatch(a);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 1000000); /* d: 0 asks for WatchIntervalSec= */
        manager_usage_unwatch(d);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 0);
        g_assert_cmpuint(manager_usage_n_watchers(h.manager), ==, 0);

        manager_harness_done(&h);
}

/* A watch's descriptor: when the other end closes, the watch goes by itself. */
static void test_watch_hangup(void)
{
        ManagerHarness h;
        int pair[2];
        char byte;

        manager_harness_init(&h);
        h.config.nvml = false;
        h.config.usage_min_interval_usec = 10000;
        manager_harness_start(&h);

        g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair), ==, 0);
        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, pair[0], NULL), ==, 0);
        manager_harness_run_for(&h, 100000);
        /* One byte per sample. */
        g_assert_cmpint(read(pair[1], &byte, 1), ==, 1);
        close(pair[1]);
        manager_harness_run_for(&h, 100000);
        g_assert_cmpuint(manager_usage_n_watchers(h.manager), ==, 0);
        g_assert_cmpuint(manager_usage_interval(h.manager), ==, 0);
        manager_harness_done(&h);
}

static const char script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "fdinfo 100 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=10_ns drm-resident-vram=4_KiB\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=10_ns drm-resident-vram=4_KiB\n"
                "fdinfo 102 3 keys drm-driver=amdgpu drm-client-id=6 drm-engine-gfx=10_ns\n";

/* A manager sampling fast, without NVML, that takes the fixture's nodes (major 1: /dev/full) for DRM;
 * not started yet. */
static void init_on_fixture_nodes(ManagerHarness *h)
{
        manager_harness_init(h);
        h->config.nvml = false;
        h->config.drm_major = 1;
        h->config.accel_major = 4095;
        h->config.usage_min_interval_usec = 10000;
}

static void start_on_fixture_nodes(ManagerHarness *h)
{
        init_on_fixture_nodes(h);
        manager_harness_start(h);
}

static bool sampled(ManagerHarness *h, void *userdata)
{
        return manager_usage_n_samples(h->manager) >= 2;
}

static void test_snapshot(void)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", NULL };
        g_autofree char *error = NULL;
        ManagerHarness h;
        const UsageSnapshot *s;
        const UsageClient *shared = NULL;
        const UsageProcess *p;
        UsageWatch *w;
        uid_t me = 1000, other = 1001; /* not root, who sees everything */

        start_on_fixture_nodes(&h);
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = me, .exe = "/usr/bin/game", .fds = fds });
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 101, .uid = other, .exe = "/usr/bin/comp", .fds = fds });
        proc_fixture_add(
                        h.proc, &(ProcFixtureProcess){ .pid = 102, .uid = other, .exe = "/usr/bin/other", .fds = fds });
        manager_process_exec(h.manager, 100);
        manager_process_exec(h.manager, 101);
        manager_process_exec(h.manager, 102);
        g_assert_cmpint(usage_fixture_apply(script, proc_fixture_path(h.proc), h.sys, "/nonexistent", 0, &error), ==,
                        0);

        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_true(manager_harness_run_until(&h, sampled, NULL, 5000000));

        s = manager_usage_snapshot(h.manager);
        g_assert_cmpuint(s->n_clients, ==, 2);
        g_assert_cmpuint(s->n_devices, ==, 1);
        g_assert_cmpstr(s->devices[0].device, ==, "0000:03:00.0");
        g_assert_cmpuint(s->devices[0].vendor_id, ==, 0x1002);
        for (size_t i = 0; i < s->n_clients; i++)
                if (s->clients[i].id == 5)
                        shared = &s->clients[i];
        g_assert_nonnull(shared);
        g_assert_cmpuint(shared->n_holders, ==, 2);
        /* Its owner sees the client through its own process, with the other user's holder hidden. */
        g_assert_cmpuint(usage_client_visible_holders(shared, me), ==, 1);
        g_assert_cmpuint(usage_client_visible_holders(shared, other), ==, 1);
        g_assert_cmpuint(usage_client_visible_holders(shared, other + 1), ==, 0);
        g_assert_cmpuint(usage_client_visible_holders(shared, 0), ==, 2);

        p = usage_snapshot_find_process(s, 100);
        g_assert_nonnull(p);
        g_assert_cmpuint(p->uid, ==, me);
        g_assert_cmpuint(p->n_memory, ==, 1);
        g_assert_cmpuint(p->memory[0].bytes, ==, 4096);
        g_assert_null(usage_snapshot_find_process(s, 103));
        /* Holders are GPU users, whatever node they opened. */
        g_assert_true(manager_get_process(h.manager, 100)->gpu_user);
        g_assert_true(manager_get_process(h.manager, 102)->gpu_user);

        /* The DRM model stays available to the exporter. */
        g_assert_nonnull(manager_usage(h.manager));
        g_assert_cmpuint(manager_usage(h.manager)->n_clients, ==, 2);

        /* An exit drops the holder at once. */
        proc_fixture_remove(h.proc, 102);
        manager_process_exit(h.manager, 102);
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        g_assert_cmpuint(manager_usage_snapshot(h.manager)->n_clients, ==, 1);

        manager_usage_unwatch(w);
        manager_harness_done(&h);
}

static bool has_client(ManagerHarness *h, void *id)
{
        const UsageSnapshot *s = manager_usage_snapshot(h->manager);

        for (size_t i = 0; i < s->n_clients; i++)
                if (s->clients[i].id == GPOINTER_TO_UINT(id))
                        return true;
        return false;
}

#define PODMAN_ID "3f1c2a9be0d4477a8c1e5b6d7f809112233445566778899aabbccddeeff00112"

static const char attribution_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "fdinfo 100 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=10_ns drm-resident-vram=4_KiB\n"
                "fdinfo 101 3 keys drm-driver=amdgpu drm-client-id=6 drm-engine-gfx=10_ns drm-resident-vram=8_KiB\n"
                "fdinfo 102 3 keys drm-driver=amdgpu drm-client-id=7 drm-engine-gfx=10_ns drm-resident-vram=16_KiB\n"
                "fdinfo 103 3 keys drm-driver=amdgpu drm-client-id=8 drm-engine-gfx=10_ns drm-resident-vram=32_KiB\n"
                "fdinfo 104 3 keys drm-driver=amdgpu drm-client-id=9 drm-engine-gfx=10_ns drm-resident-vram=64_KiB\n"
                "fdinfo 105 3 keys drm-driver=amdgpu drm-client-id=10 drm-engine-gfx=10_ns drm-resident-vram=128_KiB\n";

/* One user's processes holding more DRM clients than a user's share (DRM_USAGE_CLIENTS_PER_USER_MAX; five
 * processes of 250, below the sampler's 256 per process) fill only that share: the other user's client,
 * whose id sorts after all of them, is tracked. */
static void test_client_share(void)
{
        const size_t per_process = 250, n_processes = 5;
        g_autofree const char **fds = g_new0(const char *, per_process + 1);
        static const char *const one[] = { "/dev/full", NULL };
        g_autoptr(GString) flood_script =
                        g_string_new("node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n");
        g_autofree char *error = NULL;
        ManagerHarness h;
        UsageWatch *w;

        for (size_t i = 0; i < per_process; i++)
                fds[i] = "/dev/full";
        for (size_t k = 0; k < n_processes; k++)
                for (size_t i = 0; i < per_process; i++)
                        g_string_append_printf(flood_script,
                                        "fdinfo %zu %zu keys drm-driver=amdgpu drm-client-id=%zu\n", 100 + k, i,
                                        k * per_process + i + 1);
        g_assert_cmpuint(n_processes * per_process, >, DRM_USAGE_CLIENTS_PER_USER_MAX);
        g_string_append(flood_script, "fdinfo 200 0 keys drm-driver=amdgpu drm-client-id=100000\n");

        start_on_fixture_nodes(&h);
        for (size_t k = 0; k < n_processes; k++) {
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){ .pid = (pid_t) (100 + k),
                                                .uid = 1000,
                                                .exe = "/usr/bin/flood",
                                                .fds = fds });
                manager_process_exec(h.manager, (pid_t) (100 + k));
        }
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 200, .uid = 1001, .exe = "/usr/bin/game", .fds = one });
        manager_process_exec(h.manager, 200);
        g_assert_cmpint(usage_fixture_apply(
                                        flood_script->str, proc_fixture_path(h.proc), h.sys, "/nonexistent", 0, &error),
                        ==, 0);

        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_true(manager_harness_run_until(&h, sampled, NULL, 20000000));
        g_assert_cmpuint(manager_usage_snapshot(h.manager)->n_clients, ==, DRM_USAGE_CLIENTS_PER_USER_MAX + 1);
        g_assert_true(has_client(&h, GUINT_TO_POINTER(100000)));
        g_assert_false(has_client(&h, GUINT_TO_POINTER(DRM_USAGE_CLIENTS_PER_USER_MAX + 1)));

        manager_usage_unwatch(w);
        manager_harness_done(&h);
}

static const UsageGroup *group_of(const UsageGroup *g, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (g_str_equal(g[i].key, key))
                        return &g[i];
        return NULL;
}

static uint64_t group_vram(const UsageGroup *g)
{
        g_assert_nonnull(g);
        g_assert_cmpuint(g->n_memory, ==, 1);
        return g->memory[0].bytes;
}

/* Each process's unit, slice, container and application from its cgroup, and the totals per unit,
 * application and user that a caller may see. */
static void test_attribution(void)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", NULL };
        g_autofree char *error = NULL;
        ManagerHarness h;
        const UsageSnapshot *s;
        const UsageProcess *p;
        UsageGroup *groups = NULL;
        size_t n = 0;
        UsageWatch *w;
        uid_t me = 1000, other = 1001;
        /* Processes 100 to 102 are me's, 103 to 105 other's; 105 has no cgroup file (cgroup v1, or gone):
         * nothing known, never made up. */
        static const char *const cgroups[] = {
                "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.blender.Blender-95123.scope",
                "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.blender.Blender-95124.scope",
                "/user.slice/user-1000.slice/session-2.scope",
                "/system.slice/ollama.service",
                "/machine.slice/libpod-" PODMAN_ID ".scope/container",
                NULL,
        };

        start_on_fixture_nodes(&h);
        for (size_t i = 0; i < G_N_ELEMENTS(cgroups); i++)
                proc_fixture_add(h.proc,
                                &(ProcFixtureProcess){ .pid = (pid_t) (100 + i),
                                                .uid = i < 3 ? me : other,
                                                .exe = "/usr/bin/app",
                                                .fds = fds,
                                                .cgroup = cgroups[i] });
        g_assert_cmpint(usage_fixture_apply(attribution_script, proc_fixture_path(h.proc), h.sys, "/nonexistent", 0,
                                        &error),
                        ==, 0);

        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_true(manager_harness_run_until(&h, sampled, NULL, 5000000));
        s = manager_usage_snapshot(h.manager);
        g_assert_cmpuint(s->n_processes, ==, 6);

        p = usage_snapshot_find_process(s, 100);
        g_assert_cmpstr(p->cgroup.unit, ==, "user@1000.service/app-flatpak-org.blender.Blender-95123.scope");
        g_assert_cmpstr(p->cgroup.slice, ==, "app.slice");
        g_assert_cmpstr(p->cgroup.app_kind, ==, "flatpak");
        g_assert_cmpstr(p->cgroup.app, ==, "org.blender.Blender");
        g_assert_cmpstr(p->cgroup.container, ==, "");
        p = usage_snapshot_find_process(s, 102);
        g_assert_cmpstr(p->cgroup.unit, ==, "session-2.scope");
        g_assert_cmpstr(p->cgroup.slice, ==, "user-1000.slice");
        g_assert_cmpstr(p->cgroup.app, ==, "");
        p = usage_snapshot_find_process(s, 103);
        g_assert_cmpstr(p->cgroup.unit, ==, "ollama.service");
        g_assert_cmpstr(p->cgroup.slice, ==, "system.slice");
        p = usage_snapshot_find_process(s, 104);
        g_assert_cmpstr(p->cgroup.container_kind, ==, "podman");
        g_assert_cmpstr(p->cgroup.container, ==, PODMAN_ID);
        g_assert_cmpstr(p->cgroup.unit, ==, "libpod-" PODMAN_ID ".scope");
        p = usage_snapshot_find_process(s, 105);
        g_assert_null(p->cgroup.path);
        g_assert_null(p->cgroup.unit);

        /* Root sees every group: the application joins the Flatpak's two scopes. */
        g_assert_cmpint(usage_snapshot_groups(s, USAGE_GROUP_APPLICATION, 0, &groups, &n), ==, 0);
        g_assert_cmpuint(n, ==, 5);
        g_assert_cmpstr(groups[0].key, ==, ""); /* sorted by key */
        g_assert_cmpuint(group_of(groups, n, "org.blender.Blender")->n_processes, ==, 2);
        g_assert_cmpuint(group_vram(group_of(groups, n, "org.blender.Blender")), ==, 3 * 4096);
        g_assert_cmpuint(group_vram(group_of(groups, n, "ollama.service")), ==, 32 * 1024);
        g_assert_cmpuint(group_vram(group_of(groups, n, "")), ==, 128 * 1024);
        usage_groups_free(groups, n);
        g_assert_cmpint(usage_snapshot_groups(s, USAGE_GROUP_UNIT, 0, &groups, &n), ==, 0);
        g_assert_cmpuint(n, ==, 6);
        g_assert_cmpuint(group_of(groups, n, "user@1000.service/app-flatpak-org.blender.Blender-95124.scope")
                                         ->n_processes,
                        ==, 1);
        usage_groups_free(groups, n);
        g_assert_cmpint(usage_snapshot_groups(s, USAGE_GROUP_USER, 0, &groups, &n), ==, 0);
        g_assert_cmpuint(n, ==, 2);
        g_assert_cmpuint(group_vram(group_of(groups, n, "1000")), ==, (4 + 8 + 16) * 1024);
        g_assert_cmpuint(group_vram(group_of(groups, n, "1001")), ==, (32 + 64 + 128) * 1024);
        usage_groups_free(groups, n);

        /* Another user counts only its own processes, as ListGpuProcesses shows it only those. */
        g_assert_cmpint(usage_snapshot_groups(s, USAGE_GROUP_APPLICATION, me, &groups, &n), ==, 0);
        g_assert_cmpuint(n, ==, 2);
        g_assert_nonnull(group_of(groups, n, "org.blender.Blender"));
        g_assert_nonnull(group_of(groups, n, "session-2.scope"));
        g_assert_null(group_of(groups, n, "ollama.service"));
        usage_groups_free(groups, n);
        g_assert_cmpint(usage_snapshot_groups(s, USAGE_GROUP_USER, 4242, &groups, &n), ==, 0);
        g_assert_cmpuint(n, ==, 0);
        usage_groups_free(groups, n);
        /* Read once per process: a cgroup file that changes or appears later is not read again. */
        {
                g_autofree char *moved = g_build_filename(proc_fixture_path(h.proc), "100", "cgroup", NULL);
                g_autofree char *late = g_build_filename(proc_fixture_path(h.proc), "105", "cgroup", NULL);
                uint64_t n_samples = manager_usage_n_samples(h.manager);

                g_assert_true(g_file_set_contents(moved, "0::/system.slice/moved.service\n", -1, NULL));
                g_assert_true(g_file_set_contents(late, "0::/system.slice/late.service\n", -1, NULL));
                g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
                s = manager_usage_snapshot(h.manager);
                g_assert_cmpuint(manager_usage_n_samples(h.manager), >, n_samples);
                g_assert_cmpstr(usage_snapshot_find_process(s, 100)->cgroup.app, ==, "org.blender.Blender");
                g_assert_null(usage_snapshot_find_process(s, 105)->cgroup.path);
        }
        g_assert_cmpint(usage_group_by_from_string("application"), ==, USAGE_GROUP_APPLICATION);
        g_assert_cmpint(usage_group_by_from_string("pid"), <, 0);

        manager_usage_unwatch(w);
        manager_harness_done(&h);
}

static const char events_script[] = "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                                    "fdinfo 100 3 keys drm-driver=amdgpu drm-client-id=5\n"
                                    "fdinfo 101 3 keys drm-driver=amdgpu drm-client-id=6\n"
                                    "fdinfo 102 3 keys drm-driver=amdgpu drm-client-id=7\n";

/* proc_fixture_add() replaces a process's directory: its fdinfo files are written after it. */
static void add_fdinfo_of(ManagerHarness *h, const char *text)
{
        g_autofree char *error = NULL;

        if (usage_fixture_apply(text, proc_fixture_path(h->proc), h->sys, "/", 0, &error) < 0)
                g_error("fixture: %s", error);
}

/* A harness for index events: DRM major 1 (/dev/full is a GPU node), no NVML, no periodic rescan. */
static void events_harness_init(ManagerHarness *h)
{
        init_on_fixture_nodes(h);
        h->config.usage_rescan_interval_usec = 0;
}

/* The index follows events, not periodic walks: a process that got a DRM fd without any event is not
 * seen (no rescan here); an open of a watched GPU node brings a targeted sweep that finds it; an exec
 * whose parent holds DRM fds is looked at at once. */
static void test_events(void)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", NULL };
        g_autofree char *node = NULL, *dri = NULL;
        ManagerHarness h;
        UsageWatch *w;
        int fd;

        events_harness_init(&h);
        dri = g_build_filename(h.dev, "dri", NULL);
        node = g_build_filename(dri, "renderD128", NULL);
        g_assert_cmpint(g_mkdir_with_parents(dri, 0755), ==, 0);
        g_assert_true(g_file_set_contents(node, "", 0, NULL));
        manager_harness_start(&h);
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = 1000, .exe = "/usr/bin/a", .fds = fds });
        add_fdinfo_of(&h, events_script);
        manager_process_exec(h.manager, 100);

        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_true(manager_harness_run_until(&h, has_client, GUINT_TO_POINTER(5), 5000000));

        /* No event: not seen. */
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 101, .uid = 1000, .exe = "/usr/bin/b", .fds = fds });
        add_fdinfo_of(&h, events_script);
        manager_process_exec(h.manager, 101);
        manager_harness_run_for(&h, 300000);
        g_assert_false(has_client(&h, GUINT_TO_POINTER(6)));

        /* Somebody opens a GPU node: the sweep that follows finds it. */
        fd = open(node, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        close(fd);
        g_assert_true(manager_harness_run_until(&h, has_client, GUINT_TO_POINTER(6), 5000000));

        /* A child of a holder execs: looked at at once, no sweep needed. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 102, .ppid = 100, .uid = 1000, .exe = "/usr/bin/c", .fds = fds });
        add_fdinfo_of(&h, events_script);
        manager_process_exec(h.manager, 102);
        g_assert_nonnull(manager_get_process(h.manager, 102));
        g_assert_true(manager_harness_run_until(&h, has_client, GUINT_TO_POINTER(7), 1000000));

        manager_usage_unwatch(w);
        manager_harness_done(&h);
}

static const char fork_script[] = "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                                  "fdinfo 100 3 keys drm-driver=amdgpu drm-client-id=5\n"
                                  "fdinfo 103 3 keys drm-driver=amdgpu drm-client-id=5\n"
                                  "fdinfo 104 3 keys drm-driver=amdgpu drm-client-id=5\n"
                                  "fdinfo 105 3 keys drm-driver=amdgpu drm-client-id=5\n";

/* The processes that hold client 5 in the snapshot (0-terminated, at most 7). */
static size_t holders_of_5(ManagerHarness *h, pid_t ret[8])
{
        const UsageSnapshot *s = manager_usage_snapshot(h->manager);
        size_t n = 0;

        g_assert_cmpint(manager_usage_sample(h->manager), ==, 0);
        for (size_t i = 0; i < s->n_clients; i++)
                if (s->clients[i].id == 5)
                        for (size_t j = 0; j < s->clients[i].n_holders && n < 7; j++)
                                ret[n++] = s->clients[i].holders[j].pid;
        ret[n] = 0;
        return n;
}

/* FORK of a known holder: the child (which shares the parent's fds) is looked at at once, without a
 * sweep, even when the parent exits in the same batch of events; a fork by any other process reads
 * nothing. FORK events are asked of the connector only while sampling runs. */
static void test_fork(void)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", NULL };
        const unsigned fork_bit = 1u << PROC_EVENT_TYPE_FORK;
        ManagerHarness h;
        UsageWatch *w;
        pid_t holders[8];

        events_harness_init(&h);
        manager_harness_start(&h);
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = 1000, .exe = "/usr/bin/a", .fds = fds });
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 101, .uid = 1000, .exe = "/usr/bin/b" });
        add_fdinfo_of(&h, fork_script);
        manager_process_exec(h.manager, 100);
        manager_process_exec(h.manager, 101);

        /* Nobody watches: FORK stays out of the connector's filter. */
        g_assert_cmpuint(manager_usage_proc_event_types(h.manager), ==, 0);
        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_cmpuint(manager_usage_proc_event_types(h.manager), ==, fork_bit);
        g_assert_cmpuint(holders_of_5(&h, holders), ==, 1);
        g_assert_cmpint(holders[0], ==, 100);

        /* The holder forks 103: a holder at once. A fork of 104 by 101, which holds nothing: not looked
         * at, although 104 has the fds (the sweeps would find it). */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 103, .ppid = 100, .uid = 1000, .exe = "/usr/bin/a", .fds = fds });
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 104, .ppid = 101, .uid = 1000, .exe = "/usr/bin/b", .fds = fds });
        add_fdinfo_of(&h, fork_script);
        {
                const ProcEvent forks[] = {
                        { PROC_EVENT_TYPE_FORK, 103, 1, .parent = 100 },
                        { PROC_EVENT_TYPE_FORK, 104, 2, .parent = 101 },
                };
                g_assert_cmpint(manager_process_events(h.manager, forks, ELEMENTSOF(forks)), ==, 0);
        }
        g_assert_cmpuint(holders_of_5(&h, holders), ==, 2);
        g_assert_cmpint(holders[0], ==, 100);
        g_assert_cmpint(holders[1], ==, 103);

        /* The holder's fork of 104, while the process under 104 now started after that fork (the pid was
         * reused since): not the holder's child, not looked at (manager_event_may_describe()). */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 104,
                                        .ppid = 1,
                                        .start_time = 2 * HARNESS_EVENT_CLOCK_OFFSET_NS /
                                                        h.manager->profiles->nsec_per_tick,
                                        .uid = 1000,
                                        .exe = "/usr/bin/b",
                                        .fds = fds });
        add_fdinfo_of(&h, fork_script);
        {
                const ProcEvent forks[] = { { PROC_EVENT_TYPE_FORK, 104, 3, .parent = 100 } };
                g_assert_cmpint(manager_process_events(h.manager, forks, ELEMENTSOF(forks)), ==, 0);
        }
        g_assert_cmpuint(holders_of_5(&h, holders), ==, 2);
        g_assert_cmpint(holders[0], ==, 100);
        g_assert_cmpint(holders[1], ==, 103);

        /* A launcher that forks and exits within one batch: its child is found all the same. */
        proc_fixture_add(h.proc,
                        &(ProcFixtureProcess){ .pid = 105, .ppid = 1, .uid = 1000, .exe = "/usr/bin/a", .fds = fds });
        add_fdinfo_of(&h, fork_script);
        proc_fixture_remove(h.proc, 100);
        {
                const ProcEvent events[] = {
                        { PROC_EVENT_TYPE_FORK, 105, 4, .parent = 100 },
                        { PROC_EVENT_TYPE_EXIT, 100, 5 },
                };
                g_assert_cmpint(manager_process_events(h.manager, events, ELEMENTSOF(events)), ==, 0);
        }
        g_assert_cmpuint(holders_of_5(&h, holders), ==, 2);
        g_assert_cmpint(holders[0], ==, 103);
        g_assert_cmpint(holders[1], ==, 105);

        /* Sampling stops: FORK leaves the filter again. */
        manager_usage_unwatch(w);
        g_assert_cmpuint(manager_usage_proc_event_types(h.manager), ==, 0);
        manager_harness_done(&h);
}

/* Two Mali GPUs (DRM major 1: /dev/full and /dev/zero are their nodes), one with profiling off, one on. */
static const char mali_script[] = "node renderD128 /dev/full platform fde60000.gpu panfrost\n"
                                  "node renderD129 /dev/zero platform fb000000.gpu panthor\n"
                                  "fdinfo 100 3 keys drm-driver=panfrost drm-client-id=5\n"
                                  "fdinfo 100 4 keys drm-driver=panthor drm-client-id=6\n";

static char *profiling_of(ManagerHarness *h, const char *device)
{
        g_autofree char *path = g_build_filename(h->sys, "devices/platform", device, "profiling", NULL);
        char *text = NULL;

        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        return text;
}

static void set_profiling(ManagerHarness *h, const char *device, const char *value)
{
        g_autofree char *path = g_build_filename(h->sys, "devices/platform", device, "profiling", NULL);

        g_assert_true(g_file_set_contents(path, value, -1, NULL));
}

/* panfrost/panthor "profiling": never touched unless DriverProfiling=yes; then 1 while sampling runs,
 * and what it was once nobody watches (a device already at 1 stays so). */
static void profiling(bool configured)
{
        static const char *const fds[] = { "/etc/hostname", "/etc/hostname", "/etc/hostname", "/dev/full", "/dev/zero",
                NULL };
        g_autofree char *error = NULL, *panfrost = NULL, *panthor = NULL;
        ManagerHarness h;
        UsageWatch *w;

        events_harness_init(&h);
        h.config.drm_profiling = configured;
        manager_harness_start(&h);
        proc_fixture_add(h.proc, &(ProcFixtureProcess){ .pid = 100, .uid = 1000, .exe = "/usr/bin/a", .fds = fds });
        g_assert_cmpint(usage_fixture_apply(mali_script, proc_fixture_path(h.proc), h.sys, "/", 0, &error), ==, 0);
        set_profiling(&h, "fde60000.gpu", "0\n");
        set_profiling(&h, "fb000000.gpu", "1\n");
        manager_process_exec(h.manager, 100);

        /* Nobody watches: nothing is read or written. */
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        panfrost = profiling_of(&h, "fde60000.gpu");
        g_assert_cmpstr(panfrost, ==, "0\n");
        g_clear_pointer(&panfrost, g_free);

        g_assert_cmpint(manager_usage_watch(h.manager, 0, 20000, -1, &w), ==, 0);
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        g_assert_cmpint(manager_usage_sample(h.manager), ==, 0);
        g_assert_cmpuint(manager_usage_snapshot(h.manager)->n_devices, ==, 2);
        panfrost = profiling_of(&h, "fde60000.gpu");
        panthor = profiling_of(&h, "fb000000.gpu");
        g_assert_cmpstr(panfrost, ==, configured ? "1\n" : "0\n");
        g_assert_cmpstr(panthor, ==, "1\n");
        g_clear_pointer(&panfrost, g_free);
        g_clear_pointer(&panthor, g_free);

        /* Nobody watches any more: back to what it was. */
        manager_usage_unwatch(w);
        panfrost = profiling_of(&h, "fde60000.gpu");
        panthor = profiling_of(&h, "fb000000.gpu");
        g_assert_cmpstr(panfrost, ==, "0\n");
        g_assert_cmpstr(panthor, ==, "1\n");
        manager_harness_done(&h);
}

static void test_profiling_default(void)
{
        profiling(false);
}

static void test_profiling_configured(void)
{
        profiling(true);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/manager-usage/watches", test_watches);
        g_test_add_func("/manager-usage/watch-hangup", test_watch_hangup);
        g_test_add_func("/manager-usage/snapshot", test_snapshot);
        g_test_add_func("/manager-usage/attribution", test_attribution);
        g_test_add_func("/manager-usage/client-share", test_client_share);
        g_test_add_func("/manager-usage/events", test_events);
        g_test_add_func("/manager-usage/fork", test_fork);
        g_test_add_func("/manager-usage/profiling-default", test_profiling_default);
        g_test_add_func("/manager-usage/profiling-configured", test_profiling_configured);
        return g_test_run();
}
