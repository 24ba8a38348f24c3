/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* io.github.nvprofiled.NvProfiled1.Sections on the root object: the Nsight Compute section files the
 * daemon reads (nvprofiled.conf [Sections]). They are system files, the same for every caller: every
 * method but Reload is open to all. */

#include "bus-common.h"
#include "bus-signatures.h"
#include "bus-polkit.h"
#include "json-util.h"
#include "log.h"
#include "manager-sections.h"
#include "metric-expr.h"
#include "section-json.h"
#include "section-metrics.h"

static const SectionCatalog *catalog(BusContext *c)
{
        return manager_sections_catalog(c->manager);
}

static int append_sets(sd_bus_message *reply, const NV__Profiler__ProfilerSection *s)
{
        int r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_sets; i++) {
                r = sd_bus_message_append(reply, "s", s->sets[i]->identifier);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int method_list_sections(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const SectionCatalog *cat = catalog(userdata);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ const SectionEntry **sorted = NULL, **broken = NULL;
        size_t n = 0, n_broken = 0;
        int r;

        if (cat) {
                r = section_catalog_sorted(cat, &sorted, &n);
                if (r < 0)
                        return r;
                r = section_catalog_errors(cat, &broken, &n_broken);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(" BUS_SECTION_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const NV__Profiler__ProfilerSection *s = sorted[i]->section;
                r = sd_bus_message_open_container(reply, 'r', BUS_SECTION_FIELDS);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "ssbu", s->identifier, s->displayname,
                                section_in_set(s, SECTION_DEFAULT_SET), s->has_order ? s->order : 0);
                if (r < 0)
                        return r;
                r = append_sets(reply, s);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "sss", sorted[i]->display, strempty(sorted[i]->warning),
                                strempty(sorted[i]->error));
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_broken; i++) {
                r = sd_bus_message_append(reply, "(ss)", broken[i]->display, broken[i]->error);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The folders searched and what each gave: why a listing is empty. */
static int method_list_folders(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const SectionCatalog *cat = catalog(userdata);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sbsus)");
        if (r < 0)
                return r;
        for (size_t i = 0; cat && i < cat->n_folders; i++) {
                const SectionFolderState *f = &cat->folders[i];

                r = sd_bus_message_append(reply, "(sbsus)", f->path, f->recursive, section_folder_state(f),
                                (uint32_t) MIN(f->n_files, (size_t) UINT32_MAX), section_folder_problem(f));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The sets section_catalog_sets() returns, owned by one cleanup variable. */
typedef struct SectionSetArray {
        SectionSet *sets;
        size_t n;
} SectionSetArray;

static void section_set_array_done(SectionSetArray *a)
{
        section_sets_free(a->sets, a->n);
}

static int append_set(sd_bus_message *reply, const SectionSet *set)
{
        int r;

        r = sd_bus_message_open_container(reply, 'r', BUS_SECTION_SET_FIELDS);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "sb", set->name, streq(set->name, SECTION_DEFAULT_SET));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0)
                return r;
        for (size_t k = 0; k < set->n; k++) {
                r = sd_bus_message_append(reply, "s", set->sections[k]->section->identifier);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int method_list_sets(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const SectionCatalog *cat = catalog(userdata);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(section_set_array_done) SectionSetArray sets = { 0 };
        int r;

        if (cat) {
                r = section_catalog_sets(cat, &sets.sets, &sets.n);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(" BUS_SECTION_SET_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; i < sets.n; i++) {
                r = append_set(reply, &sets.sets[i]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int read_identifier(BusContext *c, sd_bus_message *m, const SectionEntry **ret, sd_bus_error *error)
{
        const char *id;
        int r;

        r = sd_bus_message_read(m, "s", &id);
        if (r < 0)
                return r;
        if (strlen(id) > c->manager->config.bus_string_max)
                return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "The identifier is too long.");
        *ret = section_catalog_find(catalog(c), id);
        if (!*ret)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "No section has this identifier.");
        return 0;
}

static int method_get_section(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(json_object_putp) struct json_object *json = NULL;
        const SectionEntry *e;
        int r;

        r = read_identifier(c, m, &e, error);
        if (r < 0)
                return r;
        const NV__Profiler__ProfilerSection *s = e->section;
        json = protobuf_message_to_json(&s->base);
        if (!json)
                return -ENOMEM;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "{sv}{sv}{sv}{sv}{sv}{sv}{sv}", "Identifier", "s", s->identifier,
                        "DisplayName", "s", s->displayname, "Order", "u", s->has_order ? s->order : 0, "Description",
                        "s", strempty(s->description), "Extends", "s", strempty(s->extends), "File", "s", e->display,
                        "Enabled", "b", section_in_set(s, SECTION_DEFAULT_SET));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", "Sets");
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'v', "as");
        if (r < 0)
                return r;
        r = append_sets(reply, s);
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", "BodyItems");
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'v', "as");
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0)
                return r;
        for (size_t b = 0; b < s->n_body; b++)
                for (size_t i = 0; i < s->body[b]->n_items; i++) {
                        r = sd_bus_message_append(reply, "s", strna(section_body_item_kind(s->body[b]->items[i])));
                        if (r < 0)
                                return r;
                }
        /* The item array, its variant and its dict entry, then the a{sv} itself. */
        for (int k = 0; k < 4; k++) {
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_append(reply, "s", json_object_to_json_string_ext(json, JSON_C_TO_STRING_PLAIN));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        static const char *const patterns[] = { "name", "regex", "breakdown" };
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(section_metric_list_clear) SectionMetricList l = { 0 };
        const SectionEntry *e;
        const char *scope_name;
        CollectionScopeKind scope;
        uint32_t arch;
        int r;

        r = read_identifier(c, m, &e, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "us", &arch, &scope_name);
        if (r < 0)
                return r;
        if (arch < 10 || arch > 1000)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                "The architecture is a compute capability as major*10+minor, such as 86.");
        if (collection_scope_from_string(scope_name, &scope) < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "The scope is launch, range or cmdlist.");

        r = section_collect_metrics(e->section, arch, scope, &l);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(" BUS_SECTION_METRIC_FIELDS ")");
        if (r < 0)
                return r;
        for (size_t i = 0; i < l.n; i++) {
                const SectionMetric *x = &l.items[i];
                r = sd_bus_message_append(reply, "(" BUS_SECTION_METRIC_FIELDS ")", x->name, strempty(x->label),
                                strempty(x->unit), x->where, patterns[x->pattern], x->required,
                                strempty(x->derived_for));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- EvaluateExpression ---- */

typedef struct SuppliedValues {
        char **names;
        MetricValue *values;
        size_t n;
} SuppliedValues;

static void supplied_values_done(SuppliedValues *v)
{
        for (size_t i = 0; i < v->n; i++) {
                free(v->names[i]);
                metric_value_done(&v->values[i]);
        }
        free(v->names);
        free(v->values);
}

static const MetricValue *lookup_supplied(const char *name, void *userdata)
{
        const SuppliedValues *v = userdata;
        for (size_t i = 0; i < v->n; i++)
                if (streq(v->names[i], name))
                        return &v->values[i];
        return NULL;
}

static int read_scalar(sd_bus_message *m, char type, MetricScalar *ret, size_t max_string)
{
        int r;
        switch (type) {
        case 't':
                *ret = (MetricScalar){ .kind = METRIC_VALUE_UINT64 };
                return sd_bus_message_read_basic(m, 't', &ret->u);
        case 'u': {
                uint32_t u;
                r = sd_bus_message_read_basic(m, 'u', &u);
                *ret = (MetricScalar){ .kind = METRIC_VALUE_UINT64, .u = u };
                return r;
        }
        case 'd':
                *ret = (MetricScalar){ .kind = METRIC_VALUE_DOUBLE };
                return sd_bus_message_read_basic(m, 'd', &ret->d);
        case 's': {
                const char *s;
                r = sd_bus_message_read_basic(m, 's', &s);
                if (r < 0)
                        return r;
                if (strlen(s) > max_string)
                        return -E2BIG;
                *ret = (MetricScalar){ .kind = METRIC_VALUE_STRING, .s = strdup(s) };
                return ret->s ? 0 : -ENOMEM;
        }
        }
        return -EINVAL;
}

/* Instances as a(tt)/a(td) (with correlation ids) or at/ad (without); the caller frees ret on failure. */
static int read_instances(sd_bus_message *m, const char *contents, MetricValue *ret, const ManagerConfig *cfg)
{
        bool ids = contents[1] == '(';
        char vt = ids ? contents[3] : contents[1];
        int r;

        ret->has_instances = true;
        ret->has_ids = ids;
        r = sd_bus_message_enter_container(m, 'a', contents + 1);
        if (r < 0)
                return r;
        for (;;) {
                MetricInstance inst = { 0 };
                if (ids) {
                        r = sd_bus_message_enter_container(m, 'r', contents[3] == 't' ? "tt" : "td");
                        if (r < 0)
                                return r;
                        if (r == 0)
                                break;
                        r = sd_bus_message_read_basic(m, 't', &inst.id);
                        if (r < 0)
                                return r;
                } else if (sd_bus_message_at_end(m, false) > 0)
                        break;
                r = read_scalar(m, vt, &inst.value, cfg->bus_string_max);
                if (r < 0)
                        return r;
                if (ids) {
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                }
                if (ret->n_instances >= cfg->bus_list_max)
                        return -E2BIG;
                MetricInstance *grown = reallocarray(ret->instances, ret->n_instances + 1, sizeof(MetricInstance));
                if (!grown)
                        return -ENOMEM;
                ret->instances = grown;
                ret->instances[ret->n_instances++] = inst;
        }
        return sd_bus_message_exit_container(m);
}

/* One value: a variant of t, u, d or s (a regular value), a(tt)/a(td) (instances with correlation ids)
 * or at/ad (instances without). */
static int read_value(sd_bus_message *m, MetricValue *ret, const ManagerConfig *cfg)
{
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        *ret = (MetricValue){ 0 };
        if (strlen(contents) == 1) {
                r = read_scalar(m, contents[0], &ret->value, cfg->bus_string_max);
                ret->has_value = r >= 0;
        } else if (streq(contents, "a(tt)") || streq(contents, "a(td)") || streq(contents, "at") ||
                        streq(contents, "ad"))
                r = read_instances(m, contents, ret, cfg);
        else
                r = -EINVAL;
        if (r < 0) {
                metric_value_done(ret);
                return r;
        }
        return sd_bus_message_exit_container(m);
}

static int append_scalar(sd_bus_message *reply, const MetricScalar *s)
{
        switch (s->kind) {
        case METRIC_VALUE_UINT64:
                return sd_bus_message_append(reply, "v", "t", s->u);
        case METRIC_VALUE_DOUBLE:
                return sd_bus_message_append(reply, "v", "d", s->d);
        case METRIC_VALUE_STRING:
                return sd_bus_message_append(reply, "v", "s", strempty(s->s));
        }
        assert_not_reached();
}

static int method_evaluate(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        const ManagerConfig *cfg = &c->manager->config;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(supplied_values_done) SuppliedValues values = { 0 };
        _cleanup_(metric_value_done) MetricValue result = { 0 };
        _cleanup_free_ char *problem = NULL;
        MetricExpr *e = NULL;
        const char *expression;
        int r;

        r = sd_bus_message_read(m, "s", &expression);
        if (r < 0)
                return r;
        if (strlen(expression) > MIN((size_t) cfg->bus_string_max, (size_t) METRIC_EXPR_MAX_LENGTH))
                return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "The expression is too long.");
        r = sd_bus_message_enter_container(m, 'a', "(sv)");
        if (r < 0)
                return r;
        for (;;) {
                const char *name;
                r = sd_bus_message_enter_container(m, 'r', "sv");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (values.n >= cfg->bus_list_max)
                        return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "Too many values.");
                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                if (strlen(name) > cfg->bus_string_max)
                        return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "A metric name is too long.");
                char **names = reallocarray(values.names, values.n + 1, sizeof(char *));
                if (!names)
                        return -ENOMEM;
                values.names = names;
                MetricValue *vals = reallocarray(values.values, values.n + 1, sizeof(MetricValue));
                if (!vals)
                        return -ENOMEM;
                values.values = vals;
                r = read_value(m, &values.values[values.n], cfg);
                if (r == -E2BIG)
                        return sd_bus_error_set(error, BUS_ERROR_LIMITS_EXCEEDED, "A value is too large.");
                if (r < 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "A value is t, u, d or s, or instances as a(tt), a(td), at or ad.");
                values.names[values.n] = strdup(name);
                values.n++;
                if (!values.names[values.n - 1])
                        return -ENOMEM;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;

        r = metric_expr_parse(expression, &e, &problem);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid expression: %s.", problem);
        r = metric_expr_evaluate(e, lookup_supplied, &values, &result, &problem);
        metric_expr_free(e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Cannot evaluate: %s.", problem);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "b", result.has_value);
        if (r < 0)
                return r;
        r = result.has_value ? append_scalar(reply, &result.value) : sd_bus_message_append(reply, "v", "t", 0);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "b", result.has_ids);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(tv)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < result.n_instances; i++) {
                r = sd_bus_message_open_container(reply, 'r', "tv");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "t", result.instances[i].id);
                if (r < 0)
                        return r;
                r = append_scalar(reply, &result.instances[i].value);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int reload_authorized(BusContext *c, sd_bus_message *m, sd_bus_error *error)
{
        int r = manager_sections_reload(c->manager);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return bus_authorize(userdata, m, POLKIT_ACTION_RELOAD, reload_authorized, error);
}

const sd_bus_vtable bus_sections_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("ListSections", SD_BUS_NO_ARGS,
                        SD_BUS_RESULT("a(" BUS_SECTION_FIELDS ")", sections, "a(ss)", errors), method_list_sections,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListSets", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(" BUS_SECTION_SET_FIELDS ")", sets),
                        method_list_sets, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListFolders", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sbsus)", folders), method_list_folders,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSection", SD_BUS_ARGS("s", identifier), SD_BUS_RESULT("a{sv}", section, "s", json),
                        method_get_section, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_ARGS("s", identifier, "u", arch, "s", scope),
                        SD_BUS_RESULT("a(" BUS_SECTION_METRIC_FIELDS ")", metrics), method_get_metrics,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("EvaluateExpression", SD_BUS_ARGS("s", expression, "a(sv)", values),
                        SD_BUS_RESULT("b", has_value, "v", value, "b", has_ids, "a(tv)", instances), method_evaluate,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
