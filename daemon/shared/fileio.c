/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"

static int open_below_root(int root_fd, const char *path, int flags, uint64_t resolve)
{
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve,
        };
        int fd;

        assert(path);

        /* Relative paths are taken relative to root too. */
        while (*path == '/')
                path++;
        if (!*path)
                path = ".";

        fd = (int) syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
        if (fd >= 0)
                return fd;
        if (errno != ENOSYS)
                return -errno;

        /* Kernels before 5.6 (and valgrind before 3.20) lack openat2. Without it we cannot confine lookups,
         * so only a root that is the real "/" may go on with plain openat(). */
        {
                struct stat a, b;

                if (fstat(root_fd, &a) < 0 || stat("/", &b) < 0)
                        return -errno;
                if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                        return -ENOSYS;
        }
        /* Links on the way cannot be refused without openat2; the last one at least is not followed. */
        if (resolve & RESOLVE_NO_SYMLINKS)
                flags |= O_NOFOLLOW;
        fd = openat(root_fd, path, flags | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int open_in_root(int root_fd, const char *path, int flags)
{
        return open_below_root(root_fd, path, flags, 0);
}

int open_in_root_no_symlinks(int root_fd, const char *path, int flags)
{
        return open_below_root(root_fd, path, flags, RESOLVE_NO_SYMLINKS);
}

/* Not in every <linux/magic.h>: the values the kernel's own sources define. */
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif
#ifndef FUSE_CTL_SUPER_MAGIC
#define FUSE_CTL_SUPER_MAGIC 0x65735543
#endif
#ifndef RPC_PIPEFS_MAGIC
#define RPC_PIPEFS_MAGIC 0x67596969
#endif
#ifndef NFSD_MAGIC
#define NFSD_MAGIC 0x6e667364
#endif
#ifndef GADGETFS_MAGIC
#define GADGETFS_MAGIC 0xaee71ee7
#endif
#ifndef FUNCTIONFS_MAGIC
#define FUNCTIONFS_MAGIC 0xa647361
#endif

/* File systems whose files the kernel makes up as they are read, from its own state and often from who
 * reads: a process may always read its own /proc entries, so /proc/self/maps (or /proc/<our pid>/...)
 * opened by the daemon is the daemon's memory layout and environment, whatever fsuid it acts with; sysfs,
 * debugfs, tracefs, securityfs and the rest expose kernel, device and security state that no user stored
 * there. None holds an rc file. A denylist, not an allowlist: homes live on every kind of storage (ext4,
 * xfs, btrfs, zfs, nfs, cifs, ceph, overlayfs, tmpfs...), and refusing one we did not list would break a
 * real setup, while each pseudo file system here is known. FUSE is not listed: it stores what its
 * server stores, and the kernel refuses a user's mount to any other uid (so to us) unless allow_other. */
static const uint32_t pseudo_file_systems[] = {
        PROC_SUPER_MAGIC, /* per-process state, the reader's own included */
        SYSFS_MAGIC, /* devices, drivers, kernel settings */
        DEBUGFS_MAGIC,
        TRACEFS_MAGIC,
        SECURITYFS_MAGIC, /* LSM policy and state */
        SELINUX_MAGIC,
        SMACK_MAGIC,
        AAFS_MAGIC, /* AppArmor */
        CGROUP_SUPER_MAGIC,
        CGROUP2_SUPER_MAGIC,
        RDTGROUP_SUPER_MAGIC, /* resctrl */
        BPF_FS_MAGIC, /* pinned BPF maps and programs */
        CONFIGFS_MAGIC,
        PSTOREFS_MAGIC, /* crash dumps of the kernel's log */
        EFIVARFS_MAGIC, /* firmware variables */
        DEVPTS_SUPER_MAGIC, /* terminals */
        MQUEUE_MAGIC, /* POSIX message queues: reading one describes it */
        FUSE_CTL_SUPER_MAGIC, /* FUSE's connections */
        BINFMTFS_MAGIC,
        BINDERFS_SUPER_MAGIC,
        USBDEVICE_SUPER_MAGIC,
        GADGETFS_MAGIC,
        FUNCTIONFS_MAGIC,
        OPENPROM_SUPER_MAGIC,
        XENFS_SUPER_MAGIC,
        RPC_PIPEFS_MAGIC,
        NFSD_MAGIC,
        /* Reached through /proc/<pid>/fd/ only, which our lookups never follow; listed all the same. */
        NSFS_MAGIC,
        PIPEFS_MAGIC,
        SOCKFS_MAGIC,
        ANON_INODE_FS_MAGIC,
        DMA_BUF_MAGIC,
        DEVMEM_MAGIC,
        SECRETMEM_MAGIC,
};

int fd_is_on_pseudo_file_system(int fd)
{
        struct statfs sfs;

        assert(fd >= 0);

        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        /* f_type is a signed word on some architectures: compare the 32 bits the magics have. */
        for (size_t i = 0; i < ELEMENTSOF(pseudo_file_systems); i++)
                if ((uint32_t) sfs.f_type == pseudo_file_systems[i])
                        return 1;
        return 0;
}

/* short_is_end: a read shorter than asked for is the end of the file (see read_virtual_file_whole_at()). */
static int read_loop(int fd, size_t max_size, size_t hint, bool short_is_end, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *buf = NULL;
        size_t allocated = 0, size = 0;

        for (;;) {
                size_t want;
                ssize_t n;

                if (size >= max_size + 1)
                        return -EFBIG;
                if (GREEDY_REALLOC(buf, allocated, MIN(MAX(size + hint, size + 4096), max_size + 2)) < 0)
                        return -ENOMEM;

                want = MIN(allocated - 1, max_size + 1) - size;
                n = read(fd, buf + size, want);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (short_is_end && (size_t) n < want)
                        break;
        }

        if (size > max_size)
                return -EFBIG;

        buf[size] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

int read_full_fd(int fd, size_t max_size, char **ret, size_t *ret_size)
{
        struct stat st;

        assert(fd >= 0);
        assert(ret);

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > max_size)
                return -EFBIG;

        return read_loop(fd, max_size, (size_t) st.st_size + 1, false, ret, ret_size);
}

int read_full_file_in_root(
                int root_fd, const char *path, size_t max_size, char **ret, size_t *ret_size, struct stat *ret_st)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = open_in_root(root_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return fd;

        r = read_full_fd(fd, max_size, ret, ret_size);
        if (r < 0)
                return r;

        if (ret_st && fstat(fd, ret_st) < 0)
                return -errno;
        return 0;
}

static int read_virtual(int dir_fd, const char *path, size_t max_size, bool short_is_end, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;

        assert(path);
        assert(ret);

        fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;

        return read_loop(fd, max_size, 4096, short_is_end, ret, ret_size);
}

int read_virtual_file_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size)
{
        return read_virtual(dir_fd, path, max_size, false, ret, ret_size);
}

int read_virtual_file_whole_at(int dir_fd, const char *path, size_t max_size, char **ret, size_t *ret_size)
{
        return read_virtual(dir_fd, path, max_size, true, ret, ret_size);
}

int loop_write(int fd, const void *data, size_t size)
{
        for (size_t done = 0; done < size;) {
                ssize_t n = write(fd, (const char *) data + done, size - done);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += (size_t) n;
        }
        return 0;
}

int loop_read_exact(int fd, void *data, size_t size)
{
        for (size_t done = 0; done < size;) {
                ssize_t n = read(fd, (char *) data + done, size - done);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -EPROTO;
                done += (size_t) n;
        }
        return 0;
}
