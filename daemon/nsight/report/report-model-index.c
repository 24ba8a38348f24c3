/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A report's model finished once every block is read (report-model-loader.h): the strings ranked, each
 * action's metrics indexed by name, its GPU facts and device, the actions in ranges; and the lookups of the
 * finished model (an action, its names, a metric by name, its loaded functions, its device). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ProfilerReport.pb-c.h"
#include "report-limits.h"
#include "report-metrics.h"
#include "report-model-loader.h"
#include "string-util.h"

static int compare_string_index(const void *a, const void *b, void *userdata)
{
        const char *const *strings = userdata;
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return strcmp(strings[x], strings[y]);
}

/* Sorts keys by their high half, keeping the order of equal ones (LSD radix sort, 8 bits a pass, over the
 * bits a rank below max_rank has): the low half is file order, already ascending. tmp holds n keys. */
static void sort_by_rank(uint64_t *keys, uint64_t *tmp, size_t n, uint32_t max_rank)
{
        for (unsigned shift = 32; shift < 64 && (uint64_t) max_rank >> (shift - 32) > 0; shift += 8) {
                size_t count[257] = { 0 };

                for (size_t j = 0; j < n; j++)
                        count[(keys[j] >> shift & 0xff) + 1]++;
                for (size_t d = 1; d < 257; d++)
                        count[d] += count[d - 1];
                for (size_t j = 0; j < n; j++)
                        tmp[count[keys[j] >> shift & 0xff]++] = keys[j];
                memcpy(keys, tmp, n * sizeof(uint64_t));
        }
}

/* The rank of every string of the table in strcmp() order, equal strings sharing one: metrics are then
 * sorted by name with integer comparisons, instead of a strcmp() per comparison for every action. */
static uint32_t *string_ranks(const NcuReport *r)
{
        _cleanup_free_ uint32_t *order = NULL;
        uint32_t *rank;

        order = reallocarray(NULL, MAX(r->n_strings, (size_t) 1), sizeof(uint32_t));
        rank = reallocarray(NULL, MAX(r->n_strings, (size_t) 1), sizeof(uint32_t));
        if (!order || !rank) {
                free(rank);
                return NULL;
        }
        for (size_t i = 0; i < r->n_strings; i++)
                order[i] = (uint32_t) i;
        qsort_r(order, r->n_strings, sizeof(uint32_t), compare_string_index, (void *) r->strings);
        for (size_t k = 0; k < r->n_strings; k++)
                rank[order[k]] = k > 0 && streq(r->strings[order[k - 1]], r->strings[order[k]]) ? rank[order[k - 1]]
                                                                                                : (uint32_t) k;
        return rank;
}

/* metrics_by_name: the metrics sorted by name, the last (in file order) of each name. keys has room for
 * a->n_metrics, and so has tmp. */
static int index_metrics_by_name(NcuAction *a, const uint32_t *rank, uint32_t max_rank, uint64_t *keys, uint64_t *tmp)
{
        const NcuMetric *metrics = a->metrics;
        size_t u = 0;

        a->metrics_by_name = reallocarray(NULL, a->n_metrics, sizeof(NcuMetric *));
        if (!a->metrics_by_name)
                return -ENOMEM;
        /* Rank, then file order: the last key of a rank is the last metric of that name. */
        for (size_t j = 0; j < a->n_metrics; j++)
                keys[j] = (uint64_t) rank[metrics[j].name_id] << 32 | j;
        sort_by_rank(keys, tmp, a->n_metrics, max_rank);
        for (size_t j = 0; j < a->n_metrics; j++)
                if (j + 1 == a->n_metrics || keys[j] >> 32 != keys[j + 1] >> 32)
                        a->metrics_by_name[u++] = &metrics[keys[j] & UINT32_MAX];
        a->n_unique_metrics = u;
        return 0;
}

/* The value of a metric of the action as a non-negative number; false when it has none (or a string). */
static bool metric_number(const NcuAction *a, const char *name, double *ret)
{
        const NcuMetric *m = ncu_action_metric_by_name(a, name);
        double d;

        if (!m || !m->has_value || !ncu_value_as_double(&m->value, &d) || !(d >= 0))
                return false;
        *ret = d;
        return true;
}

/* The GPU facts ncu_report's metric attributes depend on (NcuAction). */
static void find_gpu_facts(NcuAction *a)
{
        double major, minor;

        if (metric_number(a, "device__attribute_compute_capability_major", &major) &&
                        metric_number(a, "device__attribute_compute_capability_minor", &minor) && major <= UINT16_MAX &&
                        minor <= UINT16_MAX) {
                a->has_compute_capability = true;
                a->compute_capability_major = (uint32_t) major;
                a->compute_capability_minor = (uint32_t) minor;
        }
        a->has_nvlink_max_count = metric_number(a, "nvlink__max_count", &a->nvlink_max_count);
        a->has_chip = metric_number(a, "device__attribute_chip", &a->chip);
}

/* What an action's metrics need once decoded: names resolved through the string table, the index by name,
 * the device. keys and tmp have room for a->n_metrics each. */
int ncu_loader_finish_metrics(NcuReport *r, NcuAction *a, uint64_t *keys, uint64_t *tmp, NcuReportError *err)
{
        NcuMetric *metrics = (NcuMetric *) a->metrics;
        const NcuMetric *display;

        /* An entry is at most 4 GiB and a metric at least 2 bytes: file order fits the key's low half. */
        if (a->n_metrics > UINT32_MAX)
                return ncu_error(err, a->offset, -E2BIG, "more than %" PRIu32 " metrics in a result", UINT32_MAX);
        for (size_t j = 0; j < a->n_metrics; j++) {
                if (metrics[j].name_id >= r->n_strings)
                        return ncu_error(err, a->offset, -EBADMSG,
                                        "result %zu: metric %zu has NameId %" PRIu32
                                        " outside the string table (%zu strings)",
                                        a->index, j, metrics[j].name_id, r->n_strings);
                metrics[j].name = r->strings[metrics[j].name_id];
        }
        if (a->n_metrics == 0)
                return 0;
        if (!r->string_ranks) {
                r->string_ranks = string_ranks(r);
                if (!r->string_ranks)
                        return ncu_error(err, a->offset, -ENOMEM, "out of memory");
                r->memory += MAX(r->n_strings, (size_t) 1) * sizeof(uint32_t);
        }
        if (index_metrics_by_name(a, r->string_ranks, (uint32_t) r->n_strings, keys, tmp) < 0)
                return ncu_error(err, a->offset, -ENOMEM, "out of memory");

        find_gpu_facts(a);

        display = ncu_action_metric_by_name(a, "device__attribute_display_name");
        if (display && display->value.kind == NCU_VALUE_STRING) {
                a->device_name = display->value.s;
                for (size_t j = 0; j < r->session.n_devices; j++)
                        if (streq_ptr(r->session.devices[j].name, a->device_name)) {
                                a->device_index = (int) j;
                                break;
                        }
        }
        return 0;
}

/* PlatformType (ProfilerReportCommon.proto) Windows = 1. */
static bool session_on_windows(const NcuSessionDetails *s)
{
        const NcuSystemInfo *i = s->target.has_platform ? &s->target : &s->host;
        return i->has_platform && i->platform == 1;
}

static const char *process_base_name(const NcuSessionDetails *s, const char *path)
{
        const char *base = path;
        bool windows = session_on_windows(s);

        if (!path)
                return NULL;
        for (const char *p = path; *p; p++)
                if (*p == '/' || (windows && *p == '\\'))
                        base = p + 1;
        return base;
}

int ncu_loader_finish_actions(Loader *l)
{
        NcuReport *r = l->r;
        _cleanup_free_ uint64_t *keys = NULL, *tmp = NULL;
        size_t max_metrics = 0;
        int k;

        for (size_t i = 0; i < r->n_actions; i++)
                max_metrics = MAX(max_metrics, r->actions[i]->n_metrics);
        keys = reallocarray(NULL, MAX(max_metrics, (size_t) 1), sizeof(uint64_t));
        tmp = reallocarray(NULL, MAX(max_metrics, (size_t) 1), sizeof(uint64_t));
        if (!keys || !tmp)
                return ncu_loader_oom(l, 0);
        l->index_scratch = 2 * MAX(max_metrics, (size_t) 1) * sizeof(uint64_t);

        for (size_t i = 0; i < r->n_processes; i++)
                ((NcuProcess *) r->processes)[i].base_name =
                                process_base_name(&r->session, r->processes[i].process_name);
        for (size_t i = 0; i < r->n_actions; i++) {
                NcuAction *a = r->actions[i];

                a->process.base_name = process_base_name(&r->session, a->process.process_name);
                if (a->has_source_reference)
                        for (size_t j = 0; j < r->n_sources; j++)
                                if (r->sources[j].has_reference && r->sources[j].reference == a->source_reference) {
                                        a->source = &r->sources[j];
                                        break;
                                }
                if (!a->metrics_decoded)
                        continue;
                k = ncu_loader_finish_metrics(r, a, keys, tmp, l->err);
                if (k < 0)
                        return k;
                r->memory += a->n_metrics * sizeof(NcuMetric *);
        }

        {
                NcuRange *range = arena_alloc(&r->arena, sizeof(NcuRange));
                if (!range)
                        return ncu_loader_oom(l, 0);
                range->n_actions = r->n_actions;
                range->actions = r->actions;
                r->ranges = range;
                r->n_ranges = 1;
        }
        return 0;
}
const NcuAction *ncu_report_action(const NcuReport *r, size_t range, size_t action)
{
        assert(r);
        if (range >= r->n_ranges || action >= r->ranges[range].n_actions)
                return NULL;
        return r->ranges[range].actions[action];
}

const char *ncu_action_name(const NcuAction *a, NcuNameBase base)
{
        assert(a);
        switch (base) {
        case NCU_NAME_FUNCTION:
                return a->function_name;
        case NCU_NAME_DEMANGLED:
                return isempty(a->demangled_name) ? a->function_name : a->demangled_name;
        case NCU_NAME_MANGLED:
                return a->mangled_name;
        case _NCU_NAME_BASE_MAX:
                break;
        }
        assert_not_reached();
}

const NcuMetric *ncu_action_metric_by_name(const NcuAction *a, const char *name)
{
        size_t lo = 0, hi;

        assert(a && name);
        hi = a->n_unique_metrics;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(a->metrics_by_name[mid]->name, name);
                if (c == 0)
                        return a->metrics_by_name[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

int ncu_action_loaded_functions(const NcuReport *r, const NcuAction *a, const NcuRelocationSymbol ***ret)
{
        const NcuRelocationSymbol **out;
        size_t n = 0;

        assert(r && a && ret);
        for (size_t i = 0; a->has_source_reference && i < r->n_sources; i++)
                if (r->sources[i].has_reference && r->sources[i].reference == a->source_reference)
                        n += r->sources[i].n_functions;
        out = reallocarray(NULL, MAX(n, (size_t) 1), sizeof(NcuRelocationSymbol *));
        if (!out)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; a->has_source_reference && i < r->n_sources; i++)
                if (r->sources[i].has_reference && r->sources[i].reference == a->source_reference)
                        for (size_t j = 0; j < r->sources[i].n_functions; j++)
                                out[n++] = &r->sources[i].functions[j];
        *ret = out;
        return (int) MIN(n, (size_t) INT_MAX);
}

const NcuDevice *ncu_action_device(const NcuReport *r, const NcuAction *a)
{
        assert(r && a);
        if (a->device_index < 0 || (size_t) a->device_index >= r->session.n_devices)
                return NULL;
        return &r->session.devices[a->device_index];
}
