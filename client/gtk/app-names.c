/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gio/gdesktopappinfo.h>
#include <glib/gi18n.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <string.h>

#include "app-names.h"

#define CONTAINER_ID_LEN 64u
#define CONTAINER_SHORT_LEN 12

typedef struct DesktopEntry {
        char *name;
        GIcon *icon;
} DesktopEntry;

struct AppNames {
        char **podman_stores;
        char *docker_containers;
        GHashTable *desktop; /* desktop file id -> DesktopEntry, or one with name NULL: no such file */
        GHashTable *containers; /* "kind id" -> name (a fallback "container <12 hex>" included) */
};

void app_name_done(AppName *n)
{
        g_clear_pointer(&n->name, g_free);
        g_clear_object(&n->icon);
        g_clear_pointer(&n->detail, g_free);
}

static void desktop_entry_free(gpointer data)
{
        DesktopEntry *e = data;

        g_free(e->name);
        g_clear_object(&e->icon);
        g_free(e);
}

AppNames *app_names_new(const AppNamesPaths *paths)
{
        AppNames *n = g_new0(AppNames, 1);

        if (paths && paths->podman_stores)
                n->podman_stores = g_strdupv((char **) paths->podman_stores);
        else {
                /* Rootless podman's store in the user's data directory, then root's (readable to root only,
                 * usually: then the fallback name). */
                char *stores[] = {
                        g_build_filename(g_get_user_data_dir(), "containers", "storage", "overlay-containers",
                                        "containers.json", NULL),
                        g_strdup("/var/lib/containers/storage/overlay-containers/containers.json"),
                        NULL,
                };
                n->podman_stores = g_strdupv(stores);
                g_free(stores[0]);
                g_free(stores[1]);
        }
        n->docker_containers = g_strdup(
                        paths && paths->docker_containers ? paths->docker_containers : "/var/lib/docker/containers");
        n->desktop = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, desktop_entry_free);
        n->containers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        return n;
}

void app_names_free(AppNames *n)
{
        if (!n)
                return;
        g_strfreev(n->podman_stores);
        g_free(n->docker_containers);
        g_hash_table_unref(n->desktop);
        g_hash_table_unref(n->containers);
        g_free(n);
}

/* systemd's unit name escaping undone ("\x2d" is '-'); NULL where the result could not be a desktop file
 * id (a '/', a NUL, nothing). */
static char *unit_unescape(const char *s, size_t len)
{
        GString *out = g_string_sized_new(len);

        for (size_t i = 0; i < len; i++) {
                char c = s[i];

                if (c == '\\' && i + 3 < len && s[i + 1] == 'x' && g_ascii_isxdigit(s[i + 2]) &&
                                g_ascii_isxdigit(s[i + 3])) {
                        c = (char) (g_ascii_xdigit_value(s[i + 2]) * 16 + g_ascii_xdigit_value(s[i + 3]));
                        i += 3;
                }
                if (c == '\0' || c == '/') {
                        g_string_free(out, TRUE);
                        return NULL;
                }
                g_string_append_c(out, c);
        }
        if (!out->len) {
                g_string_free(out, TRUE);
                return NULL;
        }
        return g_string_free(out, FALSE);
}

static bool all_alnum(const char *s, size_t len)
{
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!g_ascii_isalnum(s[i]))
                        return false;
        return true;
}

char **app_names_unit_desktop_ids(const char *unit)
{
        const char *slash = strrchr(unit, '/'), *body, *end, *dash;
        GPtrArray *ids;
        char *id;

        /* A unit of a user's manager comes with the manager's unit before it. */
        if (slash)
                unit = slash + 1;
        if (!g_str_has_prefix(unit, "app-"))
                return NULL;
        body = unit + strlen("app-");
        if (g_str_has_suffix(body, ".scope")) {
                /* app[-<launcher>]-<id>-<random>.scope: the random part is mandatory. */
                end = body + strlen(body) - strlen(".scope");
                dash = g_strrstr_len(body, end - body, "-");
                if (!dash || !all_alnum(dash + 1, end - dash - 1))
                        return NULL;
                end = dash;
        } else if (g_str_has_suffix(body, ".service")) {
                /* app[-<launcher>]-<id>[@<random>].service */
                const char *at;

                end = body + strlen(body) - strlen(".service");
                at = memchr(body, '@', end - body);
                if (at)
                        end = at;
        } else
                return NULL;

        ids = g_ptr_array_new();
        /* The id is escaped, so holds no '-': a '-' ends an alphanumeric launcher. An id of an old
         * launcher that did not escape it keeps its dashes and is tried whole as well. */
        dash = memchr(body, '-', end - body);
        if (dash && all_alnum(body, dash - body) && (id = unit_unescape(dash + 1, end - dash - 1)))
                g_ptr_array_add(ids, id);
        if ((id = unit_unescape(body, end - body)))
                g_ptr_array_add(ids, id);
        if (!ids->len) {
                g_ptr_array_free(ids, TRUE);
                return NULL;
        }
        g_ptr_array_add(ids, NULL);
        return (char **) g_ptr_array_free(ids, FALSE);
}

/* The desktop file id's entry, from the user's XDG_DATA_HOME and XDG_DATA_DIRS (cached, a miss too). */
static const DesktopEntry *desktop_lookup(AppNames *n, const char *id)
{
        DesktopEntry *e = g_hash_table_lookup(n->desktop, id);

        if (!e) {
                g_autofree char *file = g_strconcat(id, ".desktop", NULL);
                g_autoptr(GDesktopAppInfo) info = g_desktop_app_info_new(file);

                e = g_new0(DesktopEntry, 1);
                if (info) {
                        GIcon *icon = g_app_info_get_icon(G_APP_INFO(info));

                        e->name = g_strdup(g_app_info_get_name(G_APP_INFO(info)));
                        e->icon = icon ? g_object_ref(icon) : NULL;
                }
                g_hash_table_insert(n->desktop, g_strdup(id), e);
        }
        return e->name ? e : NULL;
}

static bool is_container_id(const char *id)
{
        size_t len = strlen(id);

        if (len != CONTAINER_ID_LEN)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!g_ascii_isxdigit(id[i]))
                        return false;
        return true;
}

/* podman's containers.json: [{"id": "<64 hex>", "names": ["name"], ...}, ...]. */
static char *podman_name(const char *store, const char *id)
{
        g_autofree char *text = NULL;
        json_object *root, *entry, *field, *names;
        char *name = NULL;

        if (!g_file_get_contents(store, &text, NULL, NULL))
                return NULL;
        root = json_tokener_parse(text);
        if (!root)
                return NULL;
        if (json_object_is_type(root, json_type_array))
                for (size_t i = 0; !name && i < json_object_array_length(root); i++) {
                        entry = json_object_array_get_idx(root, i);
                        if (!json_object_object_get_ex(entry, "id", &field) ||
                                        !json_object_is_type(field, json_type_string) ||
                                        !g_str_equal(json_object_get_string(field), id) ||
                                        !json_object_object_get_ex(entry, "names", &names) ||
                                        !json_object_is_type(names, json_type_array) ||
                                        json_object_array_length(names) == 0)
                                continue;
                        field = json_object_array_get_idx(names, 0);
                        if (json_object_is_type(field, json_type_string) && *json_object_get_string(field))
                                name = g_strdup(json_object_get_string(field));
                }
        json_object_put(root);
        return name;
}

/* docker's <containers>/<id>/config.v2.json: {"Name": "/name", ...}. */
static char *docker_name(const char *containers, const char *id)
{
        g_autofree char *path = g_build_filename(containers, id, "config.v2.json", NULL);
        g_autofree char *text = NULL;
        json_object *root, *field;
        char *name = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return NULL;
        root = json_tokener_parse(text);
        if (!root)
                return NULL;
        if (json_object_object_get_ex(root, "Name", &field) && json_object_is_type(field, json_type_string)) {
                const char *s = json_object_get_string(field);

                s += *s == '/';
                if (*s)
                        name = g_strdup(s);
        }
        json_object_put(root);
        return name;
}

static const char *container_name(AppNames *n, const char *kind, const char *id)
{
        g_autofree char *key = g_strconcat(kind, " ", id, NULL);
        char *name = g_hash_table_lookup(n->containers, key);

        if (name)
                return name;
        if (!is_container_id(id))
                /* systemd-machined's machine name is the name. */
                name = g_strdup(id);
        else if (g_str_equal(kind, "podman"))
                for (size_t i = 0; !name && n->podman_stores[i]; i++)
                        name = podman_name(n->podman_stores[i], id);
        else if (g_str_equal(kind, "docker"))
                name = docker_name(n->docker_containers, id);
        if (!name)
                /* TRANSLATORS: a container whose name the user may not read, by its short id */
                name = g_strdup_printf(_("container %.*s"), CONTAINER_SHORT_LEN, id);
        g_hash_table_insert(n->containers, g_steal_pointer(&key), name);
        return name;
}

static bool resolve_desktop(AppNames *n, const char *id, AppName *ret)
{
        const DesktopEntry *e = desktop_lookup(n, id);

        if (!e)
                return false;
        ret->name = g_strdup(e->name);
        ret->icon = e->icon ? g_object_ref(e->icon) : NULL;
        return true;
}

void app_names_resolve(AppNames *n, const char *unit, const char *container_kind, const char *container,
                const char *app_kind, const char *app, const char *comm, AppName *ret)
{
        g_auto(GStrv) ids = NULL;

        *ret = (AppName){ 0 };
        if (*app) {
                /* A Flatpak's desktop file is named by its id; a snap's <snap>_<app>, the app usually being
                 * the snap's name. */
                g_autofree char *snap = g_str_equal(app_kind, "snap") ? g_strdup_printf("%s_%s", app, app) : NULL;

                ret->detail = g_strdup(*unit ? unit : app);
                if (!resolve_desktop(n, snap ? snap : app, ret))
                        ret->name = g_strdup(app);
                return;
        }
        ret->detail = *unit ? g_strdup(unit) : NULL;
        if (*container) {
                ret->name = g_strdup(container_name(n, container_kind, container));
                return;
        }
        ids = app_names_unit_desktop_ids(unit);
        for (size_t i = 0; ids && ids[i]; i++)
                if (resolve_desktop(n, ids[i], ret))
                        return;
        ret->name = g_strdup(*comm ? comm : unit);
}
