/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "macro.h"
#include "section-json.h"

static struct json_object *value_to_json(const ProtobufCFieldDescriptor *f, const void *p, unsigned depth);

static struct json_object *message_to_json(const ProtobufCMessage *m, unsigned depth)
{
        const ProtobufCMessageDescriptor *d = m->descriptor;
        struct json_object *o = json_object_new_object();

        /* Our own messages come from bounded input; the bound here only guards against a cycle. */
        if (!o || depth > 256)
                return o;
        for (unsigned i = 0; i < d->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &d->fields[i];
                const char *base = (const char *) m + f->offset;
                struct json_object *v = NULL;

                if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *) ((const char *) m + f->quantifier_offset);
                        const char *arr = *(const char *const *) base;
                        size_t size = f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING
                                        ? sizeof(void *)
                                        : f->type == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData)
                                        : f->type == PROTOBUF_C_TYPE_BOOL  ? sizeof(protobuf_c_boolean)
                                        : IN_SET(f->type, PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64,
                                                          PROTOBUF_C_TYPE_SFIXED64, PROTOBUF_C_TYPE_UINT64,
                                                          PROTOBUF_C_TYPE_FIXED64, PROTOBUF_C_TYPE_DOUBLE)
                                        ? 8
                                        : 4;
                        if (n == 0)
                                continue;
                        v = json_object_new_array();
                        for (size_t k = 0; v && k < n; k++)
                                json_object_array_add(v, value_to_json(f, arr + k * size, depth));
                } else {
                        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
                                if (*(const uint32_t *) ((const char *) m + f->quantifier_offset) != f->id)
                                        continue;
                        } else if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING) {
                                if (!*(const void *const *) base)
                                        continue;
                        } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset &&
                                        !*(const protobuf_c_boolean *) ((const char *) m + f->quantifier_offset))
                                continue;
                        v = value_to_json(f, base, depth);
                }
                json_object_object_add(o, f->name, v);
        }
        return o;
}

static struct json_object *value_to_json(const ProtobufCFieldDescriptor *f, const void *p, unsigned depth)
{
        switch (f->type) {
        case PROTOBUF_C_TYPE_INT32:
        case PROTOBUF_C_TYPE_SINT32:
        case PROTOBUF_C_TYPE_SFIXED32:
                return json_object_new_int64(*(const int32_t *) p);
        case PROTOBUF_C_TYPE_UINT32:
        case PROTOBUF_C_TYPE_FIXED32:
                return json_object_new_int64(*(const uint32_t *) p);
        case PROTOBUF_C_TYPE_INT64:
        case PROTOBUF_C_TYPE_SINT64:
        case PROTOBUF_C_TYPE_SFIXED64:
                return json_object_new_int64(*(const int64_t *) p);
        case PROTOBUF_C_TYPE_UINT64:
        case PROTOBUF_C_TYPE_FIXED64:
                return json_object_new_uint64(*(const uint64_t *) p);
        case PROTOBUF_C_TYPE_FLOAT:
                return json_object_new_double(*(const float *) p);
        case PROTOBUF_C_TYPE_DOUBLE:
                return json_object_new_double(*(const double *) p);
        case PROTOBUF_C_TYPE_BOOL:
                return json_object_new_boolean(*(const protobuf_c_boolean *) p);
        case PROTOBUF_C_TYPE_ENUM: {
                int v = *(const int *) p;
                const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
                return ev ? json_object_new_string(ev->name) : json_object_new_int(v);
        }
        case PROTOBUF_C_TYPE_STRING: {
                const char *s = *(const char *const *) p;
                return json_object_new_string(s ? s : "");
        }
        case PROTOBUF_C_TYPE_BYTES: {
                const ProtobufCBinaryData *b = p;
                struct json_object *a = json_object_new_array();
                for (size_t i = 0; a && i < b->len; i++)
                        json_object_array_add(a, json_object_new_int(b->data[i]));
                return a;
        }
        case PROTOBUF_C_TYPE_MESSAGE: {
                const ProtobufCMessage *sub = *(const ProtobufCMessage *const *) p;
                return sub ? message_to_json(sub, depth + 1) : NULL;
        }
        }
        assert_not_reached();
}

struct json_object *protobuf_message_to_json(const ProtobufCMessage *m)
{
        return message_to_json(m, 0);
}
