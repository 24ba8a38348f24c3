/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flatpak-info.h"
#include "proc-cgroup.h"
#include "string-util.h"

/* Names as systemd(1), podman, docker, systemd-machined, Flatpak and snapd make them:
 *   /system.slice/nginx.service
 *   /user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-1234.scope
 *   /user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-<uuid>.scope
 *   /machine.slice/libpod-<64 hex>.scope/container, /system.slice/docker-<64 hex>.scope
 *   /machine.slice/machine-debian\x2dtest.scope/... (machined escapes the name as a unit name part)
 * A unit of a user's manager is named with it: "user@1000.service/app-flatpak-org.gnome.Maps-1234.scope". */

#define COMPONENT_MAX 255u
#define CONTAINER_ID_LEN 64u

void proc_cgroup_done(ProcCgroup *c)
{
        free(c->path);
        free(c->unit);
        free(c->slice);
        free(c->container_kind);
        free(c->container);
        free(c->app_kind);
        free(c->app);
        *c = (ProcCgroup){ 0 };
}

int proc_cgroup_copy(const ProcCgroup *from, ProcCgroup *to)
{
        ProcCgroup c = {
                .path = strdup(from->path),
                .unit = strdup(from->unit),
                .slice = strdup(from->slice),
                .container_kind = strdup(from->container_kind),
                .container = strdup(from->container),
                .app_kind = strdup(from->app_kind),
                .app = strdup(from->app),
        };

        if (!c.path || !c.unit || !c.slice || !c.container_kind || !c.container || !c.app_kind || !c.app) {
                proc_cgroup_done(&c);
                return -ENOMEM;
        }
        *to = c;
        return 0;
}

static bool is_printable(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
                        return false;
        return utf8_is_valid_n(s, n);
}

/* n bytes of a unit name part with systemd's \xNN escapes undone; NULL when what they give is not
 * printable text (or on ENOMEM). */
static char *unit_part_unescape(const char *s, size_t n)
{
        _cleanup_free_ char *out = malloc(n + 1);
        size_t k = 0;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                int hi, lo;

                if (s[i] != '\\') {
                        out[k++] = s[i];
                        continue;
                }
                if (n - i < 4)
                        return NULL;
                if (s[i + 1] != 'x' || (hi = unhexchar(s[i + 2])) < 0 || (lo = unhexchar(s[i + 3])) < 0)
                        return NULL;
                out[k++] = (char) (hi << 4 | lo);
                i += 3;
        }
        out[k] = '\0';
        if (k == 0 || !is_printable(out, k))
                return NULL;
        return TAKE_PTR(out);
}

static bool all_hex(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

static int set(char **field, const char *value)
{
        char *x = strdup(value);

        if (!x)
                return -ENOMEM;
        free(*field);
        *field = x;
        return 0;
}

static int set_taken(char **field, char *value)
{
        if (!value)
                return -ENOMEM;
        free(*field);
        *field = value;
        return 0;
}

/* "<kind>-<64 hex>.scope": the id. */
static bool container_id(const char *name, const char *prefix, const char **ret)
{
        const char *id;

        if (!startswith(name, prefix) || !endswith(name, ".scope"))
                return false;
        id = name + strlen(prefix);
        if (strlen(id) != CONTAINER_ID_LEN + strlen(".scope") || !all_hex(id, CONTAINER_ID_LEN))
                return false;
        *ret = id;
        return true;
}

static int attribute_container(ProcCgroup *c, const char *name)
{
        const char *id, *kind = NULL;
        int r;

        if (container_id(name, "libpod-", &id))
                kind = "podman";
        else if (container_id(name, "docker-", &id))
                kind = "docker";
        if (kind) {
                r = set(&c->container_kind, kind);
                if (r < 0)
                        return r;
                return set_taken(&c->container, strndup(id, CONTAINER_ID_LEN));
        }
        if (startswith(name, "machine-") && endswith(name, ".scope")) {
                size_t n = strlen(name) - strlen("machine-") - strlen(".scope");
                _cleanup_free_ char *machine = unit_part_unescape(name + strlen("machine-"), n);

                if (!machine)
                        return 0; /* not a name machined gives */
                r = set(&c->container_kind, "machine");
                if (r < 0)
                        return r;
                return set_taken(&c->container, TAKE_PTR(machine));
        }
        return 0;
}

/* app-flatpak-<app id>-<number>.scope */
static int attribute_flatpak(ProcCgroup *c, const char *name)
{
        _cleanup_free_ char *id = NULL;
        const char *start, *end, *dash;
        int r;

        if (!startswith(name, "app-flatpak-") || !endswith(name, ".scope"))
                return 0;
        start = name + strlen("app-flatpak-");
        end = name + strlen(name) - strlen(".scope");
        dash = end;
        while (dash > start && dash[-1] >= '0' && dash[-1] <= '9')
                dash--;
        if (dash == end || dash <= start + 1 || dash[-1] != '-')
                return 0;
        id = unit_part_unescape(start, (size_t) (dash - 1 - start));
        if (!id || !flatpak_app_id_valid(id))
                return 0;
        r = set(&c->app_kind, "flatpak");
        if (r < 0)
                return r;
        return set_taken(&c->app, TAKE_PTR(id));
}

/* snap.<name>.<app or hook>...scope: the snap's name (with its instance key, "name_key"). */
static int attribute_snap(ProcCgroup *c, const char *name)
{
        const char *start, *p;
        int r;

        if (!startswith(name, "snap.") || !endswith(name, ".scope"))
                return 0;
        start = name + strlen("snap.");
        for (p = start; (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'; p++)
                ;
        if (p == start || *p != '.' || p + 1 == name + strlen(name) - strlen(".scope"))
                return 0;
        r = set(&c->app_kind, "snap");
        if (r < 0)
                return r;
        return set_taken(&c->app, strndup(start, (size_t) (p - start)));
}

/* The unit types systemd makes cgroups for (a slice only holds others). */
static bool is_unit(const char *name, const char *const *suffixes, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (endswith(name, suffixes[i]) && strlen(name) > strlen(suffixes[i]))
                        return true;
        return false;
}

/* "user@<uid>.service": a user's service manager, which the system's manager starts and names. */
static bool is_user_manager(const char *name)
{
        const char *uid = name + strlen("user@");
        size_t n;

        if (!startswith(name, "user@") || !endswith(name, ".service"))
                return false;
        n = strlen(uid) - strlen(".service");
        return n > 0 && strspn(uid, "0123456789") == n;
}

/* manager: the outermost user manager above name ("" when none). Everything from it down is the user's
 * own tree (delegated: the user names its cgroups as it likes), so a unit there is keyed by its manager
 * too, and a user's "nginx.service" is never the system's. The outermost, because a user may call a
 * cgroup of its own "user@0.service"; the ones above it only the system's manager makes. */
static int attribute_component(ProcCgroup *c, const char *name, const char *manager)
{
        static const char *const slice[] = { ".slice" };
        static const char *const units[] = { ".service", ".scope", ".socket", ".mount", ".swap" };
        int r;

        if (is_unit(name, slice, ELEMENTSOF(slice)))
                return set(&c->slice, name);
        if (!is_unit(name, units, ELEMENTSOF(units)))
                return 0;
        if (isempty(manager))
                r = set(&c->unit, name);
        else
                r = set_taken(&c->unit, path_join(manager, name));
        if (r < 0)
                return r;
        r = attribute_container(c, name);
        if (r < 0)
                return r;
        r = attribute_flatpak(c, name);
        if (r < 0)
                return r;
        return attribute_snap(c, name);
}

int proc_cgroup_from_path(const char *path, ProcCgroup *ret)
{
        _cleanup_(proc_cgroup_done) ProcCgroup c = { 0 };
        char manager[COMPONENT_MAX + 1] = "";
        size_t len = strlen(path);
        int r;

        if (path[0] != '/' || !is_printable(path, len) || (len > 1 && path[len - 1] == '/'))
                return -EBADMSG;
        c.path = strdup(path);
        c.unit = strdup("");
        c.slice = strdup("");
        c.container_kind = strdup("");
        c.container = strdup("");
        c.app_kind = strdup("");
        c.app = strdup("");
        if (!c.path || !c.unit || !c.slice || !c.container_kind || !c.container || !c.app_kind || !c.app)
                return -ENOMEM;
        for (const char *p = path + 1; len > 1 && *p;) {
                size_t n = strcspn(p, "/");
                char name[COMPONENT_MAX + 1];

                if (n == 0 || n > COMPONENT_MAX)
                        return -EBADMSG;
                memcpy(name, p, n);
                name[n] = '\0';
                r = attribute_component(&c, name, manager);
                if (r < 0)
                        return r;
                if (isempty(manager) && is_user_manager(name))
                        memcpy(manager, name, n + 1);
                p += n;
                if (*p == '/')
                        p++;
        }
        *ret = c;
        c = (ProcCgroup){ 0 };
        return 0;
}

int proc_cgroup_parse(const char *text, size_t size, ProcCgroup *ret)
{
        static const char deleted[] = " (deleted)", v1_systemd[] = ":name=systemd:";
        const char *end = text + size, *v2 = NULL, *v1 = NULL, *path;
        size_t v2_len = 0, v1_len = 0, n;
        _cleanup_free_ char *copy = NULL;

        for (const char *line = text; line < end;) {
                const char *eol = memchr(line, '\n', (size_t) (end - line));
                const char *colon;

                n = (size_t) ((eol ? eol : end) - line);
                colon = memchr(line, ':', n);
                if (n >= 3 && memcmp(line, "0::", 3) == 0) {
                        v2 = line + 3;
                        v2_len = n - 3;
                } else if (colon && (size_t) (line + n - colon) >= strlen(v1_systemd) &&
                                memcmp(colon, v1_systemd, strlen(v1_systemd)) == 0) {
                        v1 = colon + strlen(v1_systemd);
                        v1_len = (size_t) (line + n - v1);
                }
                line += n + 1;
        }
        /* The unified hierarchy, unless it is only the root: in hybrid mode systemd's tree is v1's
         * name=systemd hierarchy. */
        if (v2 && !(v2_len == 1 && v2[0] == '/')) {
                path = v2;
                n = v2_len;
        } else if (v1) {
                path = v1;
                n = v1_len;
        } else if (v2) {
                path = v2;
                n = v2_len;
        } else
                return -ENODATA;
        /* A cgroup removed while the process still sat in it reads so. */
        if (n >= strlen(deleted) && memcmp(path + n - strlen(deleted), deleted, strlen(deleted)) == 0)
                n -= strlen(deleted);
        if (memchr(path, '\0', n))
                return -EBADMSG;
        copy = strndup(path, n);
        if (!copy)
                return -ENOMEM;
        return proc_cgroup_from_path(copy, ret);
}

int proc_cgroup_set_flatpak_app(ProcCgroup *c, const char *app)
{
        _cleanup_free_ char *kind = strdup("flatpak"), *copy = strdup(app);

        assert(c->path);
        if (!kind || !copy)
                return -ENOMEM;
        free(c->app_kind);
        free(c->app);
        c->app_kind = TAKE_PTR(kind);
        c->app = TAKE_PTR(copy);
        return 0;
}

const char *proc_cgroup_application(const ProcCgroup *c)
{
        return !isempty(c->app) ? c->app : c->unit;
}

const char *proc_cgroup_unit_or_path(const ProcCgroup *c)
{
        if (!isempty(c->unit))
                return c->unit;
        if (!c->path || streq(c->path, "/"))
                return NULL;
        return c->path;
}
