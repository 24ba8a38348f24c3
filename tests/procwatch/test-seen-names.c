/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names the daemon remembers of processes: one entry per name combination, bounded per user and in
 * total without one user flushing another, kept across a save and load, and each user's own. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "seen-names.h"
#include "test-util.h"

#define SEC 1000000ull
#define DAY (86400ull * SEC)

static const SeenNamesLimits small = { .per_user_max = 4, .per_user_bytes_max = 4096, .total_max = 10 };

typedef struct Collected {
        GPtrArray *names; /* "uid:procname|comm|cmdline|flatpak@last_seen" */
} Collected;

static const char *dash(const char *s)
{
        return s ? s : "-";
}

static int collect(const SeenName *n, void *userdata)
{
        GPtrArray *a = userdata;

        g_ptr_array_add(a,
                        g_strdup_printf("%u:%s|%s|%s|%s@%" PRIu64, (unsigned) n->uid, dash(n->procname), dash(n->comm),
                                        dash(n->cmdline), dash(n->flatpak_id), n->last_seen_usec));
        return 0;
}

static int compare_strings(gconstpointer a, gconstpointer b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Every entry of uid, sorted, as one string separated by spaces. */
static char *dump(const SeenNames *s, uid_t uid)
{
        g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);

        g_assert_cmpint(seen_names_foreach(s, uid, collect, a), ==, 0);
        g_ptr_array_sort(a, compare_strings);
        g_ptr_array_add(a, NULL);
        return g_strjoinv(" ", (char **) a->pdata);
}

static size_t count_of(const SeenNames *s, uid_t uid)
{
        g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);

        g_assert_cmpint(seen_names_foreach(s, uid, collect, a), ==, 0);
        return a->len;
}

static void test_note_dedup(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        g_autofree char *d = NULL;

        g_assert_cmpint(seen_names_new(&small, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 10), ==, 1);
        /* The same names again: one entry, its time updated (never moved back). */
        g_assert_cmpint(seen_names_note(s, 1000, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 20), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 15), ==, 0);
        /* Another combination of the same user is another entry; so is the same one of another user. */
        g_assert_cmpint(seen_names_note(s, 1000, ".niri-wrapped", ".niri-wrapped", NULL, NULL, 30), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1001, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 40), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1000, NULL, NULL, NULL, NULL, 40), ==, 0);
        g_assert_cmpuint(seen_names_size(s), ==, 3);

        /* Seen again a little later is not worth a write; an hour later it is. */
        g_assert_true(seen_names_dirty(s));
        seen_names_mark_saved(s);
        g_assert_cmpint(seen_names_note(s, 1001, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 41), ==, 0);
        g_assert_false(seen_names_dirty(s));
        g_assert_cmpint(seen_names_note(s, 1001, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 40 + 3600 * SEC), ==,
                        0);
        g_assert_true(seen_names_dirty(s));
        g_assert_cmpint(seen_names_note(s, 1001, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 40), ==, 0);

        d = dump(s, 1000);
        g_assert_cmpstr(d, ==,
                        "1000:.niri-wrapped|.niri-wrapped|-|-@30 "
                        "1000:.niri-wrapped|.niri-wrapped|niri|-@20");
}

static void test_validate(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        char longname[SEEN_NAME_MAX + 2];

        g_assert_cmpint(seen_names_new(NULL, &s), ==, 0);
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';

        g_assert_cmpint(seen_names_note(s, 1, longname, NULL, NULL, NULL, 1), ==, -EINVAL);
        longname[SEEN_NAME_MAX] = '\0'; /* exactly at the cap */
        g_assert_cmpint(seen_names_note(s, 1, longname, NULL, NULL, NULL, 1), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1, NULL, "sixteen-chars-xx", NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, NULL, "fifteen-chars-x", NULL, NULL, 1), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1, "evil\nline", NULL, NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "esc\x1b[31m", NULL, NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "del\x7f", NULL, NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "bad\xff\xfeutf8", NULL, NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "", NULL, NULL, NULL, 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "ok", NULL, NULL, "org.x.Y\t", 1), ==, -EINVAL);
        g_assert_cmpint(seen_names_note(s, 1, "блендер", NULL, "Game.exe", "org.blender.Blender", 1), ==, 1);
        g_assert_cmpuint(seen_names_size(s), ==, 3);
}

/* A user over their own bound loses their least recently seen entry, nobody else's. */
static void test_per_user_bound(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        g_autofree char *d = NULL;

        g_assert_cmpint(seen_names_new(&small, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 2000, "other", NULL, NULL, NULL, 1), ==, 1);
        for (unsigned i = 0; i < 4; i++) {
                char name[16];

                snprintf(name, sizeof(name), "n%u", i);
                g_assert_cmpint(seen_names_note(s, 1000, name, NULL, NULL, NULL, 10 + i), ==, 1);
        }
        /* n0 seen again: n1 is now the least recently seen. */
        g_assert_cmpint(seen_names_note(s, 1000, "n0", NULL, NULL, NULL, 20), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, "n4", NULL, NULL, NULL, 21), ==, 1);
        d = dump(s, 1000);
        g_assert_cmpstr(d, ==,
                        "1000:n0|-|-|-@20 1000:n2|-|-|-@12 "
                        "1000:n3|-|-|-@13 1000:n4|-|-|-@21");
        g_assert_cmpuint(count_of(s, 2000), ==, 1);
}

static void test_per_user_bytes(void)
{
        const SeenNamesLimits l = { .per_user_max = 100, .per_user_bytes_max = 600, .total_max = 100 };
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        char name[SEEN_NAME_MAX + 1];

        g_assert_cmpint(seen_names_new(&l, &s), ==, 0);
        memset(name, 'x', SEEN_NAME_MAX);
        name[SEEN_NAME_MAX] = '\0';
        /* 256 bytes each: two fit in 600, the third evicts the first. */
        for (unsigned i = 0; i < 3; i++) {
                name[0] = (char) ('a' + i);
                g_assert_cmpint(seen_names_note(s, 1000, name, NULL, NULL, NULL, 10 + i), ==, 1);
        }
        g_assert_cmpuint(count_of(s, 1000), ==, 2);
        g_assert_cmpint(seen_names_note(s, 1001, "small", NULL, NULL, NULL, 1), ==, 1);
        g_assert_cmpuint(count_of(s, 1001), ==, 1);
}

/* One user starting many processes with random names while others ran a few: all users together are
 * over the total, yet each other user keeps their names (they hold fewer than the flooding user), and
 * the flooding user keeps only what is left. */
static void test_total_bound_fair(void)
{
        const SeenNamesLimits l = { .per_user_max = 8, .per_user_bytes_max = 4096, .total_max = 12 };
        _cleanup_(seen_names_freep) SeenNames *s = NULL;

        g_assert_cmpint(seen_names_new(&l, &s), ==, 0);
        /* Others' names are the oldest of all: globally least recently seen eviction would take them. */
        for (unsigned u = 0; u < 3; u++)
                for (unsigned i = 0; i < 2; i++) {
                        char name[16];

                        snprintf(name, sizeof(name), "u%u-%u", u, i);
                        g_assert_cmpint(seen_names_note(s, 2000 + u, name, NULL, NULL, NULL, 1 + i), ==, 1);
                }
        for (unsigned i = 0; i < 1000; i++) {
                char name[32];

                snprintf(name, sizeof(name), "random-%u", i);
                g_assert_cmpint(seen_names_note(s, 1000, name, NULL, NULL, NULL, 100 + i), ==, 1);
                g_assert_cmpuint(seen_names_size(s), <=, 12);
        }
        for (unsigned u = 0; u < 3; u++)
                g_assert_cmpuint(count_of(s, 2000 + u), ==, 2);
        g_assert_cmpuint(count_of(s, 1000), ==, 6);

        /* With every user at the same share, a new user's names take from the largest ones, down to an
         * equal share of the total: 4 users, 12 entries, 3 each at most for the flooding user. */
        for (unsigned i = 0; i < 100; i++) {
                char name[32];

                snprintf(name, sizeof(name), "late-%u", i);
                g_assert_cmpint(seen_names_note(s, 3000, name, NULL, NULL, NULL, 5000 + i), ==, 1);
        }
        g_assert_cmpuint(seen_names_size(s), ==, 12);
        for (unsigned u = 0; u < 3; u++)
                g_assert_cmpuint(count_of(s, 2000 + u), >=, 2);
        g_assert_cmpuint(count_of(s, 1000), >=, 2);
        g_assert_cmpuint(count_of(s, 3000), <=, 4);
}

static void test_limits_shrink(void)
{
        const SeenNamesLimits one = { .per_user_max = 1, .per_user_bytes_max = 4096, .total_max = 2 };
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        g_autofree char *d = NULL;

        g_assert_cmpint(seen_names_new(&small, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1, "a", NULL, NULL, NULL, 1), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1, "b", NULL, NULL, NULL, 2), ==, 1);
        g_assert_cmpint(seen_names_note(s, 2, "c", NULL, NULL, NULL, 3), ==, 1);
        g_assert_cmpint(seen_names_note(s, 3, "d", NULL, NULL, NULL, 4), ==, 1);
        seen_names_set_limits(s, &one);
        d = dump(s, UID_INVALID);
        /* Each user down to one (the newest), then the total down to two. */
        g_assert_cmpstr(d, ==, "2:c|-|-|-@3 3:d|-|-|-@4");
}

static void test_retention(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        g_autofree char *d = NULL;

        g_assert_cmpint(seen_names_new(&small, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1, "old", NULL, NULL, NULL, 1 * DAY), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1, "new", NULL, NULL, NULL, 40 * DAY), ==, 1);
        g_assert_cmpint(seen_names_note(s, 2, "mid", NULL, NULL, NULL, 10 * DAY), ==, 1);
        g_assert_cmpuint(seen_names_forget_older(s, 10 * DAY), ==, 1);
        g_assert_cmpuint(seen_names_forget_older(s, 10 * DAY + 1), ==, 1);
        d = dump(s, UID_INVALID);
        g_assert_cmpstr(d, ==, "1:new|-|-|-@3456000000000");
}

static void test_privacy(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL;
        g_autofree char *mine = NULL, *all = NULL;

        g_assert_cmpint(seen_names_new(NULL, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, "mine", NULL, NULL, NULL, 1), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1001, "secret-project", NULL, NULL, NULL, 2), ==, 1);
        g_assert_cmpint(seen_names_note(s, 0, "rootthing", NULL, NULL, NULL, 3), ==, 1);
        mine = dump(s, 1000);
        g_assert_cmpstr(mine, ==, "1000:mine|-|-|-@1");
        g_assert_cmpuint(count_of(s, 1002), ==, 0);
        all = dump(s, UID_INVALID);
        g_assert_nonnull(strstr(all, "secret-project"));
        g_assert_cmpuint(count_of(s, UID_INVALID), ==, 3);
}

static void test_round_trip(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL, *t = NULL;
        g_autofree char *dir = test_mkdtemp(), *a = NULL, *b = NULL, *path = NULL;
        int dfd = test_open_dir(dir);
        struct stat st;

        g_assert_cmpint(seen_names_new(NULL, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, ".niri-wrapped", ".niri-wrapped", "niri", NULL, 5 * DAY), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1000, "wine64-preloader", "Game.exe", "Game.exe", NULL, 6 * DAY), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1001, "bwrap", "blender", NULL, "org.blender.Blender", 7 * DAY), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1001, NULL, "kworker", NULL, NULL, 1 * DAY), ==, 1);
        g_assert_true(seen_names_dirty(s));
        g_assert_cmpint(seen_names_save(s, dfd, "names"), ==, 0);
        g_assert_false(seen_names_dirty(s));

        path = g_build_filename(dir, "names", NULL);
        g_assert_cmpint(stat(path, &st), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0600);

        /* Saved again over the old file. */
        g_assert_cmpint(seen_names_note(s, 1000, "again", NULL, NULL, NULL, 8 * DAY), ==, 1);
        g_assert_cmpint(seen_names_save(s, dfd, "names"), ==, 0);

        g_assert_cmpint(seen_names_new(NULL, &t), ==, 0);
        g_assert_cmpint(seen_names_load(t, dfd, "names", 8 * DAY, 30 * DAY), ==, 0);
        a = dump(s, UID_INVALID);
        b = dump(t, UID_INVALID);
        g_assert_cmpstr(a, ==, b);
        g_assert_false(seen_names_dirty(t));

        /* Retention at load: the kworker entry (day 1) is over 5 days old on day 8. */
        seen_names_clear(t);
        g_assert_cmpint(seen_names_load(t, dfd, "names", 8 * DAY, 5 * DAY), ==, 0);
        g_assert_cmpuint(seen_names_size(t), ==, 4);
        g_assert_cmpuint(count_of(t, 1001), ==, 1);

        /* A missing file is empty. */
        seen_names_clear(t);
        g_assert_cmpint(seen_names_load(t, dfd, "none", 8 * DAY, 30 * DAY), ==, 0);
        g_assert_cmpuint(seen_names_size(t), ==, 0);

        /* Bounds apply while loading. */
        {
                const SeenNamesLimits l = { .per_user_max = 1, .per_user_bytes_max = 4096, .total_max = 100 };
                _cleanup_(seen_names_freep) SeenNames *u = NULL;
                g_autofree char *c = NULL;

                g_assert_cmpint(seen_names_new(&l, &u), ==, 0);
                g_assert_cmpint(seen_names_load(u, dfd, "names", 8 * DAY, 30 * DAY), ==, 0);
                c = dump(u, UID_INVALID);
                g_assert_cmpstr(c, ==,
                                "1000:again|-|-|-@691200000000 "
                                "1001:bwrap|blender|-|org.blender.Blender@604800000000");
        }
        close(dfd);
}

static void *file_content(const SeenNames *s, size_t *ret_size)
{
        void *data = NULL;

        g_assert_cmpint(seen_names_serialize(s, &data, ret_size), ==, 0);
        return data;
}

/* What a corrupt file does: nothing loaded, the fault's offset said. */
static void test_corrupt(void)
{
        _cleanup_(seen_names_freep) SeenNames *s = NULL, *t = NULL;
        g_autofree uint8_t *data = NULL;
        g_autofree char *dir = test_mkdtemp();
        size_t size, offset;
        int dfd = test_open_dir(dir);

        g_assert_cmpint(seen_names_new(NULL, &s), ==, 0);
        g_assert_cmpint(seen_names_note(s, 1000, "abc", NULL, NULL, NULL, 5), ==, 1);
        g_assert_cmpint(seen_names_note(s, 1000, "def", NULL, NULL, NULL, 6), ==, 1);
        data = file_content(s, &size);
        /* header 16, record 12 + 2+3 + 3*2 = 23 each */
        g_assert_cmpuint(size, ==, 16 + 2 * 23);

        g_assert_cmpint(seen_names_new(NULL, &t), ==, 0);
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, 0);
        g_assert_cmpuint(seen_names_size(t), ==, 2);
        seen_names_clear(t);

        /* Truncated in the second record's last length: the first is not kept either. */
        g_assert_cmpint(seen_names_parse(t, data, size - 1, 10, 100, &offset), ==, -EBADMSG);
        g_assert_cmpuint(offset, ==, 16 + 23 + 12 + 2 + 3 + 2 + 2);
        g_assert_cmpuint(seen_names_size(t), ==, 0);

        /* Trailing garbage. */
        {
                g_autofree uint8_t *more = g_malloc(size + 1);

                memcpy(more, data, size);
                more[size] = 'x';
                g_assert_cmpint(seen_names_parse(t, more, size + 1, 10, 100, &offset), ==, -EBADMSG);
                g_assert_cmpuint(offset, ==, size);
        }
        /* A control character in a name. */
        data[16 + 23 + 12 + 2] = '\n';
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, -EBADMSG);
        g_assert_cmpuint(offset, ==, 16 + 23);
        data[16 + 23 + 12 + 2] = 'd';
        /* A name longer than the cap. */
        data[16 + 12] = 0x00;
        data[16 + 12 + 1] = 0x01;
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, -EBADMSG);
        g_assert_cmpuint(offset, ==, 16 + 12);
        data[16 + 12] = 3;
        data[16 + 12 + 1] = 0;
        /* Another version, bad magic. */
        data[8] = 2;
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, -EPROTONOSUPPORT);
        data[8] = 1;
        data[0] = 'X';
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, -EBADMSG);
        g_assert_cmpuint(offset, ==, 0);
        data[0] = 'N';
        g_assert_cmpint(seen_names_parse(t, data, size, 10, 100, &offset), ==, 0);
        seen_names_clear(t);

        /* Through the file: a corrupt file is ignored, not an error. */
        test_write_file_n(dir, "bad", (const char *) data, size - 1);
        g_assert_cmpint(seen_names_load(t, dfd, "bad", 10, 100), ==, 0);
        g_assert_cmpuint(seen_names_size(t), ==, 0);
        /* An oversized one too. */
        {
                const SeenNamesLimits l = { .per_user_max = 1, .per_user_bytes_max = 4096, .total_max = 0 };
                _cleanup_(seen_names_freep) SeenNames *u = NULL;

                g_assert_cmpint(seen_names_new(&l, &u), ==, 0);
                test_write_file_n(dir, "good", (const char *) data, size);
                g_assert_cmpint(seen_names_load(u, dfd, "good", 10, 100), ==, 0);
                g_assert_cmpuint(seen_names_size(u), ==, 0);
        }
        /* A symbolic link is not followed. */
        test_symlink("good", dir, "link");
        g_assert_cmpint(seen_names_load(t, dfd, "link", 10, 100), <, 0);
        g_assert_cmpuint(seen_names_size(t), ==, 0);
        close(dfd);
}

static int collect_keys(const SeenName *n, void *userdata)
{
        g_ptr_array_add(userdata, g_strdup_printf("%u %s", (unsigned) n->uid, n->procname));
        return 0;
}

static int seen_at(const SeenName *n, void *userdata)
{
        g_assert_cmpuint(n->last_seen_usec, ==, *(const uint64_t *) userdata);
        return 0;
}

/* Notes again every name s holds now: each is known (0) and no entry is added. */
static void renote_held(SeenNames *s, uint64_t now)
{
        g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func(g_free);
        size_t before = seen_names_size(s);

        g_assert_cmpint(seen_names_foreach(s, UID_INVALID, collect_keys, held), ==, 0);
        g_assert_cmpuint(held->len, ==, before);
        for (guint i = 0; i < held->len; i++) {
                unsigned uid;
                char name[64];

                g_assert_cmpint(sscanf(held->pdata[i], "%u %63s", &uid, name), ==, 2);
                g_assert_cmpint(seen_names_note(s, uid, name, NULL, NULL, NULL, now), ==, 0);
        }
        g_assert_cmpuint(seen_names_size(s), ==, before);
        /* ...and the entry itself was found: every one was seen now. */
        g_assert_cmpint(seen_names_foreach(s, UID_INVALID, seen_at, &now), ==, 0);
}

/* After evictions and forgetting moved entries about (the last into each hole), every name still held is
 * found again, none twice: the index follows every move. */
static void test_index_follows_moves(void)
{
        const SeenNamesLimits limits = { .per_user_max = 50, .per_user_bytes_max = 64 * 1024, .total_max = 120 };
        SeenNames *s = NULL;

        g_assert_cmpint(seen_names_new(&limits, &s), ==, 0);
        for (unsigned i = 0; i < 400; i++) {
                g_autofree char *name = g_strdup_printf("prog-%u", i);

                g_assert_cmpint(seen_names_note(s, 1000 + i % 5, name, NULL, NULL, NULL, (i + 1) * SEC), ==, 1);
        }
        g_assert_cmpuint(seen_names_size(s), ==, 120);
        g_assert_cmpuint(seen_names_forget_older(s, 350 * SEC), >, 0);
        renote_held(s, 401 * SEC);
        for (unsigned i = 0; i < 200; i++) {
                g_autofree char *name = g_strdup_printf("new-%u", i);

                g_assert_cmpint(seen_names_note(s, 1000 + i % 3, name, NULL, NULL, NULL, (500 + i) * SEC), ==, 1);
        }
        renote_held(s, 800 * SEC);
        seen_names_free(s);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/seen-names/note-dedup", test_note_dedup);
        g_test_add_func("/seen-names/validate", test_validate);
        g_test_add_func("/seen-names/per-user-bound", test_per_user_bound);
        g_test_add_func("/seen-names/per-user-bytes", test_per_user_bytes);
        g_test_add_func("/seen-names/total-bound-fair", test_total_bound_fair);
        g_test_add_func("/seen-names/limits-shrink", test_limits_shrink);
        g_test_add_func("/seen-names/retention", test_retention);
        g_test_add_func("/seen-names/privacy", test_privacy);
        g_test_add_func("/seen-names/round-trip", test_round_trip);
        g_test_add_func("/seen-names/corrupt", test_corrupt);
        g_test_add_func("/seen-names/index-follows-moves", test_index_follows_moves);
        return g_test_run();
}
