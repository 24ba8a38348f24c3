/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "string-util.h"
#include "prometheus-metrics.h"

/* The per-unit series, built as rows and merged by (metric, labels). */
typedef enum UnitMetric {
        UNIT_BUSY_NS, /* counters first: their rows carry the counts of ended clients */
        UNIT_CYCLES,
        UNIT_TOTAL_CYCLES,
        _UNIT_COUNTER_MAX,
        UNIT_MEMORY = _UNIT_COUNTER_MAX,
        UNIT_CLIENTS,
        UNIT_NVML_MEMORY,
        UNIT_NVML_PROCESSES,
        _UNIT_METRIC_MAX,
} UnitMetric;

typedef struct Row {
        UnitMetric metric;
        char *labels; /* rendered and escaped, without braces */
        uint64_t value;
        bool carried; /* the counts of ended clients, from PrometheusMetrics.carried */
} Row;

/* One client's contribution to one counter series, to notice when it ends. */
typedef struct Contribution {
        char *key; /* metric, device, client and engine */
        UnitMetric metric;
        char *labels;
        uint64_t value;
} Contribution;

struct PrometheusMetrics {
        Contribution *previous; /* of the last render, sorted by key */
        size_t n_previous;
        Row *carried; /* per counter series: what its ended clients counted */
        size_t n_carried;
};

typedef struct RowSet {
        Row *rows;
        size_t n_rows, allocated_rows;
        Contribution *contributions;
        size_t n_contributions, allocated_contributions;
} RowSet;

static void rows_free(Row *rows, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(rows[i].labels);
        free(rows);
}

static void contributions_free(Contribution *c, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(c[i].key);
                free(c[i].labels);
        }
        free(c);
}

static void row_set_done(RowSet *s)
{
        rows_free(s->rows, s->n_rows);
        contributions_free(s->contributions, s->n_contributions);
        *s = (RowSet){ 0 };
}

PrometheusMetrics *prometheus_metrics_new(void)
{
        return calloc(1, sizeof(PrometheusMetrics));
}

PrometheusMetrics *prometheus_metrics_free(PrometheusMetrics *x)
{
        if (!x)
                return NULL;
        contributions_free(x->previous, x->n_previous);
        rows_free(x->carried, x->n_carried);
        free(x);
        return NULL;
}

/* A growing string: the label lists are built for every series of every render, where a FILE per list
 * (open_memstream) cost more than all the rest together. */
typedef struct Buf {
        char *s;
        size_t len, allocated;
        bool oom;
} Buf;

static void buf_put(Buf *b, const char *s, size_t n)
{
        if (b->oom)
                return;
        if (GREEDY_REALLOC(b->s, b->allocated, b->len + n + 1) < 0) {
                b->oom = true;
                return;
        }
        memcpy(b->s + b->len, s, n);
        b->len += n;
        b->s[b->len] = '\0';
}

static void buf_puts(Buf *b, const char *s)
{
        buf_put(b, s, strlen(s));
}

static void put_label_value(Buf *b, const char *s)
{
        size_t len, written = 0;

        if (!s)
                return;
        len = strlen(s);
        while (len > 0) {
                size_t run = 0, n;

                /* Plain ASCII, the usual case, in one piece. */
                while (run < len && written + run < PROMETHEUS_METRICS_LABEL_MAX && (unsigned char) s[run] < 0x80 &&
                                !IN_SET(s[run], '\\', '"', '\n'))
                        run++;
                if (run > 0) {
                        buf_put(b, s, run);
                        written += run;
                        s += run;
                        len -= run;
                        continue;
                }

                n = utf8_sequence_length(s, len);
                if (n == 0) {
                        /* U+FFFD: Prometheus requires UTF-8, and a raw byte must not pass. */
                        if (written + 3 > PROMETHEUS_METRICS_LABEL_MAX)
                                return;
                        buf_puts(b, "\xef\xbf\xbd");
                        written += 3;
                        s++;
                        len--;
                        continue;
                }
                if (written + n > PROMETHEUS_METRICS_LABEL_MAX)
                        return;
                if (n == 1 && *s == '\\')
                        buf_puts(b, "\\\\");
                else if (n == 1 && *s == '"')
                        buf_puts(b, "\\\"");
                else if (n == 1 && *s == '\n')
                        buf_puts(b, "\\n");
                else
                        buf_put(b, s, n);
                written += n;
                s += n;
                len -= n;
        }
}

void prometheus_metrics_put_label_value(FILE *f, const char *s)
{
        Buf b = { 0 };

        assert(f);

        put_label_value(&b, s);
        if (b.s)
                fputs(b.s, f);
        free(b.s);
}

/* A label list "a=\"x\",b=\"y\"" from NULL-terminated name, value pairs. */
static char *labels_new(const char *name, ...)
{
        Buf b = { 0 };
        bool first = true;
        va_list ap;

        va_start(ap, name);
        for (const char *n = name; n; n = va_arg(ap, const char *)) {
                const char *v = va_arg(ap, const char *);

                if (!first)
                        buf_puts(&b, ",");
                buf_puts(&b, n);
                buf_puts(&b, "=\"");
                put_label_value(&b, v);
                buf_puts(&b, "\"");
                first = false;
        }
        va_end(ap);
        if (b.oom) {
                free(b.s);
                return NULL;
        }
        return b.s ? b.s : strdup("");
}

/* A client's labels, escaped once: "device=...,driver=..." and "unit=...,profile=...[,pid=...,comm=...]";
 * each of its series puts its own between them (series_labels()). */
typedef struct ClientLabels {
        char *head, *tail;
} ClientLabels;

static void client_labels_done(ClientLabels *l)
{
        free(l->head);
        free(l->tail);
        *l = (ClientLabels){ 0 };
}

static int client_labels_init(ClientLabels *l, const PrometheusMetricsOwner *o, pid_t pid, PrometheusMetricsFlags flags,
                const char *device, const char *driver)
{
        *l = (ClientLabels){ 0 };
        l->head = labels_new("device", device, "driver", driver, NULL);
        if (flags & PROMETHEUS_METRICS_PROCESS_LABELS) {
                char pid_text[32];

                (void) snprintf(pid_text, sizeof pid_text, "%ld", (long) pid);
                l->tail = labels_new("unit", o->unit, "profile", o->profile, "pid", pid_text, "comm", o->comm, NULL);
        } else
                l->tail = labels_new("unit", o->unit, "profile", o->profile, NULL);
        if (!l->head || !l->tail) {
                client_labels_done(l);
                return -ENOMEM;
        }
        return 0;
}

/* head[,name1="value1"[,name2="value2"]],tail; NULL on OOM. */
static char *series_labels(
                const ClientLabels *l, const char *name1, const char *value1, const char *name2, const char *value2)
{
        size_t head = strlen(l->head), tail = strlen(l->tail);
        Buf b = { 0 };

        if (GREEDY_REALLOC(b.s, b.allocated, head + tail + 2 * PROMETHEUS_METRICS_LABEL_MAX) < 0)
                return NULL;
        buf_put(&b, l->head, head);
        for (unsigned i = 0; i < 2; i++) {
                const char *n = i == 0 ? name1 : name2, *v = i == 0 ? value1 : value2;

                if (!n)
                        break;
                buf_puts(&b, ",");
                buf_puts(&b, n);
                buf_puts(&b, "=\"");
                put_label_value(&b, v);
                buf_puts(&b, "\"");
        }
        buf_puts(&b, ",");
        buf_put(&b, l->tail, tail);
        if (b.oom) {
                free(b.s);
                return NULL;
        }
        return b.s;
}

static int row_add(RowSet *s, UnitMetric metric, char *labels, uint64_t value)
{
        if (!labels)
                return -ENOMEM;
        if (GREEDY_REALLOC(s->rows, s->allocated_rows, s->n_rows + 1) < 0) {
                free(labels);
                return -ENOMEM;
        }
        s->rows[s->n_rows++] = (Row){ .metric = metric, .labels = labels, .value = value };
        return 0;
}

static int contribution_add(RowSet *s, UnitMetric metric, const char *client_key, const char *engine,
                const char *labels, uint64_t value)
{
        _cleanup_free_ char *key = NULL, *l = NULL;

        if (asprintf(&key, "%u\x1f%s\x1f%s", (unsigned) metric, client_key, engine) < 0)
                return -ENOMEM;
        l = strdup(labels);
        if (!l)
                return -ENOMEM;
        if (GREEDY_REALLOC(s->contributions, s->allocated_contributions, s->n_contributions + 1) < 0)
                return -ENOMEM;
        s->contributions[s->n_contributions++] = (Contribution){
                .key = TAKE_PTR(key),
                .metric = metric,
                .labels = TAKE_PTR(l),
                .value = value,
        };
        return 0;
}

typedef struct Owner {
        char *unit, *profile, *comm;
        pid_t pid;
} Owner;

static void owner_done(Owner *o)
{
        free(o->unit);
        free(o->profile);
        free(o->comm);
        *o = (Owner){ 0 };
}

static int owner_lookup(const PrometheusMetricsInput *in, pid_t pid, Owner *ret)
{
        PrometheusMetricsOwner o = { 0 };

        *ret = (Owner){ .pid = pid };
        if (!in->lookup || pid <= 0 || in->lookup(pid, in->userdata, &o) < 0)
                o = (PrometheusMetricsOwner){ 0 };
        ret->unit = strdup(o.unit ? o.unit : "");
        ret->profile = strdup(o.profile ? o.profile : "");
        ret->comm = strdup(o.comm ? o.comm : "");
        if (!ret->unit || !ret->profile || !ret->comm) {
                owner_done(ret);
                return -ENOMEM;
        }
        return 0;
}

static int add_drm_client(RowSet *s, const PrometheusMetricsInput *in, const DrmUsageClient *c)
{
        _cleanup_(owner_done) Owner owner = { 0 };
        _cleanup_(client_labels_done) ClientLabels cl = { 0 };
        _cleanup_free_ char *client_key = NULL;
        PrometheusMetricsOwner o;
        pid_t pid;
        int r;

        /* One client may have several holders (fork, dup, fds passed on): it is labelled with one of them,
         * the first one a profile applied to, else the last one (an fd broker such as logind keeps the
         * fds it hands out, and started before the programs it hands them to). */
        pid = c->n_holders > 0 ? c->holders[c->n_holders - 1].pid : c->key_pid;
        for (size_t i = 0; c->n_holders > 1 && i < c->n_holders; i++) {
                r = owner_lookup(in, c->holders[i].pid, &owner);
                if (r < 0)
                        return r;
                if (owner.profile[0] != '\0') {
                        pid = c->holders[i].pid;
                        break;
                }
                owner_done(&owner);
        }
        if (!owner.unit) {
                r = owner_lookup(in, pid, &owner);
                if (r < 0)
                        return r;
        }
        o = (PrometheusMetricsOwner){ .unit = owner.unit, .profile = owner.profile, .comm = owner.comm };
        r = client_labels_init(&cl, &o, pid, in->flags, c->device, c->driver);
        if (r < 0)
                return r;

        if (c->has_client_id)
                r = asprintf(&client_key, "%s\x1f%" PRIu64, c->device, c->client_id);
        else
                r = asprintf(&client_key, "%s\x1fp%ld:%d", c->device, (long) c->key_pid, c->key_fd);
        if (r < 0)
                return -ENOMEM;

        for (size_t i = 0; i < c->n_engines; i++) {
                const DrmUsageEngine *e = &c->engines[i];
                static const struct {
                        UnitMetric metric;
                        size_t offset;
                } counters[] = {
                        { UNIT_BUSY_NS, offsetof(DrmUsageEngine, busy_ns) },
                        { UNIT_CYCLES, offsetof(DrmUsageEngine, cycles) },
                        { UNIT_TOTAL_CYCLES, offsetof(DrmUsageEngine, total_cycles) },
                };

                for (size_t k = 0; k < ELEMENTSOF(counters); k++) {
                        const DrmUsageCounter *counter =
                                        (const DrmUsageCounter *) ((const char *) e + counters[k].offset);
                        char *labels;

                        if (!counter->set)
                                continue;
                        labels = series_labels(&cl, "engine", e->name, NULL, NULL);
                        if (!labels)
                                return -ENOMEM;
                        r = contribution_add(s, counters[k].metric, client_key, e->name, labels, counter->value);
                        if (r < 0) {
                                free(labels);
                                return r;
                        }
                        r = row_add(s, counters[k].metric, labels, counter->value);
                        if (r < 0)
                                return r;
                }
        }

        for (size_t i = 0; i < c->n_regions; i++) {
                const DrmUsageRegion *reg = &c->regions[i];

                for (DrmFdinfoMemStat st = 0; st < _DRM_FDINFO_MEM_MAX; st++) {
                        if (!reg->has[st])
                                continue;
                        r = row_add(s, UNIT_MEMORY,
                                        series_labels(&cl, "region", reg->name, "stat",
                                                        drm_fdinfo_mem_stat_to_string(st)),
                                        reg->bytes[st]);
                        if (r < 0)
                                return r;
                }
        }

        return row_add(s, UNIT_CLIENTS, series_labels(&cl, NULL, NULL, NULL, NULL), 1);
}

static int add_nvml_device(RowSet *s, const PrometheusMetricsInput *in, const NvmlDeviceUsage *d)
{
        int r;

        for (size_t i = 0; i < d->n_processes; i++) {
                const NvmlProcessUsage *p = &d->processes[i];
                _cleanup_(owner_done) Owner owner = { 0 };
                _cleanup_(client_labels_done) ClientLabels cl = { 0 };
                PrometheusMetricsOwner o;

                r = owner_lookup(in, (pid_t) p->pid, &owner);
                if (r < 0)
                        return r;
                o = (PrometheusMetricsOwner){ .unit = owner.unit, .profile = owner.profile, .comm = owner.comm };
                r = client_labels_init(&cl, &o, (pid_t) p->pid, in->flags, d->pci_bus_id, "nvidia");
                if (r < 0)
                        return r;

                if (p->memory_bytes != NVML_SOURCE_UNKNOWN) {
                        r = row_add(s, UNIT_NVML_MEMORY, series_labels(&cl, NULL, NULL, NULL, NULL), p->memory_bytes);
                        if (r < 0)
                                return r;
                }
                r = row_add(s, UNIT_NVML_PROCESSES, series_labels(&cl, NULL, NULL, NULL, NULL), 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int row_compare(const void *a, const void *b)
{
        const Row *x = a, *y = b;

        if (x->metric != y->metric)
                return x->metric < y->metric ? -1 : 1;
        return strcmp(x->labels, y->labels);
}

static int contribution_compare(const void *a, const void *b)
{
        const Contribution *x = a, *y = b;

        return strcmp(x->key, y->key);
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* What ended since the last render goes into x->carried: a contribution whose client is gone, whose
 * labels changed (another profile, unit), or whose counter restarted (a new client with a reused key). */
static int carry_ended(PrometheusMetrics *x, RowSet *s)
{
        size_t j = 0;

        for (size_t i = 0; i < x->n_previous; i++) {
                const Contribution *p = &x->previous[i];
                const Contribution *c = NULL;
                _cleanup_free_ char *labels = NULL;

                while (j < s->n_contributions && strcmp(s->contributions[j].key, p->key) < 0)
                        j++;
                if (j < s->n_contributions && streq(s->contributions[j].key, p->key))
                        c = &s->contributions[j];
                if (c && streq(c->labels, p->labels) && c->value >= p->value)
                        continue;

                labels = strdup(p->labels);
                if (!labels)
                        return -ENOMEM;
                if (GREEDY_REALLOC(s->rows, s->allocated_rows, s->n_rows + 1) < 0)
                        return -ENOMEM;
                s->rows[s->n_rows++] = (Row){
                        .metric = p->metric,
                        .labels = TAKE_PTR(labels),
                        .value = p->value,
                        .carried = true,
                };
        }

        /* The carried counts of the series so far. */
        for (size_t i = 0; i < x->n_carried; i++) {
                _cleanup_free_ char *labels = strdup(x->carried[i].labels);

                if (!labels)
                        return -ENOMEM;
                if (GREEDY_REALLOC(s->rows, s->allocated_rows, s->n_rows + 1) < 0)
                        return -ENOMEM;
                s->rows[s->n_rows++] = (Row){
                        .metric = x->carried[i].metric,
                        .labels = TAKE_PTR(labels),
                        .value = x->carried[i].value,
                        .carried = true,
                };
        }
        return 0;
}

/* Sorts the rows and merges each series into one; the carried part of each counter series that still
 * has a live client becomes the new x->carried. Series with nothing live are dropped. */
static int merge_rows(PrometheusMetrics *x, RowSet *s, Row **ret_carried, size_t *ret_n_carried)
{
        Row *carried = NULL;
        size_t n_carried = 0, allocated_carried = 0, out = 0;

        qsort_safe(s->rows, s->n_rows, sizeof(Row), row_compare);
        for (size_t i = 0; i < s->n_rows;) {
                size_t end = i;
                uint64_t live = 0, ended = 0;
                bool has_live = false;

                while (end < s->n_rows && row_compare(&s->rows[i], &s->rows[end]) == 0) {
                        if (s->rows[end].carried)
                                ended = add_saturating(ended, s->rows[end].value);
                        else {
                                live = add_saturating(live, s->rows[end].value);
                                has_live = true;
                        }
                        end++;
                }

                if (has_live && ended > 0) {
                        _cleanup_free_ char *labels = strdup(s->rows[i].labels);

                        if (!labels || GREEDY_REALLOC(carried, allocated_carried, n_carried + 1) < 0) {
                                rows_free(carried, n_carried);
                                return -ENOMEM;
                        }
                        carried[n_carried++] = (Row){
                                .metric = s->rows[i].metric, .labels = TAKE_PTR(labels), .value = ended, .carried = true
                        };
                }

                for (size_t k = i + 1; k < end; k++)
                        free(TAKE_PTR(s->rows[k].labels));
                if (has_live) {
                        Row merged = s->rows[i];

                        merged.value = add_saturating(live, ended);
                        merged.carried = false;
                        s->rows[out++] = merged;
                } else
                        free(TAKE_PTR(s->rows[i].labels));
                i = end;
        }
        s->n_rows = out;
        (void) x;
        *ret_carried = carried;
        *ret_n_carried = n_carried;
        return 0;
}

static void put_header(FILE *f, const char *name, const char *type, const char *help)
{
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_seconds(FILE *f, uint64_t ns)
{
        fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

static const struct {
        const char *name, *type, *help;
} unit_metrics[_UNIT_METRIC_MAX] = {
        [UNIT_BUSY_NS] = { "nvprofiled_engine_busy_seconds_total", "counter",
                        "Time the GPU engine was busy with the clients of this unit and profile (drm-engine-<e>; ended "
                        "clients included)." },
        [UNIT_CYCLES] = { "nvprofiled_engine_cycles_total", "counter",
                        "Engine cycles spent on the clients of this unit and profile (drm-cycles-<e>)." },
        [UNIT_TOTAL_CYCLES] = { "nvprofiled_engine_total_cycles_total", "counter",
                        "Engine cycles elapsed while the clients of this unit and profile were sampled "
                        "(drm-total-cycles-<e>)." },
        [UNIT_MEMORY] = { "nvprofiled_memory_bytes", "gauge",
                        "GPU memory of the clients of this unit and profile, per region and stat (drm-<stat>-<region>)." },
        [UNIT_CLIENTS] = { "nvprofiled_unit_clients", "gauge", "DRM clients of this unit and profile." },
        [UNIT_NVML_MEMORY] = { "nvprofiled_nvml_process_memory_bytes", "gauge",
                        "GPU memory NVML reports for the processes of this unit and profile." },
        [UNIT_NVML_PROCESSES] = { "nvprofiled_nvml_processes", "gauge",
                        "Processes NVML lists on the device, of this unit and profile." },
};

static void put_unit_rows(FILE *f, const RowSet *s)
{
        for (UnitMetric m = 0; m < _UNIT_METRIC_MAX; m++) {
                bool any = false;

                for (size_t i = 0; i < s->n_rows; i++) {
                        const Row *r = &s->rows[i];

                        if (r->metric != m)
                                continue;
                        if (!any)
                                put_header(f, unit_metrics[m].name, unit_metrics[m].type, unit_metrics[m].help);
                        any = true;
                        fprintf(f, "%s{%s} ", unit_metrics[m].name, r->labels);
                        if (m == UNIT_BUSY_NS)
                                put_seconds(f, r->value);
                        else
                                fprintf(f, "%" PRIu64, r->value);
                        fputc('\n', f);
                }
        }
}

static void put_series(FILE *f, const char *name, const char *labels, const char *value)
{
        if (labels)
                fprintf(f, "%s{%s} %s\n", name, labels, value);
        else
                fprintf(f, "%s %s\n", name, value);
}

static int put_devices(FILE *f, const PrometheusMetricsInput *in)
{
        const DrmUsage *u = in->drm;
        size_t n_drm = u ? u->n_devices : 0;
        char value[64];
        bool any;

        if (n_drm + in->n_nvml_devices > 0) {
                put_header(f, "nvprofiled_device_info", "gauge",
                                "A GPU the daemon samples, with its driver, the source of its figures and its name.");
                for (size_t i = 0; i < n_drm; i++) {
                        _cleanup_free_ char *l = labels_new("device", u->devices[i].device, "driver",
                                        u->devices[i].driver, "source", "fdinfo", "name", "", NULL);
                        if (!l)
                                return -ENOMEM;
                        put_series(f, "nvprofiled_device_info", l, "1");
                }
                for (size_t i = 0; i < in->n_nvml_devices; i++) {
                        const NvmlDeviceUsage *d = in->nvml_devices[i];
                        _cleanup_free_ char *l = labels_new("device", d->pci_bus_id, "driver", "nvidia", "source",
                                        NVML_SOURCE_NAME, "name", d->name, NULL);
                        if (!l)
                                return -ENOMEM;
                        put_series(f, "nvprofiled_device_info", l, "1");
                }
        }

        if (n_drm > 0) {
                put_header(f, "nvprofiled_clients", "gauge", "DRM clients of the device (distinct drm-client-id).");
                for (size_t i = 0; i < n_drm; i++) {
                        _cleanup_free_ char *l = labels_new(
                                        "device", u->devices[i].device, "driver", u->devices[i].driver, NULL);
                        if (!l)
                                return -ENOMEM;
                        (void) snprintf(value, sizeof value, "%zu", u->devices[i].n_clients);
                        put_series(f, "nvprofiled_clients", l, value);
                }

                /* The largest capacity any client of the device gives for the engine: rate() of the busy
                 * counter divided by it is the engine class's utilisation. */
                any = false;
                for (size_t i = 0; i < n_drm; i++) {
                        const DrmUsageDevice *d = &u->devices[i];

                        for (size_t e = 0; e < d->n_engines; e++) {
                                _cleanup_free_ char *l = NULL;
                                uint64_t capacity = 0;

                                for (size_t c = 0; c < u->n_clients; c++) {
                                        const DrmUsageEngine *ce;

                                        if (!streq(u->clients[c].device, d->device))
                                                continue;
                                        ce = drm_usage_client_find_engine(&u->clients[c], d->engines[e].name);
                                        if (ce)
                                                capacity = MAX(capacity, ce->capacity);
                                }
                                if (capacity == 0)
                                        continue;
                                if (!any)
                                        put_header(f, "nvprofiled_engine_capacity", "gauge",
                                                        "Engines of this class on the device "
                                                        "(drm-engine-capacity-<e>).");
                                any = true;
                                l = labels_new("device", d->device, "driver", d->driver, "engine", d->engines[e].name,
                                                NULL);
                                if (!l)
                                        return -ENOMEM;
                                (void) snprintf(value, sizeof value, "%" PRIu64, capacity);
                                put_series(f, "nvprofiled_engine_capacity", l, value);
                        }
                }

                any = false;
                for (size_t i = 0; i < n_drm; i++) {
                        const DrmUsageDevice *d = &u->devices[i];

                        for (size_t r = 0; r < d->n_regions; r++)
                                for (DrmFdinfoMemStat st = 0; st < _DRM_FDINFO_MEM_MAX; st++) {
                                        _cleanup_free_ char *l = NULL;

                                        if (!d->regions[r].has[st])
                                                continue;
                                        if (!any)
                                                put_header(f, "nvprofiled_device_memory_bytes", "gauge",
                                                                "GPU memory of all DRM clients of the device, per "
                                                                "region and stat (shared memory counted in each "
                                                                "client).");
                                        any = true;
                                        l = labels_new("device", d->device, "driver", d->driver, "region",
                                                        d->regions[r].name, "stat", drm_fdinfo_mem_stat_to_string(st),
                                                        NULL);
                                        if (!l)
                                                return -ENOMEM;
                                        (void) snprintf(value, sizeof value, "%" PRIu64, d->regions[r].bytes[st]);
                                        put_series(f, "nvprofiled_device_memory_bytes", l, value);
                                }
                }
        }

        if (u) {
                put_header(f, "nvprofiled_clamped_total", "counter",
                                "Utilisation figures above 100 % that were cut to 100 (clients and devices).");
                (void) snprintf(value, sizeof value, "%" PRIu64, u->n_clamped);
                put_series(f, "nvprofiled_clamped_total", NULL, value);
        }

        if (in->n_nvml_devices == 0)
                return 0;

        put_header(f, "nvprofiled_device_suspended", "gauge",
                        "1 when the device is runtime-suspended and was not queried, so as not to wake it.");
        for (size_t i = 0; i < in->n_nvml_devices; i++) {
                const NvmlDeviceUsage *d = in->nvml_devices[i];
                _cleanup_free_ char *l = labels_new("device", d->pci_bus_id, "source", NVML_SOURCE_NAME, NULL);

                if (!l)
                        return -ENOMEM;
                put_series(f, "nvprofiled_device_suspended", l, d->state == NVML_DEVICE_SUSPENDED ? "1" : "0");
        }

        any = false;
        for (size_t i = 0; i < in->n_nvml_devices; i++) {
                const NvmlDeviceUsage *d = in->nvml_devices[i];
                static const char *const kinds[] = { "gpu", "memory" };

                if (d->state != NVML_DEVICE_SAMPLED || !d->has_utilization)
                        continue;
                if (!any)
                        put_header(f, "nvprofiled_nvml_utilization_ratio", "gauge",
                                        "NVML's utilisation of the device over its own sample period (0 to 1): "
                                        "kind gpu is kernels running, memory is memory being read or written.");
                any = true;
                for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                        _cleanup_free_ char *l = labels_new("device", d->pci_bus_id, "kind", kinds[k], NULL);
                        uint32_t pct = k == 0 ? d->gpu_percent : d->memory_percent;

                        if (!l)
                                return -ENOMEM;
                        (void) snprintf(value, sizeof value, "%u.%02u", MIN(pct, 100u) / 100, MIN(pct, 100u) % 100);
                        put_series(f, "nvprofiled_nvml_utilization_ratio", l, value);
                }
        }

        for (unsigned total = 0; total < 2; total++) {
                const char *name = total ? "nvprofiled_nvml_memory_total_bytes" : "nvprofiled_nvml_memory_used_bytes";

                any = false;
                for (size_t i = 0; i < in->n_nvml_devices; i++) {
                        const NvmlDeviceUsage *d = in->nvml_devices[i];
                        uint64_t v = total ? d->memory_total_bytes : d->memory_used_bytes;
                        _cleanup_free_ char *l = NULL;

                        if (d->state != NVML_DEVICE_SAMPLED || v == NVML_SOURCE_UNKNOWN)
                                continue;
                        if (!any)
                                put_header(f, name, "gauge",
                                                total ? "GPU memory of the device, as NVML reports it."
                                                      : "GPU memory in use on the device, as NVML reports it.");
                        any = true;
                        l = labels_new("device", d->pci_bus_id, NULL);
                        if (!l)
                                return -ENOMEM;
                        (void) snprintf(value, sizeof value, "%" PRIu64, v);
                        put_series(f, name, l, value);
                }
        }
        return 0;
}

int prometheus_metrics_render(PrometheusMetrics *x, const PrometheusMetricsInput *in, char **ret, size_t *ret_size)
{
        _cleanup_(row_set_done) RowSet s = { 0 };
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        Row *carried = NULL;
        size_t size = 0, n_carried = 0;
        int r;

        assert(x);
        assert(in);
        assert(ret);

        if (in->drm)
                for (size_t i = 0; i < in->drm->n_clients; i++) {
                        r = add_drm_client(&s, in, &in->drm->clients[i]);
                        if (r < 0)
                                return r;
                }
        for (size_t i = 0; i < in->n_nvml_devices; i++) {
                r = add_nvml_device(&s, in, in->nvml_devices[i]);
                if (r < 0)
                        return r;
        }

        qsort_safe(s.contributions, s.n_contributions, sizeof(Contribution), contribution_compare);
        r = carry_ended(x, &s);
        if (r < 0)
                return r;
        r = merge_rows(x, &s, &carried, &n_carried);
        if (r < 0)
                return r;

        f = open_memstream(&buf, &size);
        if (!f) {
                rows_free(carried, n_carried);
                return -ENOMEM;
        }
        put_header(f, "nvprofiled_build_info", "gauge", "The nvprofiled version that wrote these metrics.");
        {
                _cleanup_free_ char *l = labels_new("version", in->version ? in->version : "", NULL);

                if (!l) {
                        rows_free(carried, n_carried);
                        return -ENOMEM;
                }
                put_series(f, "nvprofiled_build_info", l, "1");
        }
        r = put_devices(f, in);
        if (r < 0) {
                rows_free(carried, n_carried);
                return r;
        }
        put_unit_rows(f, &s);
        if (ferror(f) || fflush(f) != 0) {
                rows_free(carried, n_carried);
                return -ENOMEM;
        }
        (void) fclose(TAKE_PTR(f));

        /* Only now, when nothing can fail any more, does the state move on. */
        contributions_free(x->previous, x->n_previous);
        x->previous = TAKE_PTR(s.contributions);
        x->n_previous = s.n_contributions;
        s.n_contributions = s.allocated_contributions = 0;
        rows_free(x->carried, x->n_carried);
        x->carried = carried;
        x->n_carried = n_carried;

        if (ret_size)
                *ret_size = size;
        *ret = TAKE_PTR(buf);
        return 0;
}

int prometheus_metrics_write_file(const char *path, const char *text, size_t size, mode_t mode, gid_t gid)
{
        _cleanup_free_ char *dir = NULL, *tmp = NULL;
        _cleanup_close_ int dir_fd = -EBADF, fd = -EBADF;
        const char *name;
        int r;

        assert(path);
        assert(text || size == 0);

        name = path_basename(path);
        if (name[0] == '\0')
                return -EISDIR;
        dir = name == path ? strdup(".") : strndup(path, (size_t) (name - path));
        if (!dir)
                return -ENOMEM;
        dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0)
                return -errno;

        for (unsigned attempt = 0;; attempt++) {
                uint64_t random_bits;

                if (getrandom(&random_bits, sizeof random_bits, GRND_NONBLOCK) != sizeof random_bits)
                        random_bits = ((uint64_t) getpid() << 32) ^ (uint64_t) attempt ^
                                        (uint64_t) (uintptr_t) &attempt;
                free(tmp);
                if (asprintf(&tmp, ".%s.%016" PRIx64, name, random_bits) < 0) {
                        tmp = NULL;
                        return -ENOMEM;
                }
                /* Owner only: not even the daemon's group may open it before its group is set. */
                fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd >= 0)
                        break;
                if (errno != EEXIST || attempt >= 16)
                        return -errno;
        }

        /* The final owner, group and mode before the first byte: a user watching the directory opens the
         * file while it is written no more than the finished one. The mode regardless of the daemon's
         * umask; the group before the mode, so no moment has the group bits with the creator's group. */
        r = 0;
        if (gid != (gid_t) -1 && fchown(fd, (uid_t) -1, gid) < 0)
                r = -errno;
        if (r == 0 && fchmod(fd, mode) < 0)
                r = -errno;
        for (size_t done = 0; r == 0 && done < size;) {
                ssize_t n = write(fd, text + done, size - done);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                done += (size_t) n;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        (void) fsync(dir_fd);
        return 0;
}
