/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl top: reading the daemon's Usage interface (ListGpuDevices, ListGpuSensors,
 * ListGpuProcessesAttributed, ListGpuGroups, WatchUsage) into JSON, exactly as sent. */

#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "service-state.h"
#include "verb-top.h"

#define CHECK(r)                   \
        do {                       \
                int _r = (r);      \
                if (_r < 0)        \
                        return _r; \
        } while (0)

static int add_string(struct json_object *o, const char *key, const char *value)
{
        struct json_object *s = json_object_new_string(value ? value : "");

        if (!s || json_object_object_add(o, key, s) < 0) {
                json_object_put(s);
                return -ENOMEM;
        }
        return 0;
}

static int add_object(struct json_object *o, const char *key, struct json_object *v)
{
        if (!v || json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static int array_add(struct json_object *a, struct json_object *v)
{
        if (!v || json_object_array_add(a, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static int read_strv(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        const char *s;
        int r;

        if (!a)
                return -ENOMEM;
        CHECK(sd_bus_message_enter_container(m, 'a', "s"));
        while ((r = sd_bus_message_read(m, "s", &s)) > 0)
                CHECK(array_add(a, json_object_new_string(s)));
        CHECK(r);
        CHECK(sd_bus_message_exit_container(m));
        *ret = TAKE_PTR(a);
        return 0;
}

/* An array of structs of basic fields (fields: their signature, of s, t, u and d) into an array of
 * objects whose members are named by names, in order. */
static int read_list(sd_bus_message *m, const char *fields, const char *const *names, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        char contents[16];
        int r;

        assert(strlen(fields) + 3 <= sizeof contents);
        if (!a)
                return -ENOMEM;
        (void) snprintf(contents, sizeof contents, "(%s)", fields);
        CHECK(sd_bus_message_enter_container(m, 'a', contents));
        while ((r = sd_bus_message_enter_container(m, 'r', fields)) > 0) {
                _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();

                if (!o)
                        return -ENOMEM;
                for (size_t i = 0; fields[i]; i++) {
                        const char *str;
                        uint64_t t;
                        uint32_t u;
                        double d;

                        switch (fields[i]) {
                        case 's':
                                CHECK(sd_bus_message_read_basic(m, 's', &str));
                                CHECK(add_string(o, names[i], str));
                                break;
                        case 't':
                                CHECK(sd_bus_message_read_basic(m, 't', &t));
                                CHECK(add_object(o, names[i], json_object_new_uint64(t)));
                                break;
                        case 'u':
                                CHECK(sd_bus_message_read_basic(m, 'u', &u));
                                CHECK(add_object(o, names[i], json_object_new_int64(u)));
                                break;
                        case 'd':
                                CHECK(sd_bus_message_read_basic(m, 'd', &d));
                                CHECK(add_object(o, names[i], json_object_new_double(d)));
                                break;
                        default:
                                assert_not_reached();
                        }
                }
                CHECK(sd_bus_message_exit_container(m));
                CHECK(array_add(a, TAKE_PTR(o)));
        }
        CHECK(r);
        CHECK(sd_bus_message_exit_container(m));
        *ret = TAKE_PTR(a);
        return 0;
}

/* a(sa{st}): [{"name": ..., "bytes": {"resident": N, ...}}] */
static int read_regions(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        CHECK(sd_bus_message_enter_container(m, 'a', "(sa{st})"));
        while ((r = sd_bus_message_enter_container(m, 'r', "sa{st}")) > 0) {
                _cleanup_(json_object_putp) struct json_object *o = json_object_new_object(),
                                                               *bytes = json_object_new_object();
                const char *name, *stat;
                uint64_t v;

                if (!o || !bytes)
                        return -ENOMEM;
                CHECK(sd_bus_message_read(m, "s", &name));
                CHECK(add_string(o, "name", name));
                CHECK(sd_bus_message_enter_container(m, 'a', "{st}"));
                while ((r = sd_bus_message_read(m, "{st}", &stat, &v)) > 0)
                        CHECK(add_object(bytes, stat, json_object_new_uint64(v)));
                CHECK(r);
                CHECK(sd_bus_message_exit_container(m));
                CHECK(add_object(o, "bytes", TAKE_PTR(bytes)));
                CHECK(sd_bus_message_exit_container(m));
                CHECK(array_add(a, TAKE_PTR(o)));
        }
        CHECK(r);
        CHECK(sd_bus_message_exit_container(m));
        *ret = TAKE_PTR(a);
        return 0;
}

static int read_device(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object(), *engines = NULL;
        const char *device, *source, *driver, *slot, *name, *state;
        uint32_t vendor, product, clients;
        uint64_t clamped;
        struct json_object *v;

        if (!o)
                return -ENOMEM;
        CHECK(sd_bus_message_read(m, "sssssuu", &device, &source, &driver, &slot, &name, &vendor, &product));
        CHECK(add_string(o, "device", device));
        CHECK(add_string(o, "source", source));
        CHECK(add_string(o, "driver", driver));
        CHECK(add_string(o, "pci_slot", slot));
        CHECK(add_string(o, "name", name));
        CHECK(add_object(o, "vendor_id", json_object_new_int64(vendor)));
        CHECK(add_object(o, "device_id", json_object_new_int64(product)));
        CHECK(read_strv(m, &v));
        CHECK(add_object(o, "nodes", v));
        CHECK(sd_bus_message_read(m, "su", &state, &clients));
        CHECK(add_string(o, "state", state));
        CHECK(add_object(o, "clients", json_object_new_int64(clients)));

        CHECK(read_list(m, "sddu", (const char *const[]){ "name", "busy_percent", "freq_percent", "clients" },
                        &engines));
        CHECK(add_object(o, "engines", TAKE_PTR(engines)));
        CHECK(read_regions(m, &v));
        CHECK(add_object(o, "regions", v));
        CHECK(sd_bus_message_read(m, "t", &clamped));
        CHECK(add_object(o, "clamped", json_object_new_uint64(clamped)));
        *ret = TAKE_PTR(o);
        return 0;
}

/* What ListGpuProcessesAttributed adds to each process, named as in the XML contract. */
static const char *const attribution[] = { "unit", "slice", "container_kind", "container", "app_kind", "app" };

static int read_process(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
        const char *object, *comm;
        uint32_t pid, uid;
        uint64_t start_time;
        struct json_object *v;

        if (!o)
                return -ENOMEM;
        CHECK(sd_bus_message_read(m, "outus", &object, &pid, &start_time, &uid, &comm));
        CHECK(add_string(o, "object", object));
        CHECK(add_object(o, "pid", json_object_new_int64(pid)));
        CHECK(add_object(o, "start_time", json_object_new_uint64(start_time)));
        CHECK(add_object(o, "uid", json_object_new_int64(uid)));
        CHECK(add_string(o, "comm", comm));
        CHECK(read_strv(m, &v));
        CHECK(add_object(o, "profiles", v));

        CHECK(read_list(m, "sst", (const char *const[]){ "device", "source", "id" }, &v));
        CHECK(add_object(o, "clients", v));
        CHECK(read_list(m, "sssd", (const char *const[]){ "device", "source", "engine", "busy_percent" }, &v));
        CHECK(add_object(o, "engines", v));
        CHECK(read_list(m, "ssst", (const char *const[]){ "device", "source", "region", "bytes" }, &v));
        CHECK(add_object(o, "memory", v));
        for (size_t i = 0; i < ELEMENTSOF(attribution); i++) {
                const char *value;

                CHECK(sd_bus_message_read(m, "s", &value));
                CHECK(add_string(o, attribution[i], value));
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* A group of ListGpuGroups: the daemon's totals, which top shows as they come (no sum of its own). */
static int read_group(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
        const char *key;
        uint32_t n;
        struct json_object *v;

        if (!o)
                return -ENOMEM;
        CHECK(sd_bus_message_read(m, "su", &key, &n));
        CHECK(add_string(o, "key", key));
        CHECK(add_object(o, "processes", json_object_new_int64(n)));
        CHECK(read_list(m, "sssd", (const char *const[]){ "device", "source", "engine", "busy_percent" }, &v));
        CHECK(add_object(o, "engines", v));
        CHECK(read_list(m, "ssst", (const char *const[]){ "device", "source", "region", "bytes" }, &v));
        CHECK(add_object(o, "memory", v));
        *ret = TAKE_PTR(o);
        return 0;
}

/* An entry of ListGpuSensors: {"device", "source", "sensors": [{"sensor", "label", "unit", "value"}]}. */
static int read_sensors(sd_bus_message *m, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
        const char *device, *source;
        struct json_object *v;

        if (!o)
                return -ENOMEM;
        CHECK(sd_bus_message_read(m, "ss", &device, &source));
        CHECK(add_string(o, "device", device));
        CHECK(add_string(o, "source", source));
        CHECK(read_list(m, "sssd", (const char *const[]){ "sensor", "label", "unit", "value" }, &v));
        CHECK(add_object(o, "sensors", v));
        *ret = TAKE_PTR(o);
        return 0;
}

/* Each device gains its "sensors" (the entry of the same device and source; [] when none). */
static int attach_sensors(struct json_object *devices, struct json_object *sensors)
{
        for (size_t i = 0; i < json_object_array_length(devices); i++) {
                struct json_object *d = json_object_array_get_idx(devices, i), *found = NULL;
                const char *device = json_object_get_string(json_object_object_get(d, "device"));
                const char *source = json_object_get_string(json_object_object_get(d, "source"));

                for (size_t k = 0; k < json_object_array_length(sensors) && !found; k++) {
                        struct json_object *x = json_object_array_get_idx(sensors, k);

                        if (streq(strempty(json_object_get_string(json_object_object_get(x, "device"))),
                                            strempty(device)) &&
                                        streq(strempty(json_object_get_string(json_object_object_get(x, "source"))),
                                                        strempty(source)))
                                found = json_object_object_get(x, "sensors");
                }
                if (add_object(d, "sensors", found ? json_object_get(found) : json_object_new_array()) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The rows of an array of contents, each read by read_one and appended to a. */
static int read_rows(sd_bus_message *reply, const char *contents, const char *fields,
                int (*read_one)(sd_bus_message *m, struct json_object **ret), struct json_object *a)
{
        int r;

        r = sd_bus_message_enter_container(reply, 'a', contents);
        if (r < 0)
                return r;
        for (;;) {
                struct json_object *o = NULL;

                r = sd_bus_message_enter_container(reply, 'r', fields);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = read_one(reply, &o);
                if (r < 0)
                        return r;
                r = array_add(a, o);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(reply);
}

/* Calls method (with the string argument by, when given) and reads its array. */
static int call_list(sd_bus *bus, const char *method, const char *by, const char *contents, const char *fields,
                int (*read_one)(sd_bus_message *m, struct json_object **ret), struct json_object **ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        int r;

        if (!a)
                return log_oom();
        r = sd_bus_message_new_method_call(bus, &call, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, method);
        if (r < 0)
                return log_error_errno(r, "Could not %s", strna(bus_request_words(method)));
        if (by) {
                r = sd_bus_message_append(call, "s", by);
                if (r < 0)
                        return log_error_errno(r, "Could not %s", strna(bus_request_words(method)));
        }
        r = client_send(bus, call, &reply);
        if (r < 0)
                return r;

        r = read_rows(reply, contents, fields, read_one, a);
        if (r < 0)
                return log_error_errno(
                                r, "Could not %s: the daemon's reply does not read", strna(bus_request_words(method)));
        *ret = TAKE_PTR(a);
        return 0;
}

/* ListGpuSensors' entries; none from a daemon older than it (a client upgraded before the daemon restarted),
 * whose devices are still shown. */
static int call_sensors(sd_bus *bus, struct json_object **ret)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *a = json_object_new_array();
        int r;

        if (!a)
                return log_oom();
        r = sd_bus_call_method(
                        bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "ListGpuSensors", &error, &reply, NULL);
        if (r < 0 && sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                *ret = TAKE_PTR(a);
                return 0;
        }
        if (r < 0) {
                log_bus_call_error("ListGpuSensors", &error, r);
                return r;
        }
        r = read_rows(reply, "(ssa(sssd))", "ssa(sssd)", read_sensors, a);
        if (r < 0)
                return log_error_errno(r, "Could not %s: the daemon's reply does not read",
                                strna(bus_request_words("ListGpuSensors")));
        *ret = TAKE_PTR(a);
        return 0;
}

int top_read(sd_bus *bus, TopGroup group, struct json_object **ret)
{
        _cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
        struct json_object *devices = NULL, *processes = NULL, *groups = NULL, *sensors = NULL;
        int r;

        assert(bus);
        assert(ret);

        if (!o)
                return log_oom();
        r = call_list(bus, "ListGpuDevices", NULL, "(sssssuuassua(sddu)a(sa{st})t)", "sssssuuassua(sddu)a(sa{st})t",
                        read_device, &devices);
        if (r < 0)
                return r;
        if (add_object(o, "devices", devices) < 0)
                return log_oom();
        r = call_sensors(bus, &sensors);
        if (r < 0)
                return r;
        r = attach_sensors(devices, sensors);
        json_object_put(sensors);
        if (r < 0)
                return log_oom();
        r = call_list(bus, "ListGpuProcessesAttributed", NULL, "(outusasa(sst)a(sssd)a(ssst)ssssss)",
                        "outusasa(sst)a(sssd)a(ssst)ssssss", read_process, &processes);
        if (r < 0)
                return r;
        if (add_object(o, "processes", processes) < 0)
                return log_oom();
        if (group != TOP_GROUP_PROCESS) {
                r = call_list(bus, "ListGpuGroups", top_group_to_string(group), "(sua(sssd)a(ssst))",
                                "sua(sssd)a(ssst)", read_group, &groups);
                if (r < 0)
                        return r;
                if (add_object(o, "groups", groups) < 0)
                        return log_oom();
        }
        *ret = TAKE_PTR(o);
        return 0;
}

int top_watch(sd_bus *bus, uint64_t interval_usec, int *ret_fd)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int fd, r;

        assert(bus);
        assert(ret_fd);

        r = sd_bus_call_method(bus, BUS_NAME, BUS_ROOT_PATH, BUS_USAGE_INTERFACE, "WatchUsage", &error, &reply, "t",
                        interval_usec);
        if (r < 0) {
                ServiceState s = service_state_from_error(
                                sd_bus_error_is_set(&error) ? error.name : NULL, error.message, r);

                log_bus_call_error("WatchUsage", &error, r);
                /* Not running, denied, unreachable: reading without a watch would only say so again. */
                return service_state_is_failure(s) ? -ENOTCONN : r;
        }
        r = sd_bus_message_read(reply, "h", &fd);
        if (r < 0)
                return log_error_errno(r, "Could not watch the GPU usage: the daemon's reply does not read");
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return log_error_errno(errno, "Could not watch the GPU usage: the daemon's descriptor cannot be kept");
        *ret_fd = fd;
        return 0;
}

/* The daemon says "not known" with -1 (a utilisation without a previous sample) and "" (no unit, no
 * container); a reader of the document gets null for both, as every --json schema has it. A sensor's
 * value is a measurement, below zero too (a temperature): kept (exact_numbers, below "sensors"). The
 * frame reads the reading as sent. */
static struct json_object *copy_with_nulls(struct json_object *v, bool exact_numbers)
{
        struct json_object *copy;

        switch (json_object_get_type(v)) {
        case json_type_double:
                return json_object_get_double(v) < 0 && !exact_numbers ? NULL : json_object_get(v);
        case json_type_string:
                return json_object_get_string_len(v) == 0 ? NULL : json_object_get(v);
        case json_type_object:
                copy = json_object_new_object();
                if (!copy)
                        return NULL;
                for (struct json_object_iterator it = json_object_iter_begin(v), end = json_object_iter_end(v);
                                !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
                        json_object_object_add(copy, json_object_iter_peek_name(&it),
                                        copy_with_nulls(json_object_iter_peek_value(&it),
                                                        exact_numbers ||
                                                                        streq(json_object_iter_peek_name(&it),
                                                                                        "sensors")));
                return copy;
        case json_type_array:
                copy = json_object_new_array();
                if (!copy)
                        return NULL;
                for (size_t i = 0; i < json_object_array_length(v); i++)
                        json_object_array_add(copy, copy_with_nulls(json_object_array_get_idx(v, i), exact_numbers));
                return copy;
        default:
                return json_object_get(v);
        }
}

int top_print_document(struct json_object *reading)
{
        _cleanup_(json_object_putp) struct json_object *doc = NULL;

        assert(reading);

        doc = copy_with_nulls(reading, false);
        if (!doc)
                return log_oom();
        /* Not grouped (--group=process): the member is there, null. */
        if (!json_object_object_get_ex(doc, "groups", NULL) && json_object_object_add(doc, "groups", NULL) < 0)
                return log_oom();
        return json_print_document("top", NULL, doc);
}
