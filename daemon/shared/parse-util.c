/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <strings.h>

#include "parse-util.h"

static int parse_digits(const char *s, uint64_t *ret, const char **ret_end)
{
        uint64_t v = 0;
        const char *p = s;

        if (!isdigit((unsigned char) *p))
                return -EINVAL;

        for (; isdigit((unsigned char) *p); p++) {
                if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, (uint64_t) (*p - '0'), &v))
                        return -ERANGE;
        }

        *ret = v;
        *ret_end = p;
        return 0;
}

int safe_atou64(const char *s, uint64_t *ret)
{
        const char *end;
        uint64_t v;
        int r;

        assert(s);

        r = parse_digits(s, &v, &end);
        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        if (ret)
                *ret = v;
        return 0;
}

int safe_atoi64(const char *s, int64_t *ret)
{
        bool negative = false;
        uint64_t v;
        int r;

        assert(s);

        if (*s == '-') {
                negative = true;
                s++;
        }

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;

        if (negative) {
                if (v > (uint64_t) INT64_MAX + 1)
                        return -ERANGE;
                if (ret)
                        *ret = v == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) v;
        } else {
                if (v > INT64_MAX)
                        return -ERANGE;
                if (ret)
                        *ret = (int64_t) v;
        }
        return 0;
}

int safe_atou32(const char *s, uint32_t *ret)
{
        uint64_t v;
        int r;

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        if (ret)
                *ret = (uint32_t) v;
        return 0;
}

int safe_atou(const char *s, unsigned *ret)
{
        uint32_t v;
        int r;

        r = safe_atou32(s, &v);
        if (r < 0)
                return r;
        if (ret)
                *ret = v;
        return 0;
}

int safe_atozu(const char *s, size_t *ret)
{
        uint64_t v;
        int r;

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > SIZE_MAX)
                return -ERANGE;
        if (ret)
                *ret = (size_t) v;
        return 0;
}

int safe_atob(const char *s, bool *ret)
{
        static const char *const yes[] = { "1", "yes", "y", "true", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "off" };

        assert(s);

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0) {
                        if (ret)
                                *ret = true;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0) {
                        if (ret)
                                *ret = false;
                        return 0;
                }
        return -EINVAL;
}

typedef struct Unit {
        const char *suffix;
        uint64_t factor;
} Unit;

static int parse_with_units(const char *s, const Unit *units, size_t n_units, uint64_t *ret)
{
        const char *end;
        uint64_t v, r_v;
        int r;

        assert(s);

        r = parse_digits(s, &v, &end);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n_units; i++)
                if (streq(end, units[i].suffix)) {
                        if (__builtin_mul_overflow(v, units[i].factor, &r_v))
                                return -ERANGE;
                        *ret = r_v;
                        return 0;
                }

        return -EINVAL;
}

int parse_usec(const char *s, uint64_t *ret_usec)
{
        static const Unit units[] = {
                { "", 1 },
                { "us", 1 },
                { "ms", 1000 },
                { "s", 1000000 },
                { "sec", 1000000 },
                { "min", 60000000 },
                { "h", 3600000000ULL },
                { "d", 86400000000ULL },
        };
        return parse_with_units(s, units, ELEMENTSOF(units), ret_usec);
}

int parse_size(const char *s, uint64_t *ret)
{
        static const Unit units[] = {
                { "", 1 },
                { "B", 1 },
                { "K", 1024 },
                { "M", 1024 * 1024 },
                { "G", 1024 * 1024 * 1024 },
        };
        return parse_with_units(s, units, ELEMENTSOF(units), ret);
}
