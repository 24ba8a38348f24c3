/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reports through the daemon against the same work in-process (issue 20), for every corpus report and a
 * synthetic report of 10,000 results, side by side in one run:
 *   - LoadReport (the call, the worker reading the file) against ncu_report_load_fd() in this process;
 *   - whole nvprofilectl processes of report raw --csv, details --csv and summary, through the daemon and
 *     with --local, and ncu --import where a path to ncu is given (not in CI: it is NVIDIA's);
 *   - peak memory: of each client process (rusage), of the report's worker (VmHWM), and of the daemon,
 *     before any report and with every report held (its model is the workers').
 * Prints figures; asserts nothing about time.
 *
 * With NVPROFILED_BENCH_PATH=1 it measures the path of one request instead (issue 30), for a small, a middle
 * and the largest corpus report: whole `nvprofilectl report details F` processes through the daemon (its
 * own LoadReport, ExportPage and Close), and GetMetric per call: over every metric of the first action, and
 * the last metric of each action in turn.
 *
 *   bench-report-bus NVPROFILED NVPROFILECTL WORKER SYNTH CORPUS_DIR [NCU] */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-util.h"
#include "bus-names.h"
#include "macro.h"
#include "report.h"

#define LOAD_RUNS 5
#define LOAD_PAUSE_USEC (50 * 1000)
#define PROCESS_RUNS 3
#define REPORTS_MAX 64
#define SYNTHETIC_RESULTS "10000"

static char dir[] = "/tmp/nvprofiled-bench-report-bus-XXXXXX";
static char bus_address[700];
static pid_t bus_pid, daemon_pid;
static sd_bus *bus;
static const char *ctl, *ncu;

static pid_t spawn(char *const argv[], const char *env_worker)
{
        pid_t pid = fork();

        if (pid < 0)
                bench_die("fork");
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (env_worker)
                        setenv("NVPROFILED_REPORT_WORKER", env_worker, 1);
                if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
                        _exit(127);
                execv(argv[0], argv);
                _exit(127);
        }
        return pid;
}

static void start_world(const char *nvprofiled, const char *worker)
{
        char path[800], text[2048], a1[900], a2[900], a3[900], a4[900];
        const uint64_t deadline = bench_now_ns() + 30ull * 1000000000ull;

        bench_bus_start(dir, &bus_pid, bus_address, sizeof(bus_address), &bus);
        snprintf(text, sizeof(text), "mkdir -p '%s/root' '%s/proc'", dir, dir);
        bench_run(text);
        snprintf(path, sizeof(path), "%s/nvprofiled.conf", dir);
        /* Budgets that hold every report at once (the largest reserves its worker's ceiling). */
        snprintf(text, sizeof(text),
                        "[ProcessWatch]\nDeviceDirectory=\n[Usage]\nNVML=no\n[Reports]\nReportsPerUserMax=64\n"
                        "MemoryPerUserMax=64G\nMemoryMax=64G\nOutputsPerUserMax=64\nSpareWorker=%s\n",
                        /* The daemon without its spare worker, to compare. */
                        strempty(getenv("NVPROFILED_BENCH_NO_SPARE"))[0] ? "no" : "yes");
        bench_write_file(path, text);
        snprintf(a1, sizeof(a1), "--bus=%s", bus_address);
        snprintf(a2, sizeof(a2), "--root=%s/root", dir);
        snprintf(a3, sizeof(a3), "--config=%s", path);
        snprintf(a4, sizeof(a4), "--proc=%s/proc", dir);
        daemon_pid = spawn((char *const[]){ (char *) nvprofiled, a1, a2, a3, a4, "--log-level=warning", NULL }, worker);
        while (bench_now_ns() < deadline) {
                sd_bus_message *reply = NULL;
                if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetNameOwner", NULL, &reply, "s", BUS_NAME) >= 0) {
                        sd_bus_message_unref(reply);
                        return;
                }
                usleep(20000);
        }
        bench_die("nvprofiled did not start");
}

static void stop_world(void)
{
        bench_world_stop(daemon_pid, bus, bus_pid, dir);
}

/* A field of /proc/<pid>/status in kB ("VmHWM", "VmRSS"); 0 when gone. */
static uint64_t status_kb(pid_t pid, const char *field)
{
        char path[64], line[256];
        uint64_t kb = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':')
                        kb = strtoull(line + strlen(field) + 1, NULL, 10);
        fclose(f);
        return kb;
}

/* The daemon's newest child: the worker of the report just loaded. */
/* The workers of the reports held so far: the others are the newest report's and the daemon's spare. */
static pid_t held_workers[REPORTS_MAX + 1];
static size_t n_held_workers;

/* The worker of the report just loaded: of the daemon's children that serve no report held before, the
 * one that has used the most memory (a spare, which has read no report yet, uses less). */
static pid_t loaded_worker(void)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        uint64_t best_kb = 0;
        pid_t best = 0;

        if (!d)
                bench_die("/proc");
        while ((de = readdir(d))) {
                char path[300], stat[512];
                int ppid, fd;
                bool held = false;
                uint64_t kb;
                ssize_t n;
                pid_t pid;
                char *p;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                n = read(fd, stat, sizeof(stat) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                stat[n] = 0;
                p = strrchr(stat, ')');
                if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid != daemon_pid)
                        continue;
                pid = (pid_t) atoi(de->d_name);
                for (size_t i = 0; i < n_held_workers; i++)
                        held = held || held_workers[i] == pid;
                kb = held ? 0 : status_kb(pid, "VmHWM");
                if (!held && kb >= best_kb) {
                        best_kb = kb;
                        best = pid;
                }
        }
        closedir(d);
        if (best > 0 && n_held_workers < ELEMENTSOF(held_workers))
                held_workers[n_held_workers++] = best;
        return best;
}

static double ms(uint64_t ns)
{
        return (double) ns / 1e6;
}

static uint64_t median_load_in_process(const char *path)
{
        uint64_t t[LOAD_RUNS];

        for (size_t i = 0; i < LOAD_RUNS; i++) {
                NcuReport *r = NULL;
                NcuReportError err;
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                uint64_t start;

                if (fd < 0)
                        bench_die(path);
                start = bench_now_ns();
                if (ncu_report_load_fd(fd, NULL, &r, &err) < 0) {
                        fprintf(stderr, "%s: %s\n", path, err.message);
                        exit(1);
                }
                t[i] = bench_now_ns() - start;
                ncu_report_free(r);
                close(fd);
        }
        return bench_median_u64(t, LOAD_RUNS);
}

/* LoadReport: the median call, and the object of a last one kept loaded (its worker's peak in *worker_kb). */
static uint64_t median_load_report(const char *path, char **ret_object, uint64_t *worker_kb)
{
        uint64_t t[LOAD_RUNS];

        for (size_t i = 0; i < LOAD_RUNS; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                const char *object;
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                uint64_t start;

                if (fd < 0)
                        bench_die(path);
                /* Loads come from separate commands, each of which takes longer to start than this pause:
                 * the daemon's spare worker (SpareWorker=) has started by then, as it would have. */
                usleep(LOAD_PAUSE_USEC);
                start = bench_now_ns();
                if (sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "LoadReport", &error,
                                    &reply, "h", fd) < 0) {
                        fprintf(stderr, "%s: LoadReport: %s\n", path, error.message);
                        exit(1);
                }
                t[i] = bench_now_ns() - start;
                close(fd);
                if (sd_bus_message_read(reply, "o", &object) < 0)
                        bench_die("LoadReport's reply");
                if (i == LOAD_RUNS - 1) {
                        *worker_kb = status_kb(loaded_worker(), "VmHWM");
                        *ret_object = strdup(object);
                } else
                        (void) sd_bus_call_method(
                                        bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "Close", NULL, NULL, NULL);
                sd_bus_message_unref(reply);
        }
        return bench_median_u64(t, LOAD_RUNS);
}

/* Whole processes are started by a launcher forked at the very start, while this process is small: exec
 * records the old image's peak in the child's ru_maxrss, so a client forked from here once reports are
 * loaded in-process would report this process's size, not its own. The launcher reads one request (argv
 * as NUL-terminated strings, then an empty one) and answers the exit status, the peak (kB) and the time. */
typedef struct LaunchResult {
        int status;
        uint64_t kb;
        uint64_t ns;
} LaunchResult;

static int launch_request = -1, launch_reply = -1;
static pid_t launcher_pid;

static _Noreturn void launcher(int requests, int replies)
{
        static char buf[8192];
        size_t n = 0;

        for (;;) {
                char *argv[32];
                size_t argc = 0, at = 0;
                ssize_t k;

                /* One request: strings up to an empty one. */
                for (;;) {
                        const char *end;

                        while (at < n && buf[at] != '\0' && (end = memchr(buf + at, '\0', n - at)) &&
                                        argc < ELEMENTSOF(argv) - 1) {
                                argv[argc++] = buf + at;
                                at = (size_t) (end - buf) + 1;
                        }
                        if (at < n && buf[at] == '\0')
                                break;
                        k = read(requests, buf + n, sizeof(buf) - n);
                        if (k <= 0)
                                _exit(0);
                        n += (size_t) k;
                }
                argv[argc] = NULL;
                {
                        LaunchResult result = { 0 };
                        struct rusage ru;
                        uint64_t start = bench_now_ns();
                        pid_t pid = spawn(argv, NULL);

                        if (wait4(pid, &result.status, 0, &ru) != pid)
                                _exit(1);
                        result.ns = bench_now_ns() - start;
                        result.kb = (uint64_t) ru.ru_maxrss;
                        if (write(replies, &result, sizeof(result)) != (ssize_t) sizeof(result))
                                _exit(1);
                }
                n = 0;
        }
}

static void start_launcher(void)
{
        int requests[2], replies[2];

        if (pipe2(requests, O_CLOEXEC) < 0 || pipe2(replies, O_CLOEXEC) < 0)
                bench_die("pipe2");
        launcher_pid = fork();
        if (launcher_pid < 0)
                bench_die("fork");
        if (launcher_pid == 0) {
                close(requests[1]);
                close(replies[0]);
                launcher(requests[0], replies[1]);
        }
        close(requests[0]);
        close(replies[1]);
        launch_request = requests[1];
        launch_reply = replies[0];
}

static void stop_launcher(void)
{
        close(launch_request);
        close(launch_reply);
        (void) waitpid(launcher_pid, NULL, 0);
}

static LaunchResult launch(char *const argv[])
{
        char buf[8192];
        size_t n = 0;
        LaunchResult result;

        for (size_t i = 0; argv[i]; i++) {
                size_t len = strlen(argv[i]) + 1;

                if (n + len + 1 > sizeof(buf))
                        bench_die("launch: arguments too long");
                memcpy(buf + n, argv[i], len);
                n += len;
        }
        buf[n++] = '\0';
        if (write(launch_request, buf, n) != (ssize_t) n ||
                        read(launch_reply, &result, sizeof(result)) != (ssize_t) sizeof(result))
                bench_die("launch");
        return result;
}

/* A whole process, run PROCESS_RUNS times: its median time, and its peak memory (kB); 0 if it failed and
 * may (ncu's own failures are its own: reported, not fatal). */
static uint64_t median_process(char *const argv[], bool may_fail, uint64_t *ret_kb)
{
        uint64_t t[PROCESS_RUNS], kb = 0;

        for (size_t i = 0; i < PROCESS_RUNS; i++) {
                LaunchResult r = launch(argv);

                t[i] = r.ns;
                if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
                        fprintf(stderr, "%s %s %s failed (%d)\n", argv[0], argv[1], argv[2], r.status);
                        if (!may_fail)
                                exit(1);
                        *ret_kb = 0;
                        return 0;
                }
                kb = MAX(kb, r.kb);
        }
        *ret_kb = kb;
        return bench_median_u64(t, PROCESS_RUNS);
}

typedef struct Verb {
        const char *name;
        const char *args[3];
        const char *ncu_args[8];
} Verb;

static const Verb verbs[] = {
        { "raw --csv", { "raw", "--csv", NULL }, { "--page", "raw", "--csv", "--print-units", "base", NULL } },
        { "details --csv", { "details", "--csv", NULL },
                        { "--page", "details", "--csv", "--print-units", "base", "--print-details", "all", NULL } },
        { "summary", { "summary", NULL }, { "--print-summary", "per-kernel", NULL } },
};

static void bench_report(const char *label, const char *path, char **objects, size_t *n_objects)
{
        char bus_arg[800];
        struct stat st;
        uint64_t local, daemon, worker_kb = 0;

        if (stat(path, &st) < 0)
                bench_die(path);
        snprintf(bus_arg, sizeof(bus_arg), "--bus=%s", bus_address);
        local = median_load_in_process(path);
        daemon = median_load_report(path, &objects[(*n_objects)++], &worker_kb);
        printf("%-48.48s %9.2f MB  load %8.2f ms  LoadReport %8.2f ms  %5.2fx  worker peak %7.1f MB\n", label,
                        (double) st.st_size / 1e6, ms(local), ms(daemon), (double) daemon / (double) MAX(local, 1u),
                        (double) worker_kb / 1024.0);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const Verb *v = &verbs[i];
                char *daemon_argv[8] = { (char *) ctl, bus_arg, (char *) "report" }, *local_argv[9];
                uint64_t t_daemon, t_local, kb_daemon, kb_local, t_ncu = 0, kb_ncu = 0;
                size_t n = 3;

                for (size_t j = 0; v->args[j]; j++)
                        daemon_argv[n++] = (char *) v->args[j];
                daemon_argv[n++] = (char *) path;
                daemon_argv[n] = NULL;
                memcpy(local_argv, daemon_argv, sizeof(char *) * (n + 1));
                local_argv[n] = (char *) "--local";
                local_argv[n + 1] = NULL;
                t_daemon = median_process(daemon_argv, false, &kb_daemon);
                t_local = median_process(local_argv, false, &kb_local);
                printf("    %-14s daemon %8.2f ms %7.1f MB (%5.2fx the file)  --local %8.2f ms %7.1f MB", v->name,
                                ms(t_daemon), (double) kb_daemon / 1024.0,
                                (double) kb_daemon * 1024.0 / (double) st.st_size, ms(t_local),
                                (double) kb_local / 1024.0);
                if (ncu) {
                        char *ncu_argv[12] = { (char *) ncu, (char *) "--import", (char *) path };
                        size_t m = 3;

                        for (size_t j = 0; v->ncu_args[j]; j++)
                                ncu_argv[m++] = (char *) v->ncu_args[j];
                        ncu_argv[m] = NULL;
                        t_ncu = median_process(ncu_argv, true, &kb_ncu);
                        if (t_ncu == 0)
                                printf("  ncu failed");
                        else
                                printf("  ncu %8.2f ms %7.1f MB: daemon %5.1fx faster", ms(t_ncu),
                                                (double) kb_ncu / 1024.0, (double) t_ncu / (double) MAX(t_daemon, 1u));
                }
                printf("\n");
        }
}

#define PATH_PROCESS_RUNS 21

/* GetMetric for every metric of range 0, action 0 of a loaded report: the mean call in ns, and the count. */
static uint64_t mean_get_metric(const char *object, size_t *ret_n)
{
        sd_bus_message *names = NULL;
        const char *name;
        uint64_t start, total = 0;
        size_t n = 0;

        if (sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "GetMetricNames", NULL, &names, "uu", 0,
                            0) < 0 ||
                        sd_bus_message_enter_container(names, 'a', "s") < 0)
                bench_die("GetMetricNames");
        while (sd_bus_message_read(names, "s", &name) > 0) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;

                start = bench_now_ns();
                if (sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "GetMetric", &error, &reply, "uus",
                                    0, 0, name) < 0) {
                        fprintf(stderr, "GetMetric %s: %s\n", name, error.message);
                        exit(1);
                }
                total += bench_now_ns() - start;
                sd_bus_message_unref(reply);
                n++;
        }
        sd_bus_message_unref(names);
        *ret_n = n;
        return n > 0 ? total / n : 0;
}

/* GetMetric of the last metric of each action of range 0, one action after the other (what a client that
 * walks the actions does): the mean call in ns, and the number of actions. */
static uint64_t mean_get_metric_per_action(const char *object, size_t *ret_n)
{
        sd_bus_message *actions = NULL;
        uint64_t total = 0;
        size_t n = 0;
        uint32_t index;

        if (sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "ListActions", NULL, &actions, "u", 0) <
                                        0 ||
                        sd_bus_message_enter_container(actions, 'a', "(ussss(ttt)(ttt)d)") < 0)
                bench_die("ListActions");
        while (sd_bus_message_enter_container(actions, 'r', "ussss(ttt)(ttt)d") > 0) {
                sd_bus_message *names = NULL, *reply = NULL;
                const char *name, *last = NULL;
                uint64_t start;

                if (sd_bus_message_read(actions, "u", &index) < 0 ||
                                sd_bus_message_skip(actions, "ssss(ttt)(ttt)d") < 0 ||
                                sd_bus_message_exit_container(actions) < 0)
                        bench_die("ListActions' reply");
                if (sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "GetMetricNames", NULL, &names,
                                    "uu", 0, index) < 0 ||
                                sd_bus_message_enter_container(names, 'a', "s") < 0)
                        bench_die("GetMetricNames");
                while (sd_bus_message_read(names, "s", &name) > 0)
                        last = name;
                if (last) {
                        start = bench_now_ns();
                        if (sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "GetMetric", NULL, &reply,
                                            "uus", 0, index, last) < 0)
                                bench_die("GetMetric");
                        total += bench_now_ns() - start;
                        sd_bus_message_unref(reply);
                        n++;
                }
                sd_bus_message_unref(names);
        }
        sd_bus_message_unref(actions);
        *ret_n = n;
        return n > 0 ? total / n : 0;
}

/* The path of one request: report details through the daemon as a whole process, and GetMetric. */
static void bench_path(const char *label, const char *path)
{
        static const char *const args[][4] = {
                { "details", NULL },
                { "details", "--csv", "--print-units=base", "--print-details=all" },
        };
        char bus_arg[800], *object = NULL;
        uint64_t worker_kb = 0, get_metric;
        size_t n_metrics;

        snprintf(bus_arg, sizeof(bus_arg), "--bus=%s", bus_address);
        printf("%s\n", label);
        for (size_t i = 0; i < ELEMENTSOF(args); i++) {
                char *argv[10] = { (char *) ctl, bus_arg, (char *) "report" };
                uint64_t t[PATH_PROCESS_RUNS];
                size_t n = 3;

                for (size_t j = 0; j < ELEMENTSOF(args[i]) && args[i][j]; j++)
                        argv[n++] = (char *) args[i][j];
                argv[n++] = (char *) path;
                argv[n] = NULL;
                for (size_t k = 0; k < PATH_PROCESS_RUNS; k++) {
                        LaunchResult r = launch(argv);

                        if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
                                bench_die("report details");
                        t[k] = r.ns;
                }
                bench_sort_u64(t, PATH_PROCESS_RUNS);
                printf("    report %-55s median %8.2f ms  min %8.2f ms  (%d processes)\n",
                                i == 0 ? "details F" : "details --csv --print-units=base --print-details=all F",
                                ms(t[PATH_PROCESS_RUNS / 2]), ms(t[0]), PATH_PROCESS_RUNS);
        }
        (void) median_load_report(path, &object, &worker_kb);
        get_metric = mean_get_metric(object, &n_metrics);
        printf("    GetMetric over the %zu metrics of action 0: %8.1f us per call\n", n_metrics,
                        (double) get_metric / 1e3);
        get_metric = mean_get_metric_per_action(object, &n_metrics);
        printf("    GetMetric of the last metric of each of the %zu actions: %8.1f us per call\n", n_metrics,
                        (double) get_metric / 1e3);
        (void) sd_bus_call_method(bus, BUS_NAME, object, BUS_REPORT_INTERFACE, "Close", NULL, NULL, NULL);
        free(object);
}

static int path_main(const char *reports_dir)
{
        static const char *const names[] = {
                "iamcoleman_monte-carlo-pi_profile_ncu2020.2.1.ncu-rep",
                "armleth_report_ncu2024.2.1.ncu-rep",
                "bwcurless_FaSTED_Mode44_ncu2023.2.0.ncu-rep",
        };

        printf("The path of report details through the daemon (median and least of %d whole processes):\n",
                        PATH_PROCESS_RUNS);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char path[900];

                snprintf(path, sizeof(path), "%s/%s", reports_dir, names[i]);
                bench_path(names[i], path);
        }
        stop_world();
        stop_launcher();
        return 0;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int main(int argc, char *argv[])
{
        char *objects[REPORTS_MAX], *names[REPORTS_MAX], reports_dir[600], synthetic[700];
        size_t n_objects = 0, n_names = 0;
        uint64_t daemon_start_kb;
        struct dirent *de;
        int status;
        DIR *d;

        if (argc < 6) {
                fprintf(stderr, "usage: %s NVPROFILED NVPROFILECTL WORKER SYNTH CORPUS_DIR [NCU]\n", argv[0]);
                return 2;
        }
        start_launcher();
        ctl = argv[2];
        ncu = argc > 6 ? argv[6] : getenv("NVPROFILED_BENCH_NCU");
        if (!mkdtemp(dir))
                bench_die("mkdtemp");
        start_world(argv[1], argv[3]);
        daemon_start_kb = status_kb(daemon_pid, "VmRSS");

        snprintf(reports_dir, sizeof(reports_dir), "%s/reports", argv[5]);
        if (strempty(getenv("NVPROFILED_BENCH_PATH"))[0])
                return path_main(reports_dir);
        d = opendir(reports_dir);
        if (!d)
                bench_die(reports_dir);
        while ((de = readdir(d)) && n_names < REPORTS_MAX - 1)
                if (strlen(de->d_name) > 8 && strcmp(de->d_name + strlen(de->d_name) - 8, ".ncu-rep") == 0)
                        names[n_names++] = strdup(de->d_name);
        closedir(d);
        qsort(names, n_names, sizeof(char *), compare_names);
        printf("Reports through the daemon and in-process (median of %d loads, of %d whole processes)%s:\n", LOAD_RUNS,
                        PROCESS_RUNS, ncu ? ", and ncu --import" : " (no ncu given)");
        for (size_t i = 0; i < n_names; i++) {
                char path[900];

                snprintf(path, sizeof(path), "%s/%s", reports_dir, names[i]);
                bench_report(names[i], path, objects, &n_objects);
        }
        {
                char src[900];
                pid_t pid;

                snprintf(src, sizeof(src), "%s/extrap_ex-gpu.s10_ncu2020.3.1.ncu-rep", reports_dir);
                snprintf(synthetic, sizeof(synthetic), "%s/synthetic-10000.ncu-rep", dir);
                pid = spawn((char *const[]){ argv[4], src, (char *) SYNTHETIC_RESULTS, synthetic, NULL }, NULL);
                if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        bench_die("the synthetic report");
                bench_report("synthetic: 10,000 results (extrap's)", synthetic, objects, &n_objects);
        }
        printf("Daemon resident memory: %.1f MB at start, %.1f MB holding all %zu reports (their models are the "
               "workers'), peak %.1f MB\n",
                        (double) daemon_start_kb / 1024.0, (double) status_kb(daemon_pid, "VmRSS") / 1024.0, n_objects,
                        (double) status_kb(daemon_pid, "VmHWM") / 1024.0);
        for (size_t i = 0; i < n_objects; i++)
                free(objects[i]);
        for (size_t i = 0; i < n_names; i++)
                free(names[i]);
        stop_world();
        stop_launcher();
        return 0;
}
