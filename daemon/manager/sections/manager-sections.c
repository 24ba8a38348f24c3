/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "log.h"
#include "manager-sections.h"
#include "strv.h"

/* A catalog with no folders, for before the first load. */
static int empty_catalog(SectionCatalog **ret)
{
        return section_catalog_load(NULL, 0, NULL, ret);
}

void section_folders_free(SectionFolder *f, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free((char *) f[i].path);
        free(f);
}

/* The folders being collected, owned by one cleanup variable until handed on. */
typedef struct SectionFolderArray {
        SectionFolder *folders;
        size_t n;
} SectionFolderArray;

static void section_folder_array_done(SectionFolderArray *a)
{
        section_folders_free(a->folders, a->n);
}

static int add_folders(const char *list, bool recursive, SectionFolder **f, size_t *n)
{
        _cleanup_free_ char *copy = list ? strdup(list) : NULL;
        char *save = NULL;

        if (list && !copy)
                return -ENOMEM;
        for (char *w = copy ? strtok_r(copy, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save)) {
                SectionFolder *grown = reallocarray(*f, *n + 1, sizeof(SectionFolder));
                if (!grown)
                        return -ENOMEM;
                *f = grown;
                (*f)[*n] = (SectionFolder){ .path = strdup(w), .recursive = recursive };
                if (!(*f)[*n].path)
                        return -ENOMEM;
                (*n)++;
        }
        return 0;
}

int manager_sections_folders(const Manager *m, SectionFolder **ret, size_t *ret_n)
{
        _cleanup_(section_folder_array_done) SectionFolderArray a = { 0 };
        int r;

        r = add_folders(m->config.section_folders, false, &a.folders, &a.n);
        if (r < 0)
                return r;
        r = add_folders(m->config.section_recursive_folders, true, &a.folders, &a.n);
        if (r < 0)
                return r;
        *ret_n = a.n;
        a.n = 0;
        *ret = TAKE_PTR(a.folders);
        return 0;
}

/* A file that loaded before and fails now keeps its previous section. */
static size_t keep_last_good(SectionCatalog *fresh, SectionCatalog *old)
{
        size_t kept = 0;

        for (size_t i = 0; old && i < fresh->n; i++) {
                SectionEntry *e = &fresh->entries[i];
                if (e->section || !e->error || strstr(e->error, "is already defined in"))
                        continue;
                for (size_t k = 0; k < old->n; k++) {
                        SectionEntry *o = &old->entries[k];
                        if (!o->section || !streq(o->path, e->path) ||
                                        section_catalog_find(fresh, o->section->identifier))
                                continue;
                        e->section = TAKE_PTR(o->section);
                        kept++;
                        break;
                }
        }
        return kept;
}

int manager_sections_reload(Manager *m)
{
        ManagerSections *s = m->sections;
        SectionFolder *folders = NULL;
        size_t n_folders = 0;
        _cleanup_(section_catalog_freep) SectionCatalog *fresh = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        NvSchema schema = NV_SCHEMA_EXTENDED;
        int r;

        assert(s);
        if (m->config.section_schema)
                (void) nv_schema_from_string(m->config.section_schema, &schema);

        r = manager_sections_folders(m, &folders, &n_folders);
        if (r < 0)
                return log_oom();
        TextFormatOptions o = { .schema = schema };
        /* Parsed in our own process: only files as trusted as our configuration (root's or our own). */
        r = section_catalog_load_at(m->root_fd, geteuid(), folders, n_folders, &o, &fresh);
        if (r < 0) {
                section_folders_free(folders, n_folders);
                return log_error_errno(r, "Cannot read the section folders, keeping the sections loaded before");
        }

        /* Watch the folders themselves (they may appear later) and every directory read. */
        for (size_t i = 0; i < n_folders && r >= 0; i++)
                r = strv_extend(&paths, folders[i].path);
        for (size_t i = 0; i < fresh->n_dirs && r >= 0; i++)
                r = strv_extend(&paths, fresh->dirs[i]);
        section_folders_free(folders, n_folders);
        if (r < 0)
                return log_oom();
        if (s->watch) {
                r = rc_watch_set_paths(s->watch, RC_WATCH_GROUP_SYSTEM, NULL, paths, SECTION_CATALOG_MAX_DIRS);
                if (r < 0)
                        log_warning_errno(r, "Cannot watch every section folder, changes may be missed");
        }

        s->n_kept = keep_last_good(fresh, s->catalog);
        size_t n_errors = 0, n_loaded = 0;
        for (size_t i = 0; i < fresh->n; i++) {
                const SectionEntry *e = &fresh->entries[i];
                n_loaded += !!e->section;
                if (e->error) {
                        n_errors++;
                        log_warning("%s: %s%s", e->display, e->error,
                                        e->section ? " (serving the last good version)" : "");
                }
        }
        section_catalog_free(s->catalog);
        s->catalog = TAKE_PTR(fresh);
        s->generation++;
        log_info("Loaded %zu sections (%zu files with errors) as schema %s, generation %" PRIu64 ".", n_loaded,
                        n_errors, nv_schema_to_string(schema), s->generation);
        return 0;
}

static void on_sections_changed(RcWatch *w, void *userdata)
{
        log_debug("Section folders changed, reloading.");
        (void) manager_sections_reload(userdata);
}

int manager_sections_start(Manager *m)
{
        int r;

        if (m->sections)
                return 0;
        m->sections = calloc(1, sizeof(ManagerSections));
        if (!m->sections)
                return log_oom();
        r = empty_catalog(&m->sections->catalog);
        if (r < 0)
                return log_oom();
        r = rc_watch_new(m->event, m->root_fd, m->config.reload_coalesce_usec, m->config.reload_max_delay_usec,
                        on_sections_changed, m, &m->sections->watch);
        if (r < 0)
                log_warning_errno(r, "Cannot watch the section folders; changes need a Reload");
        return manager_sections_reload(m);
}

void manager_sections_stop(Manager *m)
{
        if (!m->sections)
                return;
        rc_watch_free(m->sections->watch);
        section_catalog_free(m->sections->catalog);
        m->sections = mfree(m->sections);
}

const SectionCatalog *manager_sections_catalog(Manager *m)
{
        return m->sections ? m->sections->catalog : NULL;
}
