/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rc edit transaction (rc-edit-transaction.h) alone, on temporary trees: read, apply, diff, a
 * preview that writes nothing, compare-and-replace that refuses a file changed since it was read (and
 * keeps what is there), a move that writes its destination first, the system's writer creating only its
 * rc.d directory, and links refused. */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "rc-edit-transaction.h"
#include "rc-edit-move.h"
#include "rc-rule-id.h"
#include "test-util.h"

#define USER_RC_D ".nv/nvidia-application-profiles-rc.d"
#define SYSTEM_RC_D "etc/nvidia/nvidia-application-profiles-rc.d"

static const char two_rules[] = "{\n"
                                "    \"rules\": [\n"
                                "        { \"pattern\": \"a\", \"profile\": \"P\" },\n"
                                "        { \"pattern\": \"b\", \"profile\": \"P\" }\n"
                                "    ]\n"
                                "}\n";

static const RcEditSetting setting = { "GLVidHeapReuseRatio", "0" };

static const RcEdit add_niri = {
        .operation = RC_EDIT_ADD_RULE,
        .index = SIZE_MAX,
        .pattern = "{\"feature\": \"procname\", \"matches\": \"niri\"}",
        .settings = &setting,
        .n_settings = 1,
};

/* A home of our own, and the path of a file of its rc.d directory. */
typedef struct Home {
        char *dir;
        char *file; /* absolute */
        RcEditWriter writer;
} Home;

static void home_init(Home *h, const char *name)
{
        h->dir = test_mkdtemp();
        h->file = g_strdup_printf("%s/" USER_RC_D "/%s", h->dir, name);
        h->writer = (RcEditWriter){ .home = h->dir, .root_fd = -EBADF };
}

static void home_done(Home *h)
{
        g_free(h->dir);
        g_free(h->file);
}

static char *read_or_null(const char *path)
{
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return NULL;
        return text;
}

/* What a preview was shown. */
typedef struct Seen {
        size_t n;
        char *paths[2], *texts[2];
} Seen;

static void seen_done(Seen *s)
{
        for (size_t i = 0; i < s->n; i++) {
                g_free(s->paths[i]);
                g_free(s->texts[i]);
        }
}

static int remember(const RcEditFile *const *files, size_t n, void *userdata)
{
        Seen *s = userdata;

        g_assert_cmpuint(n, <=, 2);
        s->n = n;
        for (size_t i = 0; i < n; i++) {
                s->paths[i] = g_strdup(files[i]->path);
                s->texts[i] = g_strdup(files[i]->new_text);
        }
        return 0;
}

/* A new file: read as absent, edited, diffed and previewed with nothing written (not even the
 * directories), then committed; read again it holds exactly what was previewed, and a second edit's
 * diff is against that. */
static void test_new_file(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, again = { 0 };
        Home h = { 0 };
        Seen seen = { 0 };
        g_autofree char *diff = NULL, *nv = NULL, *written = NULL, *diff2 = NULL;
        size_t index;

        home_init(&h, "50-test");
        nv = g_build_filename(h.dir, ".nv", NULL);
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, 0);
        g_assert_null(t.source.text);
        g_assert_cmpint(rc_edit_transaction_apply(&t, &add_niri), ==, 0);
        g_assert_nonnull(t.source.new_text);
        g_assert_nonnull(t.rule_id);

        g_assert_cmpint(rc_edit_transaction_diff(&t, &diff), ==, 0);
        g_assert_nonnull(strstr(diff, "+++ b/"));
        g_assert_nonnull(strstr(diff, h.file));
        g_assert_nonnull(strstr(diff, "\n+"));
        g_assert_nonnull(strstr(diff, "niri"));

        g_assert_cmpint(rc_edit_transaction_preview(&t, remember, &seen), ==, 0);
        g_assert_cmpuint(seen.n, ==, 1);
        g_assert_cmpstr(seen.paths[0], ==, h.file);
        g_assert_cmpstr(seen.texts[0], ==, t.source.new_text);
        g_assert_false(g_file_test(nv, G_FILE_TEST_EXISTS));

        g_assert_cmpint(rc_edit_transaction_commit(&t, NULL), ==, 0);
        written = read_or_null(h.file);
        g_assert_cmpstr(written, ==, t.source.new_text);

        /* Read again: the text committed, and the added rule found by the id the edit gave. */
        rc_edit_transaction_init(&again, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&again, h.file), ==, 0);
        g_assert_cmpstr(again.source.text, ==, written);
        g_assert_cmpint(rc_edit_transaction_find_rule(&again, t.rule_id, &index), ==, 0);
        g_assert_cmpint(rc_edit_transaction_apply(
                                        &again, &(RcEdit){ .operation = RC_EDIT_REMOVE_RULE, .index = index }),
                        ==, 0);
        g_assert_cmpint(rc_edit_transaction_diff(&again, &diff2), ==, 0);
        g_assert_nonnull(strstr(diff2, "--- a/"));
        g_assert_nonnull(strstr(diff2, "\n-"));
        g_assert_null(strstr(diff2, "\n+ "));

        seen_done(&seen);
        home_done(&h);
}

/* A file changed between read and commit is not replaced: -ESTALE names it, and the other writer's
 * text stays. The same for a file created meanwhile. */
static void test_changed_since_read(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, fresh = { 0 };
        static const char theirs[] = "{ \"rules\": [] }\n";
        Home h = { 0 };
        g_autofree char *after = NULL, *after_created = NULL;
        const char *path = NULL;

        home_init(&h, "50-test");
        test_write_file(h.dir, USER_RC_D "/50-test", two_rules);
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, 0);
        g_assert_cmpstr(t.source.text, ==, two_rules);
        g_assert_cmpint(rc_edit_transaction_apply(&t, &add_niri), ==, 0);

        test_write_file(h.dir, USER_RC_D "/50-test", theirs);
        g_assert_cmpint(rc_edit_transaction_commit(&t, &path), ==, -ESTALE);
        g_assert_cmpstr(path, ==, h.file);
        after = read_or_null(h.file);
        g_assert_cmpstr(after, ==, theirs);

        /* Absent when read, created since. */
        g_assert_cmpint(unlink(h.file), ==, 0);
        rc_edit_transaction_init(&fresh, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&fresh, h.file), ==, 0);
        g_assert_null(fresh.source.text);
        g_assert_cmpint(rc_edit_transaction_apply(&fresh, &add_niri), ==, 0);
        test_write_file(h.dir, USER_RC_D "/50-test", theirs);
        g_assert_cmpint(rc_edit_transaction_commit(&fresh, NULL), ==, -ESTALE);
        after_created = read_or_null(h.file);
        g_assert_cmpstr(after_created, ==, theirs);

        home_done(&h);
}

/* A move into another file: the diff and the commit take the destination first, the preview sees both
 * files; when the source changed meanwhile the destination is written and the source is not, so the
 * rule is twice, never nowhere. */
static void test_move_destination_first(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, stale = { 0 };
        Home h = { 0 };
        Seen seen = { 0 };
        g_autofree char *dest = NULL, *diff = NULL, *src_after = NULL, *dest_after = NULL, *changed = NULL;
        const char *path = NULL;
        size_t index;

        home_init(&h, "50-source");
        dest = g_strdup_printf("%s/" USER_RC_D "/60-dest", h.dir);
        test_write_file(h.dir, USER_RC_D "/50-source", two_rules);

        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, 0);
        g_assert_cmpint(rc_edit_transaction_open_destination(&t, dest), ==, 0);
        g_assert_null(t.destination.text);
        g_assert_cmpint(rc_edit_transaction_find_rule(&t, "4", &index), ==, 0);
        g_assert_cmpuint(index, ==, 1);
        g_assert_cmpint(rc_edit_transaction_move(&t, index, SIZE_MAX), ==, 0);
        g_assert_cmpint(rc_edit_transaction_diff(&t, &diff), ==, 0);
        g_assert_nonnull(strstr(diff, dest));
        g_assert_nonnull(strstr(diff, h.file));
        g_assert_true(strstr(diff, dest) < strstr(diff, h.file));
        g_assert_cmpint(rc_edit_transaction_preview(&t, remember, &seen), ==, 0);
        g_assert_cmpuint(seen.n, ==, 2);
        g_assert_cmpstr(seen.paths[0], ==, h.file);
        g_assert_cmpstr(seen.paths[1], ==, dest);
        g_assert_false(g_file_test(dest, G_FILE_TEST_EXISTS));

        /* The source changes before the commit. */
        test_write_file(h.dir, USER_RC_D "/50-source", "{}\n");
        g_assert_cmpint(rc_edit_transaction_commit(&t, &path), ==, -ESTALE);
        g_assert_cmpstr(path, ==, h.file);
        src_after = read_or_null(h.file);
        g_assert_cmpstr(src_after, ==, "{}\n");
        dest_after = read_or_null(dest);
        g_assert_cmpstr(dest_after, ==, t.destination.new_text);
        g_assert_nonnull(strstr(dest_after, "\"b\""));

        /* A destination that is the source is no second file. */
        rc_edit_transaction_init(&stale, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&stale, dest), ==, 0);
        g_assert_cmpint(rc_edit_transaction_open_destination(&stale, dest), ==, 0);
        g_assert_null(stale.destination.path);
        g_assert_cmpint(rc_edit_transaction_move(&stale, 0, 0), ==, 0);
        g_assert_cmpint(rc_edit_transaction_commit(&stale, NULL), ==, 0);
        changed = read_or_null(dest);
        g_assert_cmpstr(changed, ==, stale.source.new_text);

        seen_done(&seen);
        home_done(&h);
}

/* Rules are found by line and by id; a file that does not load is never edited and says why; a file
 * that does not exist has no rule. */
static void test_find_rule(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, broken = { 0 }, none = { 0 };
        g_autofree char *id = NULL, *broken_path = NULL, *none_path = NULL;
        Home h = { 0 };
        size_t index = SIZE_MAX;

        home_init(&h, "50-test");
        test_write_file(h.dir, USER_RC_D "/50-test", two_rules);
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, 0);
        g_assert_cmpint(rc_text_rule_id(h.file, two_rules, strlen(two_rules), NULL, 1, &id), ==, 0);
        g_assert_cmpint(rc_edit_transaction_find_rule(&t, id, &index), ==, 0);
        g_assert_cmpuint(index, ==, 1);
        g_assert_cmpint(rc_edit_transaction_find_rule(&t, "2", &index), ==, -ENOENT);

        test_write_file(h.dir, USER_RC_D "/broken", "{ \"rules\": [ }\n");
        rc_edit_transaction_init(&broken, &h.writer, NULL);
        broken_path = g_strdup_printf("%s/" USER_RC_D "/broken", h.dir);
        g_assert_cmpint(rc_edit_transaction_open(&broken, broken_path), ==, 0);
        g_assert_cmpint(rc_edit_transaction_find_rule(&broken, "1", &index), ==, -EBADMSG);
        g_assert_cmpuint(broken.diagnostics.n_errors, >, 0);
        g_assert_cmpint(rc_edit_transaction_apply(&broken, &add_niri), ==, -EBADMSG);
        g_assert_null(broken.source.new_text);

        rc_edit_transaction_init(&none, &h.writer, NULL);
        none_path = g_strdup_printf("%s/" USER_RC_D "/none", h.dir);
        g_assert_cmpint(rc_edit_transaction_open(&none, none_path), ==, 0);
        g_assert_cmpint(rc_edit_transaction_find_rule(&none, "1", &index), ==, -ENOENT);

        home_done(&h);
}

/* prepare() runs open, find_rule, open_destination and apply or move as one, and says which step failed
 * and on which file. */
static void test_prepare(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction moved = { 0 }, linked = { 0 }, no_rule = { 0 },
                                                              absent = { 0 }, bad = { 0 }, updated = { 0 };
        g_autofree char *dest = NULL, *link_path = NULL, *absent_path = NULL;
        Home h = { 0 };

        home_init(&h, "50-source");
        dest = g_strdup_printf("%s/" USER_RC_D "/60-dest", h.dir);
        test_write_file(h.dir, USER_RC_D "/50-source", two_rules);

        rc_edit_transaction_init(&moved, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&moved,
                                        &(RcEditRequest){ .path = h.file,
                                                        .rule = "4",
                                                        .move = true,
                                                        .destination = dest,
                                                        .position = SIZE_MAX }),
                        ==, 0);
        g_assert_nonnull(strstr(moved.destination.new_text, "\"b\""));
        g_assert_null(strstr(moved.source.new_text, "\"b\""));
        g_assert_nonnull(moved.rule_id);

        link_path = g_strdup_printf("%s/" USER_RC_D "/link", h.dir);
        test_symlink("50-source", h.dir, USER_RC_D "/link");
        rc_edit_transaction_init(&linked, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&linked,
                                        &(RcEditRequest){ .path = h.file,
                                                        .rule = "3",
                                                        .move = true,
                                                        .destination = link_path }),
                        ==, -ELOOP);
        g_assert_cmpint(linked.failed_step, ==, RC_EDIT_STEP_READ);
        g_assert_cmpstr(linked.failed_path, ==, link_path);

        rc_edit_transaction_init(&no_rule, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&no_rule,
                                        &(RcEditRequest){ .path = h.file,
                                                        .rule = "2",
                                                        .edit = { .operation = RC_EDIT_REMOVE_RULE } }),
                        ==, -ENOENT);
        g_assert_cmpint(no_rule.failed_step, ==, RC_EDIT_STEP_FIND_RULE);
        g_assert_nonnull(no_rule.source.text);

        absent_path = g_strdup_printf("%s/" USER_RC_D "/absent", h.dir);
        rc_edit_transaction_init(&absent, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&absent,
                                        &(RcEditRequest){ .path = absent_path,
                                                        .rule = "3",
                                                        .edit = { .operation = RC_EDIT_REMOVE_RULE } }),
                        ==, -ENOENT);
        g_assert_cmpint(absent.failed_step, ==, RC_EDIT_STEP_FIND_RULE);
        g_assert_null(absent.source.text);

        rc_edit_transaction_init(&bad, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&bad,
                                        &(RcEditRequest){ .path = h.file,
                                                        .edit = { .operation = RC_EDIT_REMOVE_PROFILE,
                                                                        .profile = "none" } }),
                        ==, -ENOENT);
        g_assert_cmpint(bad.failed_step, ==, RC_EDIT_STEP_EDIT);
        g_assert_cmpuint(bad.diagnostics.n_errors, >, 0);

        /* The rule's index comes from the address, not from the edit. */
        rc_edit_transaction_init(&updated, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_prepare(&updated,
                                        &(RcEditRequest){ .path = h.file,
                                                        .rule = "4",
                                                        .edit = { .operation = RC_EDIT_UPDATE_RULE,
                                                                        .index = 0,
                                                                        .profile = "Q" } }),
                        ==, 0);
        g_assert_nonnull(strstr(updated.source.new_text, "{ \"pattern\": \"a\", \"profile\": \"P\" }"));
        g_assert_nonnull(strstr(updated.source.new_text, "\"Q\""));

        home_done(&h);
}

/* A link as the file is neither read nor replaced; what is not a regular file is refused. */
static void test_links_refused(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, d = { 0 };
        g_autofree char *dir_path = NULL;
        Home h = { 0 };

        home_init(&h, "50-link");
        test_write_file(h.dir, "elsewhere", two_rules);
        test_mkdir_p(h.dir, USER_RC_D);
        test_symlink("../../elsewhere", h.dir, USER_RC_D "/50-link");
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, -ELOOP);

        test_mkdir_p(h.dir, USER_RC_D "/a-directory");
        dir_path = g_strdup_printf("%s/" USER_RC_D "/a-directory", h.dir);
        rc_edit_transaction_init(&d, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&d, dir_path), <, 0);
        g_assert_null(d.source.text);

        home_done(&h);
}

/* The system's writer works below its root: a write creates the system's rc.d directory, readable by
 * everyone whatever the umask, and no other directory. */
static void test_system_writer(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, other = { 0 };
        _cleanup_close_ int root_fd = -EBADF;
        g_autofree char *root = test_mkdtemp(), *rcd = NULL, *written = NULL, *other_dir = NULL;
        RcEditWriter w;
        struct stat st;
        mode_t old_umask;

        test_mkdir_p(root, "etc/nvidia");
        root_fd = test_open_dir(root);
        w = (RcEditWriter){ .root_fd = root_fd };
        rc_edit_transaction_init(&t, &w, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, "/" SYSTEM_RC_D "/50-test"), ==, 0);
        g_assert_null(t.source.text);
        g_assert_cmpint(rc_edit_transaction_apply(&t, &add_niri), ==, 0);
        old_umask = umask(077);
        g_assert_cmpint(rc_edit_transaction_commit(&t, NULL), ==, 0);
        umask(old_umask);
        rcd = g_build_filename(root, SYSTEM_RC_D, NULL);
        g_assert_cmpint(stat(rcd, &st), ==, 0);
        g_assert_cmpuint(st.st_mode & 07777, ==, 0755);
        written = g_build_filename(rcd, "50-test", NULL);
        g_assert_cmpint(stat(written, &st), ==, 0);
        g_assert_cmpuint(st.st_mode & 07777, ==, 0644);

        rc_edit_transaction_init(&other, &w, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&other, "/etc/other/50-test"), ==, 0);
        g_assert_cmpint(rc_edit_transaction_apply(&other, &add_niri), ==, 0);
        g_assert_cmpint(rc_edit_transaction_commit(&other, NULL), ==, -ENOENT);
        other_dir = g_build_filename(root, "etc/other", NULL);
        g_assert_false(g_file_test(other_dir, G_FILE_TEST_EXISTS));
}

/* Another user's home, edited by root: a link below the home is never followed, even to a directory of
 * the owner's (-ELOOP, nothing written where it points), and what is written is the owner's, by a child
 * that became the owner. */
static void test_foreign_home(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 }, linked = { 0 };
        g_autofree char *private = NULL, *nv = NULL, *rcd = NULL, *in_private = NULL;
        const uid_t nobody = 65534;
        Home h = { 0 };
        struct stat st;

        if (geteuid() != 0) {
                g_test_skip("another user's home needs root");
                return;
        }
        home_init(&h, "50-test");
        g_assert_cmpint(chmod(h.dir, 0755), ==, 0);
        g_assert_cmpint(chown(h.dir, nobody, nobody), ==, 0);
        /* A directory the owner may write (as a dotfiles repository would be): only not following the
         * link keeps the write out of it. */
        private = test_mkdtemp();
        g_assert_cmpint(chown(private, nobody, nobody), ==, 0);
        nv = g_build_filename(h.dir, ".nv", NULL);
        g_assert_cmpint(symlink(private, nv), ==, 0);

        rc_edit_transaction_init(&linked, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&linked, h.file), ==, -ELOOP);
        g_assert_cmpint(rc_edit_transaction_apply(&linked, &add_niri), ==, 0);
        g_assert_cmpint(rc_edit_transaction_commit(&linked, NULL), ==, -ELOOP);
        in_private = g_build_filename(private, "nvidia-application-profiles-rc.d", NULL);
        g_assert_false(g_file_test(in_private, G_FILE_TEST_EXISTS));

        g_assert_cmpint(unlink(nv), ==, 0);
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h.file), ==, 0);
        g_assert_cmpint(rc_edit_transaction_apply(&t, &add_niri), ==, 0);
        g_assert_cmpint(rc_edit_transaction_commit(&t, NULL), ==, 0);
        rcd = g_build_filename(h.dir, USER_RC_D, NULL);
        g_assert_cmpint(stat(nv, &st), ==, 0);
        g_assert_cmpuint(st.st_uid, ==, nobody);
        g_assert_cmpint(stat(rcd, &st), ==, 0);
        g_assert_cmpuint(st.st_uid, ==, nobody);
        g_assert_cmpint(stat(h.file, &st), ==, 0);
        g_assert_cmpuint(st.st_uid, ==, nobody);

        home_done(&h);
}

/* One committed edit of file, and what the file held before and after it (NULL: absent before). */
static void edit_committed(Home *h, char **ret_before, char **ret_after)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };

        *ret_before = read_or_null(h->file);
        rc_edit_transaction_init(&t, &h->writer, NULL);
        g_assert_cmpint(rc_edit_transaction_open(&t, h->file), ==, 0);
        g_assert_cmpint(rc_edit_transaction_apply(&t, &add_niri), ==, 0);
        g_assert_cmpint(rc_edit_transaction_commit(&t, NULL), ==, 0);
        *ret_after = read_or_null(h->file);
        g_assert_nonnull(*ret_after);
}

static int revert(Home *h, const char *written, const char *previous)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        int r;

        rc_edit_transaction_init(&t, &h->writer, NULL);
        r = rc_edit_transaction_revert(
                        &t, h->file, written, strlen(written), previous, previous ? strlen(previous) : 0);
        if (r < 0)
                return r;
        return rc_edit_transaction_commit(&t, NULL);
}

/* The Undo of an edit: the file goes back byte for byte (removed when the edit created it), but only
 * while it still holds what the edit wrote; a change made since stays, and a previous text that is no rc
 * file is never written. */
static void test_revert(void)
{
        _cleanup_(rc_edit_transaction_done) RcEditTransaction t = { 0 };
        Home h = { 0 };
        g_autofree char *before = NULL, *after = NULL, *before2 = NULL, *after2 = NULL, *now = NULL, *diff = NULL;

        home_init(&h, "50-test");

        /* Created by the edit: the revert removes it, and its diff shows every line going. */
        edit_committed(&h, &before, &after);
        g_assert_null(before);
        rc_edit_transaction_init(&t, &h.writer, NULL);
        g_assert_cmpint(rc_edit_transaction_revert(&t, h.file, after, strlen(after), NULL, 0), ==, 0);
        g_assert_cmpint(rc_edit_transaction_diff(&t, &diff), ==, 0);
        g_assert_nonnull(strstr(diff, "\n-"));
        g_assert_nonnull(strstr(diff, "niri"));
        g_assert_null(strstr(diff, "\n+ "));
        g_assert_cmpint(rc_edit_transaction_commit(&t, NULL), ==, 0);
        g_assert_false(g_file_test(h.file, G_FILE_TEST_EXISTS));

        /* An existing file: put back exactly. */
        g_assert_true(g_file_set_contents(h.file, two_rules, -1, NULL));
        edit_committed(&h, &before2, &after2);
        g_assert_cmpstr(before2, ==, two_rules);
        g_assert_cmpint(revert(&h, after2, before2), ==, 0);
        now = read_or_null(h.file);
        g_assert_cmpstr(now, ==, two_rules);
        g_clear_pointer(&now, g_free);

        /* Changed since (here: reverted already): nothing is written, the change stays. */
        g_assert_cmpint(revert(&h, after2, before2), ==, -ESTALE);
        now = read_or_null(h.file);
        g_assert_cmpstr(now, ==, two_rules);
        g_clear_pointer(&now, g_free);

        /* A removal whose file changed since: it stays. */
        g_assert_cmpint(revert(&h, after2, NULL), ==, -ESTALE);
        g_assert_true(g_file_test(h.file, G_FILE_TEST_EXISTS));

        /* A previous text that does not load is never written. */
        g_assert_cmpint(revert(&h, two_rules, "{ \"rules\": ["), ==, -EBADMSG);
        now = read_or_null(h.file);
        g_assert_cmpstr(now, ==, two_rules);

        home_done(&h);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rc-edit-transaction/new-file", test_new_file);
        g_test_add_func("/rc-edit-transaction/changed-since-read", test_changed_since_read);
        g_test_add_func("/rc-edit-transaction/move-destination-first", test_move_destination_first);
        g_test_add_func("/rc-edit-transaction/find-rule", test_find_rule);
        g_test_add_func("/rc-edit-transaction/prepare", test_prepare);
        g_test_add_func("/rc-edit-transaction/links-refused", test_links_refused);
        g_test_add_func("/rc-edit-transaction/system-writer", test_system_writer);
        g_test_add_func("/rc-edit-transaction/foreign-home", test_foreign_home);
        g_test_add_func("/rc-edit-transaction/revert", test_revert);
        return g_test_run();
}
