/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
#include <protobuf-c/protobuf-c.h>

/* Any protobuf-c message as JSON, by its descriptor: the schema's field names as keys, enum values by
 * name (by number when the schema has no name for them), repeated fields as arrays, unset optional
 * fields left out. Returns NULL on allocation failure. */
struct json_object *protobuf_message_to_json(const ProtobufCMessage *m);
