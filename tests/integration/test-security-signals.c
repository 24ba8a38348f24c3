/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What signals and object announcements tell every listener (issue 17 items 4 and 5; HACKING.md security
 * rule 6). The real daemon runs as root on a private system-like bus over a fixture /proc; two users the
 * case creates connect as normal clients do: they match every signal from the daemon's name, call
 * Subscribe and GetManagedObjects, and record everything that reaches them. One, the victim, has a
 * process that
 *   gpu-usage:     uses a (fixture NVML) GPU and then matches a system rule, so that its object is
 *                  announced while its usage figures are known;
 *   private-match: matches a rule that only the victim's own 0700 rc file holds.
 * The other, the attacker, must learn nothing of it: no signal or announcement it receives names the
 * victim's process or object, carries its figures or any byte of its private file, and MatchedProcesses
 * does not move for it. Its own process (matched by a system rule, started last) proves that its
 * subscription works; the victim gets everything about its own process (signals and methods), and root
 * gets everything through methods. Root only (it creates the users). */

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "itest.h"
#include "test-bus.h"

#define WAIT_MS 20000
#define USER_PREFIX "nvpsig"
#define SYSTEM_RCD "etc/nvidia/nvidia-application-profiles-rc.d"
#define VICTIM_PID 300
#define OWN_PID 400
/* The victim's GPU memory as NVML reports it: a figure nothing else prints. */
#define VICTIM_BYTES "987654321"

typedef struct Listener {
        const ITestUser *user;
        pid_t pid;
        int out; /* what it received, as text */
        int control; /* the generation of the last Reloaded it must see before it stops */
        GString *seen;
} Listener;

typedef struct SigTest {
        ITest t;
        ITestUser victim, attacker;
        char *token; /* random, per run: in the victim's private file only */
        Listener attacker_ear, victim_ear;
} SigTest;

/* ---- the listener: a child that became a user ---- */

static const char *or_none(const char *s)
{
        return s ? s : "(none)";
}

typedef struct Ear {
        FILE *out;
        uint64_t last_generation;
} Ear;

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Ear *e = userdata;
        const char *path = NULL;
        uint32_t pid, uid;
        uint64_t start;

        fprintf(e->out, "signal %s %s %s to %s\n", or_none(sd_bus_message_get_path(m)),
                        or_none(sd_bus_message_get_interface(m)), or_none(sd_bus_message_get_member(m)),
                        or_none(sd_bus_message_get_destination(m)));
        (void) sd_bus_message_dump(m, e->out, SD_BUS_MESSAGE_DUMP_WITH_HEADER);
        (void) sd_bus_message_rewind(m, true);
        if (sd_bus_message_is_signal(m, BUS_MANAGER_INTERFACE, "ProcessChanged") &&
                        sd_bus_message_read(m, "outu", &path, &pid, &start, &uid) > 0)
                fprintf(e->out, "ProcessChanged pid=%u object=%s\n", pid, path);
        if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded") &&
                        sd_bus_message_read(m, "o", &path) > 0)
                fprintf(e->out, "InterfacesAdded %s\n", path);
        if (sd_bus_message_is_signal(m, BUS_MANAGER_INTERFACE, "Reloaded"))
                (void) sd_bus_message_read(m, "t", &e->last_generation);
        return 0;
}

/* A method call and its outcome, everything in it as text: "NAME: ok ..." or "NAME: error ...". */
static void call_and_dump(sd_bus *bus, FILE *out, const char *what, const char *path, const char *interface,
                const char *member, const char *types, ...)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *call = NULL, *reply = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &call, BUS_NAME, path, interface, member);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(call, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call(bus, call, 0, &error, &reply);
        if (r < 0)
                fprintf(out, "%s: error %s\n", what, error.name ? error.name : strerror(-r));
        else {
                fprintf(out, "%s: ok\n", what);
                (void) sd_bus_message_dump(reply, out, 0);
        }
        fprintf(out, "%s: end\n", what);
        sd_bus_error_free(&error);
        sd_bus_message_unref(call);
        sd_bus_message_unref(reply);
}

static void record_matched_property(sd_bus *bus, FILE *out, const char *when)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        uint32_t n = 0;

        if (sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "MatchedProcesses", &error,
                            'u', &n) < 0)
                fprintf(out, "MatchedProcesses %s: absent\n", when);
        else
                fprintf(out, "MatchedProcesses %s: %u\n", when, n);
        sd_bus_error_free(&error);
}

/* What a normal client does, then everything it receives, until it saw the Reloaded of the generation
 * the parent names; then what it asks at the end. */
static _Noreturn void listen_as(SigTest *s, const ITestUser *u, int out_fd, int control_fd)
{
        Ear e = { 0 };
        sd_bus *bus = NULL;
        uint64_t want = 0;

        itest_become_user(u);
        setenv("SYSTEMD_COLORS", "0", 1);
        e.out = fdopen(out_fd, "w");
        if (!e.out)
                _exit(126);
        if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, s->t.bus_address) < 0 ||
                        sd_bus_set_bus_client(bus, true) < 0 || sd_bus_start(bus) < 0)
                _exit(125);
        /* Every signal of the daemon's, as anybody may ask the bus for them. */
        if (sd_bus_add_match(bus, NULL, "type='signal',sender='" BUS_NAME "'", on_signal, &e) < 0)
                _exit(124);
        call_and_dump(bus, e.out, "Subscribe", BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Subscribe", NULL);
        record_matched_property(bus, e.out, "before");
        fprintf(e.out, "ready\n");
        fflush(e.out);

        for (;;) {
                struct pollfd p[2] = {
                        { .fd = sd_bus_get_fd(bus), .events = (short) sd_bus_get_events(bus) },
                        { .fd = control_fd, .events = POLLIN },
                };
                char buf[32] = { 0 };
                int r;

                while ((r = sd_bus_process(bus, NULL)) > 0)
                        ;
                if (r < 0)
                        _exit(123);
                fflush(e.out);
                if (want > 0 && e.last_generation >= want)
                        break;
                if (poll(p, 2, 100) < 0)
                        _exit(122);
                if ((p[1].revents & POLLIN) && read(control_fd, buf, sizeof(buf) - 1) > 0)
                        want = g_ascii_strtoull(buf, NULL, 10);
        }

        record_matched_property(bus, e.out, "after");
        call_and_dump(bus, e.out, "CountMatchedProcesses", BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                        "CountMatchedProcesses", NULL);
        call_and_dump(bus, e.out, "GetManagedObjects", BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                        "GetManagedObjects", NULL);
        call_and_dump(bus, e.out, "ListProcesses", BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListProcesses", NULL);
        call_and_dump(bus, e.out, "ListGpuProcesses", BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "ListGpuProcesses", NULL);
        call_and_dump(bus, e.out, "GetProcess", BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "GetProcess", "ut",
                        (uint32_t) VICTIM_PID, (uint64_t) 0);
        fclose(e.out);
        sd_bus_flush_close_unref(bus);
        _exit(0);
}

static void listener_start(SigTest *s, Listener *l, const ITestUser *u)
{
        int out[2], control[2];
        char buf[4096];

        *l = (Listener){ .user = u, .seen = g_string_new(NULL) };
        g_assert_cmpint(pipe2(out, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(control, O_CLOEXEC), ==, 0);
        l->pid = fork();
        g_assert_cmpint(l->pid, >=, 0);
        if (l->pid == 0) {
                close(out[0]);
                close(control[1]);
                listen_as(s, u, out[1], control[0]);
        }
        close(out[1]);
        close(control[0]);
        l->out = out[0];
        l->control = control[1];

        /* Subscribed and listening once it says so. */
        while (!strstr(l->seen->str, "ready\n")) {
                struct pollfd p = { .fd = l->out, .events = POLLIN };
                ssize_t n;

                g_assert_cmpint(poll(&p, 1, WAIT_MS), ==, 1);
                n = read(l->out, buf, sizeof(buf));
                g_assert_cmpint(n, >, 0);
                g_string_append_len(l->seen, buf, n);
        }
}

/* Tells the listener the generation to wait for, and collects everything it says until it ends. */
static void listener_finish(Listener *l, uint64_t generation)
{
        g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT "\n", generation);
        char buf[65536];
        ssize_t n;
        int status;

        g_assert_cmpint(write(l->control, text, strlen(text)), ==, (ssize_t) strlen(text));
        close(l->control);
        for (;;) {
                struct pollfd p = { .fd = l->out, .events = POLLIN };

                g_assert_cmpint(poll(&p, 1, WAIT_MS), ==, 1);
                n = read(l->out, buf, sizeof(buf));
                g_assert_cmpint(n, >=, 0);
                if (n == 0)
                        break;
                g_string_append_len(l->seen, buf, n);
        }
        close(l->out);
        g_assert_cmpint(waitpid(l->pid, &status, 0), ==, l->pid);
        g_test_message("%s was told:\n%s", l->user->name, l->seen->str);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

/* ---- the world ---- */

/* The victim's home below --root (0700, as is .nv) with its private rc file (0600). */
static void write_victim_home(SigTest *s, const char *rc)
{
        g_free(itest_write_home(&s->t, s->victim.name, &s->victim, rc));
}

static void sig_setup(SigTest *s)
{
        *s = (SigTest){ 0 };
        itest_create_user(USER_PREFIX, &s->victim);
        itest_create_user(USER_PREFIX, &s->attacker);
        s->token = g_strdup_printf("%08x%08x", g_random_int(), g_random_int());
        itest_setup(&s->t);
        itest_use_fixture_proc(&s->t);
        /* The attacker's own process matches this system rule: what proves that it is told anything. */
        itest_write(&s->t, SYSTEM_RCD "/10-own",
                        "{\"rules\": [{\"pattern\": \"nvptest-own\", \"profile\": {\"name\": \"Own\", \"settings\": "
                        "[\"GLShaderDiskCache\", false]}}]}\n");
}

static bool tracked_with(SigTest *s, pid_t pid, const char *profiles)
{
        g_autofree char *p = itest_tracked_profiles(&s->t, pid);
        return p && g_str_equal(p, profiles);
}

/* Starts the attacker's own process last, and lets both listeners end after everything before it. */
static void sig_finish_events(SigTest *s)
{
        uint64_t generation;

        itest_fixture_process(&s->t, OWN_PID, 4000, s->attacker.uid, "own", "/usr/bin/nvptest-own", NULL);
        ITEST_WAIT_FOR(tracked_with(s, OWN_PID, "Own"), WAIT_MS);
        g_assert_true(tracked_with(s, OWN_PID, "Own"));

        /* A reload answered means its Reloaded is on its way, after every signal before it. */
        g_assert_cmpint(sd_bus_call_method(s->t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", NULL,
                                        NULL, NULL),
                        >=, 0);
        generation = itest_generation(&s->t);
        g_assert_cmpuint(generation, >, 0);
        listener_finish(&s->attacker_ear, generation);
        listener_finish(&s->victim_ear, generation);
}

static void sig_teardown(SigTest *s)
{
        itest_teardown(&s->t);
        g_string_free(s->attacker_ear.seen, TRUE);
        g_string_free(s->victim_ear.seen, TRUE);
        g_free(s->token);
}

static char *object_prefix(pid_t pid)
{
        return g_strdup_printf(BUS_PROCESS_PREFIX "/%i_", (int) pid);
}

/* The section of what a listener said that a call's outcome fills ("NAME: ok" up to "NAME: end"). */
static char *call_outcome(const Listener *l, const char *what)
{
        g_autofree char *begin = g_strdup_printf("\n%s: ", what), *end = g_strdup_printf("\n%s: end\n", what);
        const char *b = strstr(l->seen->str, begin), *e = b ? strstr(b, end) : NULL;

        g_assert_nonnull(e);
        return g_strndup(b + 1, e - b);
}

/* The attacker was told nothing of pid: no signal, announcement, object or count moved for it, and it
 * got its own process's signals, so it was listening. */
static void assert_attacker_told_nothing_of(SigTest *s, pid_t pid)
{
        const char *seen = s->attacker_ear.seen->str;
        g_autofree char *victim_object = object_prefix(pid), *own_object = object_prefix(OWN_PID);
        g_autofree char *changed = g_strdup_printf("ProcessChanged pid=%i ", (int) pid);
        g_autofree char *own_changed = g_strdup_printf("ProcessChanged pid=%i object=%s", OWN_PID, own_object);
        g_autofree char *own_added = g_strdup_printf("InterfacesAdded %s", own_object);
        g_autofree char *before = NULL, *after = NULL, *matched = NULL;

        itest_assert_absent(s->attacker.name, seen, victim_object);
        itest_assert_absent(s->attacker.name, seen, changed);
        itest_assert_absent(s->attacker.name, seen, VICTIM_BYTES);
        itest_assert_absent(s->attacker.name, seen, s->token);
        itest_assert_absent(s->attacker.name, seen, "MatchedProcesses\"");

        /* What every caller reads did not move with the victim's match. */
        before = g_strdup(strstr(seen, "MatchedProcesses before: "));
        after = g_strdup(strstr(seen, "MatchedProcesses after: "));
        g_assert_nonnull(before);
        g_assert_nonnull(after);
        *strchr(before, '\n') = '\0';
        *strchr(after, '\n') = '\0';
        g_assert_cmpstr(before + strlen("MatchedProcesses before: "), ==, after + strlen("MatchedProcesses after: "));

        /* It listened, and heard about its own process: its subscription works. */
        g_assert_nonnull(strstr(seen, "Subscribe: ok"));
        g_assert_nonnull(strstr(seen, own_added));
        g_assert_nonnull(strstr(seen, own_changed));
        /* Its own count is its own process. */
        matched = call_outcome(&s->attacker_ear, "CountMatchedProcesses");
        g_assert_nonnull(strstr(matched, "UINT32 1;"));
}

/* The victim heard of its own process, object and announcement included, and nothing of the
 * attacker's. */
static void assert_victim_told(SigTest *s, pid_t pid)
{
        const char *seen = s->victim_ear.seen->str;
        g_autofree char *object = object_prefix(pid), *own_object = object_prefix(OWN_PID);
        g_autofree char *added = g_strdup_printf("InterfacesAdded %s", object);
        g_autofree char *changed = g_strdup_printf("ProcessChanged pid=%i object=%s", (int) pid, object);
        g_autofree char *objects = call_outcome(&s->victim_ear, "GetManagedObjects");

        g_assert_nonnull(strstr(seen, "Subscribe: ok"));
        g_assert_nonnull(strstr(seen, added));
        g_assert_nonnull(strstr(seen, changed));
        g_assert_nonnull(strstr(objects, object));
        itest_assert_absent(s->victim.name, seen, own_object);
}

/* Root's view through methods: the process, its object and its count. */
static unsigned root_matched(SigTest *s)
{
        sd_bus_message *reply = NULL;
        uint32_t n = 0;

        g_assert_cmpint(sd_bus_call_method(s->t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "CountMatchedProcesses", NULL, &reply, NULL),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "u", &n), >, 0);
        sd_bus_message_unref(reply);
        return n;
}

static char *root_calls(SigTest *s, const char *interface, const char *member)
{
        sd_bus_message *reply = NULL;
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        g_assert_cmpint(sd_bus_call_method(s->t.bus, BUS_NAME, BUS_ROOT_PATH, interface, member, NULL, &reply, NULL),
                        >=, 0);
        f = open_memstream(&text, &size);
        g_assert_nonnull(f);
        g_assert_cmpint(sd_bus_message_dump(reply, f, 0), >=, 0);
        fclose(f);
        sd_bus_message_unref(reply);
        return text;
}

static bool root_sees_usage(SigTest *s)
{
        g_autofree char *text = root_calls(s, BUS_USAGE_INTERFACE, "ListGpuProcesses");
        return strstr(text, VICTIM_BYTES);
}

/* (a) Another user's process uses a GPU; its object is announced (a system rule matches it) after its
 * figures are known. */
static void test_gpu_usage(void)
{
        SigTest s;
        g_autofree char *nvml = NULL, *config = NULL, *gpu = NULL, *victim_gpu = NULL;
        g_autofree char *victim_objects = NULL, *attacker_objects = NULL, *victim_object = object_prefix(VICTIM_PID);
        sd_bus_message *reply = NULL;
        int watch;

        ITEST_REQUIRE_ROOT("needs root: two unprivileged users to create, and their processes' files to read");
        sig_setup(&s);

        itest_fixture_process(&s.t, VICTIM_PID, 3000, s.victim.uid, "gpu-victim", "/usr/bin/nvptest-gpu-victim", NULL);
        nvml = g_build_filename(s.t.dir, "nvml.script", NULL);
        g_assert_true(g_file_set_contents(nvml,
                        "device name=\"NVIDIA RTX A2000\" uuid=GPU-1 bus=00000000:01:00.0 gpu=45 mem=30 used=1000 "
                        "reserved=24 total=8000\n"
                        "compute dev=0 " G_STRINGIFY(VICTIM_PID) "=" VICTIM_BYTES "\n",
                        -1, NULL));
        g_setenv("NVPROFILED_NVML_FIXTURE_SCRIPT", nvml, TRUE);
        config = g_strdup_printf("[ProcessWatch]\nSettleSec=0\nPollIntervalSec=100ms\n"
                                 "[Usage]\nMinIntervalSec=10ms\nRescanIntervalSec=100ms\nNVMLLibrary=%s\n",
                        test_env_or_fail("NVPROFILED_NVML_FIXTURE"));
        itest_start_daemon(&s.t, config);
        ITEST_WAIT_FOR(tracked_with(&s, VICTIM_PID, ""), WAIT_MS);
        g_assert_true(tracked_with(&s, VICTIM_PID, ""));

        listener_start(&s, &s.attacker_ear, &s.attacker);
        listener_start(&s, &s.victim_ear, &s.victim);

        /* Root watches: the victim's figures are sampled. */
        g_assert_cmpint(sd_bus_call_method(s.t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", NULL,
                                        &reply, "t", (uint64_t) 20000),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "h", &watch), >, 0);
        watch = fcntl(watch, F_DUPFD_CLOEXEC, 3);
        g_assert_cmpint(watch, >=, 0);
        sd_bus_message_unref(reply);
        ITEST_WAIT_FOR(root_sees_usage(&s), WAIT_MS);
        g_assert_true(root_sees_usage(&s));

        /* Now a system rule matches it: its object appears with its figures. */
        itest_write(&s.t, SYSTEM_RCD "/20-gpu",
                        "{\"rules\": [{\"pattern\": \"nvptest-gpu-victim\", \"profile\": {\"name\": \"Gpu\", "
                        "\"settings\": [\"GLThreadedOptimizations\", true]}}]}\n");
        g_assert_cmpint(sd_bus_call_method(s.t.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", NULL,
                                        NULL, NULL),
                        >=, 0);
        ITEST_WAIT_FOR(tracked_with(&s, VICTIM_PID, "Gpu"), WAIT_MS);
        g_assert_true(tracked_with(&s, VICTIM_PID, "Gpu"));

        sig_finish_events(&s);
        close(watch);

        assert_attacker_told_nothing_of(&s, VICTIM_PID);
        attacker_objects = call_outcome(&s.attacker_ear, "GetManagedObjects");
        itest_assert_absent(s.attacker.name, attacker_objects, victim_object);
        /* The attacker's own methods refuse the victim's usage, as before. */
        gpu = call_outcome(&s.attacker_ear, "ListGpuProcesses");
        itest_assert_absent(s.attacker.name, gpu, VICTIM_BYTES);

        /* The victim: its object's announcement carried its figures, and its methods give them. */
        assert_victim_told(&s, VICTIM_PID);
        g_assert_nonnull(strstr(s.victim_ear.seen->str, VICTIM_BYTES));
        victim_gpu = call_outcome(&s.victim_ear, "ListGpuProcesses");
        g_assert_nonnull(strstr(victim_gpu, VICTIM_BYTES));
        victim_objects = call_outcome(&s.victim_ear, "GetManagedObjects");
        g_assert_nonnull(strstr(victim_objects, VICTIM_BYTES));

        /* Root, through methods. */
        g_assert_true(root_sees_usage(&s));
        g_assert_cmpuint(root_matched(&s), ==, 2);

        sig_teardown(&s);
}

/* (b) Another user's process matches a rule that only that user's 0700 rc file holds. */
static void test_private_match(void)
{
        SigTest s;
        g_autofree char *exe = NULL, *rc = NULL, *home_env = NULL, *profile = NULL, *victim_object = NULL;
        g_autofree char *attacker_objects = NULL, *attacker_get = NULL, *victim_list = NULL, *victim_get = NULL;
        g_autofree char *root_list = NULL, *victim_matched = NULL;

        ITEST_REQUIRE_ROOT("needs root: two unprivileged users to create, and their files to read as them");
        sig_setup(&s);

        /* Neither the pattern nor the profile is anywhere but in the victim's own file; the process's comm
         * (public, as in /proc) says nothing of them. */
        exe = g_strdup_printf("/usr/bin/nvptest-priv-%s", s.token);
        profile = g_strdup_printf("Private-%s", s.token);
        rc = g_strdup_printf("{\"rules\": [{\"pattern\": \"%s\", \"profile\": {\"name\": \"%s\", \"settings\": "
                             "[\"GLSharpenValue\", 7]}}]}\n",
                        exe + strlen("/usr/bin/"), profile);
        write_victim_home(&s, rc);
        home_env = g_strdup_printf("HOME=/home/%s", s.victim.name);

        itest_start_daemon(&s.t, "[ProcessWatch]\nSettleSec=0\nPollIntervalSec=100ms\n");
        listener_start(&s, &s.attacker_ear, &s.attacker);
        listener_start(&s, &s.victim_ear, &s.victim);

        itest_fixture_process_env(&s.t, VICTIM_PID, 3000, s.victim.uid, "victim-app", exe, NULL,
                        (const char *const[]){ home_env, NULL });
        ITEST_WAIT_FOR(tracked_with(&s, VICTIM_PID, profile), WAIT_MS);
        g_assert_true(tracked_with(&s, VICTIM_PID, profile));

        sig_finish_events(&s);

        assert_attacker_told_nothing_of(&s, VICTIM_PID);
        itest_assert_absent(s.attacker.name, s.attacker_ear.seen->str, "Private-");
        victim_object = object_prefix(VICTIM_PID);
        attacker_objects = call_outcome(&s.attacker_ear, "GetManagedObjects");
        itest_assert_absent(s.attacker.name, attacker_objects, victim_object);
        /* Methods still refuse it the details, and name no object for it. */
        attacker_get = call_outcome(&s.attacker_ear, "GetProcess");
        g_assert_nonnull(strstr(attacker_get, "GetProcess: error " SD_BUS_ERROR_ACCESS_DENIED));

        /* The victim: its signals, and its methods give the private profile. */
        assert_victim_told(&s, VICTIM_PID);
        victim_get = call_outcome(&s.victim_ear, "GetProcess");
        g_assert_nonnull(strstr(victim_get, profile));
        victim_list = call_outcome(&s.victim_ear, "ListProcesses");
        g_assert_nonnull(strstr(victim_list, victim_object));
        victim_matched = call_outcome(&s.victim_ear, "CountMatchedProcesses");
        g_assert_nonnull(strstr(victim_matched, "UINT32 1;"));

        /* Root, through methods. */
        root_list = root_calls(&s, BUS_MANAGER_INTERFACE, "ListProcesses");
        g_assert_nonnull(strstr(root_list, profile));
        g_assert_nonnull(strstr(root_list, victim_object));
        g_assert_cmpuint(root_matched(&s), ==, 2);

        sig_teardown(&s);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/security-signals/gpu-usage", test_gpu_usage);
        g_test_add_func("/security-signals/private-match", test_private_match);
        return g_test_run();
}
