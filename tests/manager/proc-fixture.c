/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "proc-fixture.h"
#include "test-util.h"

#define TASK_COMM_LEN 16 /* the kernel's, with the NUL */

/* What stat and status are made of, kept so a comm change can rewrite them. */
typedef struct FixtureEntry {
        pid_t pid;
        uint64_t start_time;
        pid_t ppid;
        uid_t uid;
        char *comm;
} FixtureEntry;

struct ProcFixture {
        char *path;
        GHashTable *entries; /* GINT_TO_POINTER(pid) -> FixtureEntry */
};

static void fixture_entry_free(gpointer p)
{
        FixtureEntry *e = p;

        g_free(e->comm);
        g_free(e);
}

ProcFixture *proc_fixture_new(void)
{
        ProcFixture *f = g_new0(ProcFixture, 1);

        f->path = test_mkdtemp();
        f->entries = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, fixture_entry_free);
        return f;
}

ProcFixture *proc_fixture_free(ProcFixture *f)
{
        if (!f)
                return NULL;
        g_hash_table_destroy(f->entries);
        g_free(f->path);
        g_free(f);
        return NULL;
}

const char *proc_fixture_path(const ProcFixture *f)
{
        return f->path;
}

bool proc_fixture_has(const ProcFixture *f, pid_t pid)
{
        return g_hash_table_contains(f->entries, GINT_TO_POINTER(pid));
}

static FixtureEntry *get_entry(ProcFixture *f, pid_t pid)
{
        FixtureEntry *e = g_hash_table_lookup(f->entries, GINT_TO_POINTER(pid));

        if (!e)
                g_error("proc fixture: no process %i", (int) pid);
        return e;
}

static void write_pid_file(ProcFixture *f, pid_t pid, const char *name, const char *content, size_t len)
{
        g_autofree char *rel = g_strdup_printf("%i/%s", (int) pid, name);

        test_write_file_n(f->path, rel, content, len);
}

/* stat and status both carry comm; the start time is field 22 of stat. */
static void write_identity(ProcFixture *f, const FixtureEntry *e)
{
        g_autofree char *stat = NULL, *status = NULL;

        stat = g_strdup_printf("%i (%s) S %i %i %i 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %" PRIu64
                               " 10000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
                        (int) e->pid, e->comm, (int) e->ppid, (int) e->pid, (int) e->pid, e->start_time);
        status = g_strdup_printf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%i\nPid:\t%i\nPPid:\t%i\n"
                                 "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n",
                        e->comm, (int) e->pid, (int) e->pid, (int) e->ppid, (unsigned) e->uid, (unsigned) e->uid,
                        (unsigned) e->uid, (unsigned) e->uid, 0u, 0u, 0u, 0u);
        write_pid_file(f, e->pid, "stat", stat, strlen(stat));
        write_pid_file(f, e->pid, "status", status, strlen(status));
}

/* Each string followed by its NUL, as cmdline and environ are. */
static GString *nul_joined(const char *const *strv)
{
        GString *s = g_string_new(NULL);

        for (size_t i = 0; strv && strv[i]; i++)
                g_string_append_len(s, strv[i], (gssize) strlen(strv[i]) + 1);
        return s;
}

static void write_maps(ProcFixture *f, pid_t pid, const char *const *lines)
{
        g_autoptr(GString) maps = g_string_new(NULL);

        /* A bare path gets an address range and inode of its own, like the real thing. */
        for (size_t i = 0; lines && lines[i]; i++) {
                if (lines[i][0] == '/')
                        g_string_append_printf(maps, "7f%04zx0000-7f%04zx8000 r-xp 00000000 08:01 %zu %s\n", i, i,
                                        1000 + i, lines[i]);
                else
                        g_string_append_printf(maps, "%s\n", lines[i]);
        }
        write_pid_file(f, pid, "maps", maps->str, maps->len);
}

static void write_symlink(ProcFixture *f, pid_t pid, const char *name, const char *target)
{
        g_autofree char *rel = g_strdup_printf("%i/%s", (int) pid, name);

        test_symlink(target, f->path, rel);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(path) < 0 ? -1 : 0;
}

static void remove_pid_dir(ProcFixture *f, pid_t pid)
{
        g_autofree char *dir = g_strdup_printf("%s/%i", f->path, (int) pid);

        if (access(dir, F_OK) < 0)
                return;
        g_assert_cmpint(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), ==, 0);
}

void proc_fixture_add(ProcFixture *f, const ProcFixtureProcess *p)
{
        FixtureEntry *e;
        g_autofree char *comm = NULL;
        g_autoptr(GString) cmdline = NULL, env = NULL;

        g_assert_nonnull(p);
        g_assert_cmpint(p->pid, >, 0);

        if (p->comm)
                comm = g_strdup(p->comm);
        else if (p->exe)
                comm = g_path_get_basename(p->exe);
        else
                comm = g_strdup("");
        if (strlen(comm) >= TASK_COMM_LEN)
                comm[TASK_COMM_LEN - 1] = '\0';

        e = g_new0(FixtureEntry, 1);
        *e = (FixtureEntry){
                .pid = p->pid,
                .start_time = p->start_time > 0 ? p->start_time : (uint64_t) p->pid * 1000,
                .ppid = p->ppid > 0 ? p->ppid : 1,
                .uid = p->uid,
                .comm = g_strdup(comm),
        };
        g_hash_table_replace(f->entries, GINT_TO_POINTER(p->pid), e);

        /* An exec replaces everything the old program had. */
        remove_pid_dir(f, p->pid);

        write_identity(f, e);
        {
                g_autofree char *line = g_strdup_printf("%s\n", comm);
                write_pid_file(f, p->pid, "comm", line, strlen(line));
        }

        if (p->argv)
                cmdline = nul_joined(p->argv);
        else {
                const char *const only_exe[] = { p->exe, NULL };
                cmdline = nul_joined(p->exe ? only_exe : NULL);
        }
        write_pid_file(f, p->pid, "cmdline", cmdline->str, cmdline->len);

        env = nul_joined(p->environ);
        write_pid_file(f, p->pid, "environ", env->str, env->len);

        if (p->maps)
                write_maps(f, p->pid, p->maps);
        else {
                const char *const only_exe[] = { p->exe, NULL };
                write_maps(f, p->pid, p->exe ? only_exe : NULL);
        }

        if (p->exe)
                write_symlink(f, p->pid, "exe", p->exe);
        write_symlink(f, p->pid, "root", p->root ? p->root : "/");
        if (p->cgroup) {
                g_autofree char *line = g_strdup_printf("0::%s\n", p->cgroup);
                write_pid_file(f, p->pid, "cgroup", line, strlen(line));
        }

        for (size_t i = 0; p->fds && p->fds[i]; i++) {
                g_autofree char *name = g_strdup_printf("fd/%zu", i);
                write_symlink(f, p->pid, name, p->fds[i]);
        }
}

void proc_fixture_remove(ProcFixture *f, pid_t pid)
{
        (void) get_entry(f, pid);
        remove_pid_dir(f, pid);
        g_hash_table_remove(f->entries, GINT_TO_POINTER(pid));
}

void proc_fixture_set_comm(ProcFixture *f, pid_t pid, const char *comm)
{
        FixtureEntry *e = get_entry(f, pid);
        g_autofree char *line = NULL;

        g_assert_nonnull(comm);
        g_free(e->comm);
        e->comm = g_strndup(comm, TASK_COMM_LEN - 1);

        line = g_strdup_printf("%s\n", e->comm);
        write_pid_file(f, pid, "comm", line, strlen(line));
        write_identity(f, e);
}

void proc_fixture_set_maps(ProcFixture *f, pid_t pid, const char *const *maps)
{
        (void) get_entry(f, pid);
        write_maps(f, pid, maps);
}

void proc_fixture_set_driver_version(ProcFixture *f, const char *version)
{
        g_autofree char *path = g_build_filename(f->path, "driver/nvidia/version", NULL);
        g_autofree char *text = NULL;

        if (!version) {
                g_assert_true(unlink(path) == 0 || errno == ENOENT);
                return;
        }
        text = g_strdup_printf("NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Tue May 13 00:00:00 UTC 2025\n"
                               "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
                        version);
        test_write_file(f->path, "driver/nvidia/version", text);
}
