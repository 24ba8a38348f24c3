/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>

#include "report-attrs.h"

void ncu_action_metric_chip(const NcuAction *a, MetricChip *ret)
{
        assert(a);
        metric_chip_from_device(a->has_compute_capability ? (int) a->compute_capability_major : -1,
                        a->has_compute_capability ? (int) a->compute_capability_minor : -1,
                        a->has_nvlink_max_count ? a->nvlink_max_count : -1, ret);
        if (a->has_chip)
                ret->name = metric_chip_name(a->chip);
}

void ncu_metric_attrs(const NcuAction *a, const NcuMetric *m, const char *section_unit, MetricAttrs *ret)
{
        MetricChip chip;

        assert(m);
        ncu_action_metric_chip(a, &chip);
        metric_attrs_derive(m->name, IN_SET(m->kind, NCU_VALUE_DOUBLE, NCU_VALUE_FLOAT), &chip, section_unit, ret);
}
