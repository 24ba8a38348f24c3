/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "file-replace.h"
#include "fileio.h"
#include "string-util.h"

/* Creating the temporary can race with another writer removing the (then empty) temporary directory,
 * or find it locked while that writer does: that many fresh starts before giving up. */
#define TEMP_ATTEMPTS 16u
#define TEMP_RETRY_USEC 1000u

static bool is_plain_file_name(const char *name)
{
        return !isempty(name) && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..") &&
                        !streq(name, FILE_REPLACE_TEMP_DIR) && strlen(name) <= NAME_MAX;
}

/* The errors of a target that is not a regular file, as the header lists them. */
static int regular_file_error(const struct stat *st)
{
        if (S_ISREG(st->st_mode))
                return 0;
        if (S_ISLNK(st->st_mode))
                return -ELOOP;
        if (S_ISDIR(st->st_mode))
                return -EISDIR;
        return -EBADFD;
}

/* Opens the target without following a final symlink and without blocking on a fifo. */
static int open_target(int dir_fd, const char *name, struct stat *ret_st)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        /* O_NOFOLLOW alone would open a fifo or a device before we could refuse it: look first. */
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        r = regular_file_error(&st);
        if (r < 0)
                return r;

        fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, ret_st) < 0)
                return -errno;
        r = regular_file_error(ret_st);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int file_read_regular(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        assert(name);
        assert(ret);

        if (!is_plain_file_name(name))
                return -EINVAL;
        fd = open_target(dir_fd, name, &st);
        if (fd < 0)
                return fd;
        return read_full_fd(fd, max, ret, ret_size);
}

/* Whether the target is still exactly what the edit was computed from: the same file (a file renamed
 * over it, even with the same bytes, may have another owner or mode than the one given to the
 * temporary), with the same owner and mode, holding the same bytes. */
static int target_unchanged(
                int dir_fd, const char *name, const struct stat *was, const void *expected, size_t expected_size)
{
        _cleanup_free_ char *now = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        size_t size;
        int r;

        fd = open_target(dir_fd, name, &st);
        if (fd == -ENOENT)
                return -ESTALE;
        if (fd < 0)
                return fd;
        if (st.st_dev != was->st_dev || st.st_ino != was->st_ino || st.st_uid != was->st_uid ||
                        st.st_gid != was->st_gid || st.st_mode != was->st_mode)
                return -ESTALE;

        r = read_full_fd(fd, expected_size, &now, &size);
        if (r == -EFBIG)
                return -ESTALE;
        if (r < 0)
                return r;
        if (size != expected_size || memcmp(now, expected, size) != 0)
                return -ESTALE;
        return 0;
}

/* The temporary directory, made if missing, and held with a shared lock while we use it. It must be a
 * directory of the writer's own that nobody else may write to: another user able to add or swap names in
 * it could place a file of theirs where ours is renamed from. */
static int open_temp_dir(int dir_fd)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        if (mkdirat(dir_fd, FILE_REPLACE_TEMP_DIR, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = openat(dir_fd, FILE_REPLACE_TEMP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        /* setfsuid() with an invalid id changes nothing and returns the current one. */
        if (st.st_uid != (uid_t) setfsuid((uid_t) -1) || (st.st_mode & 0022) != 0)
                return -EPERM;
        /* Never waits: whoever can open the directory can hold an exclusive lock on it for as long as
         * they like, and the daemon must not hang on a user's whim. Our own cleaners hold it briefly. */
        if (flock(fd, LOCK_SH | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        return TAKE_FD(fd);
}

/* Removes the temporary directory when no other writer holds it. Whatever is still in it then was left
 * by a writer that died between its write and its rename (its lock went with it): removed too. */
static void remove_temp_dir(int dir_fd, int temp_dir_fd)
{
        _cleanup_closedir_ DIR *d = NULL;
        int fd;

        if (flock(temp_dir_fd, LOCK_EX | LOCK_NB) < 0)
                return;
        fd = openat(temp_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        d = fdopendir(fd);
        if (!d) {
                (void) safe_close(fd);
                return;
        }
        for (struct dirent *de; (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        (void) unlinkat(temp_dir_fd, de->d_name, 0);
        /* Fails harmlessly (ENOTEMPTY, EBUSY) if something we did not remove is in it. */
        (void) unlinkat(dir_fd, FILE_REPLACE_TEMP_DIR, AT_REMOVEDIR);
}

static int create_temp(int temp_dir_fd, char ret_name[static 32])
{
        for (unsigned attempt = 0;; attempt++) {
                uint64_t random_bits;
                int fd;

                if (getrandom(&random_bits, sizeof random_bits, GRND_NONBLOCK) != sizeof random_bits)
                        random_bits = ((uint64_t) getpid() << 32) ^ attempt ^ (uint64_t) (uintptr_t) &attempt;
                (void) snprintf(ret_name, 32, "tmp.%016" PRIx64, random_bits);
                /* Owner only until the final owner and mode are set. */
                fd = openat(temp_dir_fd, ret_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd >= 0)
                        return fd;
                if (errno != EEXIST || attempt >= TEMP_ATTEMPTS)
                        return -errno;
        }
}

/* Renames the complete temporary to name: over the old file, or for a new one only if name is still
 * free, so a file someone created meanwhile is never overwritten. */
static int rename_into_place(int temp_dir_fd, const char *temp_name, int dir_fd, const char *name, bool create)
{
        if (!create)
                return renameat(temp_dir_fd, temp_name, dir_fd, name) < 0 ? -errno : 0;

        if (renameat2(temp_dir_fd, temp_name, dir_fd, name, RENAME_NOREPLACE) >= 0)
                return 0;
        if (errno == EEXIST)
                return -ESTALE;
        if (!IN_SET(errno, EINVAL, ENOSYS))
                return -errno;
        /* A file system without RENAME_NOREPLACE: link() never replaces either. */
        if (linkat(temp_dir_fd, temp_name, dir_fd, name, 0) < 0)
                return errno == EEXIST ? -ESTALE : -errno;
        (void) unlinkat(temp_dir_fd, temp_name, 0);
        return 0;
}

/* Writes the temporary and renames it into place; the caller removes the temporary if it is left. */
static int replace_via(int dir_fd, int temp_dir_fd, int fd, const char *temp_name, const char *name,
                const struct stat *old, const void *expected, size_t expected_size, const void *data, size_t size,
                mode_t new_mode, const FileReplaceHooks *hooks)
{
        _cleanup_close_ int sync_fd = -EBADF;
        struct stat st;
        int r;

        /* The final owner and mode before the first byte (HACKING, rule 4); the owner first, since
         * fchown() clears the set-id bits. A writer that is not root can keep only an owner it already is. */
        if (fstat(fd, &st) < 0)
                return -errno;
        if (old && (old->st_uid != st.st_uid || old->st_gid != st.st_gid) && fchown(fd, old->st_uid, old->st_gid) < 0)
                return IN_SET(errno, EPERM, EINVAL) ? -EPERM : -errno;
        if (fchmod(fd, old ? old->st_mode & 07777 : new_mode & 07777) < 0)
                return -errno;
        r = loop_write(fd, data, size);
        if (r < 0)
                return r;
        if (fsync(fd) < 0)
                return -errno;

        if (hooks && hooks->before_rename)
                hooks->before_rename(hooks->userdata);

        if (old) {
                r = target_unchanged(dir_fd, name, old, expected, expected_size);
                if (r < 0)
                        return r;
        }
        r = rename_into_place(temp_dir_fd, temp_name, dir_fd, name, !old);
        if (r < 0)
                return r;

        /* The rename is done and cannot be taken back: a failing fsync of the directory only loses
         * durability, which no error here could restore. */
        sync_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (sync_fd >= 0)
                (void) fsync(sync_fd);
        return 0;
}

int file_replace(int dir_fd, const char *name, const void *expected, size_t expected_size, const void *data,
                size_t size, mode_t new_mode, const FileReplaceHooks *hooks)
{
        _cleanup_close_ int target_fd = -EBADF, temp_dir_fd = -EBADF, fd = -EBADF;
        char temp_name[32];
        struct stat old;
        int r;

        assert(expected || expected_size == 0);
        assert(data || size == 0);

        if (!name || !is_plain_file_name(name))
                return -EINVAL;

        target_fd = open_target(dir_fd, name, &old);
        if (target_fd == -ENOENT) {
                if (expected)
                        return -ESTALE;
        } else if (target_fd < 0)
                return target_fd;
        else if (!expected)
                return -ESTALE;
        target_fd = safe_close(target_fd);

        for (unsigned attempt = 0;; attempt++) {
                temp_dir_fd = open_temp_dir(dir_fd);
                if (temp_dir_fd == -EBUSY && attempt < TEMP_ATTEMPTS) {
                        /* Another writer is cleaning up: a moment, at most TEMP_ATTEMPTS of them. */
                        (void) usleep(TEMP_RETRY_USEC);
                        continue;
                }
                if (temp_dir_fd < 0)
                        return temp_dir_fd;
                fd = create_temp(temp_dir_fd, temp_name);
                if (fd >= 0)
                        break;
                /* -ENOENT: another writer removed the directory between our mkdirat() and our lock. */
                if (fd != -ENOENT || attempt >= TEMP_ATTEMPTS) {
                        remove_temp_dir(dir_fd, temp_dir_fd);
                        return fd;
                }
                temp_dir_fd = safe_close(temp_dir_fd);
        }

        r = replace_via(dir_fd, temp_dir_fd, fd, temp_name, name, expected ? &old : NULL, expected, expected_size, data,
                        size, new_mode, hooks);
        if (r < 0)
                (void) unlinkat(temp_dir_fd, temp_name, 0);
        remove_temp_dir(dir_fd, temp_dir_fd);
        return r;
}
