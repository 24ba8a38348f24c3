/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const value_kind_table[_NCU_VALUE_KIND_MAX] = {
        [NCU_VALUE_UNKNOWN] = "unknown",
        [NCU_VALUE_STRING] = "string",
        [NCU_VALUE_FLOAT] = "float",
        [NCU_VALUE_DOUBLE] = "double",
        [NCU_VALUE_UINT32] = "uint32",
        [NCU_VALUE_UINT64] = "uint64",
};

const char *ncu_value_kind_to_string(NcuValueKind k)
{
        assert(k < _NCU_VALUE_KIND_MAX);
        return value_kind_table[k];
}

static const char *const workload_type_table[_NCU_WORKLOAD_TYPE_MAX] = {
        [NCU_WORKLOAD_KERNEL] = "kernel",
        [NCU_WORKLOAD_RANGE] = "range",
        [NCU_WORKLOAD_CMDLIST] = "cmdlist",
        [NCU_WORKLOAD_GRAPH] = "graph",
};

const char *ncu_workload_type_to_string(NcuWorkloadType t)
{
        assert(t < _NCU_WORKLOAD_TYPE_MAX);
        return workload_type_table[t];
}

const char *ncu_rule_message_type_to_string(uint32_t type)
{
        static const char *const table[] = {
                [NCU_RULE_MSG_NONE] = "NONE",
                [NCU_RULE_MSG_OK] = "OK",
                [NCU_RULE_MSG_WARNING] = "WARNING",
                [NCU_RULE_MSG_ERROR] = "ERROR",
                [NCU_RULE_MSG_OPTIMIZATION] = "OPTIMIZATION",
        };
        return type < ELEMENTSOF(table) ? table[type] : NULL;
}

/* What x86-64's truncating conversion gives, as NVIDIA's module (built for it) answers as_uint64() of a
 * double: a negative value wraps around as a two's complement int64 (-3527.0 reads 2^64 - 3527), and NaN
 * or a value no int64 nor uint64 holds reads 2^63 (the "integer indefinite" both of its conversions give;
 * every NaN of the corpus reads so). C leaves those conversions undefined, hence the explicit cases. */
static uint64_t double_to_uint64(double d)
{
        if (isnan(d) || d <= -9223372036854775808.0 || d >= 18446744073709551616.0)
                return UINT64_C(1) << 63;
        if (d < 0)
                return (uint64_t) (int64_t) d;
        return (uint64_t) d;
}

bool ncu_value_as_uint64(const NcuValue *v, uint64_t *ret)
{
        assert(v && ret);
        switch (v->kind) {
        case NCU_VALUE_UINT64:
                *ret = v->u64;
                return true;
        case NCU_VALUE_UINT32:
                *ret = v->u32;
                return true;
        case NCU_VALUE_DOUBLE:
        case NCU_VALUE_FLOAT:
                *ret = double_to_uint64(v->kind == NCU_VALUE_DOUBLE ? v->d : (double) v->f);
                return true;
        case NCU_VALUE_STRING:
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        *ret = 0;
        return false;
}

bool ncu_value_as_double(const NcuValue *v, double *ret)
{
        assert(v && ret);
        switch (v->kind) {
        case NCU_VALUE_DOUBLE:
                *ret = v->d;
                return true;
        case NCU_VALUE_FLOAT:
                *ret = v->f;
                return true;
        case NCU_VALUE_UINT64:
                *ret = (double) v->u64;
                return true;
        case NCU_VALUE_UINT32:
                *ret = v->u32;
                return true;
        case NCU_VALUE_STRING:
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        *ret = 0;
        return false;
}

const char *ncu_value_as_string(const NcuValue *v)
{
        assert(v);
        return v->kind == NCU_VALUE_STRING ? v->s : NULL;
}

NcuValue ncu_value_convert(const NcuValue *v, NcuValueKind kind)
{
        NcuValue o = { .kind = kind };
        double d;
        uint64_t u;

        assert(v);
        if (v->kind == kind)
                return *v;
        /* as_double()/as_uint64() give 0 when they cannot convert, as_string() gives None. */
        switch (kind) {
        case NCU_VALUE_DOUBLE:
                (void) ncu_value_as_double(v, &d);
                o.d = d;
                return o;
        case NCU_VALUE_FLOAT:
                (void) ncu_value_as_double(v, &d);
                o.f = (float) d;
                return o;
        case NCU_VALUE_UINT64:
                (void) ncu_value_as_uint64(v, &u);
                o.u64 = u;
                return o;
        case NCU_VALUE_UINT32:
                (void) ncu_value_as_uint64(v, &u);
                o.u32 = (uint32_t) u;
                return o;
        case NCU_VALUE_STRING:
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        return (NcuValue){ 0 };
}

NcuValueKind ncu_metric_correlation_kind(const NcuMetric *m)
{
        assert(m);
        return m->n_instances > 0 ? m->instances[0].correlation_id.kind : NCU_VALUE_UNKNOWN;
}

const NcuValue *ncu_metric_value(const NcuMetric *m, size_t instance)
{
        assert(m);
        if (instance == SIZE_MAX)
                return m->has_value ? &m->value : NULL;
        return instance < m->n_instances ? &m->instances[instance].value : NULL;
}

const char *ncu_format_double_repr(double d, char buf[static NCU_DOUBLE_REPR_MAX])
{
        char tmp[NCU_DOUBLE_REPR_MAX], digits[20];
        const char *mant;
        size_t n_digits = 0;
        int exp, prec;

        if (isnan(d))
                return strcpy(buf, "nan");
        if (isinf(d))
                return strcpy(buf, d < 0 ? "-inf" : "inf");
        if (d == 0)
                return strcpy(buf, signbit(d) ? "-0.0" : "0.0");

        /* The shortest %e that reads back to the same double, as Python's repr picks it. */
        for (prec = 1; prec <= 17; prec++) {
                (void) snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
                if (strtod(tmp, NULL) == d)
                        break;
        }
        mant = tmp[0] == '-' ? tmp + 1 : tmp;
        for (const char *p = mant; *p && *p != 'e'; p++)
                if (*p >= '0' && *p <= '9')
                        digits[n_digits++] = *p;
        digits[n_digits] = 0;
        exp = atoi(strchr(tmp, 'e') + 1);
        /* Trailing zeros of the significand say nothing. */
        while (n_digits > 1 && digits[n_digits - 1] == '0')
                digits[--n_digits] = 0;

        {
                char *o = buf;
                if (d < 0)
                        *o++ = '-';
                if (exp < -4 || exp >= 16) {
                        *o++ = digits[0];
                        if (n_digits > 1) {
                                *o++ = '.';
                                memcpy(o, digits + 1, n_digits - 1);
                                o += n_digits - 1;
                        }
                        (void) sprintf(o, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
                } else if (exp < 0) {
                        *o++ = '0';
                        *o++ = '.';
                        for (int i = -1; i > exp; i--)
                                *o++ = '0';
                        memcpy(o, digits, n_digits);
                        o[n_digits] = 0;
                } else {
                        for (int i = 0; i <= exp; i++)
                                *o++ = (size_t) i < n_digits ? digits[i] : '0';
                        *o++ = '.';
                        if ((size_t) exp + 1 < n_digits) {
                                memcpy(o, digits + exp + 1, n_digits - exp - 1);
                                o += n_digits - exp - 1;
                        } else
                                *o++ = '0';
                        *o = 0;
                }
        }
        return buf;
}
