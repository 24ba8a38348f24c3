/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "nvproto-schema.h"

/* Everything in the .proto files marked "added after 2024.1.1" (docs/ncu-format.md section 2.9).
 * Types that only these fields reach (VGpuSupport, SchedulingHintsType, ShowOnlyIfNotZeroType) need
 * no entry of their own. */
const char *const nv_schema_added_fields[] = {
        "NV.Profiler.Messages.MetricOptionFilter.VGpu",
        "NV.Profiler.Messages.MetricOptionFilter.MinKmd",
        "NV.Profiler.Messages.MetricOptionFilter.MaxKmd",
        "NV.Profiler.ProfilerSectionMetric.Multiplier",
        "NV.Profiler.ProfilerSectionMetric.UserMetricExpr",
        "NV.Profiler.ProfilerSectionMetricGroup.SchedulingHints",
        "NV.Profiler.ProfilerSectionRooflineOptions.ShowOnlyIfNotZero",
        "NV.Profiler.Messages.ProfileResult.Unnamed31",
        "NV.Profiler.Messages.ProfileResult.Unnamed35",
        NULL,
};

const char *const nv_schema_added_enum_values[] = {
        "NV.Profiler.Messages.GpuArch.CC_100",
        "NV.Profiler.Messages.GpuArch.CC_101",
        "NV.Profiler.Messages.GpuArch.CC_103",
        "NV.Profiler.Messages.GpuArch.CC_110",
        "NV.Profiler.Messages.GpuArch.CC_120",
        "NV.Profiler.Messages.GpuArch.CC_121",
        NULL,
};

static const char *const schema_names[_NV_SCHEMA_MAX] = {
        [NV_SCHEMA_2024_1_1] = "2024.1.1",
        [NV_SCHEMA_EXTENDED] = "extended",
};

const char *nv_schema_to_string(NvSchema s)
{
        if (s < 0 || s >= _NV_SCHEMA_MAX)
                return NULL;
        return schema_names[s];
}

int nv_schema_from_string(const char *s, NvSchema *ret)
{
        for (NvSchema i = 0; i < _NV_SCHEMA_MAX; i++)
                if (s && strcmp(s, schema_names[i]) == 0) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

static bool list_has(const char *const *list, const char *scope, const char *name)
{
        size_t n = strlen(scope);

        for (const char *const *p = list; *p; p++)
                if (strncmp(*p, scope, n) == 0 && (*p)[n] == '.' && strcmp(*p + n + 1, name) == 0)
                        return true;
        return false;
}

bool nv_schema_has_field(NvSchema s, const ProtobufCMessageDescriptor *m, const ProtobufCFieldDescriptor *f)
{
        if (s == NV_SCHEMA_EXTENDED)
                return true;
        return !list_has(nv_schema_added_fields, m->name, f->name);
}

bool nv_schema_has_enum_value(NvSchema s, const ProtobufCEnumDescriptor *e, const ProtobufCEnumValue *v)
{
        if (s == NV_SCHEMA_EXTENDED)
                return true;
        return !list_has(nv_schema_added_enum_values, e->name, v->name);
}
