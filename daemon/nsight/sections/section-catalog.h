/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "section-file.h"

/* The section search path: folders of *.section files, each read recursively or not (ncu's
 * --section-folder and --section-folder-recursive), and what they define. A file with an error is
 * kept with its error; a second file with an identifier already defined is reported, never silently
 * replacing the first. */

typedef struct SectionFolder {
        const char *path;
        bool recursive;
} SectionFolder;

typedef struct SectionEntry {
        char *path; /* the file read */
        char *display; /* the folder as configured, "/", the path below it: what ncu prints */
        NV__Profiler__ProfilerSection *section; /* NULL when the file has an error */
        TextFormatDiagnostics diags;
        char *error; /* the error as ncu formats it ("Error: Line=... Column=... ..."), or NULL */
        char *warning; /* a problem that does not stop the section (Extends naming no section), or NULL */
} SectionEntry;

/* What a folder of the search path gave: so that an empty catalog says why (no folder exists, as on a
 * distribution that ships no Nsight Compute). */
typedef struct SectionFolderState {
        char *path; /* as configured, without trailing slashes */
        bool recursive;
        int error; /* 0: read; -ENOENT: it does not exist; else why it was not read (-ENOTDIR, -EACCES,
                    * -EPERM: not trusted, see section_catalog_load_at()) */
        size_t n_files; /* *.section files found in it (and below, when recursive), read or broken */
} SectionFolderState;

typedef struct SectionCatalog {
        SectionEntry *entries; /* in search-path order */
        size_t n;
        size_t allocated;
        char **dirs; /* every directory read, for watching */
        size_t n_dirs;
        size_t allocated_dirs;
        NvSchema schema;
        SectionFolderState *folders; /* one per folder searched, in search-path order */
        size_t n_folders;
} SectionCatalog;

#define SECTION_CATALOG_MAX_FILES 4096U
#define SECTION_CATALOG_MAX_DIRS 1024U
#define SECTION_CATALOG_MAX_DEPTH 16U
#define SECTION_CATALOG_MAX_BYTES (256U * 1024U * 1024U)

/* The set ncu collects by default, whose sections it lists as enabled. */
#define SECTION_DEFAULT_SET "basic"

/* Reads the folders in order. Missing folders are skipped (ncu does the same); only resource
 * exhaustion fails (-ENOMEM, -E2BIG past the bounds above). */
int section_catalog_load(
                const SectionFolder *folders, size_t n_folders, const TextFormatOptions *o, SectionCatalog **ret);
/* The same with the folders' paths resolved below root_fd as if it were "/" (symlinks included), reading
 * only files and folders that belong to root or to owner and that neither group nor others may write
 * (the others are listed with an error, unread); owner SECTION_OWNER_ANY reads everything. */
#define SECTION_OWNER_ANY ((uid_t) -1)
int section_catalog_load_at(int root_fd, uid_t owner, const SectionFolder *folders, size_t n_folders,
                const TextFormatOptions *o, SectionCatalog **ret);
SectionCatalog *section_catalog_free(SectionCatalog *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(SectionCatalog *, section_catalog_free);

/* A folder's state in one word: "read", "missing", "untrusted" or "unreadable"; and for the last two what
 * is wrong, in words ("" otherwise). */
const char *section_folder_state(const SectionFolderState *f) _pure_;
const char *section_folder_problem(const SectionFolderState *f);

/* The loaded section with this identifier (the first in search-path order), or NULL. */
const SectionEntry *section_catalog_find(const SectionCatalog *c, const char *identifier);

/* Loaded sections sorted by identifier (byte order, as ncu lists them). Caller frees the array. */
int section_catalog_sorted(const SectionCatalog *c, const SectionEntry ***ret, size_t *ret_n);
/* Entries with an error, sorted by display path. Caller frees the array. */
int section_catalog_errors(const SectionCatalog *c, const SectionEntry ***ret, size_t *ret_n);

typedef struct SectionSet {
        char *name;
        const SectionEntry **sections; /* sorted by identifier */
        size_t n;
} SectionSet;

/* The sets named by loaded sections, sorted by name. */
int section_catalog_sets(const SectionCatalog *c, SectionSet **ret, size_t *ret_n);
void section_sets_free(SectionSet *sets, size_t n);

bool section_in_set(const NV__Profiler__ProfilerSection *s, const char *set);
