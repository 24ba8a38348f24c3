/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "json-util.h"
#include "report-document.h"
#include "report-json.h"

#define DOCUMENT_JSON_DEPTH_MAX 32 /* the schema nests 8 deep */
/* json-c's tree of a document takes 10 to 16 times its text (measured over the corpus reports). */
#define DOCUMENT_TREE_BYTES_PER_TEXT_BYTE 16u

DEFINE_TRIVIAL_CLEANUP_FUNC(json_tokener *, json_tokener_free);

struct NcuReportDocument {
        char *text; /* the worker's stream, every line's newline turned into a NUL */
        size_t text_size;
        struct json_object *header;
        size_t header_size; /* bytes of the header's line */
        size_t n_ranges;
        size_t *range_start; /* n_ranges + 1: the index of each range's first action, then n_actions */
        size_t n_actions;
        NcuDocumentAction *actions;
        size_t max_action_size;
        Arena arena; /* what is kept of each action */
        struct json_object *cached; /* the action parsed last */
        size_t cached_index;
};

NcuReportDocument *ncu_report_document_free(NcuReportDocument *d)
{
        if (!d)
                return NULL;
        free(d->text);
        json_object_put(d->header);
        free(d->range_start);
        free(d->actions);
        arena_done(&d->arena);
        json_object_put(d->cached);
        return mfree(d);
}

static struct json_object *get(struct json_object *o, const char *key)
{
        struct json_object *v = NULL;

        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *string_member(struct json_object *o, const char *key)
{
        struct json_object *v = get(o, key);

        return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool is_array(struct json_object *o, const char *key, struct json_object **ret)
{
        struct json_object *v = get(o, key);

        if (!json_object_is_type(v, json_type_array))
                return false;
        *ret = v;
        return true;
}

int ncu_report_header_validate(struct json_object *header, const char **ret_message)
{
        struct json_object *v = get(header, "schema_version");

        if (!json_object_is_type(header, json_type_object) ||
                        !streq_ptr(string_member(header, "schema"), NCU_REPORT_JSON_SCHEMA) ||
                        !json_object_is_type(v, json_type_int) || json_object_get_int(v) != NCU_REPORT_JSON_VERSION) {
                *ret_message = "the report worker returned a document of another schema";
                return -EBADMSG;
        }
        return 0;
}

int ncu_report_action_validate(struct json_object *action, const char **ret_message)
{
        struct json_object *metrics, *v;

        if (!json_object_is_type(action, json_type_object) || !is_array(action, "metrics", &metrics) ||
                        !is_array(action, "rule_results", &v)) {
                *ret_message = "the report worker returned a malformed action";
                return -EBADMSG;
        }
        for (size_t k = 0; k < json_array_length(metrics); k++) {
                struct json_object *m = json_array_get(metrics, k);
                if (!string_member(m, "name") || !string_member(m, "kind")) {
                        *ret_message = "the report worker returned a malformed metric";
                        return -EBADMSG;
                }
        }
        return 0;
}

int ncu_report_document_validate(struct json_object *doc, const char **ret_message)
{
        struct json_object *ranges;
        int r;

        r = ncu_report_header_validate(doc, ret_message);
        if (r < 0)
                return r;
        if (!is_array(doc, "ranges", &ranges)) {
                *ret_message = "the report worker returned no ranges";
                return -EBADMSG;
        }
        for (size_t i = 0; i < json_array_length(ranges); i++) {
                struct json_object *actions;

                if (!is_array(json_array_get(ranges, i), "actions", &actions)) {
                        *ret_message = "the report worker returned a range without actions";
                        return -EBADMSG;
                }
                for (size_t j = 0; j < json_array_length(actions); j++) {
                        r = ncu_report_action_validate(json_array_get(actions, j), ret_message);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* One line of the stream as JSON: NULL when it is not exactly one JSON value. */
static struct json_object *parse_line(const char *p, size_t n)
{
        _cleanup_(json_tokener_freep) json_tokener *tok = json_tokener_new_ex(DOCUMENT_JSON_DEPTH_MAX);
        struct json_object *o;

        if (!tok || n > INT32_MAX)
                return NULL;
        o = json_tokener_parse_ex(tok, p, (int) n);
        if (o && json_tokener_get_parse_end(tok) != n) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

static const char *keep_string(Arena *arena, struct json_object *o, const char *key, bool *oom)
{
        const char *s = string_member(o, key);
        char *c = arena_strdup(arena, strempty(s));

        if (!c)
                *oom = true;
        return c ? c : "";
}

/* The NVTX state of an action, rebuilt from the document's "nvtx" into arena: names are all the selector
 * needs. NULL when the action has none (or on ENOMEM: *oom). */
static const NcuNvtxState *keep_nvtx(Arena *arena, struct json_object *nvtx, bool *oom)
{
        struct json_object *domains = get(nvtx, "domains"), *dd;
        NcuNvtxState *st;
        NcuNvtxDomain *d;
        size_t n;

        if (!nvtx)
                return NULL;
        st = arena_alloc(arena, sizeof(NcuNvtxState));
        n = json_array_length(domains);
        d = arena_alloc_array(arena, MAX(n, (size_t) 1), sizeof(NcuNvtxDomain));
        if (!st || !d) {
                *oom = true;
                return NULL;
        }
        dd = get(nvtx, "default_domain");
        st->has_default_domain = dd != NULL;
        st->default_domain = json_object_get_uint64(dd);
        for (size_t i = 0; i < n; i++) {
                struct json_object *x = json_array_get(domains, i);
                struct json_object *lists[2] = { get(x, "push_pop"), get(x, "start_end") };

                d[i].id = json_object_get_uint64(get(x, "id"));
                d[i].name = keep_string(arena, x, "name", oom);
                for (size_t k = 0; k < 2; k++) {
                        size_t m = json_array_length(lists[k]);
                        NcuNvtxRange *ranges = arena_alloc_array(arena, MAX(m, (size_t) 1), sizeof(NcuNvtxRange));
                        if (!ranges) {
                                *oom = true;
                                return NULL;
                        }
                        for (size_t j = 0; j < m; j++)
                                ranges[j].name = keep_string(arena, json_array_get(lists[k], j), "name", oom);
                        if (k == 0) {
                                d[i].push_pop = ranges;
                                d[i].n_push_pop = m;
                        } else {
                                d[i].start_end = ranges;
                                d[i].n_start_end = m;
                        }
                }
        }
        st->domains = d;
        st->n_domains = n;
        return st;
}

static void keep_uint3(struct json_object *a, uint64_t ret[3])
{
        for (size_t i = 0; i < 3; i++)
                ret[i] = json_object_get_uint64(json_array_get(a, i));
}

/* What ListActions and ActionsByNvtx read of an action, kept. */
static int keep_action(NcuReportDocument *d, struct json_object *o, NcuDocumentAction *a)
{
        struct json_object *duration = get(o, "duration_ns");
        bool oom = false;

        a->workload_type = keep_string(&d->arena, o, "workload_type", &oom);
        a->name = keep_string(&d->arena, o, "name", &oom);
        a->demangled = keep_string(&d->arena, o, "demangled", &oom);
        a->mangled = keep_string(&d->arena, o, "mangled", &oom);
        keep_uint3(get(o, "grid"), a->grid);
        keep_uint3(get(o, "block"), a->block);
        a->duration_ns = duration ? json_object_get_double(duration) : -1.0;
        a->nvtx = keep_nvtx(&d->arena, get(o, "nvtx"), &oom);
        return oom ? -ENOMEM : 0;
}

/* The next line of the stream at *pos: its start and length, its newline made a NUL. false at the end, or
 * when the last line has no newline. */
static bool next_line(char *text, size_t size, size_t *pos, char **ret, size_t *ret_size)
{
        char *nl;

        if (*pos >= size)
                return false;
        nl = memchr(text + *pos, '\n', size - *pos);
        if (!nl)
                return false;
        *nl = '\0';
        *ret = text + *pos;
        *ret_size = (size_t) (nl - (text + *pos));
        *pos = (size_t) (nl - text) + 1;
        return true;
}

static int read_range_sizes(NcuReportDocument *d, char *line, size_t n, const char **ret_message)
{
        struct json_object *sizes = parse_line(line, n);
        size_t total = 0;

        if (!json_object_is_type(sizes, json_type_array)) {
                json_object_put(sizes);
                *ret_message = "the report worker returned no range sizes";
                return -EBADMSG;
        }
        d->n_ranges = json_array_length(sizes);
        d->range_start = calloc(d->n_ranges + 1, sizeof(size_t));
        if (!d->range_start) {
                json_object_put(sizes);
                return -ENOMEM;
        }
        for (size_t i = 0; i < d->n_ranges; i++) {
                struct json_object *v = json_array_get(sizes, i);
                int64_t k = json_object_get_int64(v);

                /* Each action takes a line of at least "{}": no more than the text can hold. */
                if (!json_object_is_type(v, json_type_int) || k < 0 || (uint64_t) k > d->text_size / 3 - total) {
                        json_object_put(sizes);
                        *ret_message = "the report worker returned bad range sizes";
                        return -EBADMSG;
                }
                d->range_start[i] = total;
                total += (size_t) k;
        }
        d->range_start[d->n_ranges] = total;
        d->n_actions = total;
        json_object_put(sizes);
        return 0;
}

int ncu_report_document_new(char *buf, size_t size, NcuReportDocument **ret, const char **ret_message)
{
        _cleanup_(ncu_report_document_freep) NcuReportDocument *d = NULL;
        char *line;
        size_t pos = 0, n;
        int r;

        assert(ret && ret_message);
        d = calloc(1, sizeof(NcuReportDocument));
        if (!d) {
                free(buf);
                return -ENOMEM;
        }
        /* The reader grew buf by doubling: what it holds beyond size would be kept for nothing. */
        d->text = buf;
        {
                char *shrunk = realloc(d->text, MAX(size, (size_t) 1));
                if (shrunk)
                        d->text = shrunk;
        }
        d->text_size = size;
        arena_init(&d->arena);
        *ret_message = "the report worker returned malformed output";

        if (!next_line(d->text, size, &pos, &line, &n))
                return -EBADMSG;
        d->header = parse_line(line, n);
        d->header_size = n;
        /* Its text ends the whole document's members (ncu_report_document_write()): json-c writes no
         * white space after the brace, and a line with any is refused. */
        if (!d->header || n < 2 || line[n - 1] != '}')
                return -EBADMSG;
        r = ncu_report_header_validate(d->header, ret_message);
        if (r < 0)
                return r;
        if (get(d->header, "ranges")) {
                *ret_message = "the report worker returned a whole document, not a stream";
                return -EBADMSG;
        }
        if (!next_line(d->text, size, &pos, &line, &n))
                return -EBADMSG;
        r = read_range_sizes(d, line, n, ret_message);
        if (r < 0)
                return r;
        d->actions = calloc(MAX(d->n_actions, (size_t) 1), sizeof(NcuDocumentAction));
        if (!d->actions)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_actions; i++) {
                struct json_object *o;

                if (!next_line(d->text, size, &pos, &line, &n)) {
                        *ret_message = "the report worker returned fewer actions than it announced";
                        return -EBADMSG;
                }
                o = parse_line(line, n);
                if (!o)
                        return -EBADMSG;
                r = ncu_report_action_validate(o, ret_message);
                if (r >= 0)
                        r = keep_action(d, o, &d->actions[i]);
                json_object_put(o);
                if (r < 0)
                        return r;
                d->actions[i].text_offset = (size_t) (line - d->text);
                d->actions[i].text_size = n;
                d->max_action_size = MAX(d->max_action_size, n);
        }
        if (pos != size) {
                *ret_message = "the report worker returned more than it announced";
                return -EBADMSG;
        }
        *ret = TAKE_PTR(d);
        return 0;
}

struct json_object *ncu_report_document_header(const NcuReportDocument *d)
{
        assert(d);
        return d->header;
}

size_t ncu_report_document_n_ranges(const NcuReportDocument *d)
{
        assert(d);
        return d->n_ranges;
}

size_t ncu_report_document_n_actions(const NcuReportDocument *d, size_t range)
{
        assert(d);
        return range < d->n_ranges ? d->range_start[range + 1] - d->range_start[range] : 0;
}

const NcuDocumentAction *ncu_report_document_action_info(const NcuReportDocument *d, size_t range, size_t action)
{
        assert(d);
        if (action >= ncu_report_document_n_actions(d, range))
                return NULL;
        return &d->actions[d->range_start[range] + action];
}

struct json_object *ncu_report_document_action(NcuReportDocument *d, size_t range, size_t action)
{
        const NcuDocumentAction *a = ncu_report_document_action_info(d, range, action);
        size_t index;

        if (!a)
                return NULL;
        index = (size_t) (a - d->actions);
        if (d->cached && d->cached_index == index)
                return d->cached;
        json_object_put(d->cached);
        d->cached = parse_line(d->text + a->text_offset, a->text_size);
        d->cached_index = index;
        return d->cached;
}

size_t ncu_report_document_memory(const NcuReportDocument *d)
{
        assert(d);
        return d->text_size + d->arena.allocated + (d->n_ranges + 1) * sizeof(size_t) +
                        d->n_actions * sizeof(NcuDocumentAction) +
                        DOCUMENT_TREE_BYTES_PER_TEXT_BYTE * (d->header_size + d->max_action_size);
}

int ncu_report_document_write(const NcuReportDocument *d, FILE *f)
{
        size_t n = d->header_size;

        assert(d && f);
        /* The header's line is the document up to its last member, "ranges" (an object ending in its
         * brace: checked when the document was made): written without that brace, then the ranges from
         * the actions' lines, as json-c writes the whole document. */
        assert(n >= 2 && d->text[n - 1] == '}');
        fwrite(d->text, 1, n - 1, f);
        fputs(",\"ranges\":[", f);
        for (size_t i = 0; i < d->n_ranges; i++) {
                fprintf(f, "%s{\"index\":%zu,\"actions\":[", i > 0 ? "," : "", i);
                for (size_t j = d->range_start[i]; j < d->range_start[i + 1]; j++) {
                        if (j > d->range_start[i])
                                fputc(',', f);
                        fwrite(d->text + d->actions[j].text_offset, 1, d->actions[j].text_size, f);
                }
                fputs("]}", f);
        }
        fputs("]}", f);
        return ferror(f) ? -EIO : 0;
}
