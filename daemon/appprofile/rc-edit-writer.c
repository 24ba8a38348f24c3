/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "macro.h"
#include "rc-edit-writer.h"
#include "rc-searchpath.h"
#include "string-util.h"
#include "strv.h"

/* What a listing of an rc.d directory may hold: its names, NUL-separated. */
#define LIST_SIZE_MAX RC_EDIT_WRITER_REPLY_MAX
#define LIST_NAMES_MAX 4096u

/* A home, and how its files are reached. */
typedef struct Home {
        int fd; /* the home directory, as named */
        bool foreign; /* another user's: no link below it is followed */
        bool become_owner; /* ...and we are root: every access runs in a child that became its owner */
        UserCreds owner;
} Home;

static void home_done(Home *h)
{
        h->fd = safe_close(h->fd);
}

static int home_open(const char *home, Home *ret)
{
        struct stat st;

        *ret = (Home){ .fd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC) };
        if (ret->fd < 0)
                return -errno;
        if (fstat(ret->fd, &st) < 0)
                return -errno;
        ret->foreign = st.st_uid != geteuid();
        ret->become_owner = ret->foreign && geteuid() == 0;
        if (ret->become_owner)
                user_creds_from_user_database(st.st_uid, &ret->owner);
        return 0;
}

/* One access to a directory below the home: fn run in the directory rel (relative to the home),
 * created when create. */
typedef struct Access {
        const char *rel;
        bool create;
        RcEditDirFunc fn;
        void *userdata;
} Access;

/* Opens rel below the home one component at a time, creating what is missing when create; in another
 * user's home without following any link. */
static int open_below(const Home *h, const char *rel, bool create)
{
        _cleanup_close_ int fd = -EBADF;
        const char *p = rel;

        fd = openat(h->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        while (*p) {
                _cleanup_free_ char *component = NULL;
                size_t n = strcspn(p, "/");
                int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (h->foreign ? O_NOFOLLOW : 0), next;

                component = strndup(p, n);
                if (!component)
                        return -ENOMEM;
                p += n + strspn(p + n, "/");
                if (streq(component, "..") || streq(component, "."))
                        return -EINVAL;

                next = openat(fd, component, flags);
                if (next < 0 && errno == ENOENT && create) {
                        /* Only where nothing is: a file of that name is never turned into a directory. */
                        if (mkdirat(fd, component, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        next = openat(fd, component, flags | O_NOFOLLOW);
                }
                if (next < 0) {
                        struct stat st;
                        int r = -errno;

                        /* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link: say what it is. */
                        if (h->foreign && fstatat(fd, component, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                                return -ELOOP;
                        return r;
                }
                safe_close(fd);
                fd = next;
        }
        return TAKE_FD(fd);
}

static int list_names(int dir_fd, void *userdata, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, allocated = 0, n = 0;
        struct dirent *de;
        DIR *d;
        int fd;

        fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -errno;
        }
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name) + 1;

                if (de->d_name[0] == '.')
                        continue;
                if (++n > LIST_NAMES_MAX || size + len > LIST_SIZE_MAX) {
                        closedir(d);
                        return -E2BIG;
                }
                if (GREEDY_REALLOC(buf, allocated, size + len) < 0) {
                        closedir(d);
                        return -ENOMEM;
                }
                memcpy(buf + size, de->d_name, len);
                size += len;
        }
        closedir(d);
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

/* Does a, as whoever runs it. */
static int access_run(const Home *h, const Access *a, char **ret, size_t *ret_size)
{
        _cleanup_close_ int dir_fd = -EBADF;

        *ret = NULL;
        *ret_size = 0;
        dir_fd = open_below(h, a->rel, a->create);
        if (dir_fd < 0)
                return dir_fd;
        return a->fn(dir_fd, a->userdata, ret, ret_size);
}

/* What the child that did an access tells us, followed by size bytes. */
typedef struct AccessReply {
        int32_t error;
        uint8_t present;
        uint64_t size;
} AccessReply;

/* Closes every descriptor from 3 up but keep_a and keep_b: the child keeps nothing of ours (such as a bus
 * connection authenticated as root) that the user could take from it. */
static void close_all_but(int keep_a, int keep_b)
{
        int low = MIN(keep_a, keep_b), high = MAX(keep_a, keep_b);

        if (low > 3)
                (void) close_range(3, low - 1, 0);
        if (high > low + 1)
                (void) close_range(low + 1, high - 1, 0);
        (void) close_range(MAX(high + 1, 3), ~0U, 0);
}

_Noreturn static void access_child(const Home *h, const Access *a, int reply_fd)
{
        _cleanup_free_ char *text = NULL;
        AccessReply reply = { 0 };
        size_t size = 0;
        int r;

        close_all_but(h->fd, reply_fd);
        r = user_creds_become(&h->owner);
        if (r >= 0)
                r = access_run(h, a, &text, &size);
        reply = (AccessReply){ .error = r < 0 ? r : 0, .present = !!text, .size = text ? size : 0 };
        if (loop_write(reply_fd, &reply, sizeof(reply)) < 0 || (text && loop_write(reply_fd, text, size) < 0))
                _exit(EXIT_FAILURE);
        _exit(EXIT_SUCCESS);
}

/* Runs a as the home's owner: here, or in a child that became the owner. */
static int access_as_owner(const Home *h, const Access *a, char **ret, size_t *ret_size)
{
        _cleanup_close_ int reply_fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        AccessReply reply;
        int fds[2], status, r;
        pid_t pid;

        if (!h->become_owner)
                return access_run(h, a, ret, ret_size);

        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                safe_close(fds[0]);
                safe_close(fds[1]);
                return r;
        }
        if (pid == 0) {
                safe_close(fds[0]);
                access_child(h, a, fds[1]);
        }
        safe_close(fds[1]);
        reply_fd = fds[0];

        r = loop_read_exact(reply_fd, &reply, sizeof(reply));
        if (r >= 0 && reply.size > RC_EDIT_WRITER_REPLY_MAX)
                r = -EPROTO;
        if (r >= 0 && reply.present) {
                text = malloc(reply.size + 1);
                if (!text)
                        r = -ENOMEM;
                else {
                        r = loop_read_exact(reply_fd, text, reply.size);
                        text[reply.size] = '\0';
                }
        }
        reply_fd = safe_close(reply_fd);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (r < 0)
                return r;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != EXIT_SUCCESS)
                return -EPROTO;
        if (reply.error < 0)
                return reply.error;
        *ret = TAKE_PTR(text);
        *ret_size = reply.present ? reply.size : 0;
        return 0;
}

/* a in home, dir being below it. */
static int access_home(const char *home, const char *dir, Access *a, char **ret, size_t *ret_size)
{
        _cleanup_(home_done) Home h = { .fd = -EBADF };
        int r;

        assert(home);
        assert(dir);

        if (!startswith(dir, home) || (dir[strlen(home)] != '/' && !endswith(home, "/")))
                return -EINVAL;
        a->rel = dir + strlen(home);
        a->rel += strspn(a->rel, "/");

        r = home_open(home, &h);
        if (r < 0)
                return r;
        return access_as_owner(&h, a, ret, ret_size);
}

/* --- the system's files ------------------------------------------------------------------------------ */

/* One access to a directory of the system's files, run with the writer's file access. */
typedef struct SystemAccess {
        int root_fd;
        const char *dir;
        bool create;
        RcEditDirFunc fn;
        void *userdata;
        char *text;
        size_t size;
} SystemAccess;

/* Opens the directory; a write may create the system's rc.d directory (its parent must exist). */
static int system_open_dir(const SystemAccess *a)
{
        _cleanup_free_ char *rc_d = NULL, *parent_path = NULL;
        _cleanup_close_ int parent = -EBADF, fd = -EBADF;
        const char *base;
        int r;

        fd = open_in_root(a->root_fd, a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd != -ENOENT || !a->create)
                return TAKE_FD(fd);
        r = rc_entry_path(RC_ENTRY_SYSTEM_DIR, NULL, NULL, &rc_d);
        if (r < 0)
                return r;
        if (!streq(a->dir, rc_d))
                return -ENOENT;

        base = strrchr(rc_d, '/') + 1;
        parent_path = strndup(rc_d, base - 1 - rc_d);
        if (!parent_path)
                return -ENOMEM;
        parent = open_in_root(a->root_fd, parent_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0)
                return parent;
        /* Only where nothing is: a file of that name is never turned into a directory. */
        if (mkdirat(parent, base, 0755) < 0 && errno != EEXIST)
                return -errno;
        fd = openat(parent, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* Readable by every user's processes, whose driver reads it, whatever our umask. */
        if (fchmod(fd, 0755) < 0)
                return -errno;
        return TAKE_FD(fd);
}

static int system_access_run(void *userdata)
{
        SystemAccess *a = userdata;
        _cleanup_close_ int dir_fd = -EBADF;

        dir_fd = system_open_dir(a);
        if (dir_fd < 0)
                return dir_fd;
        return a->fn(dir_fd, a->userdata, &a->text, &a->size);
}

int rc_edit_writer_run(const RcEditWriter *w, const char *dir, bool create, RcEditDirFunc fn, void *userdata,
                char **ret, size_t *ret_size)
{
        assert(w);
        assert(dir);
        assert(fn);
        assert(ret);
        assert(ret_size);

        *ret = NULL;
        *ret_size = 0;
        if (w->home) {
                Access a = { .create = create, .fn = fn, .userdata = userdata };

                return access_home(w->home, dir, &a, ret, ret_size);
        }

        {
                SystemAccess a = {
                        .root_fd = w->root_fd, .dir = dir, .create = create, .fn = fn, .userdata = userdata
                };
                int r;

                r = user_creds_run(w->creds, system_access_run, &a);
                if (r < 0) {
                        free(a.text);
                        return r;
                }
                *ret = a.text;
                *ret_size = a.size;
                return 0;
        }
}

int rc_edit_writer_list(const RcEditWriter *w, const char *dir, char ***ret)
{
        _cleanup_free_ char *names = NULL;
        size_t size = 0;
        int r;

        r = rc_edit_writer_run(w, dir, false, list_names, NULL, &names, &size);
        if (r == -ENOENT)
                return strv_from_nulstr(NULL, 0, LIST_NAMES_MAX, ret);
        if (r < 0)
                return r;
        return strv_from_nulstr(names, size, LIST_NAMES_MAX, ret);
}
