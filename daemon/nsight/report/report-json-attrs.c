/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "report-attrs.h"
#include "report-json-attrs.h"

static int add_string_or_null(struct json_object *o, const char *key, const char *s)
{
        struct json_object *v = NULL;

        if (s) {
                v = json_object_new_string(s);
                if (!v)
                        return -ENOMEM;
        }
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

int ncu_json_add_metric_attrs(const NcuAction *action, const NcuMetric *m, struct json_object *o, void *userdata)
{
        MetricAttrs a;
        int r;

        ncu_metric_attrs(action, m, NULL, &a);
        r = add_string_or_null(o, "type", metric_type_to_string(a.type));
        if (r < 0)
                return r;
        r = add_string_or_null(o, "subtype", metric_subtype_to_string(a.subtype));
        if (r < 0)
                return r;
        r = add_string_or_null(o, "rollup", metric_rollup_to_string(a.rollup));
        if (r < 0)
                return r;
        return add_string_or_null(o, "unit", a.unit);
}

int ncu_report_to_json_attrs(const NcuReport *r, NcuJsonFlags flags, struct json_object **ret)
{
        return ncu_report_to_json_with(r, flags, ncu_json_add_metric_attrs, NULL, ret);
}
