/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nsight Compute reports over D-Bus, marshalling only: Manager.LoadReport(h fd) and the Report objects
 * BUS_REPORT_PREFIX/<id>, which exist only for the caller (its unique name) that loaded them. The report
 * registry, its budgets and lifetimes are the manager's (manager-reports.h), the model its worker's
 * (report-serve.h): a method's arguments go to the worker in the wire encoding of report-protocol.h, and
 * its reply comes back in it and is copied into the D-Bus reply by the method's signature, every value
 * checked on the way. Callers that leave the bus are seen through NameOwnerChanged. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "bus-report.h"
#include "log.h"
#include "manager-reports.h"
#include "report-diff.h"
#include "report-page-encoding.h"
#include "strv.h"

/* A reply's wire bytes at most: its D-Bus message (with alignment, at most about twice that) must stay
 * under the bus's message size (32 MiB on the system bus). */
#define BUS_REPORT_REPLY_MAX ((size_t) 12 * 1024 * 1024)
#define NVTX_EXPRESSIONS_MAX 64
#define DIFF_SPEC_MAX 1024

/* A call waiting for its report's worker: the D-Bus call to answer and the reply's signature. */
typedef struct BusReportCall {
        sd_bus_message *call;
        const char *signature;
} BusReportCall;

static BusReportCall *bus_report_call_free(BusReportCall *c)
{
        if (!c)
                return NULL;
        sd_bus_message_unref(c->call);
        return mfree(c);
}

static int bus_report_call_new(sd_bus_message *m, const char *signature, BusReportCall **ret)
{
        BusReportCall *c = calloc(1, sizeof(BusReportCall));

        if (!c)
                return -ENOMEM;
        c->call = sd_bus_message_ref(m);
        c->signature = signature;
        *ret = c;
        return 0;
}

static int reply_error(sd_bus_message *m, int error, const char *message, bool loading)
{
        message = strempty(message);
        switch (-error) {
        case EINVAL:
                if (!loading)
                        return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "%s", message);
                _fallthrough_;
        case EBADMSG:
        case EPROTONOSUPPORT:
        case EISDIR:
        case EIO:
        case ESTALE:
                return sd_bus_reply_method_errorf(m, BUS_ERROR_INVALID_REPORT, "Invalid report: %s", message);
        case ENOENT:
                return sd_bus_reply_method_errorf(m, BUS_ERROR_NO_SUCH_METRIC, "%s", message);
        case E2BIG:
                return sd_bus_reply_method_errorf(m, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: %s", message);
        case EDOM: /* Diff: the pairing specs pair nothing */
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "%s", message);
        case ETIMEDOUT:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_TIMEOUT, "%s", message);
        case ENOMEM:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NO_MEMORY, "%s", message);
        default:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_FAILED, "%s", message);
        }
}

/* A refusal before any work: -E2BIG with the manager's sentence, else the errno. */
static int refuse(sd_bus_error *error, int k, const char *why)
{
        if (k == -E2BIG)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: %s", strempty(why));
        if (k == -EINVAL && why)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s", why);
        return sd_bus_error_set_errnof(error, -k, "Cannot serve the report");
}

/* The length of the single complete type at the start of signature s (ours: well-formed). */
static size_t type_length(const char *s)
{
        size_t depth = 0, i = 0;

        if (s[0] == 'a')
                return 1 + type_length(s + 1);
        do {
                if (s[i] == '(')
                        depth++;
                else if (s[i] == ')')
                        depth--;
                i++;
        } while (depth > 0);
        return i;
}

/* The fewest wire bytes a value of the type at s takes: bounds an array's count by what is left. */
static size_t type_min_size(const char *s)
{
        switch (s[0]) {
        case 'y':
        case 'b':
                return 1;
        case 'u':
        case 'i':
        case 'a':
                return 4;
        case 't':
        case 'x':
        case 'd':
                return 8;
        case 's':
                return 5;
        case 'v':
                return 2;
        case '(': {
                size_t n = 0;
                for (const char *p = s + 1; *p != ')'; p += type_length(p))
                        n += type_min_size(p);
                return MAX(n, (size_t) 1);
        }
        }
        assert_not_reached();
}

static int copy_basic(sd_bus_message *m, char type, NcuWireReader *in)
{
        int r;

        switch (type) {
        case 'y': {
                uint8_t v;
                r = ncu_wire_get_u8(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, &v);
        }
        case 'b': {
                bool v;
                int b;
                r = ncu_wire_get_bool(in, &v);
                if (r < 0)
                        return r; /* v is not set: not even read */
                b = v;
                return sd_bus_message_append_basic(m, type, &b);
        }
        case 'u': {
                uint32_t v;
                r = ncu_wire_get_u32(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, &v);
        }
        case 'i': {
                int32_t v;
                r = ncu_wire_get_i32(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, &v);
        }
        case 't': {
                uint64_t v;
                r = ncu_wire_get_u64(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, &v);
        }
        case 'd': {
                double v;
                r = ncu_wire_get_double(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, &v);
        }
        case 's': {
                const char *v;
                r = ncu_wire_get_string(in, &v);
                return r < 0 ? r : sd_bus_message_append_basic(m, type, v);
        }
        }
        return -EBADMSG;
}

/* Copies one value of the complete type at *sig from the worker's reply into m, advancing *sig. Any byte
 * that does not fit the type is -EBADMSG: a worker's reply is checked as closely as its input. */
static int copy_value(sd_bus_message *m, const char **sig, NcuWireReader *in)
{
        const char *s = *sig;
        size_t n = type_length(s);
        char contents[64];
        int r;

        *sig = s + n;
        switch (s[0]) {
        case 'v': {
                uint8_t t;
                char vs[2] = { 0 };

                r = ncu_wire_get_u8(in, &t);
                if (r < 0)
                        return r;
                if (!strchr("ybuitds", t) || t == 0)
                        return -EBADMSG;
                vs[0] = (char) t;
                r = sd_bus_message_open_container(m, 'v', vs);
                if (r >= 0)
                        r = copy_basic(m, (char) t, in);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        case 'a': {
                size_t en = type_length(s + 1);
                uint32_t count;

                if (en >= sizeof(contents))
                        return -EINVAL;
                memcpy(contents, s + 1, en);
                contents[en] = '\0';
                r = ncu_wire_get_count(in, type_min_size(contents), &count);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'a', contents);
                for (uint32_t i = 0; r >= 0 && i < count; i++) {
                        const char *e = contents;
                        r = copy_value(m, &e, in);
                }
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        case '(': {
                const char *p;

                if (n - 2 >= sizeof(contents))
                        return -EINVAL;
                memcpy(contents, s + 1, n - 2);
                contents[n - 2] = '\0';
                r = sd_bus_message_open_container(m, 'r', contents);
                for (p = contents; r >= 0 && *p;)
                        r = copy_value(m, &p, in);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        default:
                return copy_basic(m, s[0], in);
        }
}

int bus_report_copy_reply(sd_bus_message *m, const char *signature, const void *data, size_t size)
{
        NcuWireReader in;
        const char *s = signature;
        int r = 0;

        ncu_wire_reader_init(&in, data, size);
        while (r >= 0 && *s)
                r = copy_value(m, &s, &in);
        if (r >= 0 && in.left != 0)
                return -EBADMSG;
        /* sd-bus refuses what D-Bus cannot carry with -EINVAL: a lie too. */
        return r == -EINVAL ? -EBADMSG : r;
}

static void on_call_reply(int error, const void *data, size_t size, const char *message, void *userdata)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        BusReportCall *c = userdata;
        int r;

        if (error < 0) {
                (void) reply_error(c->call, error, message, false);
                bus_report_call_free(c);
                return;
        }
        r = sd_bus_message_new_method_return(c->call, &reply);
        if (r >= 0)
                r = bus_report_copy_reply(reply, c->signature, data, size);
        if (r == -EBADMSG)
                (void) sd_bus_reply_method_errorf(
                                c->call, SD_BUS_ERROR_FAILED, "the report worker returned a malformed answer");
        else if (r < 0)
                (void) sd_bus_reply_method_errno(c->call, r, NULL);
        else
                (void) sd_bus_send(NULL, reply, NULL);
        bus_report_call_free(c);
}

/* The caller's report at path, or NULL: other callers cannot tell it from one that does not exist. */
static ManagerReport *find_for_caller(Manager *manager, sd_bus *bus, const char *path)
{
        sd_bus_message *m = sd_bus_get_current_message(bus);
        const char *sender = m ? sd_bus_message_get_sender(m) : NULL;
        const char *last;
        uint64_t id;
        char *end;

        if (!sender || !path || strncmp(path, BUS_REPORT_PREFIX "/", strlen(BUS_REPORT_PREFIX "/")) != 0)
                return NULL;
        last = path + strlen(BUS_REPORT_PREFIX "/");
        if (!*last || *last == '0')
                return NULL;
        errno = 0;
        id = strtoull(last, &end, 10);
        if (errno != 0 || *end)
                return NULL;
        return manager_report_find(manager, sender, id);
}

int bus_report_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error)
{
        BusContext *c = userdata;
        ManagerReport *r = find_for_caller(c->manager, bus, path);

        if (!r)
                return 0;
        *ret_found = r;
        return 1;
}

int bus_report_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error)
{
        BusContext *c = userdata;
        sd_bus_message *m = sd_bus_get_current_message(bus);
        const char *sender = m ? sd_bus_message_get_sender(m) : NULL;
        _cleanup_strv_free_ char **nodes = NULL;
        _cleanup_free_ uint64_t *ids = NULL;
        size_t n = 0;
        int r;

        if (sender) {
                r = manager_report_list(c->manager, sender, &ids, &n);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n; i++) {
                char *path;

                if (asprintf(&path, BUS_REPORT_PREFIX "/%" PRIu64, ids[i]) < 0)
                        return -ENOMEM;
                r = strv_consume(&nodes, path);
                if (r < 0)
                        return r;
        }
        *ret_nodes = TAKE_PTR(nodes);
        return 0;
}

static void on_loaded(ManagerReport *r, int error, const char *message, void *userdata)
{
        BusReportCall *c = userdata;
        _cleanup_free_ char *path = NULL;

        if (error < 0)
                (void) reply_error(c->call, error, message, true);
        else if (asprintf(&path, BUS_REPORT_PREFIX "/%" PRIu64, manager_report_id(r)) < 0)
                (void) sd_bus_reply_method_errorf(c->call, SD_BUS_ERROR_NO_MEMORY, "Out of memory");
        else
                (void) sd_bus_reply_method_return(c->call, "o", path);
        bus_report_call_free(c);
}

int bus_method_load_report(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const char *why = NULL;
        BusReportCall *call = NULL;
        ManagerReport *r;
        uid_t uid;
        int fd, k;

        k = sd_bus_message_read(m, "h", &fd);
        if (k < 0)
                return k;
        k = bus_caller_uid(m, &uid);
        if (k < 0)
                return k;
        k = bus_report_call_new(m, NULL, &call);
        if (k < 0)
                return k;
        k = manager_report_load(c->manager, strempty(sd_bus_message_get_sender(m)), uid, fd, on_loaded, call, &r, &why);
        if (k < 0) {
                bus_report_call_free(call);
                return refuse(error, k, why);
        }
        return 1; /* answered once the worker has read it */
}

/* A call to the report's worker with args in the wire encoding; answered with the reply copied by
 * signature. */
static int forward(sd_bus_message *m, ManagerReport *r, NcuServeOp op, NcuWire *args, const char *signature,
                sd_bus_error *error)
{
        const char *why = NULL;
        BusReportCall *call = NULL;
        int k;

        k = ncu_wire_finish(args);
        if (k >= 0)
                k = bus_report_call_new(m, signature, &call);
        if (k < 0) {
                ncu_wire_done(args);
                return k;
        }
        k = manager_report_call(r, op, args->data, args->size, BUS_REPORT_REPLY_MAX, on_call_reply, call, &why);
        ncu_wire_done(args);
        if (k < 0) {
                bus_report_call_free(call);
                return refuse(error, k, why);
        }
        return 1;
}

static int method_close(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        manager_report_close(userdata);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_get_info(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NcuWire args;

        ncu_wire_init(&args, 0);
        return forward(m, userdata, NCU_SERVE_GET_INFO, &args, "suut", error);
}

static int method_get_summary(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NcuWire args;

        ncu_wire_init(&args, 0);
        return forward(m, userdata, NCU_SERVE_GET_SUMMARY, &args, "a(uuus(ttt)(ttt)da(ssd))", error);
}

static int method_list_actions(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NcuWire args;
        uint32_t range;
        int k;

        k = sd_bus_message_read(m, "u", &range);
        if (k < 0)
                return k;
        ncu_wire_init(&args, 16);
        ncu_wire_put_u32(&args, range);
        return forward(m, userdata, NCU_SERVE_LIST_ACTIONS, &args, "a(ussss(ttt)(ttt)d)", error);
}

/* (u range, u action), then what op needs, if anything. */
static int read_action(sd_bus_message *m, NcuWire *args)
{
        uint32_t range, action;
        int k;

        k = sd_bus_message_read(m, "uu", &range, &action);
        if (k < 0)
                return k;
        ncu_wire_init(args, 1024 * 1024);
        ncu_wire_put_u32(args, range);
        ncu_wire_put_u32(args, action);
        return 0;
}

static int forward_action(sd_bus_message *m, void *userdata, NcuServeOp op, const char *signature, sd_bus_error *error)
{
        NcuWire args;
        int k;

        k = read_action(m, &args);
        if (k < 0)
                return k;
        return forward(m, userdata, op, &args, signature, error);
}

static int method_get_metric_names(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return forward_action(m, userdata, NCU_SERVE_GET_METRIC_NAMES, "as", error);
}

static int method_get_rule_results(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return forward_action(m, userdata, NCU_SERVE_GET_RULE_RESULTS, "a(sssa(sss)a(sd))", error);
}

static int method_get_rule_results_full(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return forward_action(
                        m, userdata, NCU_SERVE_GET_RULE_RESULTS_FULL, "a(sssa(isss)a(sd)a(isdts)a(ssttss))", error);
}

static int method_get_source_files(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return forward_action(m, userdata, NCU_SERVE_GET_SOURCE_FILES, "a(ss)", error);
}

static int method_get_metric(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        ManagerReport *r = userdata;
        Manager *manager = manager_report_manager(r);
        const char *name;
        NcuWire args;
        int k;

        k = read_action(m, &args);
        if (k >= 0)
                k = sd_bus_message_read(m, "s", &name);
        if (k < 0) {
                ncu_wire_done(&args);
                return k;
        }
        if (strlen(name) > manager->config.bus_string_max) {
                ncu_wire_done(&args);
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: the name is too long");
        }
        ncu_wire_put_string(&args, name);
        return forward(m, r, NCU_SERVE_GET_METRIC, &args, "sbva(vv)", error);
}

/* as, bounded: at most max strings of at most string_max bytes each (else LimitsExceeded), none empty
 * when nonempty is set (else InvalidArgs). */
static int read_strings(
                sd_bus_message *m, size_t max, size_t string_max, bool nonempty, NcuWire *args, sd_bus_error *error)
{
        _cleanup_strv_free_ char **v = NULL;
        size_t token;
        int k;

        k = sd_bus_message_read_strv(m, &v);
        if (k < 0)
                return k;
        if (strv_length(v) > max)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: at most %zu entries", max);
        STRV_FOREACH(s, v) {
                if (strlen(*s) > string_max)
                        return sd_bus_error_setf(
                                        error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: an entry is too long");
                if (nonempty && (*s)[0] == '\0')
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "An entry is empty");
        }
        token = ncu_wire_open_array(args);
        STRV_FOREACH(s, v)
                ncu_wire_put_string(args, *s);
        ncu_wire_close_array(args, token, (uint32_t) strv_length(v));
        return 0;
}

static int method_actions_by_nvtx(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        ManagerReport *r = userdata;
        Manager *manager = manager_report_manager(r);
        NcuWire args;
        uint32_t range;
        int k;

        k = sd_bus_message_read(m, "u", &range);
        if (k < 0)
                return k;
        ncu_wire_init(&args, NCU_SERVE_REQUEST_MAX - sizeof(uint64_t));
        ncu_wire_put_u32(&args, range);
        k = read_strings(m, NVTX_EXPRESSIONS_MAX, manager->config.bus_string_max, false, &args, error);
        if (k >= 0)
                k = read_strings(m, NVTX_EXPRESSIONS_MAX, manager->config.bus_string_max, false, &args, error);
        if (k < 0) {
                ncu_wire_done(&args);
                return k;
        }
        return forward(m, r, NCU_SERVE_ACTIONS_BY_NVTX, &args, "au", error);
}

static void on_output_done(int error, int fd, const char *message, void *userdata)
{
        BusReportCall *c = userdata;

        if (error < 0)
                (void) reply_error(c->call, error, message, false);
        else
                (void) sd_bus_reply_method_return(c->call, "h", fd);
        bus_report_call_free(c);
}

static int export(sd_bus_message *m, ManagerReport *r, NcuServeExport kind, const void *page, size_t page_size,
                sd_bus_error *error)
{
        const char *why = NULL;
        BusReportCall *call = NULL;
        int k;

        k = bus_report_call_new(m, NULL, &call);
        if (k < 0)
                return k;
        k = manager_report_export(r, kind, page, page_size, on_output_done, call, &why);
        if (k < 0) {
                bus_report_call_free(call);
                return refuse(error, k, why);
        }
        return 1;
}

/* A memfd output about one action, (u range, u action): GetDetails and GetSourceView. */
typedef int (*ActionOutputFunc)(ManagerReport *r, uint32_t range, uint32_t action, ManagerReportOutputDone done,
                void *userdata, const char **ret_why);

static int action_output(sd_bus_message *m, ManagerReport *r, ActionOutputFunc fn, sd_bus_error *error)
{
        const char *why = NULL;
        BusReportCall *call = NULL;
        uint32_t range, action;
        int k;

        k = sd_bus_message_read(m, "uu", &range, &action);
        if (k < 0)
                return k;
        k = bus_report_call_new(m, NULL, &call);
        if (k < 0)
                return k;
        k = fn(r, range, action, on_output_done, call, &why);
        if (k < 0) {
                bus_report_call_free(call);
                return refuse(error, k, why);
        }
        return 1;
}

static int method_get_details(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return action_output(m, userdata, manager_report_details, error);
}

static int method_get_source_view(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return action_output(m, userdata, manager_report_source_view, error);
}

static int method_export_json(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return export(m, userdata, NCU_SERVE_EXPORT_JSON, NULL, 0, error);
}

static int method_export_raw(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        int instances, k;

        k = sd_bus_message_read(m, "b", &instances);
        if (k < 0)
                return k;
        return export(m, userdata, instances ? NCU_SERVE_EXPORT_RAW_INSTANCES : NCU_SERVE_EXPORT_RAW, NULL, 0, error);
}

static int method_export_details(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return export(m, userdata, NCU_SERVE_EXPORT_DETAILS, NULL, 0, error);
}

/* ExportPage's options: ncu's print options by their names, each at most once. */
#define PAGE_OPTIONS_MAX 5

/* One option's word: a string variant naming a value (from_string: its parser), else InvalidArgs. */
static int read_page_word(
                sd_bus_message *m, const char *key, int (*from_string)(const char *s), int *ret, sd_bus_error *error)
{
        const char *s;
        int k;

        k = sd_bus_message_read(m, "v", "s", &s);
        if (k < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Option %s takes a string", key);
        *ret = from_string(s);
        if (*ret < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Option %s does not take that value", key);
        return 0;
}

static int units_from_string(const char *s)
{
        return ncu_print_units_from_string(s);
}

static int details_from_string(const char *s)
{
        return ncu_print_details_from_string(s);
}

static int instances_from_string(const char *s)
{
        return ncu_print_instances_from_string(s);
}

static int summary_from_string(const char *s)
{
        return ncu_print_summary_from_string(s);
}

/* Decodes the page and its a{sv} options onto ncu's defaults; the manager checks the combination. */
static int read_page_options(sd_bus_message *m, NcuPageOptions *ret, sd_bus_error *error)
{
        NcuPageOptions o = NCU_PAGE_OPTIONS_DEFAULT;
        unsigned seen = 0;
        const char *page;
        int k;

        k = sd_bus_message_read(m, "s", &page);
        if (k < 0)
                return k;
        o.page = ncu_page_from_string(page);
        if (o.page < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The page is details, raw or session");
        k = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (k < 0)
                return k;
        for (;;) {
                static const char *const keys[PAGE_OPTIONS_MAX] = {
                        "csv",
                        "print-units",
                        "print-details",
                        "print-metric-instances",
                        "print-summary",
                };
                const char *key;
                size_t i;
                int v = 0;

                k = sd_bus_message_enter_container(m, 'e', "sv");
                if (k < 0)
                        return k;
                if (k == 0)
                        break;
                k = sd_bus_message_read(m, "s", &key);
                if (k < 0)
                        return k;
                for (i = 0; i < PAGE_OPTIONS_MAX && !streq(keys[i], key); i++)
                        ;
                if (i == PAGE_OPTIONS_MAX)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "Unknown option; the options are csv, print-units, print-details, "
                                        "print-metric-instances and print-summary");
                if (seen & (1u << i))
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Option %s given twice", key);
                seen |= 1u << i;
                switch (i) {
                case 0:
                        k = sd_bus_message_read(m, "v", "b", &v);
                        if (k < 0)
                                return sd_bus_error_setf(
                                                error, SD_BUS_ERROR_INVALID_ARGS, "Option csv takes a boolean");
                        o.csv = v;
                        break;
                case 1:
                        k = read_page_word(m, key, units_from_string, &v, error);
                        o.units = v;
                        break;
                case 2:
                        k = read_page_word(m, key, details_from_string, &v, error);
                        o.details = v;
                        break;
                case 3:
                        k = read_page_word(m, key, instances_from_string, &v, error);
                        o.instances = v;
                        break;
                case 4:
                        k = read_page_word(m, key, summary_from_string, &v, error);
                        o.summary = v;
                        break;
                }
                if (k < 0)
                        return k;
                k = sd_bus_message_exit_container(m);
                if (k < 0)
                        return k;
        }
        k = sd_bus_message_exit_container(m);
        if (k < 0)
                return k;
        *ret = o;
        return 0;
}

/* ExportPage(s page, a{sv} options): one of ncu's pages with ncu's print options spelled out (busctl's
 * form); encoded here once into what ExportPageEncoded carries, and served alike. */
static int method_export_page(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NcuPageOptions o;
        NcuWire encoded;
        int k;

        k = read_page_options(m, &o, error);
        if (k < 0)
                return k;
        ncu_wire_init(&encoded, NCU_PAGE_OPTIONS_ENCODED_SIZE);
        ncu_wire_put_page_options(&encoded, &o);
        k = ncu_wire_finish(&encoded);
        if (k >= 0)
                k = export(m, userdata, NCU_SERVE_EXPORT_PAGE, encoded.data, encoded.size, error);
        ncu_wire_done(&encoded);
        return k;
}

/* ExportPageEncoded(ay options): nvprofilectl's path. The options come as the worker reads them
 * (report-page-options.h); the daemon checks their size and passes them on, the worker checks the rest. */
static int method_export_page_encoded(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const void *options;
        size_t size;
        int k;

        k = sd_bus_message_read_array(m, 'y', &options, &size);
        if (k < 0)
                return k;
        if (size != NCU_PAGE_OPTIONS_ENCODED_SIZE)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                "The page options are %zu bytes in encoding %u of ExportPageEncoded",
                                NCU_PAGE_OPTIONS_ENCODED_SIZE, NCU_PAGE_OPTIONS_ENCODING);
        return export(m, userdata, NCU_SERVE_EXPORT_PAGE, options, size, error);
}

/* Diff(o baseline, as actions): this report against another of the caller's (manager_report_diff()); the
 * JSON as nvprofilectl report diff --json's "pairs". */
static int method_diff(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        ManagerReport *r = userdata, *baseline;
        Manager *manager = manager_report_manager(r);
        const char *path, *why = NULL;
        BusReportCall *call = NULL;
        NcuWire args;
        int k;

        k = sd_bus_message_read(m, "o", &path);
        if (k < 0)
                return k;
        ncu_wire_init(&args, NCU_SERVE_REQUEST_MAX - sizeof(uint64_t));
        k = read_strings(m, NCU_DIFF_SPECS_MAX, DIFF_SPEC_MAX, true, &args, error);
        if (k >= 0)
                k = ncu_wire_finish(&args);
        if (k < 0) {
                ncu_wire_done(&args);
                return k;
        }
        /* Only the caller's own reports: anyone else's is as unknown as one that does not exist. */
        baseline = find_for_caller(manager, sd_bus_message_get_bus(m), path);
        if (!baseline) {
                ncu_wire_done(&args);
                return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "No such report");
        }
        k = bus_report_call_new(m, NULL, &call);
        if (k >= 0)
                k = manager_report_diff(r, baseline, args.data, args.size, on_output_done, call, &why);
        ncu_wire_done(&args);
        if (k < 0) {
                bus_report_call_free(call);
                return refuse(error, k, why);
        }
        return 1;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        /* A unique name that went: everything its owner held goes too. */
        if (name[0] == ':' && new_owner[0] == '\0')
                manager_reports_owner_gone(c->manager, name);
        return 0;
}

int bus_report_watch_owners(BusContext *c)
{
        /* Asynchronously: the connection may still be authenticating when objects are registered. */
        return sd_bus_match_signal_async(c->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, NULL, c);
}

void bus_reports_free(BusContext *c)
{
        c->manager->reports = manager_reports_free(c->manager->reports);
}

const sd_bus_vtable bus_report_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Close", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_close, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetInfo", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("s", ncu_version, "u", format_version, "u", ranges, "t", size), method_get_info,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSummary", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(uuus(ttt)(ttt)da(ssd))", summary),
                        method_get_summary, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetDetails", SD_BUS_ARGS("u", range, "u", action), SD_BUS_RESULT("h", json),
                        method_get_details, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListActions", SD_BUS_ARGS("u", range), SD_BUS_RESULT("a(ussss(ttt)(ttt)d)", actions),
                        method_list_actions, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetricNames", SD_BUS_ARGS("u", range, "u", action), SD_BUS_RESULT("as", names),
                        method_get_metric_names, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetric", SD_BUS_ARGS("u", range, "u", action, "s", name),
                        SD_BUS_RESULT("s", kind, "b", has_value, "v", value, "a(vv)", instances), method_get_metric,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetRuleResults", SD_BUS_ARGS("u", range, "u", action),
                        SD_BUS_RESULT("a(sssa(sss)a(sd))", rule_results), method_get_rule_results,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetRuleResultsFull", SD_BUS_ARGS("u", range, "u", action),
                        SD_BUS_RESULT("a(sssa(isss)a(sd)a(isdts)a(ssttss))", rule_results),
                        method_get_rule_results_full, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSourceFiles", SD_BUS_ARGS("u", range, "u", action), SD_BUS_RESULT("a(ss)", files),
                        method_get_source_files, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSourceView", SD_BUS_ARGS("u", range, "u", action), SD_BUS_RESULT("h", json),
                        method_get_source_view, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ActionsByNvtx", SD_BUS_ARGS("u", range, "as", includes, "as", excludes),
                        SD_BUS_RESULT("au", actions), method_actions_by_nvtx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportJson", SD_BUS_NO_ARGS, SD_BUS_RESULT("h", json), method_export_json,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportRaw", SD_BUS_ARGS("b", instances), SD_BUS_RESULT("h", csv), method_export_raw,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportDetails", SD_BUS_NO_ARGS, SD_BUS_RESULT("h", csv), method_export_details,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportPage", SD_BUS_ARGS("s", page, "a{sv}", options), SD_BUS_RESULT("h", text),
                        method_export_page, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportPageEncoded", SD_BUS_ARGS("ay", options), SD_BUS_RESULT("h", text),
                        method_export_page_encoded, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Diff", SD_BUS_ARGS("o", baseline, "as", actions), SD_BUS_RESULT("h", json),
                        method_diff, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
