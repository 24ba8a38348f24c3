/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target for the .ncu-rep reader, which parses reports any user hands the daemon: the container
 * (plain or zstd), every entry, the string tables and the session details, under tight limits, then
 * every query of the model; and the same bytes loaded lazily, every action then decoded, to the same
 * verdict. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report-json.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const NcuReport *r)
{
        char buf[NCU_DOUBLE_REPR_MAX];

        for (size_t i = 0; i < r->n_ranges; i++) {
                char *inc[] = { (char *) "outer/*/inner]", (char *) "D@phase" }, *exc[] = { (char *) "[x" };
                size_t *idx = NULL;
                int n = ncu_range_actions_by_nvtx(&r->ranges[i], inc, 2, exc, 1, &idx);
                assert(n >= 0 && (size_t) n <= r->ranges[i].n_actions);
                free(idx);
        }
        for (size_t i = 0; i < r->n_actions; i++) {
                const NcuAction *a = r->actions[i];

                assert(ncu_report_action(r, 0, i) == a);
                for (size_t j = 0; j < a->n_metrics; j++) {
                        const NcuMetric *m = &a->metrics[j];
                        uint64_t u;
                        double d;

                        assert(m->name && ncu_action_metric_by_name(a, m->name));
                        (void) ncu_value_as_uint64(&m->value, &u);
                        (void) ncu_value_as_double(&m->value, &d);
                        (void) ncu_format_double_repr(d, buf);
                        assert(strlen(buf) < NCU_DOUBLE_REPR_MAX);
                        for (size_t k = 0; k < m->n_instances; k++) {
                                NcuValue v = ncu_value_convert(&m->instances[k].value, m->kind);
                                (void) v;
                        }
                }
                (void) ncu_action_device(r, a);
        }
}

/* The same bytes loaded lazily, then every action decoded: the eager load's verdict. */
static void check_lazy(const uint8_t *data, size_t size, const NcuReportLimits *limits, bool eager_ok)
{
        NcuReport *r = NULL;
        NcuReportError err;
        int k;

        k = ncu_report_load_buffer_flags(data, size, limits, NCU_REPORT_LAZY_METRICS, &r, &err);
        if (k < 0) {
                assert(!r && err.message[0] && !eager_ok);
                return;
        }
        k = ncu_report_decode_metrics(r, &err);
        assert((k >= 0) == eager_ok);
        if (k >= 0)
                walk(r);
        else
                assert(err.message[0]);
        ncu_report_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        NcuReportLimits limits;
        NcuReport *r = NULL;
        NcuReportError err;

        ncu_report_limits_default(&limits);
        limits.max_file_size = 64u * 1024u * 1024u;
        limits.max_memory = 256u * 1024u * 1024u;
        if (ncu_report_load_buffer(data, size, &limits, &r, &err) < 0) {
                assert(!r && err.message[0]);
                check_lazy(data, size, &limits, false);
                return 0;
        }
        check_lazy(data, size, &limits, true);
        walk(r);
        ncu_report_free(r);
        return 0;
}
