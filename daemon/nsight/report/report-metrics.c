/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The metric results of a result entry, decoded straight from the wire into the model. They are most of
 * a report (thousands of ProfileMetricResult, ProfileMetricValue and ProfileMetricListElement messages
 * per result): protobuf-c would allocate each as its own struct, some ten times the serialized size,
 * before we copy the values out. The rest of the entry is unpacked by protobuf-c as usual, from a copy
 * without these fields. The checks are protobuf-c's: wire types must match the schema, required fields
 * (NameId, ElementValue) must be present, a message field given twice is merged. */
#include <errno.h>
#include <string.h>

#include "report-container.h"
#include "report-metrics.h"

/* ProfileMetricValue's five optional fields, merged over every occurrence of the message. */
typedef struct ValueParts {
        bool has[6];
        const uint8_t *s;
        size_t s_len;
        float f;
        double d;
        uint32_t u32;
        uint64_t u64;
} ValueParts;

static int value_parts_add(ValueParts *v, const uint8_t *p, size_t n)
{
        size_t pos = 0;

        while (pos < n) {
                NcuWireField f;

                if (ncu_wire_next(p, n, &pos, &f) < 0)
                        return -EBADMSG;
                switch (f.number) {
                case 1:
                        if (f.wire_type != NCU_WIRE_LENGTH)
                                return -EBADMSG;
                        v->s = f.data;
                        v->s_len = f.size;
                        break;
                case 2:
                        if (f.wire_type != NCU_WIRE_FIXED32)
                                return -EBADMSG;
                        memcpy(&v->f, f.data, 4);
                        break;
                case 3:
                        if (f.wire_type != NCU_WIRE_FIXED64)
                                return -EBADMSG;
                        memcpy(&v->d, f.data, 8);
                        break;
                case 4:
                        if (f.wire_type != NCU_WIRE_VARINT)
                                return -EBADMSG;
                        v->u32 = (uint32_t) f.varint;
                        break;
                case 5:
                        if (f.wire_type != NCU_WIRE_VARINT)
                                return -EBADMSG;
                        v->u64 = f.varint;
                        break;
                default:
                        continue; /* unknown: skipped, as every reader of a newer file must */
                }
                v->has[f.number] = true;
        }
        return 0;
}

/* No oneof: when a writer set several fields, the first in field order counts (as report-model.c does
 * for values protobuf-c unpacked). */
static int value_from_parts(Arena *arena, const ValueParts *v, NcuValue *ret)
{
        if (v->has[1]) {
                char *s = arena_strndup(arena, (const char *) v->s, v->s_len);
                if (!s)
                        return -ENOMEM;
                *ret = (NcuValue){ .kind = NCU_VALUE_STRING, .s = s };
        } else if (v->has[2])
                *ret = (NcuValue){ .kind = NCU_VALUE_FLOAT, .f = v->f };
        else if (v->has[3])
                *ret = (NcuValue){ .kind = NCU_VALUE_DOUBLE, .d = v->d };
        else if (v->has[4])
                *ret = (NcuValue){ .kind = NCU_VALUE_UINT32, .u32 = v->u32 };
        else if (v->has[5])
                *ret = (NcuValue){ .kind = NCU_VALUE_UINT64, .u64 = v->u64 };
        else
                *ret = (NcuValue){ 0 };
        return 0;
}

/* The common shape of a ProfileMetricValue: one numeric field, nothing else (an empty message is no value).
 * Returns true with *ret set when p is that, false to leave the message to the general path. */
static inline bool value_decode_simple(const uint8_t *p, size_t n, NcuValue *ret)
{
        size_t pos = 1;
        uint64_t v;

        if (n == 0) {
                *ret = (NcuValue){ 0 };
                return true;
        }
        switch (p[0]) {
        case 2 << 3 | NCU_WIRE_FIXED32:
                if (n != 5)
                        return false;
                *ret = (NcuValue){ .kind = NCU_VALUE_FLOAT };
                memcpy(&ret->f, p + 1, 4);
                return true;
        case 3 << 3 | NCU_WIRE_FIXED64:
                if (n != 9)
                        return false;
                *ret = (NcuValue){ .kind = NCU_VALUE_DOUBLE };
                memcpy(&ret->d, p + 1, 8);
                return true;
        case 4 << 3 | NCU_WIRE_VARINT:
                if (ncu_wire_varint(p, n, &pos, &v) < 0 || pos != n)
                        return false;
                *ret = (NcuValue){ .kind = NCU_VALUE_UINT32, .u32 = (uint32_t) v };
                return true;
        case 5 << 3 | NCU_WIRE_VARINT:
                if (ncu_wire_varint(p, n, &pos, &v) < 0 || pos != n)
                        return false;
                *ret = (NcuValue){ .kind = NCU_VALUE_UINT64, .u64 = v };
                return true;
        default:
                return false;
        }
}

/* The common shape of a ProfileMetricListElement: CorrelationId (optional), then ElementValue, each once, in
 * field order, each simple and shorter than 128 bytes. false leaves the element to the general path. */
static inline bool instance_decode_simple(const uint8_t *p, size_t n, NcuInstance *ret)
{
        size_t pos = 0;

        ret->correlation_id = (NcuValue){ 0 };
        if (n >= 2 && p[0] == (1 << 3 | NCU_WIRE_LENGTH) && p[1] < 0x80) {
                if (p[1] > n - 2 || !value_decode_simple(p + 2, p[1], &ret->correlation_id))
                        return false;
                pos = 2 + (size_t) p[1];
        }
        if (n - pos < 2 || p[pos] != (2 << 3 | NCU_WIRE_LENGTH) || p[pos + 1] >= 0x80 || p[pos + 1] != n - pos - 2)
                return false;
        return value_decode_simple(p + pos + 2, p[pos + 1], &ret->value);
}

static int decode_instance(Arena *arena, const uint8_t *p, size_t n, NcuInstance *ret)
{
        ValueParts id = { { false } }, value = { { false } };
        bool has_value = false;
        size_t pos = 0;
        int r;

        while (pos < n) {
                NcuWireField f;

                if (ncu_wire_next(p, n, &pos, &f) < 0)
                        return -EBADMSG;
                if (f.number != 1 && f.number != 2)
                        continue;
                if (f.wire_type != NCU_WIRE_LENGTH)
                        return -EBADMSG;
                r = value_parts_add(f.number == 1 ? &id : &value, f.data, f.size);
                if (r < 0)
                        return r;
                has_value = has_value || f.number == 2;
        }
        if (!has_value) /* ElementValue is required */
                return -EBADMSG;
        r = value_from_parts(arena, &id, &ret->correlation_id);
        if (r < 0)
                return r;
        return value_from_parts(arena, &value, &ret->value);
}

static int decode_metric(Arena *arena, const uint8_t *p, size_t n, NcuMetric *ret)
{
        ValueParts value = { { false } };
        bool has_name = false, has_value_message = false;
        size_t pos = 0, n_instances = 0, i = 0;
        NcuMetric m = { .category = NCU_METRIC_CATEGORY_PM };
        NcuInstance *instances = NULL;
        int r;

        /* Pass 1: scalars and the instance count. */
        while (pos < n) {
                NcuWireField f;

                if (ncu_wire_next(p, n, &pos, &f) < 0)
                        return -EBADMSG;
                switch (f.number) {
                case 1:
                        if (f.wire_type != NCU_WIRE_VARINT)
                                return -EBADMSG;
                        m.name_id = (uint32_t) f.varint;
                        has_name = true;
                        break;
                case 2:
                        if (f.wire_type != NCU_WIRE_LENGTH)
                                return -EBADMSG;
                        r = value_parts_add(&value, f.data, f.size);
                        if (r < 0)
                                return r;
                        has_value_message = true;
                        break;
                case 3:
                        if (f.wire_type != NCU_WIRE_LENGTH)
                                return -EBADMSG;
                        n_instances++;
                        break;
                case 4:
                        if (f.wire_type != NCU_WIRE_VARINT)
                                return -EBADMSG;
                        m.category = (uint32_t) f.varint;
                        break;
                default:
                        break;
                }
        }
        if (!has_name) /* NameId is required */
                return -EBADMSG;
        if (has_value_message) {
                r = value_from_parts(arena, &value, &m.value);
                if (r < 0)
                        return r;
        }
        m.has_value = m.value.kind != NCU_VALUE_UNKNOWN;

        /* Pass 2: the instances, into an array of exactly their number. */
        if (n_instances > 0) {
                size_t bytes;

                /* Every element is written whole below. */
                if (size_mul_overflow(n_instances, sizeof(NcuInstance), &bytes))
                        return -ENOMEM;
                instances = arena_alloc_raw(arena, bytes);
                if (!instances)
                        return -ENOMEM;
                for (pos = 0; pos < n;) {
                        NcuWireField f;

                        if (ncu_wire_next(p, n, &pos, &f) < 0)
                                return -EBADMSG;
                        if (f.number != 3)
                                continue;
                        if (!instance_decode_simple(f.data, f.size, &instances[i])) {
                                r = decode_instance(arena, f.data, f.size, &instances[i]);
                                if (r < 0)
                                        return r;
                        }
                        if (instances[i].correlation_id.kind != NCU_VALUE_UNKNOWN)
                                m.has_correlation_ids = true;
                        i++;
                }
                m.instances = instances;
                m.n_instances = n_instances;
        }
        m.kind = m.has_value ? m.value.kind : n_instances > 0 ? instances[0].value.kind : NCU_VALUE_UNKNOWN;
        *ret = m;
        return 0;
}

int ncu_metrics_split(Arena *scratch, const uint8_t *entry, size_t size, uint32_t field, size_t *ret_n,
                const uint8_t **ret_rest, size_t *ret_rest_size)
{
        size_t pos = 0, n = 0, rest_size = 0, o = 0;
        uint8_t *rest;

        assert(scratch && (entry || size == 0) && ret_n && ret_rest && ret_rest_size);

        /* Pass 1: count the metrics and the bytes of the rest. */
        while (pos < size) {
                size_t start = pos;
                NcuWireField f;

                if (ncu_wire_next(entry, size, &pos, &f) < 0)
                        return -EBADMSG;
                if (f.number != field) {
                        rest_size += pos - start;
                        continue;
                }
                if (f.wire_type != NCU_WIRE_LENGTH)
                        return -EBADMSG;
                n++;
        }

        /* Pass 2: the other fields copied, as they are. */
        rest = arena_alloc_raw(scratch, MAX(rest_size, (size_t) 1));
        if (!rest)
                return -ENOMEM;
        for (pos = 0; pos < size;) {
                size_t start = pos;
                NcuWireField f = { 0 };

                (void) ncu_wire_next(entry, size, &pos, &f); /* checked above */
                if (f.number != field) {
                        memcpy(rest + o, entry + start, pos - start);
                        o += pos - start;
                }
        }
        *ret_n = n;
        *ret_rest = rest;
        *ret_rest_size = rest_size;
        return 0;
}

/* The array of a result's n metrics, each written whole by decode_metric(). */
static int metrics_alloc(Arena *arena, size_t n, NcuMetric **ret)
{
        size_t bytes;

        if (size_mul_overflow(n, sizeof(NcuMetric), &bytes))
                return -ENOMEM;
        *ret = arena_alloc_raw(arena, bytes);
        return *ret ? 0 : -ENOMEM;
}

/* One top-level field of a result: the next of its n metrics decoded into out[*i], any other field
 * skipped. */
static int decode_field(Arena *arena, const NcuWireField *f, uint32_t field, size_t n, NcuMetric *out, size_t *i)
{
        if (f->number != field)
                return 0;
        /* ncu_metrics_split() counted n, all length-delimited: the same bytes give the same. */
        if (f->wire_type != NCU_WIRE_LENGTH || *i >= n)
                return -EBADMSG;
        return decode_metric(arena, f->data, f->size, &out[(*i)++]);
}

int ncu_metrics_decode(Arena *arena, const uint8_t *entry, size_t size, uint32_t field, size_t n, NcuMetric **ret)
{
        NcuMetric *out;
        size_t i = 0;
        int r;

        assert(arena && (entry || size == 0) && ret);

        if (n == 0) {
                *ret = NULL;
                return 0;
        }
        r = metrics_alloc(arena, n, &out);
        if (r < 0)
                return r;
        for (size_t pos = 0; pos < size;) {
                NcuWireField f;

                if (ncu_wire_next(entry, size, &pos, &f) < 0)
                        return -EBADMSG;
                r = decode_field(arena, &f, field, n, out, &i);
                if (r < 0)
                        return r;
        }
        if (i != n)
                return -EBADMSG;
        *ret = out;
        return 0;
}

/* Bytes read at a time: metrics are small, a result is up to megabytes. */
#define DECODE_WINDOW (64u * 1024u)

int ncu_metrics_decode_read(Arena *arena, size_t size, uint32_t field, size_t n, NcuEntryRead read, void *userdata,
                uint8_t **window, NcuMetric **ret)
{
        size_t allocated = 0, have = 0, start = 0, pos = 0, i = 0;
        NcuMetric *out;
        uint8_t *buf;
        int r;

        assert(arena && read && window && !*window && ret);

        if (n == 0) {
                *ret = NULL;
                return 0;
        }
        /* The first window before the metrics' array, as a whole entry was read before it. */
        allocated = have = MIN(size, (size_t) DECODE_WINDOW);
        buf = *window = malloc(MAX(allocated, (size_t) 1));
        if (!buf)
                return -ENOMEM;
        r = read(userdata, 0, buf, have);
        if (r < 0)
                return r;
        r = metrics_alloc(arena, n, &out);
        if (r < 0)
                return r;
        /* buf holds bytes start..start + have of the entry; the next field begins at pos in it. */
        while (start + pos < size) {
                size_t next = pos, want;
                NcuWireField f;

                if (ncu_wire_next(buf, have, &next, &f) >= 0) {
                        pos = next;
                        r = decode_field(arena, &f, field, n, out, &i);
                        if (r < 0)
                                return r;
                        continue;
                }
                /* With the rest of the entry at hand, the bytes are not a field; else the field goes on. */
                if (start + have >= size)
                        return -EBADMSG;
                if (pos > 0)
                        memmove(buf, buf + pos, have - pos);
                start += pos;
                have -= pos;
                pos = 0;
                want = MIN(size - start, have < allocated ? allocated : MAX(2 * allocated, (size_t) DECODE_WINDOW));
                if (want > allocated) {
                        uint8_t *p = realloc(buf, want);
                        if (!p)
                                return -ENOMEM;
                        buf = *window = p;
                        allocated = want;
                }
                r = read(userdata, start + have, buf + have, want - have);
                if (r < 0)
                        return r;
                have = want;
        }
        if (i != n)
                return -EBADMSG;
        *ret = out;
        return 0;
}
