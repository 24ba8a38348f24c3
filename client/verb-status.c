/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "client.h"


static int get_property(sd_bus *bus, const char *name, const char *type, void *ret)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_get_property_trivial(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, name, &error, type[0], ret);
        if (r < 0)
                fprintf(stderr, "%s\n",
                                sd_bus_error_has_names(&error, "org.freedesktop.DBus.Error.ServiceUnknown",
                                                "org.freedesktop.DBus.Error.NameHasNoOwner")
                                                ? "nvprofiled is not running (no owner of " BUS_NAME " on this bus)."
                                                : (error.message ? error.message : strerror(-r)));
        sd_bus_error_free(&error);
        return r;
}

static int get_string(sd_bus *bus, const char *name, char **ret)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_get_property_string(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, name, &error, ret);
        if (r < 0)
                fprintf(stderr, "Cannot read %s: %s\n", name, error.message ? error.message : strerror(-r));
        sd_bus_error_free(&error);
        return r;
}

int verb_status(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *version = NULL, *driver = NULL, *mode = NULL;
        uint32_t tracked = 0, matched = 0;
        uint64_t generation = 0;
        struct json_object *o = NULL, *files = json_object_new_array();
        const char *path, *state;
        uint32_t errors, warnings;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                goto finish;
        r = get_string(bus, "Version", &version);
        if (r < 0)
                goto finish;
        if ((r = get_string(bus, "DriverVersion", &driver)) < 0 ||
                        (r = get_string(bus, "ProcessWatchMode", &mode)) < 0 ||
                        (r = get_property(bus, "TrackedProcesses", "u", &tracked)) < 0 ||
                        (r = get_property(bus, "MatchedProcesses", "u", &matched)) < 0 ||
                        (r = get_property(bus, "ConfigGeneration", "t", &generation)) < 0)
                goto finish;

        r = sd_bus_get_property(bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "RcFiles", &error, &reply, "a(ssuu)");
        if (r < 0) {
                fprintf(stderr, "Cannot read RcFiles: %s\n", error.message ? error.message : strerror(-r));
                goto finish;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ssuu)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssuu)", &path, &state, &errors, &warnings)) > 0) {
                struct json_object *f = json_object_new_object();
                json_object_object_add(f, "path", json_object_new_string(path));
                json_object_object_add(f, "state", json_object_new_string(state));
                json_object_object_add(f, "errors", json_object_new_int64(errors));
                json_object_object_add(f, "warnings", json_object_new_int64(warnings));
                json_object_array_add(files, f);
        }
        if (r < 0)
                goto finish;

        if (arg.json != JSON_OFF) {
                o = json_object_new_object();
                json_object_object_add(o, "version", json_object_new_string(version));
                json_object_object_add(o, "driver_version", *driver ? json_object_new_string(driver) : NULL);
                json_object_object_add(o, "process_watch_mode", json_object_new_string(mode));
                json_object_object_add(o, "tracked_processes", json_object_new_int64(tracked));
                json_object_object_add(o, "matched_processes", json_object_new_int64(matched));
                json_object_object_add(o, "config_generation", json_object_new_uint64(generation));
                json_object_object_add(o, "rc_files", json_object_get(files));
                json_print(o);
        } else {
                printf("        Daemon: nvprofiled %s\n", version);
                printf("        Driver: %s\n",
                                *driver ? driver : "(no NVIDIA driver found: shipped profiles not read)");
                printf(" Process watch: %s\n", mode);
                printf("     Processes: %" PRIu32 " tracked, %" PRIu32 " matched by a rule\n", tracked, matched);
                printf(" Configuration: generation %" PRIu64 "\n", generation);
                printf("      rc files: %zu\n", json_object_array_length(files));
                for (size_t i = 0; i < json_object_array_length(files); i++) {
                        struct json_object *f = json_object_array_get_idx(files, i), *v;
                        json_object_object_get_ex(f, "path", &v);
                        printf("                %-8s %s", json_object_get_string(json_object_object_get(f, "state")),
                                        json_object_get_string(v));
                        if (json_object_get_int(json_object_object_get(f, "errors")) > 0)
                                printf("  (%d errors)", json_object_get_int(json_object_object_get(f, "errors")));
                        printf("\n");
                }
        }
        r = 0;

finish:
        json_object_put(o);
        json_object_put(files);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

int verb_reload(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_call(bus, "Reload", NULL, NULL);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

int verb_version(int argc, char *argv[])
{
        _cleanup_free_ char *daemon = NULL;
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        /* The client's version always; the daemon's when it answers. */
        if (client_connect(&bus) >= 0)
                (void) sd_bus_get_property_string(
                                bus, BUS_NAME, BUS_ROOT_PATH, BUS_MANAGER_INTERFACE, "Version", &error, &daemon);
        if (arg.json != JSON_OFF) {
                struct json_object *o = json_object_new_object();
                json_object_object_add(o, "client", json_object_new_string(PACKAGE_VERSION));
                json_object_object_add(o, "daemon", daemon ? json_object_new_string(daemon) : NULL);
                json_print(o);
                json_object_put(o);
        } else {
                printf("nvprofilectl %s\n", PACKAGE_VERSION);
                printf("nvprofiled %s\n", daemon ? daemon : "(not running)");
        }
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return 0;
}
