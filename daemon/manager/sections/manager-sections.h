/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "rc-watch.h"
#include "section-catalog.h"

/* Nsight Compute section files: the folders of nvprofiled.conf [Sections], read at start, re-read when
 * inotify sees them change (the rc files' watcher, coalesced the same way) and on Reload. A file that
 * breaks keeps serving its last good version, with its error reported next to it. */

typedef struct ManagerSections {
        SectionCatalog *catalog;
        RcWatch *watch;
        uint64_t generation;
        size_t n_kept; /* broken files whose last good version is served */
} ManagerSections;

int manager_sections_start(Manager *m);
void manager_sections_stop(Manager *m);
int manager_sections_reload(Manager *m);

/* The catalog in force (never NULL once started; empty before). */
const SectionCatalog *manager_sections_catalog(Manager *m);

/* The configured folders, in search order (Folders= first, then RecursiveFolders=). Caller frees the
 * array and the paths with section_folders_free(). */
int manager_sections_folders(const Manager *m, SectionFolder **ret, size_t *ret_n);
void section_folders_free(SectionFolder *f, size_t n);
