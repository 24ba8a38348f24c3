/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "doctor": why a profile may not do what its author meant, and the command that fixes it. The daemon
 * finds (Doctor, rc-doctor.c); this prints. */

#include <inttypes.h>

#include "client.h"
#include "log.h"

/* Kinds that only inform: they make no failure of the exit status. */
static bool kind_is_note(const char *kind)
{
        return streq(kind, "installed-file");
}

typedef struct DoctorListing {
        size_t n_problems;
        uint32_t dropped;
        int complete;
} DoctorListing;

static int read_findings(sd_bus_message *reply, struct json_object *list, void *userdata)
{
        DoctorListing *listing = userdata;
        const char *kind, *file, *message, *fix;
        uint32_t line, column;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(ssuuss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(ssuuss)", &kind, &file, &line, &column, &message, &fix)) > 0) {
                struct json_object *o = json_object_new_object();

                if (!o)
                        return -ENOMEM;
                json_object_object_add(o, "kind", json_object_new_string(kind));
                json_object_object_add(o, "file", json_object_new_string(file));
                json_object_object_add(o, "line", json_object_new_int64(line));
                json_object_object_add(o, "column", json_object_new_int64(column));
                json_object_object_add(o, "message", json_object_new_string(message));
                json_object_object_add(o, "fix", *fix ? json_object_new_string(fix) : NULL);
                json_object_array_add(list, o);
                listing->n_problems += !kind_is_note(kind);

                if (arg.json == JSON_OFF) {
                        _cleanup_(escape_pool_done) EscapePool e = { 0 };

                        print_diagnostic(stdout, file, line, column, kind, message, NULL);
                        if (*fix)
                                printf("  fix: %s\n", esc(&e, fix));
                }
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_read(reply, "ub", &listing->dropped, &listing->complete);
}

int verb_doctor(int argc, char *argv[])
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *list = json_object_new_array(), *doc = NULL;
        DoctorListing listing = { 0 };
        const char *scope = "user", *home = "";
        int r;

        assert(argc == 1);

        if (!list)
                return log_oom();
        if (arg.system && arg.all) {
                log_error("--system and --all cannot be combined: --all is every user's files and the system's.");
                return EXIT_USAGE;
        }
        if (arg.system)
                scope = "system";
        else if (arg.all)
                scope = "all-users";
        else
                /* The caller's own files: those of the home given, else of its $HOME (none without one). */
                home = arg.home ? arg.home : strempty(getenv("HOME"));
        if (*home && home[0] != '/') {
                log_error("$HOME is not an absolute path: give --home=DIR.");
                return EXIT_USAGE;
        }

        r = client_connect(&bus);
        if (r < 0)
                return r;
        r = client_call(bus, "Doctor", &reply, "ss", scope, home);
        if (r < 0)
                return r;
        r = read_findings(reply, list, &listing);
        if (r < 0)
                return log_error_errno(r, "Failed to read the daemon's reply");

        if (arg.json != JSON_OFF) {
                doc = json_object_new_object();
                if (!doc)
                        return log_oom();
                json_object_object_add(doc, "findings", TAKE_PTR(list));
                json_object_object_add(doc, "dropped", json_object_new_int64(listing.dropped));
                json_object_object_add(doc, "complete", json_object_new_boolean(listing.complete));
                r = json_print_document("doctor", NULL, doc);
                if (r < 0)
                        return r;
        } else if (arg.legend) {
                size_t n = json_object_array_length(list);

                if (!listing.complete)
                        printf("The daemon stopped comparing rules at its bound of work (thousands of rules, or "
                               "deeply nested patterns): findings may be missing.\n");
                if (listing.dropped > 0)
                        printf("%" PRIu32 " more findings not listed (the daemon lists at most 256).\n",
                                        listing.dropped);
                if (n == 0 && listing.dropped == 0)
                        printf("No findings: every rule can apply as written.\n");
                else
                        printf("\n%zu findings. Run a fix with --dry-run first to see what it changes.\n",
                                        n + listing.dropped);
        }
        /* Like check and errors: scripts and monitoring can test the status. */
        return listing.n_problems > 0 || listing.dropped > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
