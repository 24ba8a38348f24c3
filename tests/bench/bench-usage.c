/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What GPU usage sampling costs, against the reference the issue names: a full rescan the way gputop
 * does it (igt's lib/igt_drm_clients.c: readdir /proc, per process open fd/, stat every fd following the
 * link, and for each DRM fd open, read and parse its fdinfo), implemented below.
 *
 * 1. A generated /proc tree (2,000 processes, 20 fds each, 200 DRM clients with amdgpu-like fdinfo):
 *    CPU per sample of the fast tier (daemon/drm/drm-sampler.c over its index; fixture files are
 *    kept open, as on the live /proc) against the full rescan, as a ratio in one run; and per client
 *    against a bare pread() of its fdinfo.
 * 2. The live /proc with 2,000 extra processes holding 20 fds each (200 of them one fd of the CPUID
 *    device, major 203, which DrmMajor=203 declares DRM; nothing else holds it): the full rescan's CPU
 *    per pass; the fast tier per sample and per fd against a bare pread() of each kept-open fdinfo; and
 *    the real daemon's CPU per second with a 1 s watch, and with nobody watching.
 * CPU is the process's own (CLOCK_PROCESS_CPUTIME_ID), or the daemon's schedstat; figures are medians of
 * several rounds. Nothing is asserted: the README quotes the figures. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "bus-names.h"
#include "drm-sampler.h"

#define N_PROCS 2000
#define FDS_PER_PROC 20
#define N_CLIENTS 200
#define ROUNDS 7
/* The live part's stand-in for a DRM node: a char device root can open and nothing else on the machine
 * holds (the CPUID device, major 203), declared DRM by DrmMajor=. */
#define LIVE_NODE "/dev/cpu/0/cpuid"
#define LIVE_MAJOR 203

static char dir[] = "/tmp/nvprofiled-bench-usage-XXXXXX";

static uint64_t cpu_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* The reference: one full pass the way gputop finds and reads DRM clients. Returns DRM fds read. */
static unsigned gputop_scan(int proc_fd, unsigned drm_major)
{
        DIR *d;
        struct dirent *de;
        unsigned n = 0;
        char buf[8192];

        d = fdopendir(openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!d)
                bench_die("opendir proc");
        while ((de = readdir(d))) {
                char path[300];
                DIR *fds;
                struct dirent *fe;
                int fdd;

                if (de->d_name[0] < '1' || de->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "%s/fd", de->d_name);
                fdd = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fdd < 0)
                        continue;
                fds = fdopendir(fdd);
                while (fds && (fe = readdir(fds))) {
                        struct stat st;
                        char info[600];
                        DrmFdinfo *f = NULL;
                        ssize_t k;
                        int ifd;

                        if (fe->d_name[0] == '.' || fstatat(fdd, fe->d_name, &st, 0) < 0)
                                continue;
                        if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != drm_major)
                                continue;
                        snprintf(info, sizeof(info), "%s/fdinfo/%s", de->d_name, fe->d_name);
                        ifd = openat(proc_fd, info, O_RDONLY | O_CLOEXEC);
                        if (ifd < 0)
                                continue;
                        k = read(ifd, buf, sizeof(buf));
                        close(ifd);
                        if (k <= 0 || drm_fdinfo_parse(buf, (size_t) k, DRM_FDINFO_PARSE_NO_EXTRAS, &f) < 0)
                                continue;
                        drm_fdinfo_free(f);
                        n++;
                }
                if (fds)
                        closedir(fds);
        }
        closedir(d);
        return n;
}

static void fdinfo_text(char *buf, size_t size, unsigned client, unsigned round)
{
        snprintf(buf, size,
                        "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1087\ndrm-driver:\tamdgpu\n"
                        "drm-client-id:\t%u\ndrm-pdev:\t0000:03:00.0\npasid:\t32771\n"
                        "drm-total-vram:\t%u KiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t%u KiB\n"
                        "drm-purgeable-vram:\t0\ndrm-total-gtt:\t2048 KiB\ndrm-shared-gtt:\t0\n"
                        "drm-resident-gtt:\t2048 KiB\ndrm-purgeable-gtt:\t0\ndrm-total-cpu:\t0\n"
                        "drm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-purgeable-cpu:\t0\n"
                        "drm-memory-vram:\t%u KiB\ndrm-memory-gtt: \t2048 KiB\ndrm-memory-cpu: \t0 KiB\n"
                        "amd-evicted-vram:\t0 KiB\namd-requested-vram:\t%u KiB\namd-requested-gtt:\t2048 KiB\n"
                        "drm-engine-gfx:\t%u000000 ns\ndrm-engine-compute:\t%u00000 ns\n",
                        1000 + client, 4096 + client, 4096 + client, 4096 + client, 4096 + client, round * 7 + client,
                        round * 3);
}

static uint64_t now_clock(void *userdata)
{
        return bench_now_ns() / 1000;
}

static void bench_generated(void)
{
        char proc[600], path[700], text[2048];
        /* Kept open, as on the live /proc (where test-drm-sampler proves pread fresh): the files do not
         * change here, so the figures are the same. */
        DrmSamplerConfig c = {
                .drm_major = 1, .accel_major = 4095, .open_files_max = 4096, .keep_open = true, .clock = now_clock
        };
        DrmSampler *s = NULL;
        DrmUsage *u = drm_usage_new();
        pid_t *pids = calloc(N_PROCS, sizeof(pid_t));
        uint64_t fast[ROUNDS], full[ROUNDS], bare[ROUNDS];
        int proc_fd, sys_fd, bare_fds[N_CLIENTS];

        snprintf(proc, sizeof(proc), "%s/proc", dir);
        if (mkdir(proc, 0755) < 0)
                bench_die(proc);
        for (unsigned p = 0; p < N_PROCS; p++) {
                pid_t pid = 1000 + (pid_t) p;
                pids[p] = pid;
                {
                        char fddir[700], infodir[700];
                        snprintf(fddir, sizeof(fddir), "%s/%i", proc, (int) pid);
                        if (mkdir(fddir, 0755) < 0)
                                bench_die(fddir);
                        snprintf(fddir, sizeof(fddir), "%s/%i/fd", proc, (int) pid);
                        snprintf(infodir, sizeof(infodir), "%s/%i/fdinfo", proc, (int) pid);
                        if (mkdir(fddir, 0755) < 0 || mkdir(infodir, 0755) < 0)
                                bench_die(fddir);
                }
                for (unsigned f = 0; f < FDS_PER_PROC; f++) {
                        bool drm = f == 3 && p < N_CLIENTS;
                        snprintf(path, sizeof(path), "%s/%i/fd/%u", proc, (int) pid, f);
                        if (symlink(drm ? "/dev/full" : "/etc/hostname", path) < 0)
                                bench_die(path);
                        if (drm) {
                                snprintf(path, sizeof(path), "%s/%i/fdinfo/%u", proc, (int) pid, f);
                                fdinfo_text(text, sizeof(text), p, 1);
                                bench_write_file(path, text);
                        }
                }
        }

        proc_fd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        sys_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (proc_fd < 0 || sys_fd < 0 || !u || drm_sampler_new(proc_fd, sys_fd, &c, &s) < 0)
                bench_die("sampler");
        if (drm_sampler_sweep(s, pids, N_PROCS, true) != N_CLIENTS)
                bench_die("sweep found the wrong number of holders");
        (void) drm_sampler_sample(s, u);
        /* The floor: the same files kept open, pread() and nothing else. */
        for (unsigned p = 0; p < N_CLIENTS; p++) {
                snprintf(path, sizeof(path), "%i/fdinfo/3", (int) pids[p]);
                bare_fds[p] = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
                if (bare_fds[p] < 0)
                        bench_die(path);
        }

        for (unsigned r = 0; r < ROUNDS; r++) {
                uint64_t t0 = cpu_now_ns();
                unsigned n;

                if (drm_sampler_sample(s, u) < 0)
                        bench_die("sample");
                fast[r] = cpu_now_ns() - t0;

                t0 = cpu_now_ns();
                n = gputop_scan(proc_fd, 1);
                full[r] = cpu_now_ns() - t0;
                if (n != N_CLIENTS)
                        bench_die("the reference found the wrong number of clients");

                t0 = cpu_now_ns();
                for (unsigned p = 0; p < N_CLIENTS; p++)
                        if (pread(bare_fds[p], text, sizeof(text), 0) <= 0)
                                bench_die("bare pread");
                bare[r] = cpu_now_ns() - t0;
        }
        {
                uint64_t mf = bench_median_u64(fast, ROUNDS), mr = bench_median_u64(full, ROUNDS),
                         mb = bench_median_u64(bare, ROUNDS);
                printf("generated tree (%u processes x %u fds, %u DRM clients, fdinfo kept open):\n", N_PROCS,
                                FDS_PER_PROC, N_CLIENTS);
                printf("  fast tier        %8.1f us per sample (%zu clients)\n", mf / 1e3, u->n_clients);
                printf("  full rescan      %8.1f us per pass (gputop's way, the reference)\n", mr / 1e3);
                printf("  ratio            1/%.0f of a full rescan\n", (double) mr / (double) mf);
                printf("  per client       %8.2f us, bare pread of its fdinfo %.2f us: %.2fx\n", mf / 1e3 / N_CLIENTS,
                                mb / 1e3 / N_CLIENTS, (double) mf / (double) mb);
        }
        for (unsigned p = 0; p < N_CLIENTS; p++)
                close(bare_fds[p]);
        drm_sampler_free(s);
        drm_usage_free(u);
        close(proc_fd);
        close(sys_fd);
        free(pids);
}

/* 2,000 children holding 20 fds each; the first N_CLIENTS hold /dev/full among them. */
static pid_t *spawn_holders(void)
{
        pid_t *kids = calloc(N_PROCS, sizeof(pid_t));

        for (unsigned i = 0; i < N_PROCS; i++) {
                pid_t pid = fork();
                if (pid < 0)
                        bench_die("fork");
                if (pid == 0) {
                        prctl(PR_SET_PDEATHSIG, SIGKILL);
                        for (int fd = 0; fd < 3; fd++)
                                close(fd);
                        for (unsigned f = 0; f < FDS_PER_PROC; f++)
                                if (open(f == 3 && i < N_CLIENTS ? LIVE_NODE : "/etc/hostname", O_RDONLY) < 0)
                                        _exit(1);
                        for (;;)
                                pause();
                }
                kids[i] = pid;
        }
        usleep(500 * 1000);
        return kids;
}

static void kill_holders(pid_t *kids)
{
        for (unsigned i = 0; i < N_PROCS; i++)
                kill(kids[i], SIGKILL);
        for (unsigned i = 0; i < N_PROCS; i++)
                waitpid(kids[i], NULL, 0);
        free(kids);
}

static void list_pids(pid_t **ret, size_t *ret_n)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        size_t n = 0, allocated = 0;
        pid_t *v = NULL;

        while (d && (de = readdir(d))) {
                if (de->d_name[0] < '1' || de->d_name[0] > '9')
                        continue;
                if (n == allocated) {
                        allocated = allocated ? allocated * 2 : 1024;
                        v = realloc(v, allocated * sizeof(pid_t));
                        if (!v)
                                bench_die("realloc");
                }
                v[n++] = atoi(de->d_name);
        }
        if (d)
                closedir(d);
        *ret = v;
        *ret_n = n;
}

static void bench_live(const char *nvprofiled)
{
        DrmSamplerConfig c = {
                .drm_major = LIVE_MAJOR, .accel_major = 4095, .open_files_max = 65536, .keep_open = true
        };
        DrmSampler *s = NULL;
        DrmUsage *u = drm_usage_new();
        uint64_t fast[ROUNDS], full[ROUNDS], bare[ROUNDS];
        pid_t *kids = spawn_holders(), *pids;
        size_t n_pids, n_fds = 0;
        int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int sys_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int *info = NULL;
        char buf[8192];

        list_pids(&pids, &n_pids);
        if (drm_sampler_new(proc_fd, sys_fd, &c, &s) < 0)
                bench_die("sampler");
        (void) drm_sampler_sweep(s, pids, n_pids, true);
        (void) drm_sampler_sample(s, u);

        /* The bare floor: the same fdinfo files, kept open, pread() and nothing else. */
        {
                const DrmSamplerHolder *h;
                for (size_t i = 0; drm_sampler_next_holder(s, &i, &h);)
                        for (size_t k = 0; k < h->n_fds; k++) {
                                char p[64];
                                snprintf(p, sizeof(p), "/proc/%i/fdinfo/%i", (int) h->pid, h->fds[k].fd);
                                info = realloc(info, (n_fds + 1) * sizeof(int));
                                info[n_fds] = open(p, O_RDONLY | O_CLOEXEC);
                                if (info[n_fds] >= 0)
                                        n_fds++;
                        }
        }

        for (unsigned r = 0; r < ROUNDS; r++) {
                uint64_t t0 = cpu_now_ns();
                drm_sampler_sample(s, u);
                fast[r] = cpu_now_ns() - t0;

                t0 = cpu_now_ns();
                (void) gputop_scan(proc_fd, LIVE_MAJOR);
                full[r] = cpu_now_ns() - t0;

                t0 = cpu_now_ns();
                for (size_t k = 0; k < n_fds; k++)
                        (void) pread(info[k], buf, sizeof(buf), 0); /* a process of the machine may have exited */
                bare[r] = cpu_now_ns() - t0;
        }
        {
                uint64_t mf = bench_median_u64(fast, ROUNDS), mr = bench_median_u64(full, ROUNDS),
                         mb = bench_median_u64(bare, ROUNDS);
                printf("live /proc (%zu processes, %u of them ours with %u fds each; %zu fds of major %u indexed, "
                       "fdinfo %s):\n",
                                n_pids, N_PROCS, FDS_PER_PROC, n_fds, LIVE_MAJOR,
                                drm_fdinfo_pread_is_fresh() > 0 ? "kept open, pread at 0" : "reopened");
                printf("  fast tier        %8.1f us per sample\n", mf / 1e3);
                printf("  full rescan      %8.1f us per pass (gputop's way)\n", mr / 1e3);
                printf("  ratio            1/%.0f of a full rescan\n", (double) mr / (double) mf);
                printf("  per fd           %8.2f us, bare pread %.2f us: %.2fx\n", mf / 1e3 / (double) n_fds,
                                mb / 1e3 / (double) n_fds, (double) mf / (double) mb);
                printf("  a gputop at 1 s would spend %.1f ms of CPU per second on this machine\n", mr / 1e6);
        }
        for (size_t k = 0; k < n_fds; k++)
                close(info[k]);
        free(info);
        drm_sampler_free(s);
        drm_usage_free(u);
        free(pids);

        /* The daemon at the same load: its CPU per second with nobody watching, then with a 1 s watch. */
        if (nvprofiled) {
                char conf[900], a1[700], a3[1000], root[800];
                char bus_address[600];
                pid_t bus_pid, daemon_pid;
                sd_bus *bus;
                sd_bus_message *reply = NULL;
                uint64_t c0, c1;
                int watch;

                bench_bus_start(dir, &bus_pid, bus_address, sizeof(bus_address), &bus);
                snprintf(root, sizeof(root), "%s/root", dir);
                snprintf(conf, sizeof(conf), "mkdir -p '%s/etc'", root);
                bench_run(conf);
                snprintf(conf, sizeof(conf), "%s/nvprofiled.conf", dir);
                bench_write_file(conf,
                                "[ProcessWatch]\nDeviceDirectory=\n[Profiles]\nLogApplied=no\n"
                                "[Usage]\nDrmMajor=203\nWatchIntervalSec=1s\nNVML=no\n");
                snprintf(a1, sizeof(a1), "--bus=%s", bus_address);
                snprintf(a3, sizeof(a3), "--config=%s", conf);
                snprintf(root, sizeof(root), "--root=%s/root", dir);
                daemon_pid = fork();
                if (daemon_pid == 0) {
                        prctl(PR_SET_PDEATHSIG, SIGKILL);
                        execl(nvprofiled, nvprofiled, a1, root, a3, "--log-level=warning", (char *) NULL);
                        _exit(127);
                }
                for (int i = 0; i < 1500; i++) {
                        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus", "GetNameOwner", NULL, &reply, "s", BUS_NAME) >= 0)
                                break;
                        usleep(20000);
                }
                sd_bus_message_unref(reply);
                reply = NULL;
                sleep(2); /* settle after the first scan */

                c0 = bench_cpu_ns(daemon_pid);
                sleep(5);
                c1 = bench_cpu_ns(daemon_pid);
                {
                        uint64_t samples = UINT64_MAX;
                        (void) sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "Samples",
                                        NULL, 't', &samples);
                        /* The rest of the machine keeps the daemon busy with its other job (every exec of
                         * the other builds here); usage's part is the samples it took: none. */
                        printf("  daemon, nobody watching   %8.1f us of CPU per second, usage samples taken: %" PRIu64
                               "\n",
                                        (c1 - c0) / 5e3, samples);
                }

                if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL, &reply,
                                    "t", (uint64_t) 1000000) < 0 ||
                                sd_bus_message_read(reply, "h", &watch) < 0)
                        bench_die("WatchUsage");
                watch = fcntl(watch, F_DUPFD_CLOEXEC, 3);
                sd_bus_message_unref(reply);
                sleep(2); /* the first sweep and sample */
                c0 = bench_cpu_ns(daemon_pid);
                sleep(10);
                c1 = bench_cpu_ns(daemon_pid);
                printf("  daemon, watched at 1 s    %8.1f us of CPU per second, against %.1f us for gputop's "
                       "rescan: 1/%.0f\n",
                                (c1 - c0) / 10e3, bench_median_u64(full, ROUNDS) / 1e3,
                                (double) bench_median_u64(full, ROUNDS) / ((double) (c1 - c0) / 10.0));
                close(watch);
                kill(daemon_pid, SIGTERM);
                waitpid(daemon_pid, NULL, 0);
                sd_bus_flush_close_unref(bus);
                kill(bus_pid, SIGTERM);
                waitpid(bus_pid, NULL, 0);
        }
        kill_holders(kids);
        close(proc_fd);
        close(sys_fd);
}

int main(int argc, char *argv[])
{
        char cmd[700];

        if (!mkdtemp(dir))
                bench_die("mkdtemp");
        bench_generated();
        if (geteuid() == 0)
                bench_live(argc > 1 ? argv[1] : NULL);
        else
                printf("live /proc: needs root (other processes' fdinfo), skipped\n");
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        bench_run(cmd);
        return 0;
}
