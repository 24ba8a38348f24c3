/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <sys/sysmacros.h>

#include "drm-fdinfo.h"
#include "string-util.h"

/* A piece of the input: not NUL-terminated, may contain NUL bytes. */
typedef struct Span {
        const char *p;
        size_t n;
} Span;

typedef enum KeyType {
        KEY_DRIVER,
        KEY_PDEV,
        KEY_CLIENT_ID,
        KEY_CLIENT_NAME,
        KEY_ENGINE,
        KEY_CAPACITY,
        KEY_CYCLES,
        KEY_TOTAL_CYCLES,
        KEY_MAXFREQ,
        KEY_MEM_TOTAL,
        KEY_MEM_SHARED,
        KEY_MEM_RESIDENT,
        KEY_MEM_PURGEABLE,
        KEY_MEM_ACTIVE,
        KEY_MEM_LEGACY,
        KEY_EXTRA,
} KeyType;

static const struct {
        const char *key;
        KeyType type;
} exact_keys[] = {
        { "drm-driver", KEY_DRIVER },
        { "drm-pdev", KEY_PDEV },
        { "drm-client-id", KEY_CLIENT_ID },
        { "drm-client-name", KEY_CLIENT_NAME },
};

/* Longer prefixes first: "drm-engine-capacity-X" is X's capacity, not engine "capacity-X", and
 * "drm-total-cycles-X" is X's cycle timestamp, not memory region "cycles-X". */
static const struct {
        const char *prefix;
        KeyType type;
} prefix_keys[] = {
        { "drm-engine-capacity-", KEY_CAPACITY },
        { "drm-engine-", KEY_ENGINE },
        { "drm-total-cycles-", KEY_TOTAL_CYCLES },
        { "drm-cycles-", KEY_CYCLES },
        { "drm-maxfreq-", KEY_MAXFREQ },
        { "drm-total-", KEY_MEM_TOTAL },
        { "drm-shared-", KEY_MEM_SHARED },
        { "drm-resident-", KEY_MEM_RESIDENT },
        { "drm-purgeable-", KEY_MEM_PURGEABLE },
        { "drm-active-", KEY_MEM_ACTIVE },
        { "drm-memory-", KEY_MEM_LEGACY },
};

/* fs/proc/fd.c prints these for every file; they say nothing about a GPU. */
static const char *const header_keys[] = { "pos", "flags", "mnt_id", "ino", "lock" };

static bool span_eq(Span s, const char *str)
{
        size_t n;

        /* Most comparisons differ in the first byte (units, header keys): no strlen() for those. */
        if (s.n == 0 || str[0] == '\0')
                return s.n == 0 && str[0] == '\0';
        if (s.p[0] != str[0])
                return false;
        n = strlen(str);
        return s.n == n && memcmp(s.p, str, n) == 0;
}

static bool span_startswith(Span s, const char *prefix)
{
        size_t n = strlen(prefix);
        return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static bool key_is_valid(Span key)
{
        if (key.n == 0)
                return false;
        for (size_t i = 0; i < key.n; i++) {
                unsigned char c = (unsigned char) key.p[i];
                if (c <= ' ' || c >= 0x7f)
                        return false;
        }
        return true;
}

static bool string_is_valid(Span v)
{
        return !memchr(v.p, '\0', v.n) && utf8_is_valid_n(v.p, v.n);
}

static void span_copy(char *dest, Span s)
{
        memcpy(dest, s.p, s.n);
        dest[s.n] = '\0';
}

/* Decimal digits, then optionally blanks and a unit that holds no blank. Returns 0, -EINVAL when it
 * does not start with a digit, -EBADMSG for anything else after the digits, -ERANGE beyond 64 bits. */
static int parse_number(Span v, uint64_t *ret, Span *ret_unit)
{
        uint64_t x = 0;
        size_t i = 0;

        if (v.n == 0 || v.p[0] < '0' || v.p[0] > '9')
                return -EINVAL;
        for (; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++)
                if (__builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, (uint64_t) (v.p[i] - '0'), &x))
                        return -ERANGE;

        if (i < v.n) {
                if (!is_blank(v.p[i]))
                        return -EBADMSG;
                while (i < v.n && is_blank(v.p[i]))
                        i++;
                for (size_t j = i; j < v.n; j++)
                        if (is_blank(v.p[j]))
                                return -EBADMSG;
        }

        *ret = x;
        *ret_unit = (Span){ v.p + i, v.n - i };
        return 0;
}

typedef struct Unit {
        const char *name;
        uint64_t factor;
} Unit;

static const Unit units_none[] = { { "", 1 } };
static const Unit units_ns[] = { { "", 1 }, { "ns", 1 } };
static const Unit units_hz[] = { { "", 1 }, { "Hz", 1 }, { "KHz", 1000 }, { "kHz", 1000 }, { "MHz", 1000000 } };
static const Unit units_bytes[] = {
        { "", 1 },
        { "KiB", UINT64_C(1) << 10 },
        { "MiB", UINT64_C(1) << 20 },
        { "GiB", UINT64_C(1) << 30 },
};

/* Returns NULL or the reason the value is rejected. */
static const char *parse_value(Span v, const Unit *units, size_t n_units, const char *unit_reason, uint64_t *ret)
{
        uint64_t x;
        Span unit;
        int r;

        r = parse_number(v, &x, &unit);
        if (r == -ERANGE)
                return "number beyond 64 bits";
        if (r == -EBADMSG)
                return "garbage after the number";
        if (r < 0)
                return v.n == 0 ? "empty value" : "not a number";

        for (size_t i = 0; i < n_units; i++) {
                if (!span_eq(unit, units[i].name))
                        continue;
                if (__builtin_mul_overflow(x, units[i].factor, ret))
                        return "value with its unit beyond 64 bits";
                return NULL;
        }
        return unit_reason;
}

static bool is_hex(char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "dddd:bb:dd.f" as the PCI core prints it (pci_name()): domain 4 to 8 hex digits. */
static bool pdev_is_valid(Span v)
{
        size_t i = 0, n;

        for (n = 0; i < v.n && is_hex(v.p[i]); i++, n++)
                ;
        if (n < 4 || n > 8 || i >= v.n || v.p[i++] != ':')
                return false;
        for (unsigned part = 0; part < 2; part++) {
                if (i + 3 > v.n || !is_hex(v.p[i]) || !is_hex(v.p[i + 1]) || v.p[i + 2] != (part == 0 ? ':' : '.'))
                        return false;
                i += 3;
        }
        return i + 1 == v.n && v.p[i] >= '0' && v.p[i] <= '7';
}

/* What drm_fdinfo_reparse() does with a line. */
typedef enum SlotKind {
        SLOT_SAME, /* the line must be the same */
        SLOT_ANY_VALUE, /* the key (and the blanks after ':') must be the same, the value does not count */
        SLOT_NUMBER, /* the same key, its value parsed into target */
} SlotKind;

typedef enum SlotBase {
        SLOT_BASE_FDINFO,
        SLOT_BASE_ENGINES,
        SLOT_BASE_REGIONS,
} SlotBase;

typedef struct LayoutSlot {
        uint32_t off, len; /* the line in layout->text, trailing blanks removed */
        uint32_t value_off; /* SLOT_ANY_VALUE, SLOT_NUMBER: where the value starts in the line */
        SlotKind kind;
        KeyType type; /* SLOT_NUMBER: the key's, which says the units */
        SlotBase base; /* SLOT_NUMBER: target is base + field_off, resolved when the parse is done */
        size_t field_off;
        uint64_t *target;
} LayoutSlot;

typedef struct DrmFdinfoLayout {
        char *text;
        LayoutSlot *slots;
        size_t n_slots, allocated_slots;
} DrmFdinfoLayout;

/* Files larger than this are parsed in full each time (no such fdinfo is known: they are ~1 KiB). */
#define LAYOUT_TEXT_MAX (16u * 1024u)

typedef struct Parser {
        DrmFdinfo *f;
        DrmFdinfoParseFlags flags;
        LayoutSlot slot; /* the current line's, when keeping the layout */
        KeyType type; /* the current drm- key's */
        size_t allocated_engines, allocated_regions, allocated_extras, allocated_rejects;
        unsigned line;
        bool saw_other; /* a line that is neither the generic header nor drm- */
        bool has_driver;
} Parser;

static int add_reject(Parser *p, Span key, const char *reason)
{
        DrmFdinfo *f = p->f;
        DrmFdinfoReject *x;

        if (f->n_rejects >= DRM_FDINFO_REJECTS_MAX) {
                f->n_rejects_dropped++;
                return 0;
        }
        if (GREEDY_REALLOC(f->rejects, p->allocated_rejects, f->n_rejects + 1) < 0)
                return -ENOMEM;

        x = &f->rejects[f->n_rejects++];
        *x = (DrmFdinfoReject){ .line = p->line, .reason = reason, .key_cut = key.n > DRM_FDINFO_REJECT_KEY_MAX };
        span_copy(x->key, (Span){ key.p, MIN(key.n, (size_t) DRM_FDINFO_REJECT_KEY_MAX) });
        return 0;
}

static DrmFdinfoEngine *find_engine_span(DrmFdinfo *f, Span name)
{
        for (size_t i = 0; i < f->n_engines; i++)
                if (span_eq(name, f->engines[i].name))
                        return &f->engines[i];
        return NULL;
}

static DrmFdinfoRegion *find_region_span(DrmFdinfo *f, Span name)
{
        for (size_t i = 0; i < f->n_regions; i++)
                if (span_eq(name, f->regions[i].name))
                        return &f->regions[i];
        return NULL;
}

/* Returns 0 with *ret NULL when the bound is reached (counted), -ENOMEM, or 0 with the engine. */
static int get_engine(Parser *p, Span name, DrmFdinfoEngine **ret)
{
        DrmFdinfo *f = p->f;
        DrmFdinfoEngine *e;

        e = find_engine_span(f, name);
        if (!e) {
                if (f->n_engines >= DRM_FDINFO_ENGINES_MAX) {
                        f->n_engines_dropped++;
                        *ret = NULL;
                        return 0;
                }
                if (GREEDY_REALLOC(f->engines, p->allocated_engines, f->n_engines + 1) < 0)
                        return -ENOMEM;
                e = &f->engines[f->n_engines++];
                *e = (DrmFdinfoEngine){ .capacity = 1 };
                span_copy(e->name, name);
        }
        *ret = e;
        return 0;
}

static int get_region(Parser *p, Span name, DrmFdinfoRegion **ret)
{
        DrmFdinfo *f = p->f;
        DrmFdinfoRegion *r;

        r = find_region_span(f, name);
        if (!r) {
                if (f->n_regions >= DRM_FDINFO_REGIONS_MAX) {
                        f->n_regions_dropped++;
                        *ret = NULL;
                        return 0;
                }
                if (GREEDY_REALLOC(f->regions, p->allocated_regions, f->n_regions + 1) < 0)
                        return -ENOMEM;
                r = &f->regions[f->n_regions++];
                *r = (DrmFdinfoRegion){ .has_legacy = false };
                span_copy(r->name, name);
        }
        *ret = r;
        return 0;
}

static void set_u64(Parser *p, uint64_t *field, bool *has, uint64_t value)
{
        DrmFdinfo *f = p->f;
        const char *at = (const char *) field;

        if (*has)
                f->n_duplicates++;
        *field = value;
        *has = true;

        /* Where the value went, relative to its array: the arrays may still move. */
        p->slot.kind = SLOT_NUMBER;
        p->slot.type = p->type;
        if (at >= (const char *) f && at < (const char *) (f + 1)) {
                p->slot.base = SLOT_BASE_FDINFO;
                p->slot.field_off = (size_t) (at - (const char *) f);
        } else if (f->engines && at >= (const char *) f->engines && at < (const char *) (f->engines + f->n_engines)) {
                p->slot.base = SLOT_BASE_ENGINES;
                p->slot.field_off = (size_t) (at - (const char *) f->engines);
        } else {
                assert(f->regions && at >= (const char *) f->regions &&
                                at < (const char *) (f->regions + f->n_regions));
                p->slot.base = SLOT_BASE_REGIONS;
                p->slot.field_off = (size_t) (at - (const char *) f->regions);
        }
}

static int add_extra(Parser *p, Span key, Span value)
{
        DrmFdinfo *f = p->f;
        _cleanup_free_ char *k = NULL, *v = NULL;

        if (p->flags & DRM_FDINFO_PARSE_NO_EXTRAS)
                return 0;
        if (key.n > DRM_FDINFO_EXTRA_KEY_MAX || value.n > DRM_FDINFO_EXTRA_VALUE_MAX || !string_is_valid(value)) {
                f->n_extras_dropped++;
                return 0;
        }

        v = strndup(value.p, value.n);
        if (!v)
                return -ENOMEM;

        for (size_t i = 0; i < f->n_extras; i++)
                if (span_eq(key, f->extras[i].key)) {
                        free(f->extras[i].value);
                        f->extras[i].value = TAKE_PTR(v);
                        f->extras[i].line = p->line;
                        f->n_duplicates++;
                        return 0;
                }

        if (f->n_extras >= DRM_FDINFO_EXTRAS_MAX) {
                f->n_extras_dropped++;
                return 0;
        }
        k = strndup(key.p, key.n);
        if (!k)
                return -ENOMEM;
        if (GREEDY_REALLOC(f->extras, p->allocated_extras, f->n_extras + 1) < 0)
                return -ENOMEM;
        f->extras[f->n_extras++] = (DrmFdinfoExtra){ .key = TAKE_PTR(k), .value = TAKE_PTR(v), .line = p->line };
        return 0;
}

/* A string key: returns NULL or the reason it is rejected. */
static const char *parse_string(Span v, size_t max)
{
        if (v.n == 0)
                return "empty value";
        if (v.n > max)
                return "value too long";
        if (!string_is_valid(v))
                return "NUL byte or invalid UTF-8";
        return NULL;
}

static const char *parse_typed_value(KeyType type, Span v, uint64_t *ret);

static int parse_string_key(Parser *p, Span key, KeyType type, Span v)
{
        DrmFdinfo *f = p->f;
        const char *reason;
        uint64_t x;

        switch (type) {
        case KEY_DRIVER:
                reason = parse_string(v, DRM_FDINFO_DRIVER_MAX);
                if (reason)
                        return add_reject(p, key, reason);
                if (p->has_driver)
                        f->n_duplicates++;
                span_copy(f->driver, v);
                p->has_driver = true;
                return 0;
        case KEY_PDEV:
                reason = parse_string(v, DRM_FDINFO_PDEV_MAX);
                if (!reason && !pdev_is_valid(v))
                        reason = "not a PCI slot (dddd:bb:dd.f)";
                if (reason)
                        return add_reject(p, key, reason);
                if (f->has_pdev)
                        f->n_duplicates++;
                span_copy(f->pdev, v);
                f->has_pdev = true;
                return 0;
        case KEY_CLIENT_NAME:
                reason = parse_string(v, DRM_FDINFO_CLIENT_NAME_MAX);
                if (reason)
                        return add_reject(p, key, reason);
                if (f->has_client_name)
                        f->n_duplicates++;
                span_copy(f->client_name, v);
                f->has_client_name = true;
                return 0;
        case KEY_CLIENT_ID:
                reason = parse_typed_value(KEY_CLIENT_ID, v, &x);
                if (reason)
                        return add_reject(p, key, reason);
                set_u64(p, &f->client_id, &f->has_client_id, x);
                return 0;
        case KEY_ENGINE:
        case KEY_CAPACITY:
        case KEY_CYCLES:
        case KEY_TOTAL_CYCLES:
        case KEY_MAXFREQ:
        case KEY_MEM_TOTAL:
        case KEY_MEM_SHARED:
        case KEY_MEM_RESIDENT:
        case KEY_MEM_PURGEABLE:
        case KEY_MEM_ACTIVE:
        case KEY_MEM_LEGACY:
        case KEY_EXTRA:
                break;
        }
        assert_not_reached();
}

static const char *parse_engine_value(KeyType type, Span v, uint64_t *ret)
{
        const char *reason;

        if (type == KEY_ENGINE)
                return parse_value(v, units_ns, ELEMENTSOF(units_ns), "unknown unit (expected ns)", ret);
        if (type == KEY_MAXFREQ)
                return parse_value(v, units_hz, ELEMENTSOF(units_hz), "unknown unit (expected Hz, KHz or MHz)", ret);

        reason = parse_value(v, units_none, ELEMENTSOF(units_none), "unexpected unit", ret);
        /* A capacity of 0 would divide by zero later; the spec forbids it. */
        if (!reason && type == KEY_CAPACITY && *ret == 0)
                return "capacity 0 (the spec does not allow it)";
        return reason;
}

/* A numeric key's value, by its type: NULL or the reason it is rejected. */
static const char *parse_typed_value(KeyType type, Span v, uint64_t *ret)
{
        if (type == KEY_CLIENT_ID)
                return parse_value(v, units_none, ELEMENTSOF(units_none), "unexpected unit", ret);
        if (type >= KEY_MEM_TOTAL && type <= KEY_MEM_LEGACY)
                return parse_value(v, units_bytes, ELEMENTSOF(units_bytes), "unknown unit (expected KiB, MiB or none)",
                                ret);
        assert(type >= KEY_ENGINE && type <= KEY_MAXFREQ);
        return parse_engine_value(type, v, ret);
}

static int parse_engine_key(Parser *p, Span key, KeyType type, Span name, Span v)
{
        DrmFdinfoEngine *e;
        const char *reason;
        uint64_t x;
        int r;

        reason = parse_engine_value(type, v, &x);
        if (reason)
                return add_reject(p, key, reason);

        r = get_engine(p, name, &e);
        if (r < 0 || !e)
                return r;

        if (type == KEY_ENGINE)
                set_u64(p, &e->busy_ns, &e->has_busy_ns, x);
        else if (type == KEY_CAPACITY)
                set_u64(p, &e->capacity, &e->has_capacity, x);
        else if (type == KEY_CYCLES)
                set_u64(p, &e->cycles, &e->has_cycles, x);
        else if (type == KEY_TOTAL_CYCLES)
                set_u64(p, &e->total_cycles, &e->has_total_cycles, x);
        else if (type == KEY_MAXFREQ)
                set_u64(p, &e->maxfreq_hz, &e->has_maxfreq, x);
        else
                assert_not_reached();
        return 0;
}

static int parse_region_key(Parser *p, Span key, KeyType type, Span name, Span v)
{
        DrmFdinfoRegion *region;
        const char *reason;
        uint64_t x;
        int r;

        reason = parse_typed_value(type, v, &x);
        if (reason)
                return add_reject(p, key, reason);

        r = get_region(p, name, &region);
        if (r < 0 || !region)
                return r;

        if (type == KEY_MEM_LEGACY) {
                set_u64(p, &region->legacy_bytes, &region->has_legacy, x);
                return 0;
        }

        assert(type >= KEY_MEM_TOTAL && type <= KEY_MEM_ACTIVE);
        DrmFdinfoMemStat s = (DrmFdinfoMemStat) (type - KEY_MEM_TOTAL);
        set_u64(p, &region->bytes[s], &region->has[s], x);
        return 0;
}

/* key starts with "drm-", as every key of both tables does: the character after it rules out most
 * entries before any comparison (the sampler parses every client's file every sample). */
static int parse_drm_key(Parser *p, Span key, Span v)
{
        char c = key.n > 4 ? key.p[4] : '\0';

        for (size_t i = 0; i < ELEMENTSOF(exact_keys); i++)
                if (exact_keys[i].key[4] == c && span_eq(key, exact_keys[i].key)) {
                        p->type = exact_keys[i].type;
                        return parse_string_key(p, key, exact_keys[i].type, v);
                }

        for (size_t i = 0; i < ELEMENTSOF(prefix_keys); i++) {
                KeyType type = prefix_keys[i].type;
                size_t n;
                Span name;

                if (prefix_keys[i].prefix[4] != c || !span_startswith(key, prefix_keys[i].prefix))
                        continue;
                n = strlen(prefix_keys[i].prefix);
                p->type = type;

                name = (Span){ key.p + n, key.n - n };
                if (name.n == 0)
                        return add_reject(p, key, "no engine or region name after the prefix");
                if (name.n > DRM_FDINFO_NAME_MAX)
                        return add_reject(p, key, "engine or region name too long");

                if (type >= KEY_MEM_TOTAL && type <= KEY_MEM_LEGACY)
                        return parse_region_key(p, key, type, name, v);
                return parse_engine_key(p, key, type, name, v);
        }

        /* drm-curfreq-*, drm-internal-*, and whatever the kernel adds next. */
        return add_extra(p, key, v);
}

static size_t trimmed_length(Span line)
{
        while (line.n > 0 && (is_blank(line.p[line.n - 1]) || line.p[line.n - 1] == '\r'))
                line.n--;
        return line.n;
}

static int parse_line(Parser *p, Span line)
{
        DrmFdinfo *f = p->f;
        const char *colon;
        Span key, v;
        bool drm;

        line.n = trimmed_length(line);
        p->slot.len = (uint32_t) line.n;
        if (line.n == 0)
                return 0;

        drm = span_startswith(line, "drm-");
        if (drm)
                f->n_drm_keys++;

        colon = memchr(line.p, ':', line.n);
        if (!colon) {
                if (drm)
                        return add_reject(p, line, "no ':' after the key");
                f->n_lines_ignored++;
                p->saw_other = true;
                return 0;
        }

        key = (Span){ line.p, (size_t) (colon - line.p) };
        v = (Span){ colon + 1, line.n - key.n - 1 };
        while (v.n > 0 && is_blank(v.p[0])) {
                v.p++;
                v.n--;
        }
        p->slot.value_off = (uint32_t) (v.p - line.p);

        if (!key_is_valid(key)) {
                if (drm)
                        return add_reject(p, key, "blank or control character in the key");
                f->n_lines_ignored++;
                p->saw_other = true;
                return 0;
        }

        if (drm)
                return parse_drm_key(p, key, v);

        for (size_t i = 0; i < ELEMENTSOF(header_keys); i++)
                if (span_eq(key, header_keys[i])) {
                        p->slot.kind = SLOT_ANY_VALUE;
                        return 0;
                }

        p->saw_other = true;
        return add_extra(p, key, v);
}

/* drm-memory-<r> counts as resident where drm-resident-<r> is absent. */
static void apply_legacy(DrmFdinfo *f)
{
        for (size_t i = 0; i < f->n_regions; i++) {
                DrmFdinfoRegion *region = &f->regions[i];

                if (region->has_legacy && (!region->has[DRM_FDINFO_MEM_RESIDENT] || region->resident_from_legacy)) {
                        region->bytes[DRM_FDINFO_MEM_RESIDENT] = region->legacy_bytes;
                        region->has[DRM_FDINFO_MEM_RESIDENT] = true;
                        region->resident_from_legacy = true;
                }
        }
}

int drm_fdinfo_reparse(DrmFdinfo *f, const char *text, size_t size)
{
        const DrmFdinfoLayout *l;
        const char *s = text, *end = text + size;

        assert(f);
        assert(text || size == 0);

        l = f->layout;
        if (!l)
                return 0;
        for (size_t i = 0; i < l->n_slots; i++) {
                const LayoutSlot *slot = &l->slots[i];
                const char *nl, *old = l->text + slot->off;
                size_t n;
                uint64_t x;

                if (s >= end)
                        return 0;
                nl = memchr(s, '\n', (size_t) (end - s));
                n = trimmed_length((Span){ s, (size_t) ((nl ? nl : end) - s) });

                if (slot->kind == SLOT_SAME) {
                        if (n != slot->len || memcmp(s, old, n) != 0)
                                return 0;
                } else {
                        if (n < slot->value_off || memcmp(s, old, slot->value_off) != 0)
                                return 0;
                        if (slot->kind == SLOT_NUMBER) {
                                if (parse_typed_value(
                                                    slot->type, (Span){ s + slot->value_off, n - slot->value_off }, &x))
                                        return 0;
                                *slot->target = x;
                        }
                }
                s = nl ? nl + 1 : end;
        }
        if (s < end)
                return 0;
        apply_legacy(f);
        return 1;
}

int drm_fdinfo_parse(const char *text, size_t size, DrmFdinfoParseFlags flags, DrmFdinfo **ret)
{
        _cleanup_(drm_fdinfo_freep) DrmFdinfo *f = NULL;
        const char *end = text + size;
        Parser p;
        int r;

        assert(text || size == 0);
        assert(ret);

        f = calloc(1, sizeof(DrmFdinfo));
        if (!f)
                return -ENOMEM;
        p = (Parser){ .f = f, .flags = flags };
        if ((flags & DRM_FDINFO_PARSE_KEEP_LAYOUT) && size <= LAYOUT_TEXT_MAX) {
                f->layout = calloc(1, sizeof(DrmFdinfoLayout));
                if (!f->layout)
                        return -ENOMEM;
                f->layout->text = malloc(MAX(size, (size_t) 1));
                if (!f->layout->text)
                        return -ENOMEM;
                if (size > 0)
                        memcpy(f->layout->text, text, size);
        }

        for (const char *s = text; s && s < end;) {
                const char *nl = memchr(s, '\n', (size_t) (end - s));
                const char *line_end = nl ? nl : end;

                p.line++;
                p.slot = (LayoutSlot){ .off = (uint32_t) (s - text), .kind = SLOT_SAME };
                r = parse_line(&p, (Span){ s, (size_t) (line_end - s) });
                if (r < 0)
                        return r;
                if (f->layout) {
                        DrmFdinfoLayout *l = f->layout;

                        if (GREEDY_REALLOC(l->slots, l->allocated_slots, l->n_slots + 1) < 0)
                                return -ENOMEM;
                        l->slots[l->n_slots++] = p.slot;
                }
                s = nl ? nl + 1 : end;
        }
        f->n_lines = p.line;

        apply_legacy(f);
        if (f->layout)
                /* The arrays are where they stay now. */
                for (size_t i = 0; i < f->layout->n_slots; i++) {
                        LayoutSlot *slot = &f->layout->slots[i];
                        char *base = slot->base == SLOT_BASE_ENGINES      ? (char *) f->engines
                                        : slot->base == SLOT_BASE_REGIONS ? (char *) f->regions
                                                                          : (char *) f;

                        if (slot->kind == SLOT_NUMBER)
                                slot->target = (uint64_t *) (void *) (base + slot->field_off);
                }

        if (p.has_driver)
                f->kind = DRM_FDINFO_USAGE;
        else if (p.saw_other || f->n_drm_keys > 0)
                f->kind = DRM_FDINFO_NOT_DRM;
        else
                f->kind = DRM_FDINFO_NO_STATS;

        *ret = TAKE_PTR(f);
        return 0;
}

DrmFdinfo *drm_fdinfo_free(DrmFdinfo *f)
{
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n_extras; i++) {
                free(f->extras[i].key);
                free(f->extras[i].value);
        }
        free(f->extras);
        free(f->engines);
        free(f->regions);
        free(f->rejects);
        if (f->layout) {
                free(f->layout->text);
                free(f->layout->slots);
                free(f->layout);
        }
        return mfree(f);
}

const DrmFdinfoEngine *drm_fdinfo_find_engine(const DrmFdinfo *f, const char *name)
{
        assert(f);
        assert(name);
        for (size_t i = 0; i < f->n_engines; i++)
                if (streq(f->engines[i].name, name))
                        return &f->engines[i];
        return NULL;
}

const DrmFdinfoRegion *drm_fdinfo_find_region(const DrmFdinfo *f, const char *name)
{
        assert(f);
        assert(name);
        for (size_t i = 0; i < f->n_regions; i++)
                if (streq(f->regions[i].name, name))
                        return &f->regions[i];
        return NULL;
}

const DrmFdinfoExtra *drm_fdinfo_find_extra(const DrmFdinfo *f, const char *key)
{
        assert(f);
        assert(key);
        for (size_t i = 0; i < f->n_extras; i++)
                if (streq(f->extras[i].key, key))
                        return &f->extras[i];
        return NULL;
}

const DrmFdinfoReject *drm_fdinfo_find_reject(const DrmFdinfo *f, const char *key)
{
        assert(f);
        assert(key);
        for (size_t i = 0; i < f->n_rejects; i++)
                if (streq(f->rejects[i].key, key))
                        return &f->rejects[i];
        return NULL;
}

const char *drm_fdinfo_kind_to_string(DrmFdinfoKind k)
{
        switch (k) {
        case DRM_FDINFO_USAGE:
                return "DRM usage";
        case DRM_FDINFO_NO_STATS:
                return "no stats";
        case DRM_FDINFO_NOT_DRM:
                return "not DRM usage";
        case _DRM_FDINFO_KIND_MAX:
                break;
        }
        return NULL;
}

const char *drm_fdinfo_mem_stat_to_string(DrmFdinfoMemStat s)
{
        switch (s) {
        case DRM_FDINFO_MEM_TOTAL:
                return "total";
        case DRM_FDINFO_MEM_SHARED:
                return "shared";
        case DRM_FDINFO_MEM_RESIDENT:
                return "resident";
        case DRM_FDINFO_MEM_PURGEABLE:
                return "purgeable";
        case DRM_FDINFO_MEM_ACTIVE:
                return "active";
        case _DRM_FDINFO_MEM_MAX:
                break;
        }
        return NULL;
}

DrmNodeType drm_node_type(const struct stat *st, unsigned drm_major, unsigned accel_major)
{
        assert(st);

        if (!S_ISCHR(st->st_mode))
                return DRM_NODE_NONE;
        if (major(st->st_rdev) == drm_major)
                return DRM_NODE_DRM;
        if (major(st->st_rdev) == accel_major)
                return DRM_NODE_ACCEL;
        return DRM_NODE_NONE;
}
