/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file-replace.h: a file's content replaced so that no edit is lost or half-written, whatever happens
 * meanwhile: a concurrent change, a symlink, a writer killed halfway, a read-only or full file system. */

#include <dirent.h>
#include <grp.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "file-replace.h"
#include "string-util.h"
#include "test-mount.h"
#include "test-util.h"

#define OLD "{ \"rules\": [] }\n"
#define NEW "{ \"rules\": [], \"profiles\": [] }\n"

/* Each case's own directory, opened; its teardown checks that no temporary directory is left, and
 * test_mkdtemp() removes the directory itself at exit (and the reaper the test's TMPDIR, if we die). */
typedef struct Fixture {
        char *dir;
        int dir_fd;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data)
{
        f->dir = test_mkdtemp();
        f->dir_fd = test_open_dir(f->dir);
}

static void assert_no_temp_dir(int dir_fd)
{
        struct stat st;

        g_assert_cmpint(fstatat(dir_fd, FILE_REPLACE_TEMP_DIR, &st, AT_SYMLINK_NOFOLLOW), ==, -1);
        g_assert_cmpint(errno, ==, ENOENT);
}

static void fixture_teardown(Fixture *f, gconstpointer data)
{
        assert_no_temp_dir(f->dir_fd);
        f->dir_fd = safe_close(f->dir_fd);
        g_free(f->dir);
}

static void write_at(int dir_fd, const char *name, const char *content)
{
        _cleanup_close_ int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);

        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(write(fd, content, strlen(content)), ==, (ssize_t) strlen(content));
}

static void assert_content(int dir_fd, const char *name, const char *content)
{
        _cleanup_free_ char *text = NULL;
        size_t size;

        g_assert_cmpint(file_read_regular(dir_fd, name, 1 << 20, &text, &size), ==, 0);
        g_assert_cmpuint(size, ==, strlen(content));
        g_assert_cmpstr(text, ==, content);
}

static int replace(int dir_fd, const char *name, const char *expected, const char *data, const FileReplaceHooks *hooks)
{
        return file_replace(dir_fd, name, expected, expected ? strlen(expected) : 0, data, strlen(data), 0644, hooks);
}

static int compare_names(gconstpointer a, gconstpointer b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The names in dir_fd other than "." and "..", sorted, joined with spaces. */
static char *list_dir(int dir_fd, const char *sub)
{
        _cleanup_closedir_ DIR *d = NULL;
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        int fd = openat(dir_fd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        g_assert_cmpint(fd, >=, 0);
        d = fdopendir(fd);
        g_assert_nonnull(d);
        for (struct dirent *de; (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        g_ptr_array_add(names, g_strdup(de->d_name));
        g_ptr_array_sort(names, compare_names);
        g_ptr_array_add(names, NULL);
        return g_strjoinv(" ", (char **) names->pdata);
}

static void assert_names(int dir_fd, const char *sub, const char *expected)
{
        g_autofree char *names = list_dir(dir_fd, sub);
        g_assert_cmpstr(names, ==, expected);
}

static void require_root(void)
{
        if (geteuid() != 0)
                g_test_skip("needs root");
}

/* The old file's owner, group and mode are kept; its content replaced. */
static void test_keeps_mode_and_owner(Fixture *f, gconstpointer data)
{
        struct stat st;

        write_at(f->dir_fd, "rc", OLD);
        g_assert_cmpint(fchmodat(f->dir_fd, "rc", 0640, 0), ==, 0);
        if (geteuid() == 0)
                g_assert_cmpint(fchownat(f->dir_fd, "rc", 65534, 65534, AT_SYMLINK_NOFOLLOW), ==, 0);

        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, 0);
        assert_content(f->dir_fd, "rc", NEW);
        g_assert_cmpint(fstatat(f->dir_fd, "rc", &st, AT_SYMLINK_NOFOLLOW), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0640);
        if (geteuid() == 0) {
                g_assert_cmpint(st.st_uid, ==, 65534);
                g_assert_cmpint(st.st_gid, ==, 65534);
        } else {
                g_assert_cmpint(st.st_uid, ==, geteuid());
                g_test_skip("the owner kept only checked as root");
        }
        assert_names(f->dir_fd, ".", "rc");
}

static void create_file(void *userdata)
{
        Fixture *f = userdata;
        write_at(f->dir_fd, "new", "theirs\n");
}

/* A new file gets new_mode exactly (whatever the umask) and never replaces one that appeared meanwhile. */
static void test_new_file(Fixture *f, gconstpointer data)
{
        FileReplaceHooks hooks = { .before_rename = create_file, .userdata = f };
        mode_t old_umask = umask(077);
        struct stat st;

        g_assert_cmpint(file_replace(f->dir_fd, "rc", NULL, 0, NEW, strlen(NEW), 0644, NULL), ==, 0);
        umask(old_umask);
        assert_content(f->dir_fd, "rc", NEW);
        g_assert_cmpint(fstatat(f->dir_fd, "rc", &st, AT_SYMLINK_NOFOLLOW), ==, 0);
        g_assert_cmpint(st.st_mode & 07777, ==, 0644);
        g_assert_cmpint(st.st_uid, ==, geteuid());

        /* It exists now: a second creation is stale. */
        g_assert_cmpint(replace(f->dir_fd, "rc", NULL, OLD, NULL), ==, -ESTALE);
        assert_content(f->dir_fd, "rc", NEW);

        /* Someone creates it between our look and our rename: theirs stays. */
        g_assert_cmpint(replace(f->dir_fd, "new", NULL, OLD, &hooks), ==, -ESTALE);
        assert_content(f->dir_fd, "new", "theirs\n");
        assert_names(f->dir_fd, ".", "new rc");
}

typedef struct Change {
        Fixture *f;
        const char *content;
        bool keep_mtime, remove, rename_over;
        int *hold_temp_dir; /* if set: another writer's lock on the temporary directory, taken here */
} Change;

static void change_file(void *userdata)
{
        Change *c = userdata;
        struct stat st;

        g_assert_cmpint(fstatat(c->f->dir_fd, "rc", &st, AT_SYMLINK_NOFOLLOW), ==, 0);
        if (c->hold_temp_dir) {
                *c->hold_temp_dir = openat(c->f->dir_fd, FILE_REPLACE_TEMP_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                g_assert_cmpint(*c->hold_temp_dir, >=, 0);
                g_assert_cmpint(flock(*c->hold_temp_dir, LOCK_SH), ==, 0);
        }
        if (c->remove) {
                g_assert_cmpint(unlinkat(c->f->dir_fd, "rc", 0), ==, 0);
                return;
        }
        if (c->rename_over) {
                /* An editor's save: the same bytes, a new file. */
                write_at(c->f->dir_fd, "rc.save", c->content);
                g_assert_cmpint(renameat(c->f->dir_fd, "rc.save", c->f->dir_fd, "rc"), ==, 0);
                return;
        }
        write_at(c->f->dir_fd, "rc", c->content);
        if (c->keep_mtime) {
                struct timespec times[2] = { st.st_atim, st.st_mtim };
                struct stat now;

                g_assert_cmpint(utimensat(c->f->dir_fd, "rc", times, AT_SYMLINK_NOFOLLOW), ==, 0);
                g_assert_cmpint(fstatat(c->f->dir_fd, "rc", &now, AT_SYMLINK_NOFOLLOW), ==, 0);
                g_assert_cmpint(now.st_size, ==, st.st_size);
                g_assert_cmpint(now.st_mtim.tv_sec, ==, st.st_mtim.tv_sec);
                g_assert_cmpint(now.st_mtim.tv_nsec, ==, st.st_mtim.tv_nsec);
        }
}

/* A change between the read the edit was based on and the rename: nothing is lost. */
static void test_concurrent_change(Fixture *f, gconstpointer data)
{
        _cleanup_close_ int held = -EBADF;
        const Change changes[] = {
                { f, "{ \"rules\": [ \"theirs\" ] }\n" },
                /* The same size and mtime: only the bytes tell. */
                { f, "{ \"rules\": [ ]}\n", .keep_mtime = true },
                { f, NULL, .remove = true },
                { f, OLD, .rename_over = true },
                /* While another writer is at work too: our temporary goes, theirs (none here) stays. */
                { f, "{ \"rules\": [ \"theirs\" ] }\n", .hold_temp_dir = &held },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(changes); i++) {
                Change c = changes[i];
                FileReplaceHooks hooks = { .before_rename = change_file, .userdata = &c };
                struct stat st;

                g_test_message("change %zu", i);
                write_at(f->dir_fd, "rc", OLD);
                g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, &hooks), ==, -ESTALE);
                if (c.remove)
                        g_assert_cmpint(fstatat(f->dir_fd, "rc", &st, AT_SYMLINK_NOFOLLOW), ==, -1);
                else
                        assert_content(f->dir_fd, "rc", c.content);
                if (c.hold_temp_dir) {
                        assert_names(f->dir_fd, FILE_REPLACE_TEMP_DIR, "");
                        held = safe_close(held);
                        g_assert_cmpint(unlinkat(f->dir_fd, FILE_REPLACE_TEMP_DIR, AT_REMOVEDIR), ==, 0);
                }
                assert_no_temp_dir(f->dir_fd);
        }

        /* Based on other bytes than the file holds: stale before anything is written. */
        write_at(f->dir_fd, "rc", OLD);
        g_assert_cmpint(replace(f->dir_fd, "rc", NEW, NEW, NULL), ==, -ESTALE);
        g_assert_cmpint(replace(f->dir_fd, "gone", OLD, NEW, NULL), ==, -ESTALE);
        assert_content(f->dir_fd, "rc", OLD);
}

/* Not a regular file: refused, and left as it was. */
static void test_not_regular(Fixture *f, gconstpointer data)
{
        char target[PATH_MAX] = "";
        _cleanup_free_ char *text = NULL;
        size_t size;
        char long_name[NAME_MAX + 2];

        write_at(f->dir_fd, "real", OLD);
        g_assert_cmpint(symlinkat("real", f->dir_fd, "link"), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "link", OLD, NEW, NULL), ==, -ELOOP);
        g_assert_cmpint(readlinkat(f->dir_fd, "link", target, sizeof target - 1), ==, 4);
        g_assert_cmpstr(target, ==, "real");
        assert_content(f->dir_fd, "real", OLD);
        g_assert_cmpint(file_read_regular(f->dir_fd, "link", 1024, &text, &size), ==, -ELOOP);

        g_assert_cmpint(mkdirat(f->dir_fd, "dir", 0755), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "dir", OLD, NEW, NULL), ==, -EISDIR);
        g_assert_cmpint(mkfifoat(f->dir_fd, "fifo", 0644), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "fifo", OLD, NEW, NULL), ==, -EBADFD);
        g_assert_cmpint(file_read_regular(f->dir_fd, "fifo", 1024, &text, &size), ==, -EBADFD);
        g_assert_cmpint(file_read_regular(f->dir_fd, "missing", 1024, &text, &size), ==, -ENOENT);
        g_assert_cmpint(file_read_regular(f->dir_fd, "real", 4, &text, &size), ==, -EFBIG);

        memset(long_name, 'a', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = '\0';
        g_assert_cmpint(replace(f->dir_fd, long_name, NULL, NEW, NULL), ==, -EINVAL);
        long_name[NAME_MAX] = '\0';
        g_assert_cmpint(replace(f->dir_fd, long_name, NULL, NEW, NULL), ==, 0);
        g_assert_cmpint(unlinkat(f->dir_fd, long_name, 0), ==, 0);
        for (const char *const *n = (const char *const[]){ "", ".", "..", "a/b", "/real", FILE_REPLACE_TEMP_DIR, NULL };
                        *n; n++)
                g_assert_cmpint(replace(f->dir_fd, *n, NULL, NEW, NULL), ==, -EINVAL);
        assert_names(f->dir_fd, ".", "dir fifo link real");
}

static void die(void *userdata)
{
        (void) raise(SIGKILL);
}

/* A writer killed between its write and its rename: the old file is whole, the directory holds no new
 * file the driver would read (only the temporary directory), and the next writer cleans up. */
static void test_killed_writer(Fixture *f, gconstpointer data)
{
        FileReplaceHooks hooks = { .before_rename = die };
        g_autofree char *left = NULL;
        struct stat st;
        int status;
        pid_t pid;

        write_at(f->dir_fd, "rc", OLD);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                (void) replace(f->dir_fd, "rc", OLD, NEW, &hooks);
                _exit(0);
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFSIGNALED(status));
        g_assert_cmpint(WTERMSIG(status), ==, SIGKILL);

        assert_content(f->dir_fd, "rc", OLD);
        assert_names(f->dir_fd, ".", FILE_REPLACE_TEMP_DIR " rc");
        g_assert_cmpint(fstatat(f->dir_fd, FILE_REPLACE_TEMP_DIR, &st, AT_SYMLINK_NOFOLLOW), ==, 0);
        g_assert_true(S_ISDIR(st.st_mode));
        g_assert_cmpint(st.st_mode & 07777, ==, 0700);
        /* The complete new content, where the driver never looks. */
        left = list_dir(f->dir_fd, FILE_REPLACE_TEMP_DIR);
        g_assert_null(strchr(left, ' '));
        {
                g_autofree char *rel = g_strdup_printf(FILE_REPLACE_TEMP_DIR "/%s", left);
                _cleanup_close_ int temp_fd = openat(f->dir_fd, FILE_REPLACE_TEMP_DIR, O_RDONLY | O_DIRECTORY);

                g_assert_cmpint(temp_fd, >=, 0);
                assert_content(temp_fd, left, NEW);
                g_test_message("left: %s", rel);
        }

        /* The next writer works, and removes what the dead one left. */
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, 0);
        assert_content(f->dir_fd, "rc", NEW);
        assert_names(f->dir_fd, ".", "rc");
}

/* A writer that is not root keeps the owner only where it is the owner: another's file is -EPERM and
 * stays as it was. */
static void test_owner_not_kept(Fixture *f, gconstpointer data)
{
        int status;
        pid_t pid;

        require_root();
        if (geteuid() != 0)
                return;
        g_assert_cmpint(mkdirat(f->dir_fd, "home", 0755), ==, 0);
        g_assert_cmpint(fchownat(f->dir_fd, "home", 65534, 65534, 0), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                /* The directory is opened before the switch, so the test's own TMPDIR need not be open
                 * to that user. */
                _cleanup_close_ int home_fd = openat(f->dir_fd, "home", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                struct stat st;

                g_assert_cmpint(home_fd, >=, 0);
                write_at(home_fd, "roots", OLD);
                write_at(home_fd, "mine", OLD);
                g_assert_cmpint(fchownat(home_fd, "mine", 65534, 65534, 0), ==, 0);
                g_assert_cmpint(setgroups(0, NULL), ==, 0);
                g_assert_cmpint(setresgid(65534, 65534, 65534), ==, 0);
                g_assert_cmpint(setresuid(65534, 65534, 65534), ==, 0);

                g_assert_cmpint(replace(home_fd, "roots", OLD, NEW, NULL), ==, -EPERM);
                assert_content(home_fd, "roots", OLD);
                g_assert_cmpint(fstatat(home_fd, "roots", &st, AT_SYMLINK_NOFOLLOW), ==, 0);
                g_assert_cmpint(st.st_uid, ==, 0);
                g_assert_cmpint(replace(home_fd, "mine", OLD, NEW, NULL), ==, 0);
                assert_content(home_fd, "mine", NEW);
                assert_names(home_fd, ".", "mine roots");
                _exit(0);
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

/* A temporary directory that is not the writer's own (another user's, or a symlink) is never used. */
static void test_temp_dir_not_ours(Fixture *f, gconstpointer data)
{
        char target[PATH_MAX] = "";

        write_at(f->dir_fd, "rc", OLD);
        g_assert_cmpint(mkdirat(f->dir_fd, "elsewhere", 0777), ==, 0);
        g_assert_cmpint(symlinkat("elsewhere", f->dir_fd, FILE_REPLACE_TEMP_DIR), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), <, 0);
        assert_content(f->dir_fd, "rc", OLD);
        assert_names(f->dir_fd, "elsewhere", "");
        g_assert_cmpint(readlinkat(f->dir_fd, FILE_REPLACE_TEMP_DIR, target, sizeof target - 1), ==, 9);
        g_assert_cmpint(unlinkat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 0), ==, 0);

        /* Ours, but open to others. */
        g_assert_cmpint(mkdirat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 0700), ==, 0);
        g_assert_cmpint(fchmodat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 0777, 0), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, -EPERM);
        assert_names(f->dir_fd, FILE_REPLACE_TEMP_DIR, "");
        g_assert_cmpint(unlinkat(f->dir_fd, FILE_REPLACE_TEMP_DIR, AT_REMOVEDIR), ==, 0);

        if (geteuid() != 0) {
                g_test_skip("another user's directory only as root");
                return;
        }
        g_assert_cmpint(mkdirat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 0700), ==, 0);
        g_assert_cmpint(fchownat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 65534, 65534, 0), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, -EPERM);
        assert_content(f->dir_fd, "rc", OLD);
        assert_names(f->dir_fd, FILE_REPLACE_TEMP_DIR, "");
        g_assert_cmpint(unlinkat(f->dir_fd, FILE_REPLACE_TEMP_DIR, AT_REMOVEDIR), ==, 0);
        assert_names(f->dir_fd, ".", "elsewhere rc");
}

/* Whoever holds the temporary directory locked cannot make a writer wait: -EBUSY, nothing written. */
static void test_locked_temp_dir(Fixture *f, gconstpointer data)
{
        _cleanup_close_ int fd = -EBADF;

        write_at(f->dir_fd, "rc", OLD);
        g_assert_cmpint(mkdirat(f->dir_fd, FILE_REPLACE_TEMP_DIR, 0700), ==, 0);
        fd = openat(f->dir_fd, FILE_REPLACE_TEMP_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(flock(fd, LOCK_EX), ==, 0);
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, -EBUSY);
        assert_content(f->dir_fd, "rc", OLD);
        assert_names(f->dir_fd, FILE_REPLACE_TEMP_DIR, "");

        fd = safe_close(fd);
        g_assert_cmpint(replace(f->dir_fd, "rc", OLD, NEW, NULL), ==, 0);
        assert_content(f->dir_fd, "rc", NEW);
}

/* Runs fn in a child with a private mount namespace and a small tmpfs mounted at f->dir/mnt (only the
 * child sees it), and fails if the child fails. */
static void run_on_tmpfs(Fixture *f, const char *options, void (*fn)(int mnt_fd))
{
        int status;
        pid_t pid;

        require_root();
        if (g_test_failed() || geteuid() != 0)
                return;
        g_assert_cmpint(mkdirat(f->dir_fd, "mnt", 0755), ==, 0);
        pid = fork();
        g_assert_cmpint(pid, >=, 0);
        if (pid == 0) {
                g_autofree char *mnt = g_build_filename(f->dir, "mnt", NULL);
                const char *why = test_private_mount_namespace();
                int mnt_fd;

                if (why) {
                        g_printerr("no private mount namespace: %s\n", why);
                        _exit(2);
                }
                if (mount("tmpfs", mnt, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) {
                        g_printerr("mount tmpfs %s: %s\n", options, g_strerror(errno));
                        _exit(3);
                }
                mnt_fd = test_open_dir(mnt);
                fn(mnt_fd);
                _exit(0);
        }
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_assert_cmpint(unlinkat(f->dir_fd, "mnt", AT_REMOVEDIR), ==, 0);
}

static void read_only_case(int mnt_fd)
{
        g_autofree char *path = NULL;

        write_at(mnt_fd, "rc", OLD);
        path = g_strdup_printf("/proc/self/fd/%d", mnt_fd);
        g_assert_cmpint(mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL), ==, 0);
        g_assert_cmpint(replace(mnt_fd, "rc", OLD, NEW, NULL), ==, -EROFS);
        assert_content(mnt_fd, "rc", OLD);
        assert_names(mnt_fd, ".", "rc");
}

static void test_read_only(Fixture *f, gconstpointer data)
{
        run_on_tmpfs(f, "size=64k", read_only_case);
}

static void full_case(int mnt_fd)
{
        g_autofree char *big = g_strnfill(128 * 1024, 'x');
        char block[4096];
        _cleanup_close_ int fd = -EBADF;

        write_at(mnt_fd, "rc", OLD);
        fd = openat(mnt_fd, "filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        g_assert_cmpint(fd, >=, 0);
        memset(block, 'f', sizeof block);
        while (write(fd, block, sizeof block) > 0)
                ;
        g_assert_cmpint(errno, ==, ENOSPC);
        g_assert_cmpint(replace(mnt_fd, "rc", OLD, big, NULL), ==, -ENOSPC);
        assert_content(mnt_fd, "rc", OLD);
        assert_names(mnt_fd, ".", "filler rc");
}

static void test_full(Fixture *f, gconstpointer data)
{
        run_on_tmpfs(f, "size=64k", full_case);
}

#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        ADD("/file-replace/keeps-mode-and-owner", test_keeps_mode_and_owner);
        ADD("/file-replace/new-file", test_new_file);
        ADD("/file-replace/concurrent-change", test_concurrent_change);
        ADD("/file-replace/not-regular", test_not_regular);
        ADD("/file-replace/killed-writer", test_killed_writer);
        ADD("/file-replace/owner-not-kept", test_owner_not_kept);
        ADD("/file-replace/temp-dir-not-ours", test_temp_dir_not_ours);
        ADD("/file-replace/locked-temp-dir", test_locked_temp_dir);
        ADD("/file-replace/read-only", test_read_only);
        ADD("/file-replace/full", test_full);
        return g_test_run();
}
