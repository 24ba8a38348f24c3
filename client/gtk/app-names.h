/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a user calls the application a GPU process belongs to, resolved in the app (the user's own
 * desktop files and container stores, with the user's own rights), from what the daemon attributes to
 * the process (ListGpuProcessesAttributed): the Flatpak or snap id, the systemd unit a desktop started it
 * in (systemd's desktop-environment convention: app[-<launcher>]-<desktop id>-<random>.scope or
 * app[-<launcher>]-<desktop id>[@<random>].service, the id systemd-escaped), or the container. */

#include <gio/gio.h>

typedef struct AppNames AppNames;

typedef struct AppName {
        char *name; /* what to show: a desktop file's Name, a container's name, else the command */
        GIcon *icon; /* the desktop file's icon; NULL: none known */
        char *detail; /* the unit, application id or container id the name was found from; NULL: none */
} AppName;

void app_name_done(AppName *n);

/* Where the container names are read: podman's containers.json files (rootless, in the user's data
 * directory, then root's) and docker's containers directory. NULL: the defaults. */
typedef struct AppNamesPaths {
        const char *const *podman_stores;
        const char *docker_containers;
} AppNamesPaths;

AppNames *app_names_new(const AppNamesPaths *paths);
void app_names_free(AppNames *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppNames, app_names_free)

/* The desktop file ids (without ".desktop") a unit name may name, most likely first: with the launcher
 * part taken off, then without (the launcher is optional). NULL: not a unit of that convention. unit
 * may carry the user's manager before it ("user@1000.service/app-....scope"). */
char **app_names_unit_desktop_ids(const char *unit);

/* The name and icon for a process the daemon attributed so (its fields as ListGpuProcessesAttributed
 * gives them; "" where not known), comm its command name. Results are cached: a desktop file or
 * container name is looked up once per id. */
void app_names_resolve(AppNames *n, const char *unit, const char *container_kind, const char *container,
                const char *app_kind, const char *app, const char *comm, AppName *ret);
