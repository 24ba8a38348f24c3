/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Authorisation of state-changing requests (Reload, LogControl1 writes) through polkit, with
 * python3-dbusmock's polkitd template standing in for polkit on the private bus; and LogControl1 itself.
 * Needs root (a user made with useradd, whose calls come from a child that became it). */

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "bus-names.h"
#include "bus-world.h"
#include "macro.h"

#define TEST_USER "nvptest-buspk"
#define OTHER_USER "nvptest-buspk2"
#define LOG_CONTROL_PATH "/org/freedesktop/LogControl1"
#define LOG_CONTROL_INTERFACE "org.freedesktop.LogControl1"

static const char *const reload_allowed[] = { POLKIT_ACTION_RELOAD, NULL };
static const char *const nothing_allowed[] = { NULL };

static uint64_t generation(BusWorld *w)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t g = 0;

        g_assert_cmpint(sd_bus_get_property_trivial(w->bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE,
                                        "ConfigGeneration", &e, 't', &g),
                        >=, 0);
        return g;
}

typedef struct ReloadCall {
        bool interactive;
        int name_fd; /* the child writes its unique name here, for the subject check */
} ReloadCall;

static int call_reload(sd_bus *bus, void *userdata)
{
        ReloadCall *c = userdata;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *unique = NULL;
        int r;

        if (c && c->name_fd >= 0 && sd_bus_get_unique_name(bus, &unique) >= 0)
                (void) !write(c->name_fd, unique, strlen(unique));
        if (c && c->interactive)
                (void) sd_bus_set_allow_interactive_authorization(bus, true);
        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", &e, NULL, "");
        return world_outcome(r, &e);
}

static char *reload_as_user_noting_name(BusWorld *w, uid_t uid, bool interactive, int *ret_outcome)
{
        int fds[2];
        char buf[256] = { 0 };
        ssize_t n;

        g_assert_cmpint(pipe(fds), ==, 0);
        *ret_outcome = world_call_as(w, uid, call_reload, &(ReloadCall){ interactive, fds[1] });
        close(fds[1]);
        n = read(fds[0], buf, sizeof(buf) - 1);
        close(fds[0]);
        g_assert_cmpint(n, >, 0);
        return g_strdup(buf);
}

static void test_reload_authorized_by_polkit(void)
{
        BusWorld w;
        g_autofree char *name = NULL;
        uid_t uid = world_test_user(TEST_USER);
        uint64_t g;
        int outcome;

        world_setup(&w);
        world_start_daemon(&w, NULL, NULL);

        /* No polkit on the bus: only root. */
        g = generation(&w);
        g_assert_cmpint(world_call_as(&w, uid, call_reload, NULL), ==, CALL_ACCESS_DENIED);
        g_assert_cmpuint(generation(&w), ==, g);
        g_assert_cmpint(world_call_as(&w, 0, call_reload, NULL), ==, CALL_OK);
        g_assert_cmpuint(generation(&w), ==, g + 1);

        /* polkit says no: refused, nothing reloaded; root is never asked about. */
        world_start_polkit(&w);
        g = generation(&w);
        name = reload_as_user_noting_name(&w, uid, false, &outcome);
        g_assert_cmpint(outcome, ==, CALL_ACCESS_DENIED);
        g_assert_cmpuint(generation(&w), ==, g);
        g_assert_cmpint(world_call_as(&w, 0, call_reload, NULL), ==, CALL_OK);
        g_assert_cmpuint(generation(&w), ==, g + 1);

        /* polkit says yes: reloaded. */
        world_polkit_set_allowed(&w, reload_allowed);
        g = generation(&w);
        g_assert_cmpint(world_call_as(&w, uid, call_reload, NULL), ==, CALL_OK);
        g_assert_cmpuint(generation(&w), ==, g + 1);

        /* And no again. */
        world_polkit_set_allowed(&w, nothing_allowed);
        g_assert_cmpint(world_call_as(&w, uid, call_reload, NULL), ==, CALL_ACCESS_DENIED);

        /* What the daemon asked: the caller's bus name as subject, our action, no interaction unless the
         * call allows it. */
        {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                sd_bus_error e = SD_BUS_ERROR_NULL;
                g_autofree char *interactive_name = NULL;
                GString *seen = g_string_new(NULL);
                int r;

                interactive_name = reload_as_user_noting_name(&w, uid, true, &outcome);
                g_assert_cmpint(outcome, ==, CALL_ACCESS_DENIED);
                g_assert_cmpint(sd_bus_call_method(w.bus, "org.freedesktop.PolicyKit1",
                                                "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
                                                "GetCalls", &e, &reply, ""),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(tsav)"), >, 0);
                while ((r = sd_bus_message_enter_container(reply, 'r', "tsav")) > 0) {
                        const char *method, *kind, *key, *subject_name, *action;
                        uint64_t when;
                        uint32_t flags;

                        g_assert_cmpint(sd_bus_message_read(reply, "ts", &when, &method), >, 0);
                        if (!streq(method, "CheckAuthorization")) {
                                g_assert_cmpint(sd_bus_message_skip(reply, "av"), >=, 0);
                                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                                continue;
                        }
                        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "v"), >, 0);
                        g_assert_cmpint(sd_bus_message_enter_container(reply, 'v', "(sa{sv})"), >, 0);
                        g_assert_cmpint(sd_bus_message_enter_container(reply, 'r', "sa{sv}"), >, 0);
                        g_assert_cmpint(sd_bus_message_read(reply, "s", &kind), >, 0);
                        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "{sv}"), >, 0);
                        g_assert_cmpint(sd_bus_message_enter_container(reply, 'e', "sv"), >, 0);
                        g_assert_cmpint(sd_bus_message_read(reply, "sv", &key, "s", &subject_name), >, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                        g_assert_cmpint(sd_bus_message_read(reply, "v", "s", &action), >, 0);
                        g_assert_cmpint(sd_bus_message_skip(reply, "v"), >=, 0);
                        g_assert_cmpint(sd_bus_message_read(reply, "v", "u", &flags), >, 0);
                        g_assert_cmpint(sd_bus_message_skip(reply, "v"), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
                        g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);

                        g_assert_cmpstr(kind, ==, "system-bus-name");
                        g_assert_cmpstr(key, ==, "name");
                        g_assert_cmpstr(action, ==, POLKIT_ACTION_RELOAD);
                        g_string_append_printf(seen, "%s:%u;", subject_name, flags);
                }
                g_assert_cmpint(r, >=, 0);
                g_test_message("polkit was asked about: %s", seen->str);
                {
                        g_autofree char *plain = g_strdup_printf("%s:0;", name);
                        g_autofree char *asked = g_strdup_printf("%s:1;", interactive_name);
                        g_assert_nonnull(strstr(seen->str, plain));
                        g_assert_nonnull(strstr(seen->str, asked));
                }
                g_string_free(seen, TRUE);
        }

        world_teardown(&w);
}

/* ---- LogControl1 ---- */

static char *get_string(sd_bus *bus, const char *property)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *v = NULL;

        g_assert_cmpint(sd_bus_get_property_string(
                                        bus, BUS_NAME, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, property, &e, &v),
                        >=, 0);
        return v;
}

typedef struct SetCall {
        const char *property, *value;
} SetCall;

static int call_set(sd_bus *bus, void *userdata)
{
        const SetCall *c = userdata;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_set_property(bus, BUS_NAME, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, c->property, &e, "s", c->value);
        if (r < 0)
                g_printerr("Set %s=%s: %s\n", c->property, c->value, e.name);
        return world_outcome(r, &e);
}

static void assert_string(BusWorld *w, const char *property, const char *expected)
{
        g_autofree char *v = get_string(w->bus, property);
        g_assert_cmpstr(v, ==, expected);
}

static unsigned count_in_log(BusWorld *w, const char *needle)
{
        g_autofree char *log = world_daemon_log(w);
        unsigned n = 0;

        for (const char *p = log; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

static void test_log_control(void)
{
        BusWorld w;
        uid_t uid = world_test_user(TEST_USER);

        world_setup(&w);
        world_start_daemon(&w, NULL, NULL);
        world_start_polkit(&w);

        /* What the daemon started with: --log-level=debug, stderr to a file. */
        assert_string(&w, "LogLevel", "debug");
        assert_string(&w, "LogTarget", "console");
        assert_string(&w, "SyslogIdentifier", "nvprofiled");

        /* Root sets both; wrong values and the read-only property are refused. */
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogLevel", "notice" }), ==, CALL_OK);
        assert_string(&w, "LogLevel", "notice");
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogLevel", "chatty" }), ==, CALL_INVALID_ARGS);
        assert_string(&w, "LogLevel", "notice");
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogTarget", "null" }), ==, CALL_OK);
        assert_string(&w, "LogTarget", "null");
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogTarget", "kmsg" }), ==, CALL_INVALID_ARGS);
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogTarget", "console" }), ==, CALL_OK);
        g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "SyslogIdentifier", "x" }), !=, CALL_OK);
        assert_string(&w, "SyslogIdentifier", "nvprofiled");

        /* A user: refused while polkit says no, and nothing changes; allowed when it says yes. */
        g_assert_cmpint(world_call_as(&w, uid, call_set, &(SetCall){ "LogLevel", "debug" }), ==, CALL_ACCESS_DENIED);
        g_assert_cmpint(world_call_as(&w, uid, call_set, &(SetCall){ "LogTarget", "null" }), ==, CALL_ACCESS_DENIED);
        assert_string(&w, "LogLevel", "notice");
        assert_string(&w, "LogTarget", "console");
        world_polkit_set_allowed(&w, reload_allowed);
        g_assert_cmpint(world_call_as(&w, uid, call_set, &(SetCall){ "LogLevel", "debug" }), ==, CALL_OK);
        assert_string(&w, "LogLevel", "debug");
        /* Authorised is not valid: the value is still checked. */
        g_assert_cmpint(world_call_as(&w, uid, call_set, &(SetCall){ "LogLevel", "chatty" }), ==, CALL_INVALID_ARGS);
        assert_string(&w, "LogLevel", "debug");

        /* The level takes effect: a reload's info line is written at info, not at warning. */
        {
                unsigned before;

                g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogLevel", "warning" }), ==, CALL_OK);
                before = count_in_log(&w, "Application profiles loaded");
                g_assert_cmpint(world_call_as(&w, 0, call_reload, NULL), ==, CALL_OK);
                g_assert_cmpuint(count_in_log(&w, "Application profiles loaded"), ==, before);
                g_assert_cmpint(world_call_as(&w, 0, call_set, &(SetCall){ "LogLevel", "info" }), ==, CALL_OK);
                g_assert_cmpint(world_call_as(&w, 0, call_reload, NULL), ==, CALL_OK);
                g_assert_cmpuint(count_in_log(&w, "Application profiles loaded"), ==, before + 1);
        }

        world_teardown(&w);
}

/* ---- Requests waiting for polkit (issue 29 item 6) ---- */

/* One user's share of the 64 authorisations that may wait for polkit at once (user_counts_share_of()). */
#define PENDING_PER_USER 8u
#define PENDING_MAX 64u

static void polkit_mock_call(BusWorld *w, const char *method, const char *types, ...)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        va_list ap;
        int r;

        va_start(ap, types);
        {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

                g_assert_cmpint(sd_bus_message_new_method_call(w->bus, &m, "org.freedesktop.PolicyKit1",
                                                "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
                                                method),
                                >=, 0);
                g_assert_cmpint(sd_bus_message_appendv(m, types, ap), >=, 0);
                r = sd_bus_call(w->bus, m, 0, &e, NULL);
        }
        va_end(ap);
        g_assert_cmpint(r, >=, 0);
        sd_bus_error_free(&e);
}

/* How many CheckAuthorization calls polkit has had. */
static unsigned polkit_checks(BusWorld *w)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        unsigned n = 0;
        int r;

        g_assert_cmpint(sd_bus_call_method(w->bus, "org.freedesktop.PolicyKit1",
                                        "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
                                        "GetCalls", &e, &reply, ""),
                        >=, 0);
        g_assert_cmpint(sd_bus_message_enter_container(reply, 'a', "(tsav)"), >, 0);
        while ((r = sd_bus_message_enter_container(reply, 'r', "tsav")) > 0) {
                const char *method;
                uint64_t when;

                g_assert_cmpint(sd_bus_message_read(reply, "ts", &when, &method), >, 0);
                n += streq(method, "CheckAuthorization");
                g_assert_cmpint(sd_bus_message_skip(reply, "av"), >=, 0);
                g_assert_cmpint(sd_bus_message_exit_container(reply), >=, 0);
        }
        g_assert_cmpint(r, >=, 0);
        return n;
}

typedef struct Flood {
        int ready_fd; /* the child writes how many were refused at once, then waits... */
        int hold_fd; /* ...until this pipe is closed, holding the rest waiting */
        int hold_write_fd; /* the test's end of it, which the child closes */
} Flood;

static int on_flood_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        unsigned *refused = userdata;

        if (sd_bus_error_has_name(sd_bus_message_get_error(m), BUS_ERROR_LIMITS_EXCEEDED))
                (*refused)++;
        else
                refused[1]++; /* anything else: an answer polkit never gave */
        return 0;
}

/* Sends PENDING_MAX Reloads at once; those past the user's share are refused at once, the rest wait. */
static int flood_reloads(sd_bus *bus, void *userdata)
{
        Flood *f = userdata;
        unsigned counts[2] = { 0, 0 };
        gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
        char c;

        close(f->hold_write_fd);
        for (unsigned i = 0; i < PENDING_MAX; i++)
                if (sd_bus_call_method_async(bus, NULL, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload",
                                    on_flood_reply, counts, "") < 0)
                        return 20;
        while (counts[0] + counts[1] < PENDING_MAX - PENDING_PER_USER && g_get_monotonic_time() < deadline) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return 21;
                if (r == 0)
                        (void) sd_bus_wait(bus, 100 * 1000);
        }
        if (counts[1] > 0)
                return 22;
        if (write(f->ready_fd, &(uint8_t){ (uint8_t) counts[0] }, 1) != 1)
                return 23;
        (void) !read(f->hold_fd, &c, 1);
        return 0;
}

/* A Reload that polkit is asked about and never answers: CALL_OK when it was still waiting after a
 * second (accepted for authorisation), else its outcome. */
static int reload_waits(sd_bus *bus, void *userdata)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        (void) sd_bus_set_method_call_timeout(bus, G_USEC_PER_SEC);
        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Reload", &e, NULL, "");
        if (r == -ETIMEDOUT)
                return CALL_OK;
        return r >= 0 ? CALL_OTHER_ERROR : world_outcome(r, &e);
}

/* An AddRule with a 2 MiB pattern (past MANAGER_EDIT_TEXT_MAX): refused without waiting for polkit. */
static int add_oversized_rule(sd_bus *bus, void *userdata)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        g_autofree char *pattern = g_strnfill(2 * 1024 * 1024, 'a');
        int r;

        (void) sd_bus_set_method_call_timeout(bus, 10 * G_USEC_PER_SEC);
        if (sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_ROOT_PATH, BUS_PROFILES_INTERFACE, "AddRule") < 0 ||
                        sd_bus_message_append(m, "siss", "/etc/nvidia/nvidia-application-profiles-rc", -1, pattern,
                                        "p") < 0 ||
                        sd_bus_message_append(m, "a(ss)t", 0, (uint64_t) 0) < 0)
                return 30;
        r = sd_bus_call(bus, m, 0, &e, NULL);
        if (r == -ETIMEDOUT)
                return 31;
        return world_outcome(r, &e);
}

/* A LogLevel of 1 MiB (no such level): refused without waiting for polkit. */
static int set_huge_log_level(sd_bus *bus, void *userdata)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        g_autofree char *level = g_strnfill(1024 * 1024, 'd');
        int r;

        (void) sd_bus_set_method_call_timeout(bus, 10 * G_USEC_PER_SEC);
        r = sd_bus_set_property(bus, BUS_NAME, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, "LogLevel", &e, "s", level);
        if (r == -ETIMEDOUT)
                return 31;
        return world_outcome(r, &e);
}

static void test_pending_per_user(void)
{
        BusWorld w;
        uid_t a = world_test_user(TEST_USER), b = world_test_user(OTHER_USER);
        int ready[2], hold[2];
        uint8_t refused = 0;
        unsigned checks;
        pid_t flooder;

        world_setup(&w);
        world_start_daemon(&w, NULL, NULL);
        world_start_polkit(&w);
        /* polkit (an authentication agent that never answers, as far as we can tell) keeps every check. */
        polkit_mock_call(&w, "SimulateHang", "b", 1);

        g_assert_cmpint(pipe2(ready, O_CLOEXEC), ==, 0);
        g_assert_cmpint(pipe2(hold, O_CLOEXEC), ==, 0);
        flooder = world_call_as_start(&w, a, flood_reloads, &(Flood){ ready[1], hold[0], hold[1] });
        close(ready[1]);
        close(hold[0]);
        g_assert_cmpint(read(ready[0], &refused, 1), ==, 1);
        g_test_message("user A: %u of %u refused at once", refused, PENDING_MAX);
        g_assert_cmpuint(refused, ==, PENDING_MAX - PENDING_PER_USER);

        /* User A holds its share: B's request and root's are still taken. */
        g_assert_cmpint(world_call_as(&w, b, reload_waits, NULL), ==, CALL_OK);
        g_assert_cmpint(world_call_as(&w, 0, call_reload, NULL), ==, CALL_OK);

        /* An edit too large to apply is refused before polkit is asked about it. */
        checks = polkit_checks(&w);
        g_assert_cmpint(world_call_as(&w, b, add_oversized_rule, NULL), ==, CALL_LIMITS_EXCEEDED);
        g_assert_cmpuint(polkit_checks(&w), ==, checks);
        /* So is a log level that does not exist. */
        g_assert_cmpint(world_call_as(&w, b, set_huge_log_level, NULL), ==, CALL_INVALID_ARGS);
        g_assert_cmpuint(polkit_checks(&w), ==, checks);

        close(hold[1]);
        g_assert_cmpint(world_call_as_wait(flooder), ==, 0);
        close(ready[0]);
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
        g_test_add_func("/bus/reload-authorized-by-polkit", test_reload_authorized_by_polkit);
        g_test_add_func("/bus/log-control", test_log_control);
        g_test_add_func("/bus/polkit-pending-per-user", test_pending_per_user);
        r = g_test_run();
        world_remove_user(TEST_USER);
        world_remove_user(OTHER_USER);
        return r;
}
