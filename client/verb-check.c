/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "check": lints rc files locally, without the daemon. Given files are read in the order given, as one
 * configuration (so cross-file references and duplicate profile names are checked too); with no files,
 * the search path of this machine is checked (this user's $HOME, the installed driver's version). */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "client.h"
#include "fd-util.h"
#include "rc-config.h"
#include "strv.h"

static void diag_json(struct json_object *list, const char *path, const RcDiagnostics *d)
{
        for (size_t i = 0; i < d->n_items; i++) {
                struct json_object *o = json_object_new_object();
                json_object_object_add(o, "file", json_object_new_string(d->items[i].path ? d->items[i].path : path));
                json_object_object_add(o, "line", json_object_new_int64(d->items[i].line));
                json_object_object_add(o, "column", json_object_new_int64(d->items[i].column));
                json_object_object_add(
                                o, "severity", json_object_new_string(rc_severity_to_string(d->items[i].severity)));
                json_object_object_add(o, "message", json_object_new_string(d->items[i].message));
                json_object_array_add(list, o);
        }
}

static void diag_text(const char *path, const RcDiagnostics *d)
{
        for (size_t i = 0; i < d->n_items; i++) {
                const RcDiagnostic *x = &d->items[i];
                if (x->line > 0)
                        fprintf(stderr, "%s:%u:%u: %s: %s\n", x->path ? x->path : path, x->line, x->column,
                                        rc_severity_to_string(x->severity), x->message);
                else
                        fprintf(stderr, "%s: %s: %s\n", x->path ? x->path : path, rc_severity_to_string(x->severity),
                                        x->message);
        }
        if (d->n_dropped > 0)
                fprintf(stderr, "%s: ... and %zu more\n", path, d->n_dropped);
}

int verb_check(int argc, char *argv[])
{
        _cleanup_close_ int root = -EBADF;
        RcConfig *config = NULL;
        RcFile **files = NULL;
        struct json_object *out = json_object_new_object(), *diags = json_object_new_array(),
                           *checked = json_object_new_array();
        size_t n_errors = 0;
        int r;

        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0) {
                perror("open /");
                return 1;
        }

        if (argc > 1) {
                files = calloc((size_t) argc, sizeof(RcFile *));
                if (!files)
                        return 1;
                for (int i = 1; i < argc; i++) {
                        _cleanup_free_ char *abs = NULL;
                        RcSyntaxOptions syntax = { 0 };

                        /* Relative names are the user's: resolve them against the working directory. */
                        if (argv[i][0] != '/') {
                                char cwd[4096];
                                if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, argv[i]) < 0)
                                        return 1;
                        }
                        r = rc_file_load(root, abs ? abs : argv[i], &syntax, NULL, &files[i - 1]);
                        if (r < 0)
                                return 1;
                        /* Show the name as the user typed it. */
                        free(files[i - 1]->path);
                        files[i - 1]->path = strdup(argv[i]);
                }
                r = rc_config_new_from_files(files, (size_t) argc - 1, &config);
        } else {
                const char *home = getenv("HOME");
                _cleanup_free_ char *version = NULL;
                _cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                _cleanup_close_ int sys = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                RcLoadOptions o;

                (void) rc_driver_version_detect(proc, sys, &version);
                o = (RcLoadOptions){ .root_fd = root, .home = home, .driver_version = version };
                r = rc_config_load(&o, &config);
        }
        if (r < 0) {
                fprintf(stderr, "Cannot check: %s\n", strerror(-r));
                return 1;
        }

        for (size_t i = 0; i < config->n_files; i++) {
                const RcFile *f = config->files[i];
                struct json_object *o = json_object_new_object();

                json_object_object_add(o, "file", json_object_new_string(f->path));
                json_object_object_add(o, "state", json_object_new_string(rc_file_state_to_string(f->state)));
                json_object_object_add(o, "rules", json_object_new_int64((int64_t) f->n_rules));
                json_object_object_add(o, "profiles", json_object_new_int64((int64_t) f->n_profiles));
                json_object_array_add(checked, o);
                n_errors += f->diagnostics.n_errors;
                if (arg.json != JSON_OFF)
                        diag_json(diags, f->path, &f->diagnostics);
                else
                        diag_text(f->path, &f->diagnostics);
        }
        n_errors += config->diagnostics.n_errors;
        if (arg.json != JSON_OFF)
                diag_json(diags, "", &config->diagnostics);
        else
                diag_text("(configuration)", &config->diagnostics);

        if (arg.json != JSON_OFF) {
                json_object_object_add(out, "files", json_object_get(checked));
                json_object_object_add(out, "diagnostics", json_object_get(diags));
                json_object_object_add(out, "errors", json_object_new_int64((int64_t) n_errors));
                json_print(out);
        } else if (arg.legend)
                printf("%zu files checked, %zu rules, %zu profiles, %zu errors.\n", config->n_files, config->n_rules,
                                config->n_profiles, n_errors);

        for (int i = 0; files && i < argc - 1; i++)
                rc_file_unref(files[i]);
        free(files);
        rc_config_unref(config);
        json_object_put(out);
        json_object_put(diags);
        json_object_put(checked);
        return n_errors > 0 ? 1 : 0;
}
