/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nsight Compute reports over D-Bus: Manager.LoadReport(h fd) hands the caller's descriptor to the
 * confined worker (daemon/nsight/report-job.h) and, once its model is back and checked, answers with an
 * object BUS_REPORT_PREFIX/<id> that only the caller (its unique name) can see or call. The object goes
 * when the caller calls Close or leaves the bus. The model is kept as the worker's text, one action
 * parsed at a time (report-document.h). Each uid may hold REPORTS_PER_UID_MAX reports and
 * REPORT_BYTES_PER_UID_MAX bytes of models (a loading one holds what is left of both), within
 * REPORT_BYTES_TOTAL_MAX for all: the daemon's unit caps its memory at 128 MiB. Each report keeps a duplicate of the
 * caller's descriptor (one per report, so REPORTS_PER_UID_MAX bounds them too): the CSV exports (ExportRaw,
 * ExportDetails) run the same confined worker over it again, one at a time per report: the duplicate shares the
 * caller's file offset, so two workers reading it at once would read each other's bytes (a Diff holds its baseline
 * too). Each reserves twice the bytes its output may take (at most REPORT_OUTPUT_BYTES_MAX) in the same per-uid and
 * total accounts until it is answered. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bus-report.h"
#include "fd-util.h"
#include "json-util.h"
#include "log.h"
#include "report-diff.h"
#include "report-document.h"
#include "report-job.h"
#include "report-json.h"
#include "report-worker.h"
#include "strv.h"

#define REPORTS_PER_UID_MAX 16u
#define REPORT_BYTES_PER_UID_MAX ((size_t) 64u * 1024u * 1024u)
#define REPORT_BYTES_TOTAL_MAX ((size_t) 96u * 1024u * 1024u)
/* The worker's text may take two thirds of what is left: it is read whole and kept, its lines parsed
 * one at a time, and the model must then fit in what is left (report-document.h counts the text, what
 * is kept of each action and room for the largest action's tree). */
#define REPORT_TEXT_SHARE(left) ((left) / 3 * 2)
#define REPORT_WORKER_TIMEOUT_USEC (60ull * 1000000ull)
/* One output's bytes (an export or a diff): a larger one is LimitsExceeded (--local makes it). Its
 * reservation is twice that (read, then in its memfd). */
#define REPORT_OUTPUT_BYTES_MAX ((size_t) 16u * 1024u * 1024u)

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/libexec"
#endif

typedef struct BusReportOutput BusReportOutput;

struct BusReport {
        BusContext *context;
        uint64_t id;
        char *owner; /* the caller's unique name */
        uid_t uid;
        size_t bytes; /* reserved while loading, then the model's size */
        NcuReportDocument *document; /* NULL while loading */
        NcuReportJob *job;
        sd_bus_message *pending; /* the LoadReport call, until answered */
        sd_bus_track *track;
        int fd; /* the caller's descriptor, for the outputs */
        BusReportOutput *outputs; /* running exports */
        BusReport *next, *prev;
};

/* One export running in the worker, answered with a memfd. */
struct BusReportOutput {
        BusReport *report;
        uint64_t baseline_id; /* a Diff's baseline, which it reads too; 0 for none */
        NcuReportJob *job;
        sd_bus_message *call;
        size_t bytes; /* reserved until answered */
        BusReportOutput *next;
};

static BusReportOutput *bus_report_output_free(BusReportOutput *o)
{
        BusReportOutput **p;

        if (!o)
                return NULL;
        for (p = &o->report->outputs; *p; p = &(*p)->next)
                if (*p == o) {
                        *p = o->next;
                        break;
                }
        ncu_report_job_free(o->job);
        sd_bus_message_unref(o->call);
        return mfree(o);
}

static size_t report_bytes(const BusReport *r)
{
        size_t bytes = r->bytes;

        for (const BusReportOutput *o = r->outputs; o; o = o->next)
                bytes += o->bytes;
        return bytes;
}

static BusReport *bus_report_free(BusReport *r)
{
        BusContext *c;

        if (!r)
                return NULL;
        c = r->context;
        if (r->prev)
                r->prev->next = r->next;
        else if (c->reports == r)
                c->reports = r->next;
        if (r->next)
                r->next->prev = r->prev;
        while (r->outputs) {
                if (r->outputs->call)
                        (void) sd_bus_reply_method_errorf(
                                        r->outputs->call, SD_BUS_ERROR_FAILED, "The report was closed");
                bus_report_output_free(r->outputs);
        }
        safe_close(r->fd);
        ncu_report_job_free(r->job);
        sd_bus_message_unref(r->pending);
        sd_bus_track_unref(r->track);
        ncu_report_document_free(r->document);
        free(r->owner);
        return mfree(r);
}

void bus_reports_free(BusContext *c)
{
        while (c->reports)
                bus_report_free(c->reports);
}

static int report_path(const BusReport *r, char **ret)
{
        return asprintf(ret, BUS_REPORT_PREFIX "/%" PRIu64, r->id) < 0 ? -ENOMEM : 0;
}

static const char *worker_path(void)
{
        /* Tests run the daemon from the build tree; only whoever starts the daemon sets its environment. */
        const char *p = getenv("NVPROFILED_REPORT_WORKER");
        return p && p[0] == '/' ? p : LIBEXECDIR "/" NCU_REPORT_WORKER_NAME;
}

/* The caller's report at path, or NULL: other callers cannot tell it from one that does not exist. */
static BusReport *find_for_caller(BusContext *c, sd_bus *bus, const char *path)
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
        for (BusReport *r = c->reports; r; r = r->next)
                if (r->id == id && r->document && streq(r->owner, sender))
                        return r;
        return NULL;
}

int bus_report_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                sd_bus_error *error)
{
        BusReport *r = find_for_caller(userdata, bus, path);

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
        int r;

        for (BusReport *p = c->reports; p && sender; p = p->next) {
                char *path;

                if (!p->document || !streq(p->owner, sender))
                        continue;
                r = report_path(p, &path);
                if (r < 0)
                        return r;
                r = strv_consume(&nodes, path);
                if (r < 0)
                        return r;
        }
        *ret_nodes = TAKE_PTR(nodes);
        return 0;
}

static int on_owner_gone(sd_bus_track *t, void *userdata)
{
        BusReport *r = userdata;

        log_debug("Report %" PRIu64 ": its owner %s left the bus", r->id, r->owner);
        bus_report_free(r);
        return 0;
}

static int reply_job_error(sd_bus_message *m, int error, const char *message)
{
        switch (-error) {
        case EBADMSG:
        case EPROTONOSUPPORT:
        case EISDIR:
        case EINVAL:
        case EIO:
                return sd_bus_reply_method_errorf(m, BUS_ERROR_INVALID_REPORT, "Invalid report: %s", message);
        case E2BIG:
                return sd_bus_reply_method_errorf(m, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: %s", message);
        case ETIMEDOUT:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_TIMEOUT, "%s", message);
        case ENOMEM:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NO_MEMORY, "%s", message);
        case EDOM: /* Diff: the pairing specs pair nothing */
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "%s", message);
        default:
                return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_FAILED, "%s", message);
        }
}

static size_t uid_bytes(BusContext *c, uid_t uid, size_t *ret_count)
{
        size_t bytes = 0, n = 0;

        for (BusReport *r = c->reports; r; r = r->next)
                if (r->uid == uid) {
                        bytes += report_bytes(r);
                        n++;
                }
        *ret_count = n;
        return bytes;
}

static size_t total_bytes(BusContext *c)
{
        size_t bytes = 0;

        for (BusReport *r = c->reports; r; r = r->next)
                bytes += report_bytes(r);
        return bytes;
}

static void on_job_done(NcuReportJob *job, int error, NcuReportDocument *doc, const char *message, void *userdata)
{
        BusReport *r = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = TAKE_PTR(r->pending);
        _cleanup_(ncu_report_document_freep) NcuReportDocument *d = doc;
        _cleanup_free_ char *path = NULL;
        size_t reserved = r->bytes;

        r->job = ncu_report_job_free(r->job);
        if (error < 0) {
                log_debug("Report %" PRIu64 " of uid %u: %s", r->id, (unsigned) r->uid, message);
                (void) reply_job_error(call, error, message);
                bus_report_free(r);
                return;
        }
        /* The reservation was what was left of the caller's share: the model must fit in it. */
        if (ncu_report_document_memory(d) > reserved) {
                (void) reply_job_error(
                                call, -E2BIG, "the report's model is larger than what is left of the memory allowed");
                bus_report_free(r);
                return;
        }
        if (report_path(r, &path) < 0) {
                (void) sd_bus_reply_method_errorf(call, SD_BUS_ERROR_NO_MEMORY, "Out of memory");
                bus_report_free(r);
                return;
        }
        r->bytes = ncu_report_document_memory(d);
        r->document = TAKE_PTR(d);
        (void) sd_bus_reply_method_return(call, "o", path);
}

int bus_method_load_report(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const NcuReportJobLimits limits_base = { .timeout_usec = REPORT_WORKER_TIMEOUT_USEC };
        NcuReportJobLimits limits = limits_base;
        size_t used, count, total;
        BusReport *r;
        uid_t uid;
        int fd, k;

        k = sd_bus_message_read(m, "h", &fd);
        if (k < 0)
                return k;
        k = bus_caller_uid(m, &uid);
        if (k < 0)
                return k;

        used = uid_bytes(c, uid, &count);
        total = total_bytes(c);
        if (count >= REPORTS_PER_UID_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED,
                                "Limit exceeded: a user may hold %u reports; close one first", REPORTS_PER_UID_MAX);
        if (used >= REPORT_BYTES_PER_UID_MAX || total >= REPORT_BYTES_TOTAL_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED,
                                "Limit exceeded: the reports loaded take all the memory allowed");
        /* The model may use what is left of the caller's share; its text, part of it. */
        limits.max_output = REPORT_TEXT_SHARE(MIN(REPORT_BYTES_PER_UID_MAX - used, REPORT_BYTES_TOTAL_MAX - total));

        r = calloc(1, sizeof(BusReport));
        if (!r)
                return -ENOMEM;
        r->context = c;
        r->fd = -EBADF;
        r->id = ++c->last_report_id;
        r->uid = uid;
        r->bytes = MIN(REPORT_BYTES_PER_UID_MAX - used, REPORT_BYTES_TOTAL_MAX - total);
        r->next = c->reports;
        if (c->reports)
                c->reports->prev = r;
        c->reports = r;
        r->owner = strdup(strempty(sd_bus_message_get_sender(m)));
        if (!r->owner) {
                bus_report_free(r);
                return -ENOMEM;
        }
        r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        k = r->fd < 0 ? -errno : 0;
        if (k >= 0)
                k = sd_bus_track_new(sd_bus_message_get_bus(m), &r->track, on_owner_gone, r);
        if (k >= 0)
                k = sd_bus_track_add_sender(r->track, m);
        if (k >= 0)
                k = ncu_report_job_start(c->manager->event, worker_path(), fd, &limits, on_job_done, r, &r->job);
        if (k < 0) {
                bus_report_free(r);
                return sd_bus_error_set_errnof(error, -k, "Cannot start the report worker");
        }
        r->pending = sd_bus_message_ref(m);
        return 1; /* answered when the worker is done */
}

/* Report methods: the object exists only for its owner (bus_report_find). */

static struct json_object *get(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static struct json_object *report_action(BusReport *r, uint32_t range, uint32_t action, sd_bus_error *error)
{
        struct json_object *a;

        if (range >= ncu_report_document_n_ranges(r->document)) {
                sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No range %" PRIu32, range);
                return NULL;
        }
        if (action >= ncu_report_document_n_actions(r->document, range)) {
                sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No action %" PRIu32 " in range %" PRIu32, action,
                                range);
                return NULL;
        }
        a = ncu_report_document_action(r->document, range, action);
        if (!a)
                sd_bus_error_set_errno(error, ENOMEM);
        return a;
}

/* Closes the reply's outer array and sends it, unless building it failed (k < 0). */
static int close_and_send(sd_bus_message *reply, int k)
{
        if (k >= 0)
                k = sd_bus_message_close_container(reply);
        if (k < 0)
                return k;
        return sd_bus_send(NULL, reply, NULL);
}

/* Reads (u range, u action) and finds the action; sets error and returns -EINVAL when there is none. */
static int read_action(sd_bus_message *m, BusReport *r, sd_bus_error *error, struct json_object **ret)
{
        uint32_t range, action;
        int k;

        k = sd_bus_message_read(m, "uu", &range, &action);
        if (k < 0)
                return k;
        *ret = report_action(r, range, action, error);
        return *ret ? 0 : -EINVAL;
}

static int method_close(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        bus_report_free(userdata);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_get_info(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata;
        struct json_object *report = get(ncu_report_document_header(r->document), "report");
        const char *version = json_object_get_string(get(report, "ncu_version"));

        return sd_bus_reply_method_return(m, "suut", strempty(version),
                        (uint32_t) json_object_get_int(get(report, "format_version")),
                        (uint32_t) ncu_report_document_n_ranges(r->document),
                        json_object_get_uint64(get(report, "size")));
}

static int method_list_actions(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t range;
        size_t n;
        int k;

        k = sd_bus_message_read(m, "u", &range);
        if (k < 0)
                return k;
        if (range >= ncu_report_document_n_ranges(r->document))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No range %" PRIu32, range);
        n = ncu_report_document_n_actions(r->document, range);
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "(ussss(ttt)(ttt)d)");
        for (size_t i = 0; k >= 0 && i < n; i++) {
                const NcuDocumentAction *a = ncu_report_document_action_info(r->document, range, i);

                k = sd_bus_message_append(reply, "(ussss(ttt)(ttt)d)", (uint32_t) i, a->workload_type, a->name,
                                a->demangled, a->mangled, a->grid[0], a->grid[1], a->grid[2], a->block[0], a->block[1],
                                a->block[2], a->duration_ns);
        }
        return close_and_send(reply, k);
}

static int method_get_metric_names(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct json_object *a, *metrics;
        int k;

        k = read_action(m, userdata, error, &a);
        if (k < 0)
                return k;
        metrics = get(a, "metrics");
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; k >= 0 && i < json_array_length(metrics); i++)
                k = sd_bus_message_append(
                                reply, "s", strempty(json_object_get_string(get(json_array_get(metrics, i), "name"))));
        return close_and_send(reply, k);
}

/* A double of the document: a number, or "nan", "inf", "-inf" (report-json.h); NaN when absent. */
static double json_double(struct json_object *v)
{
        if (!v)
                return NAN;
        if (json_object_is_type(v, json_type_string))
                return streq(json_object_get_string(v), "nan")             ? NAN
                                : streq(json_object_get_string(v), "-inf") ? -INFINITY
                                                                           : INFINITY;
        return json_object_get_double(v);
}

/* A value of the given kind as a variant: string s, float/double d, uint32 u, uint64 t; unknown is an
 * empty string (the kind says so). */
static int append_value(sd_bus_message *reply, const char *kind, struct json_object *v)
{
        if (streq_ptr(kind, "double") || streq_ptr(kind, "float"))
                return sd_bus_message_append(reply, "v", "d", json_double(v));
        if (streq_ptr(kind, "uint64"))
                return sd_bus_message_append(reply, "v", "t", json_object_get_uint64(v));
        if (streq_ptr(kind, "uint32"))
                return sd_bus_message_append(reply, "v", "u", (uint32_t) json_object_get_uint64(v));
        if (streq_ptr(kind, "string"))
                return sd_bus_message_append(reply, "v", "s", strempty(json_object_get_string(v)));
        return sd_bus_message_append(reply, "v", "s", "");
}

static int method_get_metric(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct json_object *a, *metrics, *metric = NULL, *inst;
        const char *name, *kind, *ikind, *ckind;
        uint32_t range, action;
        int k;

        k = sd_bus_message_read(m, "uus", &range, &action, &name);
        if (k < 0)
                return k;
        a = report_action(userdata, range, action, error);
        if (!a)
                return -EINVAL;
        metrics = get(a, "metrics");
        /* The first of a name, as ncu_report's metric_by_name. */
        for (size_t i = 0; !metric && i < json_array_length(metrics); i++)
                if (streq_ptr(json_object_get_string(get(json_array_get(metrics, i), "name")), name))
                        metric = json_array_get(metrics, i);
        if (!metric)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_METRIC, "No metric of that name");

        kind = json_object_get_string(get(metric, "kind"));
        ikind = json_object_get_string(get(metric, "instance_kind"));
        ckind = json_object_get_string(get(metric, "correlation_kind"));
        inst = get(metric, "instances");
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_append(reply, "sb", kind ? kind : "unknown",
                                json_object_get_boolean(get(metric, "has_value")));
        if (k >= 0)
                k = append_value(reply, json_object_get_boolean(get(metric, "has_value")) ? kind : "unknown",
                                get(metric, "value"));
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "(vv)");
        for (size_t i = 0; k >= 0 && inst && i < json_array_length(inst); i++) {
                struct json_object *pair = json_array_get(inst, i);
                bool spelled = json_array_length(pair) == 4;
                const char *ik = spelled ? json_object_get_string(json_array_get(pair, 3)) : ikind;
                const char *ck = spelled ? json_object_get_string(json_array_get(pair, 2)) : ckind;

                k = sd_bus_message_open_container(reply, 'r', "vv");
                if (k >= 0)
                        k = append_value(reply, ck, json_array_get(pair, 0));
                if (k >= 0)
                        k = append_value(reply, ik, json_array_get(pair, 1));
                if (k >= 0)
                        k = sd_bus_message_close_container(reply);
        }
        return close_and_send(reply, k);
}

static const char *str_member(struct json_object *o, const char *key)
{
        return strempty(json_object_get_string(get(o, key)));
}

/* An optional integer member as a signed 32-bit number, -1 when absent. */
static int32_t id_member(struct json_object *o, const char *key)
{
        struct json_object *v = get(o, key);
        return v ? (int32_t) json_object_get_int(v) : -1;
}

#define RULE_RESULT "sssa(sss)a(sd)"
#define RULE_RESULT_FULL "sssa(isss)a(sd)a(isdts)a(ssttss)"

/* One rule result: GetRuleResults' fields, or (full) everything the report stores of it. */
static int append_rule_result(sd_bus_message *reply, struct json_object *rr, bool full)
{
        struct json_object *msgs = get(rr, "messages"), *speedups = get(rr, "speedups"),
                           *focus = get(rr, "focus_metrics"), *markers = get(rr, "source_markers");
        int k;

        k = sd_bus_message_open_container(reply, 'r', full ? RULE_RESULT_FULL : RULE_RESULT);
        if (k >= 0)
                k = sd_bus_message_append(reply, "sss", str_member(rr, "identifier"), str_member(rr, "name"),
                                str_member(rr, "section"));
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', full ? "(isss)" : "(sss)");
        for (size_t j = 0; k >= 0 && j < json_array_length(msgs); j++) {
                struct json_object *x = json_array_get(msgs, j);
                if (full)
                        k = sd_bus_message_append(reply, "(isss)", id_member(x, "id"), str_member(x, "type"),
                                        str_member(x, "title"), str_member(x, "text"));
                else
                        k = sd_bus_message_append(reply, "(sss)", str_member(x, "type"), str_member(x, "title"),
                                        str_member(x, "text"));
        }
        if (k >= 0)
                k = sd_bus_message_close_container(reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "(sd)");
        for (size_t j = 0; k >= 0 && j < json_array_length(speedups); j++) {
                struct json_object *x = json_array_get(speedups, j);
                k = sd_bus_message_append(reply, "(sd)", str_member(x, "type"), json_double(get(x, "value")));
        }
        if (k >= 0)
                k = sd_bus_message_close_container(reply);
        if (k >= 0 && full)
                k = sd_bus_message_open_container(reply, 'a', "(isdts)");
        for (size_t j = 0; k >= 0 && full && j < json_array_length(focus); j++) {
                struct json_object *x = json_array_get(focus, j);
                k = sd_bus_message_append(reply, "(isdts)", id_member(x, "message_id"), str_member(x, "metric"),
                                json_double(get(x, "value")), json_object_get_uint64(get(x, "severity")),
                                str_member(x, "info"));
        }
        if (k >= 0 && full)
                k = sd_bus_message_close_container(reply);
        if (k >= 0 && full)
                k = sd_bus_message_open_container(reply, 'a', "(ssttss)");
        for (size_t j = 0; k >= 0 && full && j < json_array_length(markers); j++) {
                struct json_object *x = json_array_get(markers, j);
                k = sd_bus_message_append(reply, "(ssttss)", str_member(x, "kind"), str_member(x, "file"),
                                json_object_get_uint64(get(x, "address")), json_object_get_uint64(get(x, "line")),
                                str_member(x, "type"), str_member(x, "text"));
        }
        if (k >= 0 && full)
                k = sd_bus_message_close_container(reply);
        if (k >= 0)
                k = sd_bus_message_close_container(reply);
        return k;
}

static int reply_rule_results(sd_bus_message *m, BusReport *r, bool full, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct json_object *a, *rules;
        int k;

        k = read_action(m, r, error, &a);
        if (k < 0)
                return k;
        rules = get(a, "rule_results");
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', full ? "(" RULE_RESULT_FULL ")" : "(" RULE_RESULT ")");
        for (size_t i = 0; k >= 0 && i < json_array_length(rules); i++)
                k = append_rule_result(reply, json_array_get(rules, i), full);
        return close_and_send(reply, k);
}

static int method_get_rule_results(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_rule_results(m, userdata, false, error);
}

static int method_get_rule_results_full(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return reply_rule_results(m, userdata, true, error);
}

/* The CUDA source files stored for the action's code (ncu --import-source), as ncu_report's
 * source_files: every file of the sources entries of the action's reference, the first of a name. */
static int method_get_source_files(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **seen = NULL;
        struct json_object *a, *sources = get(ncu_report_document_header(r->document), "sources"), *ref;
        int k;

        k = read_action(m, userdata, error, &a);
        if (k < 0)
                return k;
        ref = get(a, "source_reference");
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "(ss)");
        for (size_t i = 0; k >= 0 && ref && i < json_array_length(sources); i++) {
                struct json_object *src = json_array_get(sources, i), *files = get(src, "files");

                if (!get(src, "reference") ||
                                json_object_get_uint64(get(src, "reference")) != json_object_get_uint64(ref))
                        continue;
                for (size_t j = 0; k >= 0 && j < json_array_length(files); j++) {
                        struct json_object *f = json_array_get(files, j);
                        const char *name = get(f, "name") ? json_object_get_string(get(f, "name")) : NULL;

                        if (!name || strv_contains(seen, name))
                                continue;
                        k = strv_extend(&seen, name);
                        if (k >= 0)
                                k = sd_bus_message_append(reply, "(ss)", name, str_member(f, "content"));
                }
        }
        return close_and_send(reply, k);
}

#define NVTX_EXPRESSIONS_MAX 64

static int method_actions_by_nvtx(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **includes = NULL, **excludes = NULL;
        _cleanup_free_ NcuAction **actions = NULL;
        _cleanup_free_ size_t *selected = NULL;
        _cleanup_free_ NcuAction *storage = NULL;
        size_t n;
        uint32_t range;
        int k;

        k = sd_bus_message_read(m, "u", &range);
        if (k >= 0)
                k = sd_bus_message_read_strv(m, &includes);
        if (k >= 0)
                k = sd_bus_message_read_strv(m, &excludes);
        if (k < 0)
                return k;
        if (strv_length(includes) > NVTX_EXPRESSIONS_MAX || strv_length(excludes) > NVTX_EXPRESSIONS_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: at most %d expressions",
                                NVTX_EXPRESSIONS_MAX);
        if (range >= ncu_report_document_n_ranges(r->document))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No range %" PRIu32, range);
        /* The selector reads the actions' NVTX state only: the document keeps it. */
        n = ncu_report_document_n_actions(r->document, range);
        actions = calloc(MAX(n, (size_t) 1), sizeof(NcuAction *));
        storage = calloc(MAX(n, (size_t) 1), sizeof(NcuAction));
        if (!actions || !storage)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                storage[i].nvtx = ncu_report_document_action_info(r->document, range, i)->nvtx;
                actions[i] = &storage[i];
        }
        k = ncu_range_actions_by_nvtx(&(NcuRange){ .n_actions = n, .actions = actions }, includes,
                        strv_length(includes), excludes, strv_length(excludes), &selected);
        if (k == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Malformed NVTX expression");
        if (k < 0)
                return k;
        n = (size_t) k;
        k = sd_bus_message_new_method_return(m, &reply);
        if (k >= 0)
                k = sd_bus_message_open_container(reply, 'a', "u");
        for (size_t i = 0; k >= 0 && i < n; i++)
                k = sd_bus_message_append(reply, "u", (uint32_t) selected[i]);
        return close_and_send(reply, k);
}

static int write_document(FILE *f, void *userdata)
{
        return ncu_report_document_write(userdata, f);
}

static int method_export_json(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata;
        _cleanup_close_ int fd = -EBADF;

        /* The whole document, assembled from the kept text straight into a memfd, which the caller gets as
         * a read-only view it cannot change under anyone. */
        fd = ncu_memfd_new_sealed_with("nvprofiled-report.json", write_document, r->document);
        if (fd < 0)
                return fd;
        return sd_bus_reply_method_return(m, "h", fd);
}

/* Whether a worker reads the report's descriptor now (an output of it, or a Diff against it). */
static bool report_reading(BusContext *c, uint64_t id)
{
        for (BusReport *r = c->reports; r; r = r->next)
                for (BusReportOutput *o = r->outputs; o; o = o->next)
                        if (r->id == id || o->baseline_id == id)
                                return true;
        return false;
}

static void on_output_done(NcuReportJob *job, int error, int fd, const char *message, void *userdata)
{
        BusReportOutput *o = userdata;

        o->job = ncu_report_job_free(o->job);
        if (error < 0) {
                log_debug("Report %" PRIu64 " of uid %u: output: %s", o->report->id, (unsigned) o->report->uid,
                                message);
                (void) reply_job_error(o->call, error, message);
        } else
                (void) sd_bus_reply_method_return(o->call, "h", fd);
        bus_report_output_free(o);
}

/* Runs the worker's output over the report's descriptor (and the baseline's, for a diff); answers m
 * with the output's memfd when it is done. */
static int start_output(
                sd_bus_message *m, BusReport *r, char *const *args, const BusReport *baseline, sd_bus_error *error)
{
        BusContext *c = r->context;
        NcuReportJobLimits limits = { .timeout_usec = REPORT_WORKER_TIMEOUT_USEC };
        const int fds[2] = { r->fd, baseline ? baseline->fd : -EBADF };
        size_t used, count, total;
        BusReportOutput *o;
        int k;

        if (report_reading(c, r->id) || (baseline && report_reading(c, baseline->id)))
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED,
                                "Limit exceeded: one output of a report at a time; the report is being read");
        used = uid_bytes(c, r->uid, &count);
        total = total_bytes(c);
        if (used >= REPORT_BYTES_PER_UID_MAX || total >= REPORT_BYTES_TOTAL_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED,
                                "Limit exceeded: the reports loaded take all the memory allowed");
        /* The output is held once while read, once in its memfd. */
        limits.max_output = MIN(MIN(REPORT_BYTES_PER_UID_MAX - used, REPORT_BYTES_TOTAL_MAX - total),
                                            2 * REPORT_OUTPUT_BYTES_MAX) /
                        2;

        o = calloc(1, sizeof(BusReportOutput));
        if (!o)
                return -ENOMEM;
        o->report = r;
        o->baseline_id = baseline ? baseline->id : 0;
        o->bytes = 2 * limits.max_output;
        o->next = r->outputs;
        r->outputs = o;
        k = ncu_report_job_start_output(c->manager->event, worker_path(), args, fds, baseline ? 2 : 1, &limits,
                        on_output_done, o, &o->job);
        if (k < 0) {
                bus_report_output_free(o);
                return sd_bus_error_set_errnof(error, -k, "Cannot start the report worker");
        }
        o->call = sd_bus_message_ref(m);
        return 1; /* answered when the worker is done */
}

static int method_export_raw(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        int instances, k;

        k = sd_bus_message_read(m, "b", &instances);
        if (k < 0)
                return k;
        return start_output(m, userdata, (char *const[]){ (char *) (instances ? "raw-instances" : "raw"), NULL }, NULL,
                        error);
}

static int method_export_details(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return start_output(m, userdata, (char *const[]){ (char *) "details", NULL }, NULL, error);
}

#define DIFF_SPEC_MAX 1024

/* Diff(o baseline, as actions): this report against another of the caller's, computed by the worker
 * over both kept descriptors (report-diff.h); the JSON as nvprofilectl report diff --json's "pairs". */
static int method_diff(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusReport *r = userdata, *baseline;
        _cleanup_strv_free_ char **specs = NULL, **args = NULL;
        const char *path;
        int k;

        k = sd_bus_message_read(m, "o", &path);
        if (k >= 0)
                k = sd_bus_message_read_strv(m, &specs);
        if (k < 0)
                return k;
        if (strv_length(specs) > NCU_DIFF_SPECS_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "Limit exceeded: at most %d action specs",
                                NCU_DIFF_SPECS_MAX);
        STRV_FOREACH(s, specs)
                if (strlen(*s) > DIFF_SPEC_MAX || (*s)[0] == '\0')
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Malformed action spec");
        /* Only the caller's own reports: anyone else's is as unknown as one that does not exist. */
        baseline = find_for_caller(r->context, sd_bus_message_get_bus(m), path);
        if (!baseline)
                return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "No such report");
        k = strv_extend(&args, "diff");
        STRV_FOREACH(s, specs)
                if (k >= 0)
                        k = strv_extend(&args, *s);
        if (k < 0)
                return k;
        return start_output(m, r, args, baseline, error);
}

const sd_bus_vtable bus_report_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Close", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_close, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetInfo", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("s", ncu_version, "u", format_version, "u", ranges, "t", size), method_get_info,
                        SD_BUS_VTABLE_UNPRIVILEGED),
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
        SD_BUS_METHOD_WITH_ARGS("ActionsByNvtx", SD_BUS_ARGS("u", range, "as", includes, "as", excludes),
                        SD_BUS_RESULT("au", actions), method_actions_by_nvtx, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportJson", SD_BUS_NO_ARGS, SD_BUS_RESULT("h", json), method_export_json,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportRaw", SD_BUS_ARGS("b", instances), SD_BUS_RESULT("h", csv), method_export_raw,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExportDetails", SD_BUS_NO_ARGS, SD_BUS_RESULT("h", csv), method_export_details,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Diff", SD_BUS_ARGS("o", baseline, "as", actions), SD_BUS_RESULT("h", json),
                        method_diff, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
