/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus service's objects and queries: who sees which process object, the order of InterfacesAdded and
 * ProcessChanged (to a subscriber), Unsubscribe, GetProcess, the privacy check before /proc in ExplainProcess,
 * ListErrors without repeats, and a second instance that stops before looking at processes. Needs root (real /proc, the
 * proc connector, a user made with useradd). */

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-signatures.h"
#include "bus-world.h"
#include "macro.h"

#define TEST_USER "nvptest-busobj"
#define RC_FILE "etc/nvidia/nvidia-application-profiles-rc"

static const char *config_text(BusWorld *w, const char *extra)
{
        static char buf[1024];
        g_autofree char *dev = g_build_filename(w->dir, "dev", NULL);

        g_assert_cmpint(g_mkdir_with_parents(dev, 0755), ==, 0);
        snprintf(buf, sizeof(buf),
                        "[ProcessWatch]\nDeviceDirectory=%s\nSettleSec=0\n[Profiles]\nReloadCoalesceSec=100ms\n%s", dev,
                        extra ? extra : "");
        return buf;
}

static void write_rules(BusWorld *w)
{
        world_write(w, RC_FILE,
                        "{\"rules\": [\n"
                        "  {\"pattern\": \"nvptest-objroot\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-objuser\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-order\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-getproc\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-unsub\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-resub\", \"profile\": \"Shared\"},\n"
                        "  {\"pattern\": \"nvptest-dangling\", \"profile\": \"NowhereDefined\"}\n"
                        "],\n"
                        "\"profiles\": [{\"name\": \"Shared\", \"settings\": [\"GLSharpenEnable\", true]}]}\n");
}

/* ---- which objects a caller sees ---- */

typedef struct Paths {
        const char *own, *other;
} Paths;

static bool managed_objects_has(sd_bus *bus, const char *path, bool *ret_ok)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        bool found = false;
        int r;

        *ret_ok = false;
        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                        &e, &reply, "");
        sd_bus_error_free(&e);
        if (r < 0 || sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") < 0)
                return false;
        while ((r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                const char *o;

                if (sd_bus_message_read(reply, "o", &o) < 0 || sd_bus_message_skip(reply, "a{sa{sv}}") < 0 ||
                                sd_bus_message_exit_container(reply) < 0)
                        return false;
                found = found || streq(o, path);
        }
        *ret_ok = r >= 0;
        return found;
}

/* The names of the Process properties an object serves, comma-joined, or NULL. */
static char *property_names(sd_bus *bus, const char *path, int *ret_outcome)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        GString *names = g_string_new(NULL);
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll", &e, &reply, "s",
                        BUS_PROCESS_INTERFACE);
        *ret_outcome = world_outcome(r, &e);
        sd_bus_error_free(&e);
        if (r < 0 || sd_bus_message_enter_container(reply, 'a', "{sv}") < 0) {
                g_string_free(names, TRUE);
                return NULL;
        }
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                const char *name;

                if (sd_bus_message_read(reply, "s", &name) < 0 || sd_bus_message_skip(reply, "v") < 0 ||
                                sd_bus_message_exit_container(reply) < 0)
                        break;
                g_string_append_printf(names, "%s%s", names->len ? "," : "", name);
        }
        return g_string_free(names, FALSE);
}

/* Exit codes say which check failed, so the parent's assertion names it. */
static int check_objects_as_user(sd_bus *bus, void *userdata)
{
        const Paths *p = userdata;
        g_autofree char *own = NULL, *other = NULL;
        bool ok;
        int outcome;

        if (!managed_objects_has(bus, p->own, &ok) || !ok)
                return 1; /* its own object is listed */
        if (managed_objects_has(bus, p->other, &ok) || !ok)
                return 2; /* root's is not */
        own = property_names(bus, p->own, &outcome);
        if (!own || !streq(own, "Pid,StartTime,Uid,Comm,GpuUser"))
                return 3; /* only the public properties, the same for everyone */
        other = property_names(bus, p->other, &outcome);
        if (other || outcome != CALL_UNKNOWN_OBJECT)
                return 4; /* root's object cannot be looked up */
        return 0;
}

static void test_objects_visible_to_owner_and_root(void)
{
        BusWorld w;
        g_autofree char *root_path = NULL, *user_path = NULL;
        uid_t uid = world_test_user(TEST_USER);
        GPid root_pid, user_pid;
        bool ok;

        world_setup(&w);
        write_rules(&w);
        world_start_daemon(&w, config_text(&w, NULL), NULL);
        root_pid = world_spawn(&w, "nvptest-objroot", 0, true);
        user_pid = world_spawn(&w, "nvptest-objuser", uid, true);
        root_path = world_object_of(&w, root_pid);
        user_path = world_object_of(&w, user_pid);

        /* Root sees both. */
        g_assert_true(managed_objects_has(w.bus, root_path, &ok));
        g_assert_true(ok);
        g_assert_true(managed_objects_has(w.bus, user_path, &ok));
        /* The user sees its own only. */
        g_assert_cmpint(world_call_as(&w, uid, check_objects_as_user, &(Paths){ user_path, root_path }), ==, 0);

        world_kill(root_pid);
        world_kill(user_pid);
        world_teardown(&w);
}

/* ---- InterfacesAdded before ProcessChanged ---- */

typedef struct Order {
        pid_t pid;
        char *path; /* from the first ProcessChanged naming an object */
        int added_at, changed_at, n;
        GPtrArray *added; /* paths, in order */
} Order;

static int on_interfaces_added(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Order *o = userdata;
        const char *path;

        if (sd_bus_message_read(m, "o", &path) >= 0)
                g_ptr_array_add(o->added, g_strdup(path));
        o->n++;
        return 0;
}

static int on_process_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Order *o = userdata;
        const char *path;
        uint32_t pid, uid;
        uint64_t start;

        o->n++;
        if (sd_bus_message_read(m, "outu", &path, &pid, &start, &uid) < 0 || (pid_t) pid != o->pid ||
                        streq(path, "/") || o->path)
                return 0;
        o->path = g_strdup(path);
        /* Was the object announced before this signal? */
        o->added_at = -1;
        for (guint i = 0; i < o->added->len; i++)
                if (g_str_equal(o->added->pdata[i], path))
                        o->added_at = (int) i;
        return 0;
}

static void test_interfaces_added_before_process_changed(void)
{
        BusWorld w;
        Order o = { .added = g_ptr_array_new_with_free_func(g_free) };
        gint64 deadline;
        GPid pid;

        world_setup(&w);
        write_rules(&w);
        world_start_daemon(&w, config_text(&w, NULL), NULL);
        g_assert_cmpint(sd_bus_match_signal(w.bus, NULL, BUS_NAME, BUS_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                                        "InterfacesAdded", on_interfaces_added, &o),
                        >=, 0);
        g_assert_cmpint(sd_bus_match_signal(w.bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ProcessChanged", on_process_changed, &o),
                        >=, 0);
        /* Signals about processes go to subscribers only. */
        g_assert_cmpint(sd_bus_call_method(w.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Subscribe", NULL,
                                        NULL, NULL),
                        >=, 0);

        pid = world_spawn(&w, "nvptest-order", 0, false);
        o.pid = pid;
        deadline = g_get_monotonic_time() + WORLD_WAIT_MS * 1000;
        while (!o.path && g_get_monotonic_time() < deadline) {
                int r = sd_bus_process(w.bus, NULL);
                g_assert_cmpint(r, >=, 0);
                if (r == 0)
                        (void) sd_bus_wait(w.bus, 100 * 1000);
        }
        g_assert_nonnull(o.path);
        g_assert_cmpint(o.added_at, >=, 0);

        g_free(o.path);
        g_ptr_array_unref(o.added);
        world_kill(pid);
        world_teardown(&w);
}

/* ---- Unsubscribe ---- */

typedef struct Changes {
        GArray *pids; /* of every ProcessChanged, in order */
} Changes;

static int on_change(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Changes *c = userdata;
        const char *path;
        uint32_t pid, uid;
        uint64_t start;

        if (sd_bus_message_read(m, "outu", &path, &pid, &start, &uid) >= 0)
                g_array_append_val(c->pids, pid);
        return 0;
}

static void call_manager(BusWorld *w, const char *method)
{
        g_assert_cmpint(sd_bus_call_method(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, method, NULL, NULL,
                                        NULL),
                        >=, 0);
}

static bool changes_have(const Changes *c, pid_t pid)
{
        for (guint i = 0; i < c->pids->len; i++)
                if ((pid_t) g_array_index(c->pids, uint32_t, i) == pid)
                        return true;
        return false;
}

/* After Unsubscribe nothing more comes; subscribing again (twice: once counts) brings signals back. */
static void test_unsubscribe(void)
{
        BusWorld w;
        Changes c = { .pids = g_array_new(FALSE, FALSE, sizeof(uint32_t)) };
        gint64 deadline;
        GPid gone, back;

        world_setup(&w);
        write_rules(&w);
        world_start_daemon(&w, config_text(&w, NULL), NULL);
        g_assert_cmpint(sd_bus_match_signal(w.bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ProcessChanged", on_change, &c),
                        >=, 0);
        call_manager(&w, "Subscribe");
        call_manager(&w, "Unsubscribe");
        call_manager(&w, "Unsubscribe"); /* nothing to end: no error */

        gone = world_spawn(&w, "nvptest-unsub", 0, true);
        call_manager(&w, "Subscribe");
        call_manager(&w, "Subscribe");
        back = world_spawn(&w, "nvptest-resub", 0, false);
        /* Signals from one sender come in order: once the second process's is here, the first's would
         * have been. */
        deadline = g_get_monotonic_time() + WORLD_WAIT_MS * 1000;
        while (!changes_have(&c, back) && g_get_monotonic_time() < deadline) {
                int r = sd_bus_process(w.bus, NULL);
                g_assert_cmpint(r, >=, 0);
                if (r == 0)
                        (void) sd_bus_wait(w.bus, 100 * 1000);
        }
        g_assert_true(changes_have(&c, back));
        g_assert_false(changes_have(&c, gone));
        /* Subscribed twice, told once. */
        g_assert_cmpuint(c.pids->len, ==, 1);

        g_array_unref(c.pids);
        world_kill(gone);
        world_kill(back);
        world_teardown(&w);
}

/* ---- GetProcess ---- */

typedef struct Resolution {
        char *state;
        GPtrArray *facts; /* keys */
        GPtrArray *settings; /* keys */
} Resolution;

static void resolution_clear(Resolution *r)
{
        g_free(r->state);
        if (r->facts)
                g_ptr_array_unref(r->facts);
        if (r->settings)
                g_ptr_array_unref(r->settings);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Resolution, resolution_clear)

static bool has(GPtrArray *a, const char *s)
{
        for (guint i = 0; a && i < a->len; i++)
                if (g_str_equal(a->pdata[i], s))
                        return true;
        return false;
}

static void read_resolution(sd_bus_message *m, Resolution *ret)
{
        const char *s;

        ret->facts = g_ptr_array_new_with_free_func(g_free);
        ret->settings = g_ptr_array_new_with_free_func(g_free);
        g_assert_cmpint(sd_bus_message_enter_container(m, 'r', BUS_RESOLUTION_FIELDS), >, 0);
        g_assert_cmpint(sd_bus_message_read(m, "s", &s), >, 0);
        ret->state = g_strdup(s);
        g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "{sv}"), >, 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                g_assert_cmpint(sd_bus_message_read(m, "s", &s), >, 0);
                g_ptr_array_add(ret->facts, g_strdup(s));
                g_assert_cmpint(sd_bus_message_skip(m, "v"), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
        }
        g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
        g_assert_cmpint(sd_bus_message_skip(m, "a(" BUS_RULE_RESULT_FIELDS ")"), >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(m, 'a', "(" BUS_SETTING_FIELDS ")"), >, 0);
        while (sd_bus_message_enter_container(m, 'r', BUS_SETTING_FIELDS) > 0) {
                g_assert_cmpint(sd_bus_message_read(m, "s", &s), >, 0);
                g_ptr_array_add(ret->settings, g_strdup(s));
                g_assert_cmpint(sd_bus_message_skip(m, &BUS_SETTING_FIELDS[1]), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(m), >=, 0);
        }
}

typedef struct PidArg {
        uint32_t pid;
        uint64_t start_time;
        const char *method;
} PidArg;

static int call_pid_method(sd_bus *bus, void *userdata)
{
        const PidArg *a = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r, outcome;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, a->method, &e, &reply, "ut", a->pid,
                        a->start_time);
        outcome = world_outcome(r, &e);
        if (outcome == CALL_OTHER_ERROR)
                g_printerr("%s: %s\n", a->method, e.name);
        sd_bus_error_free(&e);
        return outcome;
}

static uint64_t start_time_of(BusWorld *w, const char *path)
{
        uint64_t start = 0;
        sd_bus_error e = SD_BUS_ERROR_NULL;

        g_assert_cmpint(sd_bus_get_property_trivial(
                                        w->bus, BUS_NAME, path, BUS_PROCESS_INTERFACE, "StartTime", &e, 't', &start),
                        >=, 0);
        sd_bus_error_free(&e);
        return start;
}

static void test_get_process(void)
{
        BusWorld w;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        g_auto(Resolution) res = { 0 };
        g_autofree char *path = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uid_t uid = world_test_user(TEST_USER);
        uint64_t start;
        GPid pid;

        world_setup(&w);
        write_rules(&w);
        world_start_daemon(&w, config_text(&w, NULL), NULL);
        pid = world_spawn(&w, "nvptest-getproc", 0, true);
        path = world_object_of(&w, pid);
        start = start_time_of(&w, path);

        /* Root gets the tracked result: the profile's setting, and facts without what is not kept. */
        g_assert_cmpint(sd_bus_call_method(w.bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "GetProcess", &e,
                                        &reply, "ut", (uint32_t) pid, start),
                        >=, 0);
        read_resolution(reply, &res);
        g_assert_cmpstr(res.state, ==, "enabled");
        g_assert_true(has(res.settings, "GLSharpenEnable"));
        g_assert_true(has(res.facts, "procname"));
        g_assert_true(has(res.facts, "pid"));
        g_assert_false(has(res.facts, "dsos"));

        /* Another user: refused. A different start time or an untracked pid: no such process. */
        g_assert_cmpint(world_call_as(&w, uid, call_pid_method, &(PidArg){ pid, start, "GetProcess" }), ==,
                        CALL_ACCESS_DENIED);
        g_assert_cmpint(world_call_as(&w, 0, call_pid_method, &(PidArg){ pid, start + 1, "GetProcess" }), ==,
                        CALL_NO_SUCH_PROCESS);
        g_assert_cmpint(world_call_as(&w, 0, call_pid_method, &(PidArg){ INT32_MAX - 1, 0, "GetProcess" }), ==,
                        CALL_NO_SUCH_PROCESS);
        g_assert_cmpint(world_call_as(&w, 0, call_pid_method, &(PidArg){ 0, 0, "GetProcess" }), ==, CALL_INVALID_ARGS);

        world_kill(pid);
        world_teardown(&w);
}

/* ---- ExplainProcess checks privacy before reading /proc ---- */

#define FIXTURE_PID 999999

/* A /proc with one root process whose cmdline cannot be read (a directory): reading it fails with
 * EISDIR, so an AccessDenied answer proves the daemon did not read it for the caller. */
static char *make_proc_fixture(BusWorld *w)
{
        g_autofree char *pid_dir = g_strdup_printf("%s/proc/%d", w->dir, FIXTURE_PID);
        g_autofree char *stat = g_build_filename(pid_dir, "stat", NULL);
        g_autofree char *status = g_build_filename(pid_dir, "status", NULL);
        g_autofree char *comm = g_build_filename(pid_dir, "comm", NULL);
        g_autofree char *cmdline = g_build_filename(pid_dir, "cmdline", NULL);
        g_autofree char *stat_text = NULL;

        g_assert_cmpint(g_mkdir_with_parents(cmdline, 0755), ==, 0);
        stat_text = g_strdup_printf("%d (nvptest-fix) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4242 0 0\n", FIXTURE_PID);
        g_assert_true(g_file_set_contents(stat, stat_text, -1, NULL));
        g_assert_true(g_file_set_contents(
                        status, "Name:\tnvptest-fix\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\n", -1, NULL));
        g_assert_true(g_file_set_contents(comm, "nvptest-fix\n", -1, NULL));
        return g_strdup_printf("--proc=%s/proc", w->dir);
}

static void test_explain_checks_privacy_first(void)
{
        BusWorld w;
        g_autofree char *proc_arg = NULL;
        uid_t uid = world_test_user(TEST_USER);

        world_setup(&w);
        write_rules(&w);
        proc_arg = make_proc_fixture(&w);
        world_start_daemon(&w, config_text(&w, NULL), (const char *const[]){ proc_arg, NULL });

        /* Root's explanation reads /proc and fails on the unreadable cmdline: the fixture bites... */
        g_assert_cmpint(world_call_as(&w, 0, call_pid_method, &(PidArg){ FIXTURE_PID, 0, "ExplainProcess" }), ==,
                        CALL_OTHER_ERROR);
        /* ...and another user is refused before anything is read. */
        g_assert_cmpint(world_call_as(&w, uid, call_pid_method, &(PidArg){ FIXTURE_PID, 0, "ExplainProcess" }), ==,
                        CALL_ACCESS_DENIED);
        world_teardown(&w);
}

/* ---- ListErrors says each message once ---- */

static unsigned count_errors(BusWorld *w, const char *message_prefix)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        unsigned n = 0;
        int r;

        g_assert_cmpint(sd_bus_call_method(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListErrors", &e,
                                        &reply, ""),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(sssuus)"), >, 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', "sssuus")) > 0) {
                const char *file, *state, *severity, *message;
                uint32_t line, column;

                g_assert_cmpint(sd_bus_message_read(
                                                reply, "sssuus", &file, &state, &severity, &line, &column, &message),
                                >, 0);
                if (g_str_has_prefix(message, message_prefix))
                        n++;
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        g_assert_cmpint(r, >=, 0);
        return n;
}

static void load_home(BusWorld *w, const char *home)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        g_autofree char *keep = g_strdup_printf("%s/.keep", home + 1);
        int r;

        world_write(w, keep, "");
        r = sd_bus_call_method(
                        w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "ListRules", &e, &reply, "s", home);
        if (r < 0)
                g_test_message("ListRules(%s): %s: %s", home, e.name, e.message);
        g_assert_cmpint(r, >=, 0);
        sd_bus_error_free(&e);
}

static void test_list_errors_once(void)
{
        BusWorld w;

        world_setup(&w);
        write_rules(&w);
        world_start_daemon(&w, config_text(&w, "DriverVersion=\n"), NULL);
        /* Three configurations: the system one and two homes, each with the same whole-configuration note
         * (no driver version) and the same dangling reference of the system file. */
        load_home(&w, "/home/a");
        load_home(&w, "/home/b");
        g_assert_cmpuint(count_errors(&w, "NVIDIA driver version unknown"), ==, 1);
        g_assert_cmpuint(count_errors(&w, "rule refers to profile \"NowhereDefined\""), ==, 1);
        world_teardown(&w);
}

/* ---- a second instance ---- */

static char *name_owner(BusWorld *w)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *owner;

        g_assert_cmpint(sd_bus_call_method(w->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "GetNameOwner", &e, &reply, "s", BUS_NAME),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_read(reply, "s", &owner), >, 0);
        return g_strdup(owner);
}

static void test_second_instance_stops_first(void)
{
        BusWorld w;
        g_autofree char *owner = NULL, *owner_after = NULL, *log = NULL, *first_log = NULL, *object = NULL;
        const char *config;
        GPid pid;

        world_setup(&w);
        write_rules(&w);
        config = config_text(&w, "LogApplied=yes\n");
        world_start_daemon(&w, config, NULL);
        pid = world_spawn(&w, "nvptest-objroot", 0, true);
        owner = name_owner(&w);
        first_log = world_daemon_log(&w);
        /* The first instance does log applied profiles: the second must not. */
        g_assert_nonnull(strstr(first_log, "Profile applied to nvptest-objroot"));

        g_assert_cmpint(world_run_daemon(&w, config, &log), ==, 1);
        g_test_message("second instance: %s", log);
        g_assert_nonnull(strstr(log, "Another nvprofiled already owns"));
        g_assert_null(strstr(log, "Profile applied"));

        /* The first is untouched: same owner, still answering. */
        owner_after = name_owner(&w);
        g_assert_cmpstr(owner, ==, owner_after);
        object = world_object_of(&w, pid);
        g_assert_nonnull(object);

        world_kill(pid);
        world_teardown(&w);
}

int main(int argc, char *argv[])
{
        int r;

        g_test_init(&argc, &argv, NULL);
        if (geteuid() != 0) {
                printf("1..0 # SKIP needs root\n");
                return 0;
        }
        g_test_add_func("/bus/objects-visible-to-owner-and-root", test_objects_visible_to_owner_and_root);
        g_test_add_func("/bus/interfaces-added-before-process-changed", test_interfaces_added_before_process_changed);
        g_test_add_func("/bus/unsubscribe", test_unsubscribe);
        g_test_add_func("/bus/get-process", test_get_process);
        g_test_add_func("/bus/explain-checks-privacy-first", test_explain_checks_privacy_first);
        g_test_add_func("/bus/list-errors-once", test_list_errors_once);
        g_test_add_func("/bus/second-instance-stops-first", test_second_instance_stops_first);
        r = g_test_run();
        world_remove_user(TEST_USER);
        return r;
}
