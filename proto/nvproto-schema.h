/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <protobuf-c/protobuf-c.h>

/* The .proto files here describe Nsight Compute's schema as of 2024.1.1 plus what later versions
 * added (fields and enum values seen in newer sections and reports). Readers that must behave like
 * ncu 2024.1.1 treat the additions as unknown; this is the one list of them. */
typedef enum NvSchema {
        NV_SCHEMA_2024_1_1, /* exactly the schema ncu 2024.1.1 ships */
        NV_SCHEMA_EXTENDED, /* plus every later addition we know */
        _NV_SCHEMA_MAX,
} NvSchema;

const char *nv_schema_to_string(NvSchema s);
/* Accepts "2024.1.1" and "extended"; returns -EINVAL otherwise. */
int nv_schema_from_string(const char *s, NvSchema *ret);

/* Whether a field of a message exists under the given schema. */
bool nv_schema_has_field(NvSchema s, const ProtobufCMessageDescriptor *m, const ProtobufCFieldDescriptor *f);
/* Whether a value of an enum exists under the given schema. */
bool nv_schema_has_enum_value(NvSchema s, const ProtobufCEnumDescriptor *e, const ProtobufCEnumValue *v);

/* The additions as "package.Message.Field" and "package.Enum.VALUE", NULL-terminated (for tests). */
extern const char *const nv_schema_added_fields[];
extern const char *const nv_schema_added_enum_values[];
