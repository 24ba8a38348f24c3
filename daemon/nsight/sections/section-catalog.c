/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "fileio.h"
#include "section-catalog.h"
#include "string-util.h"

typedef struct Loader {
        SectionCatalog *c;
        uid_t owner; /* besides root, whose files and folders are read; SECTION_OWNER_ANY: anyone's */
        const TextFormatOptions *o;
        size_t bytes;
} Loader;

static void entry_done(SectionEntry *e)
{
        free(e->path);
        free(e->display);
        if (e->section)
                protobuf_c_message_free_unpacked(&e->section->base, NULL);
        textformat_diagnostics_clear(&e->diags);
        free(e->error);
        free(e->warning);
}

SectionCatalog *section_catalog_free(SectionCatalog *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n; i++)
                entry_done(&c->entries[i]);
        free(c->entries);
        for (size_t i = 0; i < c->n_dirs; i++)
                free(c->dirs[i]);
        free(c->dirs);
        for (size_t i = 0; i < c->n_folders; i++)
                free(c->folders[i].path);
        free(c->folders);
        return mfree(c);
}

const SectionEntry *section_catalog_find(const SectionCatalog *c, const char *identifier)
{
        for (size_t i = 0; c && i < c->n; i++)
                if (c->entries[i].section && streq(c->entries[i].section->identifier, identifier))
                        return &c->entries[i];
        return NULL;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Whether what fd refers to belongs to root or the trusted owner and nobody else may write it: the daemon
 * parses these files in its own process, so they must be as trusted as its configuration. */
static bool trusted(const Loader *l, int fd)
{
        struct stat st;

        if (l->owner == SECTION_OWNER_ANY)
                return true;
        if (fstat(fd, &st) < 0)
                return false;
        return (st.st_uid == 0 || st.st_uid == l->owner) && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static int untrusted_entry(SectionEntry *e)
{
        e->error = strdup("Error: not read: owned by another user than root, or writable by group or others");
        return e->error ? 0 : -ENOMEM;
}

static int load_file(Loader *l, int dir_fd, const char *name, const char *path, const char *display)
{
        SectionCatalog *c = l->c;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        if (c->n >= SECTION_CATALOG_MAX_FILES)
                return -E2BIG;
        if (GREEDY_REALLOC(c->entries, c->allocated, c->n + 1) < 0)
                return -ENOMEM;
        SectionEntry *e = &c->entries[c->n];
        *e = (SectionEntry){ .path = strdup(path), .display = strdup(display) };
        c->n++;
        if (!e->path || !e->display)
                return -ENOMEM;

        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                r = -errno;
        else if (!trusted(l, fd))
                return untrusted_entry(e);
        else
                r = read_full_fd(fd, SECTION_FILE_MAX_SIZE, &text, &size);
        if (r < 0) {
                if (r == -ENOMEM)
                        return r;
                if (asprintf(&e->error, "Error: cannot read the file: %s", strerror(-r)) < 0)
                        return -ENOMEM;
                return 0;
        }
        l->bytes += size;
        if (l->bytes > SECTION_CATALOG_MAX_BYTES)
                return -E2BIG;

        r = section_file_parse(text, size, l->o, &e->section, &e->diags);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                const TextFormatDiagnostic *d = textformat_diagnostics_error(&e->diags);
                e->error = d ? section_format_ncu_error(d) : strdup("Error: cannot parse the file");
                return e->error ? 0 : -ENOMEM;
        }

        const SectionEntry *first = NULL;
        for (size_t i = 0; i + 1 < c->n && !first; i++)
                if (c->entries[i].section && streq(c->entries[i].section->identifier, e->section->identifier))
                        first = &c->entries[i];
        if (first) {
                /* Reported, and the first definition stays in force. */
                if (asprintf(&e->error, "Error: Section identifier \"%s\" is already defined in %s.",
                                    e->section->identifier, first->display) < 0)
                        return -ENOMEM;
                protobuf_c_message_free_unpacked(&e->section->base, NULL);
                e->section = NULL;
        }
        return 0;
}

static int load_dir(Loader *l, int dir_fd, const char *path, const char *display, bool recursive, unsigned depth)
{
        SectionCatalog *c = l->c;
        _cleanup_free_ char **names = NULL;
        size_t n = 0, cap = 0;
        int r = 0;

        if (c->n_dirs >= SECTION_CATALOG_MAX_DIRS || depth > SECTION_CATALOG_MAX_DEPTH)
                return -E2BIG;
        if (!trusted(l, dir_fd)) {
                /* Its files could be swapped under us: reported as one broken entry, none read. */
                if (GREEDY_REALLOC(c->entries, c->allocated, c->n + 1) < 0)
                        return -ENOMEM;
                SectionEntry *e = &c->entries[c->n++];
                *e = (SectionEntry){ .path = strdup(path), .display = strdup(display) };
                if (!e->path || !e->display)
                        return -ENOMEM;
                return untrusted_entry(e);
        }
        if (GREEDY_REALLOC(c->dirs, c->allocated_dirs, c->n_dirs + 1) < 0)
                return -ENOMEM;
        if (!(c->dirs[c->n_dirs] = strdup(path)))
                return -ENOMEM;
        c->n_dirs++;

        int fd2 = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (fd2 < 0)
                return -errno;
        DIR *d = fdopendir(fd2);
        if (!d) {
                safe_close(fd2);
                return -errno;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (n >= SECTION_CATALOG_MAX_FILES) {
                        r = -E2BIG;
                        break;
                }
                if (GREEDY_REALLOC(names, cap, n + 1) < 0 || !(names[n] = strdup(de->d_name))) {
                        r = -ENOMEM;
                        break;
                }
                n++;
        }
        closedir(d);
        if (r >= 0)
                qsort_safe(names, n, sizeof(char *), compare_names);

        for (size_t i = 0; i < n; i++) {
                if (r >= 0) {
                        struct stat st;
                        _cleanup_free_ char *p = path_join(path, names[i]);
                        _cleanup_free_ char *disp = path_join(display, names[i]);
                        if (!p || !disp)
                                r = -ENOMEM;
                        else if (fstatat(dir_fd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
                                ; /* gone meanwhile */
                        else if (S_ISDIR(st.st_mode) && recursive) {
                                _cleanup_close_ int sub = openat(
                                                dir_fd, names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                                if (sub >= 0)
                                        r = load_dir(l, sub, p, disp, recursive, depth + 1);
                        } else if (!S_ISDIR(st.st_mode) && endswith(names[i], ".section"))
                                r = load_file(l, dir_fd, names[i], p, disp);
                }
                free(names[i]);
        }
        return r;
}

static void check_extends(SectionCatalog *c)
{
        for (size_t i = 0; i < c->n; i++) {
                SectionEntry *e = &c->entries[i];
                if (!e->section || !e->section->extends || section_catalog_find(c, e->section->extends))
                        continue;
                if (asprintf(&e->warning, "Extends \"%s\", which no loaded section defines.", e->section->extends) < 0)
                        e->warning = NULL;
        }
}

int section_catalog_load(
                const SectionFolder *folders, size_t n_folders, const TextFormatOptions *o, SectionCatalog **ret)
{
        return section_catalog_load_at(-EBADF, SECTION_OWNER_ANY, folders, n_folders, o, ret);
}

int section_catalog_load_at(int root_fd, uid_t owner, const SectionFolder *folders, size_t n_folders,
                const TextFormatOptions *o, SectionCatalog **ret)
{
        _cleanup_(section_catalog_freep) SectionCatalog *c = calloc(1, sizeof(SectionCatalog));
        TextFormatOptions opts = o ? *o : (TextFormatOptions){ .schema = NV_SCHEMA_EXTENDED };
        int r;

        if (!c)
                return -ENOMEM;
        c->schema = opts.schema;
        Loader l = { .c = c, .o = &opts, .owner = owner };

        c->folders = calloc(MAX(n_folders, (size_t) 1), sizeof(SectionFolderState));
        if (!c->folders)
                return -ENOMEM;
        for (size_t i = 0; i < n_folders; i++) {
                SectionFolderState *state = &c->folders[c->n_folders++];
                size_t before = c->n;

                state->recursive = folders[i].recursive;
                state->path = strdup(folders[i].path);
                if (!state->path)
                        return -ENOMEM;
                size_t len = strlen(state->path);
                while (len > 1 && state->path[len - 1] == '/')
                        state->path[--len] = '\0';
                _cleanup_close_ int fd = root_fd >= 0
                                ? open_in_root(root_fd, folders[i].path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                : open(folders[i].path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0) {
                        /* Skipped, as ncu does; the state says why. */
                        state->error = root_fd >= 0 ? fd : -errno;
                        continue;
                }
                if (!trusted(&l, fd))
                        state->error = -EPERM; /* listed by load_dir() as one broken entry */
                r = load_dir(&l, fd, state->path, state->path, folders[i].recursive, 0);
                if (r < 0)
                        return r;
                if (state->error == 0)
                        state->n_files = c->n - before;
        }
        check_extends(c);
        *ret = TAKE_PTR(c);
        return 0;
}

const char *section_folder_state(const SectionFolderState *f)
{
        return f->error == 0                  ? "read"
                        : f->error == -ENOENT ? "missing"
                        : f->error == -EPERM  ? "untrusted"
                                              : "unreadable";
}

const char *section_folder_problem(const SectionFolderState *f)
{
        if (f->error == -EPERM)
                return "owned by another user than root, or writable by group or others";
        if (f->error == 0 || f->error == -ENOENT)
                return "";
        return strerror(-f->error);
}

static int compare_by_identifier(const void *a, const void *b)
{
        const SectionEntry *x = *(const SectionEntry *const *) a, *y = *(const SectionEntry *const *) b;
        return strcmp(x->section->identifier, y->section->identifier);
}

static int compare_by_display(const void *a, const void *b)
{
        const SectionEntry *x = *(const SectionEntry *const *) a, *y = *(const SectionEntry *const *) b;
        return strcmp(x->display, y->display);
}

static int collect(const SectionCatalog *c, bool loaded, int (*cmp)(const void *, const void *),
                const SectionEntry ***ret, size_t *ret_n)
{
        const SectionEntry **v = calloc(c->n + 1, sizeof(SectionEntry *));
        size_t n = 0;
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < c->n; i++)
                if (loaded ? !!c->entries[i].section : !!c->entries[i].error)
                        v[n++] = &c->entries[i];
        qsort_safe(v, n, sizeof(SectionEntry *), cmp);
        *ret = v;
        *ret_n = n;
        return 0;
}

int section_catalog_sorted(const SectionCatalog *c, const SectionEntry ***ret, size_t *ret_n)
{
        return collect(c, true, compare_by_identifier, ret, ret_n);
}

int section_catalog_errors(const SectionCatalog *c, const SectionEntry ***ret, size_t *ret_n)
{
        return collect(c, false, compare_by_display, ret, ret_n);
}

bool section_in_set(const NV__Profiler__ProfilerSection *s, const char *set)
{
        for (size_t i = 0; i < s->n_sets; i++)
                if (streq(s->sets[i]->identifier, set))
                        return true;
        return false;
}

void section_sets_free(SectionSet *sets, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(sets[i].name);
                free(sets[i].sections);
        }
        free(sets);
}

static int compare_sets(const void *a, const void *b)
{
        return strcmp(((const SectionSet *) a)->name, ((const SectionSet *) b)->name);
}

/* The sets being collected, freed with their names and member lists unless handed on. */
typedef struct SectionSetList {
        SectionSet *sets;
        size_t n, cap;
} SectionSetList;

static void section_set_list_done(SectionSetList *l)
{
        if (l->sets)
                section_sets_free(l->sets, l->n);
}

int section_catalog_sets(const SectionCatalog *c, SectionSet **ret, size_t *ret_n)
{
        _cleanup_free_ const SectionEntry **sorted = NULL;
        _cleanup_(section_set_list_done) SectionSetList l = { 0 };
        size_t n_sorted;
        int r;

        r = section_catalog_sorted(c, &sorted, &n_sorted);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_sorted; i++) {
                const NV__Profiler__ProfilerSection *s = sorted[i]->section;
                for (size_t k = 0; k < s->n_sets; k++) {
                        const char *name = s->sets[k]->identifier;
                        SectionSet *set = NULL;
                        for (size_t j = 0; j < l.n && !set; j++)
                                if (streq(l.sets[j].name, name))
                                        set = &l.sets[j];
                        if (!set) {
                                if (GREEDY_REALLOC(l.sets, l.cap, l.n + 1) < 0)
                                        return -ENOMEM;
                                set = &l.sets[l.n];
                                *set = (SectionSet){ .name = strdup(name) };
                                l.n++;
                                if (!set->name)
                                        return -ENOMEM;
                        }
                        /* A section naming a set twice is listed once. */
                        if (set->n > 0 && set->sections[set->n - 1] == sorted[i])
                                continue;
                        const SectionEntry **grown = reallocarray(set->sections, set->n + 1, sizeof(SectionEntry *));
                        if (!grown)
                                return -ENOMEM;
                        set->sections = grown;
                        set->sections[set->n++] = sorted[i];
                }
        }
        qsort_safe(l.sets, l.n, sizeof(SectionSet), compare_sets);
        *ret_n = l.n;
        *ret = TAKE_PTR(l.sets);
        return 0;
}
