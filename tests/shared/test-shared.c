/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/shared: parsers, maps, strings, the config-file parser. */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "arena.h"
#include "cgroup-limits.h"
#include "conf-parser.h"
#include "fd-util.h"
#include "fileio.h"
#include "intmap.h"
#include "log-ratelimit.h"
#include "log.h"
#include "parse-util.h"
#include "string-util.h"
#include "strtable.h"
#include "strv.h"
#include "test-util.h"
#include "user-counts.h"
#include "user-creds.h"

static void test_safe_parse(void)
{
        uint64_t u;
        int64_t i;
        bool b;

        g_assert_cmpint(safe_atou64("18446744073709551615", &u), ==, 0);
        g_assert_cmpuint(u, ==, UINT64_MAX);
        g_assert_cmpint(safe_atou64("18446744073709551616", &u), ==, -ERANGE);
        g_assert_cmpint(safe_atou64("-1", &u), ==, -EINVAL);
        g_assert_cmpint(safe_atou64(" 1", &u), ==, -EINVAL);
        g_assert_cmpint(safe_atou64("1x", &u), ==, -EINVAL);
        g_assert_cmpint(safe_atou64("", &u), ==, -EINVAL);
        g_assert_cmpint(safe_atoi64("-9223372036854775808", &i), ==, 0);
        g_assert_cmpint(i, ==, INT64_MIN);
        g_assert_cmpint(safe_atoi64("9223372036854775808", &i), ==, -ERANGE);
        g_assert_cmpint(safe_atob("yes", &b), ==, 0);
        g_assert_true(b);
        g_assert_cmpint(safe_atob("OFF", &b), ==, 0);
        g_assert_false(b);
        g_assert_cmpint(safe_atob("maybe", &b), ==, -EINVAL);
        g_assert_cmpint(parse_usec("250ms", &u), ==, 0);
        g_assert_cmpuint(u, ==, 250000);
        g_assert_cmpint(parse_usec("2s", &u), ==, 0);
        g_assert_cmpuint(u, ==, 2000000);
        g_assert_cmpint(parse_usec("2 s", &u), ==, -EINVAL);
        g_assert_cmpint(parse_usec("30d", &u), ==, 0);
        g_assert_cmpuint(u, ==, 30 * 86400 * 1000000ULL);
        g_assert_cmpint(parse_usec("2h", &u), ==, 0);
        g_assert_cmpuint(u, ==, 2 * 3600 * 1000000ULL);
        g_assert_cmpint(parse_size("8M", &u), ==, 0);
        g_assert_cmpuint(u, ==, 8 * 1024 * 1024);
        g_assert_cmpint(parse_size("99999999999999999999G", &u), ==, -ERANGE);
}

/* Against a plain array as the reference, through an exec-storm-like churn. */
static void test_intmap(void)
{
        IntMap m = { 0 };
        static bool present[20000];
        uint32_t seed = 1;

        for (unsigned round = 0; round < 200000; round++) {
                uint64_t key;
                seed = seed * 1103515245 + 12345;
                key = (seed >> 8) % 20000 + 1;
                if ((seed >> 4) & 1) {
                        g_assert_cmpint(intmap_put(&m, key, GUINT_TO_POINTER((guint) key)), ==, 0);
                        present[key - 1] = true;
                } else {
                        void *v = intmap_remove(&m, key);
                        g_assert_true(present[key - 1] ? v == GUINT_TO_POINTER((guint) key) : v == NULL);
                        present[key - 1] = false;
                }
        }
        {
                size_t expected = 0, seen = 0;
                uint64_t k;
                void *v;

                for (unsigned k2 = 0; k2 < 20000; k2++) {
                        expected += present[k2];
                        g_assert_true((intmap_get(&m, k2 + 1) != NULL) == present[k2]);
                }
                g_assert_cmpuint(intmap_size(&m), ==, expected);
                for (size_t i = 0; intmap_next(&m, &i, &k, &v);) {
                        g_assert_true(present[k - 1]);
                        seen++;
                }
                g_assert_cmpuint(seen, ==, expected);
        }
        intmap_done(&m);
}

static void test_strtable(void)
{
        StrTable t = { 0 };
        char names[300][16];
        bool is_new;

        for (int i = 0; i < 300; i++) {
                snprintf(names[i], sizeof(names[i]), "key%d", i);
                g_assert_cmpint(strtable_put(&t, names[i], &is_new), ==, i);
                g_assert_true(is_new);
        }
        g_assert_cmpint(strtable_put(&t, "key17", &is_new), ==, 17);
        g_assert_false(is_new);
        g_assert_cmpint(strtable_get(&t, "key299"), ==, 299);
        g_assert_cmpint(strtable_get(&t, "nope"), ==, -ENOENT);
        strtable_done(&t);
}

static void test_strings(void)
{
        char **l = NULL;
        g_autofree char *a = path_join("/a/", "/b"), *b = path_join("/", "x");

        g_assert_cmpstr(a, ==, "/a/b");
        g_assert_cmpstr(b, ==, "/x");
        g_assert_cmpstr(path_basename("/usr/lib/libGL.so.1"), ==, "libGL.so.1");
        g_assert_cmpstr(path_basename("plain"), ==, "plain");

        /* Levenshtein, with or without case. */
        g_assert_cmpuint(string_distance("GLSyncToVBlank", "GLSyncToVblank", false), ==, 1);
        g_assert_cmpuint(string_distance("GLSyncToVBlank", "GLSyncToVblank", true), ==, 0);
        g_assert_cmpuint(string_distance("kitten", "sitting", false), ==, 3);
        g_assert_cmpuint(string_distance("", "abc", true), ==, 3);
        g_assert_true(utf8_is_valid_n("caf\xc3\xa9", 5));
        g_assert_false(utf8_is_valid_n("\xc3", 1));
        g_assert_false(utf8_is_valid_n("\xed\xa0\x80", 3));
        g_assert_cmpint(strv_from_nulstr("a\0bb\0c", 6, 2, &l), ==, 0);
        g_assert_cmpuint(strv_length(l), ==, 2);
        g_assert_cmpstr(l[1], ==, "bb");
        {
                g_autofree char *joined = strv_join(l, ", "), *none = strv_join(NULL, ", ");
                char *empty_first[] = { (char *) "", (char *) "x", NULL };
                g_autofree char *e = strv_join(empty_first, "+");

                g_assert_cmpstr(joined, ==, "a, bb");
                g_assert_cmpstr(none, ==, "");
                g_assert_cmpstr(e, ==, "+x");
        }
        strv_free(l);
}

typedef struct Conf {
        bool flag;
        uint64_t usec;
        unsigned n;
        char *name;
} Conf;

static const ConfItem items[] = {
        { "A", "Flag", conf_parse_bool, offsetof(Conf, flag) },
        { "A", "Time", conf_parse_usec, offsetof(Conf, usec) },
        { "B", "N", conf_parse_unsigned, offsetof(Conf, n) },
        { "B", "Name", conf_parse_string, offsetof(Conf, name) },
        { 0 },
};

static void test_conf_parser(void)
{
        static const char text[] = "# comment\n"
                                   "; also a comment\n"
                                   "[A]\n"
                                   "Flag = yes\n"
                                   "Time=250ms\n"
                                   "Unknown=1\n"
                                   "[B]\n"
                                   "N=notanumber\n"
                                   "Name=hello world\n"
                                   "garbage line\n"
                                   "[broken\n";
        Conf c = { 0 };
        char **msgs = NULL;

        g_assert_cmpint(conf_parse_text(text, strlen(text), items, &c, &msgs), ==, 3);
        g_assert_true(c.flag);
        g_assert_cmpuint(c.usec, ==, 250000);
        g_assert_cmpstr(c.name, ==, "hello world");
        g_assert_cmpuint(strv_length(msgs), ==, 4);
        g_assert_cmpstr(msgs[0], ==, "6: warning: unknown key 'Unknown' in section [A], ignored");
        g_assert_cmpstr(msgs[1], ==, "8: error: invalid value 'notanumber' for N");
        g_assert_cmpstr(msgs[2], ==, "10: error: expected Key=Value, got 'garbage line'");
        g_assert_cmpstr(msgs[3], ==, "11: error: malformed section header '[broken'");
        strv_free(msgs);
        free(c.name);

        g_assert_cmpint(conf_parse_text("[A]\nFlag=1\0\n", 12, items, &c, NULL), ==, 1);
}

/* Log lines quote process names: on a console, control characters come out escaped, never raw. */
static void test_log_console_escapes(void)
{
        char buf[512] = { 0 };
        int saved, fd;
        FILE *f;

        f = tmpfile();
        g_assert_nonnull(f);
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        fd = fileno(f);
        g_assert_cmpint(dup2(fd, STDERR_FILENO), ==, STDERR_FILENO);
        log_setup("test", LOG_TARGET_CONSOLE);
        log_notice("Profile applied to %s[%i].", "\x1b]0;PWNED\x07\x1b[31mX", 42);
        fflush(stderr);
        g_assert_cmpint(dup2(saved, STDERR_FILENO), ==, STDERR_FILENO);
        close(saved);

        rewind(f);
        g_assert_cmpuint(fread(buf, 1, sizeof(buf) - 1, f), >, 0);
        fclose(f);
        g_assert_null(strchr(buf, 0x1b));
        g_assert_null(strchr(buf, 0x07));
        g_assert_nonnull(strstr(buf, "test: Profile applied to \\x1b]0;PWNED\\x07\\x1b[31mX[42]."));
}

/* With chunk_max set, a block over 1/64 of it that does not fit gets its own chunk and the current
 * chunk's free tail stays in use: a report model made of such blocks wastes no chunk tails. */
static void test_arena_large_blocks(void)
{
        Arena a;
        char *small1, *small2, *big;

        arena_init(&a);
        a.chunk_max = 64 * 1024;
        small1 = arena_alloc(&a, 16); /* the first chunk: 4 KiB */
        g_assert_nonnull(small1);
        g_assert_cmpuint(a.allocated, ==, 4096);
        big = arena_alloc(&a, 16 * 1024);
        g_assert_nonnull(big);
        g_assert_cmpuint(a.allocated, ==, 4096 + 16 * 1024);
        g_assert_cmpuint(a.total, ==, 16 + 16 * 1024);
        small2 = arena_alloc(&a, 16);
        g_assert_nonnull(small2);
        g_assert_true(small2 == small1 + 16); /* the tail, not a new chunk */
        memset(big, 0xa5, 16 * 1024);
        g_assert_cmpint(small2[0], ==, 0);
        /* A small block that does not fit starts a new chunk, as before. */
        g_assert_nonnull(arena_alloc_raw(&a, 4096 - 32));
        g_assert_cmpuint(a.allocated, ==, 4096 + 16 * 1024);
        g_assert_nonnull(arena_alloc(&a, 512));
        g_assert_cmpuint(a.allocated, ==, 4096 + 16 * 1024 + 8192);
        /* Without chunk_max, nothing changes: a block that does not fit starts a new, larger chunk. */
        arena_done(&a);
        arena_init(&a);
        g_assert_nonnull(arena_alloc_raw(&a, 4000));
        g_assert_nonnull(arena_alloc_raw(&a, 2000));
        g_assert_cmpuint(a.allocated, ==, 4096 + 8192);
        arena_done(&a);
}

static void collect_summary(const LogRatelimitSummary *s, void *userdata)
{
        g_array_append_val((GArray *) userdata, *s);
}

#define SEC UINT64_C(1000000)

/* Issue 17 item 10: what one uid makes the daemon log is bounded per window; other uids are not touched;
 * the window's end says how many were dropped; all uids together are bounded too; memory is bounded. */
static void test_log_ratelimit(void)
{
        g_autoptr(GArray) summaries = g_array_new(false, false, sizeof(LogRatelimitSummary));
        LogRatelimit rl;
        bool first;
        unsigned n;

        log_ratelimit_init(&rl, 30 * SEC, 3, 0);
        for (unsigned i = 0; i < 3; i++) {
                g_assert_true(log_ratelimit_allow(&rl, 1000, 100 * SEC + i, collect_summary, summaries, &first));
                g_assert_false(first);
        }
        g_assert_cmpuint(log_ratelimit_next_flush(&rl), ==, UINT64_MAX);
        g_assert_false(log_ratelimit_allow(&rl, 1000, 101 * SEC, collect_summary, summaries, &first));
        g_assert_true(first);
        for (unsigned i = 0; i < 6; i++) {
                g_assert_false(log_ratelimit_allow(&rl, 1000, 102 * SEC, collect_summary, summaries, &first));
                g_assert_false(first);
        }
        /* Another uid is not touched by the first one's flood. */
        g_assert_true(log_ratelimit_allow(&rl, 2000, 110 * SEC, collect_summary, summaries, NULL));
        /* The summary is due when the first uid's window ends, not before. */
        g_assert_cmpuint(log_ratelimit_next_flush(&rl), ==, 130 * SEC);
        log_ratelimit_flush(&rl, 130 * SEC - 1, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 0);
        log_ratelimit_flush(&rl, 130 * SEC, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 1);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).uid, ==, 1000);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).n_suppressed, ==, 7);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).elapsed_usec, ==, 30 * SEC);
        g_assert_cmpuint(rl.n_entries, ==, 1); /* uid 2000's window is still open */
        g_assert_cmpuint(log_ratelimit_next_flush(&rl), ==, UINT64_MAX);
        /* A new window: the uid may log again. uid 2000's window ended without dropping anything: no
         * summary for it, and its entry goes when allow() flushes. */
        g_assert_true(log_ratelimit_allow(&rl, 1000, 140 * SEC, collect_summary, summaries, NULL));
        g_assert_cmpuint(summaries->len, ==, 1);
        g_assert_cmpuint(rl.n_entries, ==, 1);
        /* A window that ends while messages come in is reported by the next allow(). */
        for (unsigned i = 0; i < 4; i++)
                (void) log_ratelimit_allow(&rl, 1000, 141 * SEC, collect_summary, summaries, NULL);
        g_assert_true(log_ratelimit_allow(&rl, 1000, 175 * SEC, collect_summary, summaries, NULL));
        g_assert_cmpuint(summaries->len, ==, 2);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 1).n_suppressed, ==, 2);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 1).elapsed_usec, ==, 35 * SEC);
        log_ratelimit_done(&rl);

        /* All uids together: at most total_burst per window, however many uids share it. */
        g_array_set_size(summaries, 0);
        log_ratelimit_init(&rl, 10 * SEC, 0, 5);
        n = 0;
        for (uid_t uid = 1; uid <= 20; uid++)
                n += log_ratelimit_allow(&rl, uid, SEC, collect_summary, summaries, NULL);
        g_assert_cmpuint(n, ==, 5);
        log_ratelimit_flush(&rl, 11 * SEC, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 15);
        g_assert_true(log_ratelimit_allow(&rl, 20, 11 * SEC, collect_summary, summaries, NULL));
        log_ratelimit_done(&rl);

        /* Memory: uids beyond the bound share one entry (and its limit). */
        g_array_set_size(summaries, 0);
        log_ratelimit_init(&rl, 10 * SEC, 1, 0);
        n = 0;
        for (uid_t uid = 1; uid <= LOG_RATELIMIT_UIDS_MAX + 100; uid++)
                n += log_ratelimit_allow(&rl, uid, SEC, collect_summary, summaries, NULL);
        g_assert_cmpuint(rl.n_entries, ==, LOG_RATELIMIT_UIDS_MAX + 1);
        g_assert_cmpuint(n, ==, LOG_RATELIMIT_UIDS_MAX + 1);
        log_ratelimit_flush(&rl, 11 * SEC, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 1);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).uid, ==, LOG_RATELIMIT_OTHER_UIDS);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).n_suppressed, ==, 99);
        g_assert_cmpuint(rl.n_entries, ==, 0);
        log_ratelimit_done(&rl);

        /* Flushing all: every window ends now, ended or not; a window that dropped nothing says nothing. */
        g_array_set_size(summaries, 0);
        log_ratelimit_init(&rl, 3600 * SEC, 2, 0);
        for (unsigned i = 0; i < 5; i++)
                (void) log_ratelimit_allow(&rl, 1000, SEC, collect_summary, summaries, NULL);
        g_assert_true(log_ratelimit_allow(&rl, 2000, 2 * SEC, collect_summary, summaries, NULL));
        log_ratelimit_flush(&rl, 3 * SEC, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 0);
        log_ratelimit_flush_all(&rl, 3 * SEC, collect_summary, summaries);
        g_assert_cmpuint(summaries->len, ==, 1);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).uid, ==, 1000);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).n_suppressed, ==, 3);
        g_assert_cmpuint(g_array_index(summaries, LogRatelimitSummary, 0).elapsed_usec, ==, 2 * SEC);
        g_assert_cmpuint(rl.n_entries, ==, 0);
        g_assert_true(log_ratelimit_allow(&rl, 1000, 4 * SEC, collect_summary, summaries, NULL));
        log_ratelimit_done(&rl);

        /* No interval: no limit. */
        log_ratelimit_init(&rl, 0, 1, 1);
        for (unsigned i = 0; i < 100; i++)
                g_assert_true(log_ratelimit_allow(&rl, 1000, SEC, NULL, NULL, NULL));
        g_assert_cmpuint(rl.n_entries, ==, 0);
        log_ratelimit_done(&rl);
}

static int pseudo_at(const char *path)
{
        _cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        return fd_is_on_pseudo_file_system(fd);
}

/* Issue 17 item 6: what is on procfs or sysfs is never read for a user, whatever its type and mode; what
 * is on a file system that stores files is. */
static void test_pseudo_file_systems(void)
{
        g_autofree char *dir = test_mkdtemp();
        g_autofree char *file = g_build_filename(dir, "rc", NULL);
        _cleanup_close_ int root = test_open_dir("/");
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        g_assert_cmpint(pseudo_at("/proc/self/maps"), ==, 1);
        g_assert_cmpint(pseudo_at("/proc/self"), ==, 1);
        g_assert_cmpint(pseudo_at("/sys/kernel"), ==, 1);
        test_write_file(dir, "rc", "{}");
        g_assert_cmpint(pseudo_at(file), ==, 0);
        g_assert_cmpint(pseudo_at(dir), ==, 0);

        /* open_for_reading_as() refuses them on the descriptor it opened, files and directories alike. */
        g_assert_cmpint(open_for_reading_as(NULL, root, "/proc/self/maps", &st), ==, -EBADFD);
        g_assert_true(S_ISREG(st.st_mode));
        g_assert_cmpint(open_for_reading_as(NULL, root, "/proc/thread-self/environ", &st), ==, -EBADFD);
        g_assert_cmpint(open_for_reading_as(NULL, root, "/proc/self", &st), ==, -EBADFD);
        g_assert_true(S_ISDIR(st.st_mode));
        g_assert_cmpint(open_for_reading_as(NULL, root, "/sys/kernel/notes", &st), ==, -EBADFD);
        fd = open_for_reading_as(NULL, root, file, &st);
        g_assert_cmpint(fd, >=, 0);
}

/* Each user holds at most its share (an eighth) of what all may hold: one user filling its share leaves
 * the others theirs, and a release gives the slot back to whoever held it. */
static void test_user_counts(void)
{
        UserCounts c;

        user_counts_init(&c, 64);
        g_assert_cmpuint(c.per_user_max, ==, 8);
        g_assert_cmpuint(user_counts_share_of(7), ==, 1);
        for (unsigned i = 0; i < 8; i++)
                g_assert_cmpint(user_counts_take(&c, 1000), ==, 0);
        g_assert_cmpint(user_counts_take(&c, 1000), ==, -EUSERS);
        g_assert_cmpuint(user_counts_of(&c, 1000), ==, 8);
        /* Another user still has its share. */
        g_assert_cmpint(user_counts_take(&c, 1001), ==, 0);
        g_assert_cmpuint(user_counts_of(&c, 1001), ==, 1);
        user_counts_release(&c, 1000);
        g_assert_cmpint(user_counts_take(&c, 1000), ==, 0);
        /* The total holds whatever the shares: other users fill it up to 64. */
        for (uid_t u = 2000; c.total < 64; u++)
                for (unsigned i = 0; i < 8 && c.total < 64; i++)
                        g_assert_cmpint(user_counts_take(&c, u), ==, 0);
        g_assert_cmpint(user_counts_take(&c, 3000), ==, -E2BIG);
        user_counts_release(&c, 1001);
        g_assert_cmpuint(user_counts_of(&c, 1001), ==, 0);
        g_assert_cmpint(user_counts_take(&c, 3000), ==, 0);
        user_counts_done(&c);
}

/* The limit files of a cgroup from /proc/self/cgroup: v2's unified path, v1's controller hierarchies, and
 * their "no limit" spellings. */
static void test_cgroup_limits(void)
{
        const char v2[] = "0::/system.slice/nvprofiled.service\n";
        const char v1[] = "12:pids:/system.slice/nvprofiled.service\n4:memory:/m\n1:name=systemd:/x\n0::/\n";
        const char none[] = "1:name=systemd:/x\n";
        char *tasks = NULL, *memory = NULL;
        uint64_t v;

        g_assert_cmpint(cgroup_limit_files(v2, strlen(v2), "/sys/fs/cgroup", &tasks, &memory), ==, 0);
        g_assert_cmpstr(tasks, ==, "/sys/fs/cgroup/system.slice/nvprofiled.service/pids.max");
        g_assert_cmpstr(memory, ==, "/sys/fs/cgroup/system.slice/nvprofiled.service/memory.max");
        free(tasks);
        free(memory);
        g_assert_cmpint(cgroup_limit_files(v1, strlen(v1), "/sys/fs/cgroup", &tasks, &memory), ==, 0);
        g_assert_cmpstr(tasks, ==, "/sys/fs/cgroup/pids/system.slice/nvprofiled.service/pids.max");
        g_assert_cmpstr(memory, ==, "/sys/fs/cgroup/memory/m/memory.limit_in_bytes");
        free(tasks);
        free(memory);
        g_assert_cmpint(cgroup_limit_files(none, strlen(none), "/sys/fs/cgroup", &tasks, &memory), ==, 0);
        g_assert_null(tasks);
        g_assert_null(memory);

        g_assert_cmpint(cgroup_limit_parse("16\n", &v), ==, 0);
        g_assert_cmpuint(v, ==, 16);
        g_assert_cmpint(cgroup_limit_parse("max\n", &v), ==, 0);
        g_assert_cmpuint(v, ==, CGROUP_LIMIT_NONE);
        g_assert_cmpint(cgroup_limit_parse("9223372036854771712\n", &v), ==, 0);
        g_assert_cmpuint(v, ==, CGROUP_LIMIT_NONE);
        g_assert_cmpint(cgroup_limit_parse("-1\n", &v), ==, -EINVAL);
        g_assert_cmpint(cgroup_limit_parse("", &v), ==, -EINVAL);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/shared/safe-parse", test_safe_parse);
        g_test_add_func("/shared/arena-large-blocks", test_arena_large_blocks);
        g_test_add_func("/shared/intmap", test_intmap);
        g_test_add_func("/shared/strtable", test_strtable);
        g_test_add_func("/shared/strings", test_strings);
        g_test_add_func("/shared/conf-parser", test_conf_parser);
        g_test_add_func("/shared/log-console-escapes", test_log_console_escapes);
        g_test_add_func("/shared/pseudo-file-systems", test_pseudo_file_systems);
        g_test_add_func("/shared/log-ratelimit", test_log_ratelimit);
        g_test_add_func("/shared/user-counts", test_user_counts);
        g_test_add_func("/shared/cgroup-limits", test_cgroup_limits);
        return g_test_run();
}
