/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>

#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put);

/* json-c's array accessors assert that they are given an array, and its assertions are compiled in:
 * a document from another process (the report worker) must be read with these, which take any value
 * (NULL included) and read it as an empty array when it is not one. */
static inline size_t json_array_length(const struct json_object *o)
{
        return json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

static inline struct json_object *json_array_get(const struct json_object *o, size_t i)
{
        return i < json_array_length(o) ? json_object_array_get_idx(o, i) : NULL;
}
