/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The DRM fd index and the fast tier (daemon/drm/drm-sampler.c): pread freshness on this kernel, discovery
 * of a device node the test creates (declared DRM by its major), the open-file-count shortcut, kept-open
 * fdinfo files, and sampling a fixture tree with an unreadable fdinfo and a suspended device. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "drm-sampler.h"
#include "usage-fixture.h"

static bool kernel_at_least(unsigned want_major, unsigned want_minor)
{
        struct utsname u;
        unsigned maj = 0, min = 0;

        if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2)
                return false;
        return maj > want_major || (maj == want_major && min >= want_minor);
}

/* pread() at offset 0 of a kept-open /proc/<pid>/fdinfo/<fd> shows the values of now: proven here with a
 * file of ours whose position we move, independently of the daemon's own probe, which must agree. */
static void test_pread_fresh(void)
{
        char path[64], a[256], b[256];
        ssize_t ka, kb;
        int fd, info;

        fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%i", fd);
        info = open(path, O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(info, >=, 0);

        ka = pread(info, a, sizeof(a) - 1, 0);
        g_assert_cmpint(ka, >, 0);
        a[ka] = '\0';
        g_assert_true(g_str_has_prefix(a, "pos:\t0\n"));
        g_assert_cmpint(lseek(fd, 17, SEEK_SET), ==, 17);
        kb = pread(info, b, sizeof(b) - 1, 0);
        g_assert_cmpint(kb, >, 0);
        b[kb] = '\0';
        g_test_message("first read:\n%ssecond read:\n%s", a, b);
        g_assert_true(g_str_has_prefix(b, "pos:\t17\n"));
        /* And again, at a third position: not a one-off re-read either. */
        g_assert_cmpint(lseek(fd, 5, SEEK_SET), ==, 5);
        kb = pread(info, b, sizeof(b) - 1, 0);
        b[kb] = '\0';
        g_assert_true(g_str_has_prefix(b, "pos:\t5\n"));

        g_assert_cmpint(drm_fdinfo_pread_is_fresh(), ==, 1);
        close(info);
        close(fd);
}

static const DrmSamplerFd *find_fd(const DrmSamplerHolder *h, int fd)
{
        for (size_t i = 0; h && i < h->n_fds; i++)
                if (h->fds[i].fd == fd)
                        return &h->fds[i];
        return NULL;
}

/* A node the test creates with mknod (the numbers of /dev/full, major 1, declared DRM for the test): found
 * by its device number through the live /proc, whatever its name. */
static void test_created_node(void)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_dir_make_tmp("nvp-drm-node-XXXXXX", &error);
        g_autofree char *node = NULL;
        _cleanup_(drm_sampler_freep) DrmSampler *s = NULL;
        _cleanup_(drm_usage_freep) DrmUsage *u = drm_usage_new();
        DrmSamplerConfig c = {
                .drm_major = 1, .accel_major = 4095, .open_files_max = 16, .keep_open = true, .use_libdrm = true
        };
        const DrmSamplerHolder *h;
        const DrmSamplerFd *f;
        uint64_t walks, reopens;
        int proc, sys, fd, other;

        g_assert_no_error(error);
        node = g_build_filename(dir, "renderD200", NULL);
        if (mknod(node, S_IFCHR | 0600, makedev(1, 7)) < 0) {
                g_test_skip("mknod needs CAP_MKNOD (root)");
                g_rmdir(dir);
                return;
        }
        fd = open(node, O_RDWR | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);

        proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        sys = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(drm_sampler_new(proc, sys, &c, &s), ==, 0);

        g_assert_cmpint(drm_sampler_check_pid(s, getpid(), false), ==, 1);
        h = drm_sampler_holder(s, getpid());
        f = find_fd(h, fd);
        g_assert_nonnull(f);
        g_assert_cmpuint(major(f->rdev), ==, 1);
        g_assert_cmpuint(minor(f->rdev), ==, 7);
        g_assert_cmpint(f->type, ==, DRM_NODE_DRM);
        walks = drm_sampler_stats(s)->n_walks;
        g_assert_cmpuint(walks, ==, 1);

        /* Nothing opened or closed: the size of /proc/<pid>/fd says so, and the table is not walked. */
        if (kernel_at_least(6, 2)) {
                g_assert_cmpint(drm_sampler_check_pid(s, getpid(), false), ==, 1);
                g_assert_cmpuint(drm_sampler_stats(s)->n_walks, ==, walks);
        }
        /* One more open file: walked again; force walks whatever the count. */
        other = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
        g_assert_cmpint(drm_sampler_check_pid(s, getpid(), false), ==, 1);
        g_assert_cmpuint(drm_sampler_stats(s)->n_walks, ==, walks + 1);
        g_assert_cmpint(drm_sampler_check_pid(s, getpid(), true), ==, 1);
        g_assert_cmpuint(drm_sampler_stats(s)->n_walks, ==, walks + 2);
        close(other);

        /* Sampling: the node's fdinfo has no drm- keys (what nvidia-drm shows): read, no client. Its
         * device resolves through the live /sys to the node's numbers. */
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        g_assert_cmpuint(drm_sampler_stats(s)->n_read, >=, 1);
        g_assert_cmpuint(u->n_clients, ==, 0);
        g_assert_nonnull(drm_sampler_find_device(s, "1:7"));
        g_assert_cmpstr(drm_sampler_find_device(s, "1:7")->info.node, ==, "full");
        reopens = drm_sampler_stats(s)->n_reopens;
        /* The second sample re-reads the files it kept open: no open at all. */
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        g_assert_cmpuint(drm_sampler_stats(s)->n_reopens, ==, reopens);

        /* The fd closes: the next sample forgets it. */
        close(fd);
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        g_assert_null(find_fd(drm_sampler_holder(s, getpid()), fd));

        close(proc);
        close(sys);
        g_unlink(node);
        g_rmdir(dir);
}

static uint64_t fixture_clock_value;

static uint64_t fixture_clock(void *userdata)
{
        return fixture_clock_value;
}

static const char fixture_script[] =
                "node renderD128 /dev/full pci 0000:03:00.0 0x1002 0x73bf amdgpu\n"
                "node accel0 /dev/zero none\n"
                "node renderD130 /dev/urandom pci 0000:05:00.0 0x1002 0x7480 amdgpu\n"
                "power renderD130 suspended\n"
                "fd 10 3 /dev/full\n"
                "fd 10 4 /dev/zero\n"
                "fd 11 3 /dev/full\n"
                "fd 11 9 /dev/null\n"
                "fd 12 3 /dev/urandom\n"
                "fd 13 3 /dev/full\n"
                "unreadable 13 3\n"
                "fdinfo 12 3 keys drm-driver=amdgpu drm-client-id=99\n"
                "step 1\n"
                "fdinfo 10 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=0_ns drm-engine-capacity-gfx=2\n"
                "fdinfo 11 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=0_ns drm-engine-capacity-gfx=2\n"
                "fdinfo 10 4 keys drm-driver=amdxdna_accel_driver drm-client-id=6 drm-engine-npu-amdxdna=0_ns\n"
                "step 2\n"
                "fdinfo 10 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=1000000000_ns drm-engine-capacity-gfx=2\n"
                "fdinfo 11 3 keys drm-driver=amdgpu drm-client-id=5 drm-engine-gfx=1000000000_ns drm-engine-capacity-gfx=2\n"
                "fdinfo 10 4 keys drm-driver=amdxdna_accel_driver drm-client-id=6 drm-engine-npu-amdxdna=300000000_ns\n";

/* A fixture tree (tests/drm/usage-fixture.c): the sampler takes whatever its --proc and --sys show. */
static void test_fixture_sample(void)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_dir_make_tmp("nvp-drm-fixture-XXXXXX", &error);
        g_autofree char *procdir = g_build_filename(dir, "proc", NULL), *sysdir = g_build_filename(dir, "sys", NULL);
        g_autofree char *err = NULL;
        _cleanup_(drm_sampler_freep) DrmSampler *s = NULL;
        _cleanup_(drm_usage_freep) DrmUsage *u = drm_usage_new();
        DrmSamplerConfig c = { .drm_major = 1, .accel_major = 1, .open_files_max = 16, .clock = fixture_clock };
        const pid_t pids[] = { 10, 11, 12, 13, 14 };
        const DrmUsageClient *cl;
        double busy;
        int proc, sys;

        g_assert_no_error(error);
        g_assert_cmpint(g_mkdir_with_parents(procdir, 0755), ==, 0);
        g_assert_cmpint(g_mkdir_with_parents(sysdir, 0755), ==, 0);
        /* /dev/null is major 1 too: declared DRM here, so drm_major must really be what decides. */
        c.drm_major = 1;
        c.accel_major = 4095;
        g_assert_cmpint(usage_fixture_apply(fixture_script, procdir, sysdir, "/nonexistent", 0, &err), ==, 0);
        g_assert_cmpint(usage_fixture_apply(fixture_script, procdir, sysdir, "/nonexistent", 1, &err), ==, 0);

        proc = open(procdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        sys = open(sysdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(drm_sampler_new(proc, sys, &c, &s), ==, 0);
        /* pid 14 does not exist: no harm. */
        g_assert_cmpint(drm_sampler_sweep(s, pids, G_N_ELEMENTS(pids), true), ==, 4);

        fixture_clock_value = 1000000;
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        g_assert_cmpuint(drm_sampler_stats(s)->n_suspended, ==, 1);
        g_assert_cmpuint(drm_sampler_stats(s)->n_unreadable, ==, 1);
        /* Fixture files are replaced by rename: never kept open. */
        g_assert_cmpuint(drm_sampler_stats(s)->n_reopens, ==, drm_sampler_stats(s)->n_read + 1);
        for (size_t i = 0; i < u->n_clients; i++)
                g_test_message("client %s %" G_GUINT64_FORMAT, u->clients[i].device, u->clients[i].client_id);
        g_assert_cmpuint(u->n_clients, ==, 2);
        cl = drm_usage_find_client(u, "0000:03:00.0", 5);
        g_assert_nonnull(cl);
        g_assert_cmpuint(cl->n_holders, ==, 2);
        /* The node without a PCI device or platform device is known by its numbers. */
        g_assert_nonnull(drm_usage_find_client(u, "1:5", 6));
        g_assert_cmpstr(drm_sampler_find_device(s, "0000:03:00.0")->info.driver, ==, "amdgpu");
        g_assert_cmpuint(drm_sampler_find_device(s, "0000:03:00.0")->info.vendor_id, ==, 0x1002);
        g_assert_cmpint(drm_sampler_find_device(s, "0000:05:00.0")->power, ==, DRM_POWER_SUSPENDED);
        g_assert_true(drm_sampler_find_device(s, "0000:05:00.0")->power_changed);
        g_assert_null(drm_usage_find_client(u, "0000:05:00.0", 99));

        g_assert_cmpint(usage_fixture_apply(fixture_script, procdir, sysdir, "/nonexistent", 2, &err), ==, 0);
        fixture_clock_value = 2000000;
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        cl = drm_usage_find_client(u, "0000:03:00.0", 5);
        g_assert_true(drm_usage_engine_busy(drm_usage_client_find_engine(cl, "gfx"), &busy));
        g_assert_cmpfloat_with_epsilon(busy, 50.0, 1e-9);
        g_assert_false(drm_sampler_find_device(s, "0000:05:00.0")->power_changed);
        cl = drm_usage_find_client(u, "1:5", 6);
        g_assert_true(drm_usage_engine_busy(drm_usage_client_find_engine(cl, "npu-amdxdna"), &busy));
        g_assert_cmpfloat_with_epsilon(busy, 30.0, 1e-9);

        /* The process exits: its directory goes, the next sweep drops it. */
        {
                const pid_t rest[] = { 11, 12, 13 };
                g_assert_cmpint(drm_sampler_sweep(s, rest, G_N_ELEMENTS(rest), false), ==, 3);
                g_assert_null(drm_sampler_holder(s, 10));
        }
        close(proc);
        close(sys);
        {
                g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
                g_assert_cmpint(system(cmd), ==, 0);
        }
}

static void test_fixture_errors(void)
{
        g_autofree char *err = NULL;

        g_assert_cmpint(usage_fixture_apply("node x /nonexistent none\n", "/nonexistent", "/nonexistent", "/", 0, &err),
                        ==, -1);
        g_assert_nonnull(strstr(err, "line 1"));
}

/* §7 case 23: a process or an fd that goes between the sweep that indexed it and the sample (ENOENT,
 * ESRCH) is no error: its client is dropped or loses that holder, and the rest is sampled. */
static void test_vanishing_mid_scan(void)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_dir_make_tmp("nvp-drm-vanish-XXXXXX", &error);
        g_autofree char *procdir = g_build_filename(dir, "proc", NULL), *sysdir = g_build_filename(dir, "sys", NULL);
        g_autofree char *err = NULL, *cmd = NULL;
        _cleanup_(drm_sampler_freep) DrmSampler *s = NULL;
        _cleanup_(drm_usage_freep) DrmUsage *u = drm_usage_new();
        DrmSamplerConfig c = { .drm_major = 1, .accel_major = 4095, .open_files_max = 16, .clock = fixture_clock };
        const pid_t pids[] = { 10, 11, 12, 13 };
        const DrmUsageClient *cl;
        int proc, sys;

        g_assert_no_error(error);
        g_assert_cmpint(g_mkdir_with_parents(procdir, 0755), ==, 0);
        g_assert_cmpint(g_mkdir_with_parents(sysdir, 0755), ==, 0);
        g_assert_cmpint(usage_fixture_apply(fixture_script, procdir, sysdir, "/nonexistent", 0, &err), ==, 0);
        g_assert_cmpint(usage_fixture_apply(fixture_script, procdir, sysdir, "/nonexistent", 1, &err), ==, 0);
        proc = open(procdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        sys = open(sysdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(drm_sampler_new(proc, sys, &c, &s), ==, 0);
        g_assert_cmpint(drm_sampler_sweep(s, pids, G_N_ELEMENTS(pids), true), ==, 4);

        /* Between the sweep and the sample: pid 11 exits (its directory goes) and pid 10 closes fd 4. */
        cmd = g_strdup_printf("rm -rf '%s/11' '%s/10/fdinfo/4' '%s/10/fd/4'", procdir, procdir, procdir);
        g_assert_cmpint(system(cmd), ==, 0);

        fixture_clock_value = 1000000;
        g_assert_cmpint(drm_sampler_sample(s, u), ==, 0);
        cl = drm_usage_find_client(u, "0000:03:00.0", 5);
        g_assert_nonnull(cl);
        g_assert_cmpuint(cl->n_holders, ==, 1);
        g_assert_cmpint(cl->holders[0].pid, ==, 10);
        g_assert_null(drm_usage_find_client(u, "1:5", 6));
        g_assert_cmpuint(u->n_clients, ==, 1);

        close(proc);
        close(sys);
        g_free(cmd);
        cmd = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(cmd), ==, 0);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/drm-sampler/pread-fresh", test_pread_fresh);
        g_test_add_func("/drm-sampler/created-node", test_created_node);
        g_test_add_func("/drm-sampler/fixture-sample", test_fixture_sample);
        g_test_add_func("/drm-sampler/fixture-errors", test_fixture_errors);
        g_test_add_func("/drm-sampler/vanishing-mid-scan", test_vanishing_mid_scan);
        return g_test_run();
}
