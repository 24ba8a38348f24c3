/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "macro.h"
#include "metric-attrs-oracle.h"

static bool same_name(const char *ours, json_object *theirs)
{
        if (!theirs || json_object_is_type(theirs, json_type_null))
                return !ours;
        return ours && streq(ours, json_object_get_string(theirs));
}

bool metric_attrs_equal_json(const MetricAttrs *a, json_object *metric)
{
        return same_name(metric_type_to_string(a->type), json_object_object_get(metric, "type")) &&
                        same_name(metric_subtype_to_string(a->subtype), json_object_object_get(metric, "subtype")) &&
                        same_name(metric_rollup_to_string(a->rollup), json_object_object_get(metric, "rollup")) &&
                        same_name(a->unit, json_object_object_get(metric, "unit"));
}
