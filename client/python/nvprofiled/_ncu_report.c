/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* _ncu_report: the report model of daemon/nsight (report.h) as Python objects. nvprofiled/ncu_report.py
 * subclasses Report, Action and Metric into NVIDIA's IContext / IAction / IMetric and registers the
 * subclasses here (_register), so the objects this module hands out are those classes: one C call per
 * method, no Python wrapper in between. Objects keep their report alive; the model is never copied. */

/* First: Python.h comes before any system header. */
#include "_ncu_report.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ProfilerSection.pb-c.h"
#include "report-attrs.h"
#include "report-diff.h"
#include "report-section-metrics.h"
#include "report.h"
#include "section-file.h"
#include "section-json.h"
#include "strv.h"

static PyTypeObject ReportType, ActionType;
/* The Python subclass actions are created as (ncu_report.py registers it). */
static PyTypeObject *action_class = &ActionType;

static PyObject *strv_to_tuple(char *const *l)
{
        PyObject *t = PyTuple_New((Py_ssize_t) strv_length(l));
        if (!t)
                return NULL;
        for (size_t i = 0; l && l[i]; i++) {
                PyObject *s = new_string(l[i]);
                if (!s) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, s);
        }
        return t;
}

/* ---- Action ------------------------------------------------------------------------------------------ */

static PyObject *action_new(PyObject *owner, NcuAction *a)
{
        ActionObject *o = (ActionObject *) action_class->tp_alloc(action_class, 0);
        if (!o)
                return NULL;
        Py_INCREF(owner);
        o->owner = owner;
        o->action = a;
        return (PyObject *) o;
}

/* IContext keeps its actions (so that metrics added to one stay) and each action keeps its report: a cycle
 * the collector must see through, or no report that handed out an action would ever be freed. Python breaks
 * it by clearing the context's __dict__ (the subclass's tp_clear); an action itself never lets go of its
 * report while it can be reached, hence no tp_clear here. */
static int action_traverse(ActionObject *o, visitproc visit, void *arg)
{
        Py_VISIT(o->owner);
        return 0;
}

static void action_dealloc(ActionObject *o)
{
        PyObject_GC_UnTrack(o);
        Py_CLEAR(o->owner);
        Py_TYPE(o)->tp_free((PyObject *) o);
}

static PyObject *action_name(ActionObject *o, PyObject *args)
{
        int base = NCU_NAME_FUNCTION;
        if (!PyArg_ParseTuple(args, "|i", &base))
                return NULL;
        if (base < 0 || base >= _NCU_NAME_BASE_MAX) {
                PyErr_SetString(PyExc_ValueError, "unknown name base");
                return NULL;
        }
        return new_string_or_empty(ncu_action_name(o->action, (NcuNameBase) base));
}

static PyObject *action_workload_type(ActionObject *o, PyObject *unused)
{
        return PyLong_FromLong(o->action->workload_type);
}

/* Raises what a load or a decode failed with: ValueError (with the byte offset) for a bad file, OSError for
 * the rest (a read error, a file changed since the load). */
static void raise_report_error(int r, const NcuReportError *error)
{
        if (r == -EBADMSG || r == -EPROTONOSUPPORT || r == -E2BIG)
                PyErr_Format(PyExc_ValueError, "byte %llu: %s", (unsigned long long) error->offset, error->message);
        else if (r == -ESTALE) {
                PyObject *args = Py_BuildValue("(is)", ESTALE, error->message);
                if (args) {
                        PyErr_SetObject(PyExc_OSError, args);
                        Py_DECREF(args);
                }
        } else {
                errno = -r;
                PyErr_SetFromErrno(PyExc_OSError);
        }
}

/* Decodes the action's metrics if not yet done; false with an exception set when they cannot be. */
static bool action_metrics_ready(ActionObject *o)
{
        NcuReportError error;
        int r;

        r = ncu_action_decode_metrics(((ReportObject *) o->owner)->report, o->action, &error);
        if (r >= 0)
                return true;
        raise_report_error(r, &error);
        return false;
}

static PyObject *action_metric_by_name(ActionObject *o, PyObject *arg)
{
        const char *name = PyUnicode_AsUTF8(arg);
        if (!name || !action_metrics_ready(o))
                return NULL;
        const NcuMetric *m = ncu_action_metric_by_name(o->action, name);
        if (!m)
                Py_RETURN_NONE;
        return ncu_py_metric_new(o->owner, o->action, m, false);
}

static PyObject *action_metric_names(ActionObject *o, PyObject *unused)
{
        const NcuAction *a = o->action;
        if (!action_metrics_ready(o))
                return NULL;
        PyObject *t = PyTuple_New((Py_ssize_t) a->n_unique_metrics);
        if (!t)
                return NULL;
        for (size_t i = 0; i < a->n_unique_metrics; i++) {
                PyObject *s = new_string(a->metrics_by_name[i]->name);
                if (!s) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, s);
        }
        return t;
}

/* The metric names in file order (where ncu appends what rules added at profile time). */
static PyObject *action_metric_names_in_file_order(ActionObject *o, PyObject *unused)
{
        const NcuAction *a = o->action;
        if (!action_metrics_ready(o))
                return NULL;
        PyObject *t = PyTuple_New((Py_ssize_t) a->n_metrics);
        if (!t)
                return NULL;
        for (size_t i = 0; i < a->n_metrics; i++) {
                PyObject *s = new_string(a->metrics[i].name);
                if (!s) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, s);
        }
        return t;
}

static PyObject *action_section_identifiers(ActionObject *o, PyObject *unused)
{
        const NcuAction *a = o->action;
        PyObject *t = PyTuple_New((Py_ssize_t) a->n_sections);
        if (!t)
                return NULL;
        for (size_t i = 0; i < a->n_sections; i++) {
                PyObject *s = new_string_or_empty(a->sections[i].identifier);
                if (!s) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, s);
        }
        return t;
}

static PyObject *action_source_files(ActionObject *o, PyObject *unused)
{
        const NcuSource *src = o->action->source;
        NcuReportError error;
        int r;

        /* A lazy load left them in the file (they can be megabytes): read now, the first time. */
        if (src) {
                r = ncu_source_files(((ReportObject *) o->owner)->report, src, &error);
                if (r < 0) {
                        raise_report_error(r, &error);
                        return NULL;
                }
        }
        PyObject *d = PyDict_New();
        if (!d || !src)
                return d;
        for (size_t i = 0; i < src->n_files; i++) {
                if (!src->files[i].file_name)
                        continue;
                PyObject *content = new_string_or_empty(src->files[i].content);
                if (!content || PyDict_SetItemString(d, src->files[i].file_name, content) < 0) {
                        Py_XDECREF(content);
                        Py_DECREF(d);
                        return NULL;
                }
                Py_DECREF(content);
        }
        return d;
}

/* The cubin of the action's source (bytes), or None; ncu_report.py reads its line table. The load left it in
 * the file (most of a report's bytes can be its cubins): read now, the first time. */
static PyObject *action_cubin(ActionObject *o, PyObject *unused)
{
        const NcuSource *src = o->action->source;
        const uint8_t *binary;
        NcuReportError error;
        int r;

        if (!src || src->binary_size == 0)
                Py_RETURN_NONE;
        r = ncu_source_binary(((ReportObject *) o->owner)->report, src, &binary, &error);
        if (r < 0) {
                raise_report_error(r, &error);
                return NULL;
        }
        return PyBytes_FromStringAndSize((const char *) binary, (Py_ssize_t) src->binary_size);
}

/* Where the cubin's functions were loaded: ((symbol name, address), ...) from the RelocationData of every
 * entry of the action's module (ncu_action_loaded_functions()). */
static PyObject *action_functions(ActionObject *o, PyObject *unused)
{
        _cleanup_free_ const NcuRelocationSymbol **functions = NULL;
        int n = ncu_action_loaded_functions(((ReportObject *) o->owner)->report, o->action, &functions);
        if (n < 0)
                return PyErr_NoMemory();
        PyObject *t = PyTuple_New(n);
        if (!t)
                return NULL;
        for (int i = 0; i < n; i++) {
                const NcuRelocationSymbol *f = functions[i];
                PyObject *item = Py_BuildValue("(NN)", new_string_or_empty(f->symbol_name),
                                f->has_address ? PyLong_FromUnsignedLongLong(f->address) : Py_NewRef(Py_None));
                if (!item) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, item);
        }
        return t;
}

/* Appends item (NULL when building it failed) to list and drops the caller's reference either way. */
static int list_append_steal(PyObject *list, PyObject *item)
{
        _cleanup_(py_object_unrefp) PyObject *owned = item;
        if (!owned)
                return -1;
        return PyList_Append(list, owned);
}

static PyObject *rule_result_to_python(const NcuRuleResult *r)
{
        _cleanup_(py_object_unrefp) PyObject *messages = PyList_New(0), *focus = PyList_New(0),
                                             *speedups = PyList_New(0), *markers = PyList_New(0),
                                             *proposals = PyList_New(0);
        if (!messages || !focus || !speedups || !markers || !proposals)
                return NULL;
        for (size_t i = 0; i < r->n_messages; i++) {
                const NcuRuleMessage *m = &r->messages[i];
                PyObject *item = Py_BuildValue("(NIiN)", new_string_or_empty(m->text), m->type, m->has_id ? m->id : -1,
                                new_string(m->name));
                if (list_append_steal(messages, item) < 0)
                        return NULL;
        }
        for (size_t i = 0; i < r->n_focus_metrics; i++) {
                const NcuFocusMetric *f = &r->focus_metrics[i];
                PyObject *item = Py_BuildValue("(iNdIN)", f->has_message_id ? f->message_id : -1,
                                new_string_or_empty(f->metric_name), f->has_value ? f->value : 0.0, f->severity,
                                new_string_or_empty(f->info));
                if (list_append_steal(focus, item) < 0)
                        return NULL;
        }
        for (size_t i = 0; i < r->n_speedups; i++) {
                const NcuSpeedup *s = &r->speedups[i];
                PyObject *item = Py_BuildValue(
                                "(IN)", s->type, s->has_value ? PyFloat_FromDouble(s->value) : Py_NewRef(Py_None));
                if (list_append_steal(speedups, item) < 0)
                        return NULL;
        }
        for (size_t i = 0; i < r->n_source_markers; i++) {
                const NcuSourceMarker *s = &r->source_markers[i];
                PyObject *item = Py_BuildValue("(INNNIN)", s->kind,
                                s->has_address ? PyLong_FromUnsignedLongLong(s->address) : Py_NewRef(Py_None),
                                s->has_line ? PyLong_FromUnsignedLong(s->line) : Py_NewRef(Py_None),
                                new_string_or_empty(s->tooltip), s->type, new_string_or_empty(s->file_name));
                if (list_append_steal(markers, item) < 0)
                        return NULL;
        }
        for (size_t i = 0; i < r->n_proposals; i++)
                if (list_append_steal(proposals, new_string_or_empty(r->proposals[i])) < 0)
                        return NULL;
        return Py_BuildValue("(NNNNNNNN)", new_string_or_empty(r->identifier), new_string_or_empty(r->display_name),
                        new_string(r->section_identifier), TAKE_PTR(messages), TAKE_PTR(focus), TAKE_PTR(speedups),
                        TAKE_PTR(markers), TAKE_PTR(proposals));
}

/* The rule results stored in the report: (identifier, display name, section, messages (text, type, id,
 * title), focus metrics (message id, name, value, severity, info), speedups (type, value), source markers
 * (kind, address, line, tooltip, type, file name), proposals), with the file's enum numbers. */
static PyObject *action_stored_rule_results(ActionObject *o, PyObject *unused)
{
        const NcuAction *a = o->action;
        PyObject *l = PyList_New((Py_ssize_t) a->n_rule_results);
        if (!l)
                return NULL;
        for (size_t i = 0; i < a->n_rule_results; i++) {
                PyObject *item = rule_result_to_python(&a->rule_results[i]);
                if (!item) {
                        Py_DECREF(l);
                        return NULL;
                }
                PyList_SET_ITEM(l, (Py_ssize_t) i, item);
        }
        return l;
}

static PyObject *nvtx_range_to_python(const NcuNvtxRange *r)
{
        return Py_BuildValue("(NOIIIKdNN)", new_string_or_empty(r->name), r->has_attributes ? Py_True : Py_False,
                        r->category, r->color, r->payload_type, (unsigned long long) r->payload_u64, r->payload_double,
                        new_string_or_empty(r->payload_string), new_string_or_empty(r->message));
}

static PyObject *nvtx_ranges_to_python(const NcuNvtxRange *ranges, size_t n)
{
        PyObject *t = PyTuple_New((Py_ssize_t) n);
        if (!t)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                PyObject *item = nvtx_range_to_python(&ranges[i]);
                if (!item) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, item);
        }
        return t;
}

/* The action's NVTX state: ((domain id, name, push/pop ranges, start/end ranges), ...), each range
 * (name, has_attributes, category, color, payload type, payload bits, payload double, payload string,
 * message); None without NVTX state. */
static PyObject *action_nvtx(ActionObject *o, PyObject *unused)
{
        const NcuNvtxState *s = o->action->nvtx;
        if (!s)
                Py_RETURN_NONE;
        PyObject *t = PyTuple_New((Py_ssize_t) s->n_domains);
        if (!t)
                return NULL;
        for (size_t i = 0; i < s->n_domains; i++) {
                const NcuNvtxDomain *d = &s->domains[i];
                PyObject *item = Py_BuildValue("(KNNN)", (unsigned long long) d->id, new_string_or_empty(d->name),
                                nvtx_ranges_to_python(d->push_pop, d->n_push_pop),
                                nvtx_ranges_to_python(d->start_end, d->n_start_end));
                if (!item) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, item);
        }
        return t;
}

/* The sections embedded in the result, in file order: ((identifier, display name, metric names), ...). A
 * section that does not unpack lists no metrics. */
static PyObject *action_sections(ActionObject *o, PyObject *unused)
{
        const NcuAction *a = o->action;
        PyObject *t = PyTuple_New((Py_ssize_t) a->n_sections);
        if (!t)
                return NULL;
        for (size_t i = 0; i < a->n_sections; i++) {
                const NcuEmbeddedSection *sec = &a->sections[i];
                char **names = NULL;
                if (ncu_embedded_section_metric_names(sec, &names) < 0) {
                        Py_DECREF(t);
                        return PyErr_NoMemory();
                }
                PyObject *tuple = strv_to_tuple(names);
                strv_free(names);
                if (!tuple) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyObject *item = Py_BuildValue("(NNN)", new_string_or_empty(sec->identifier),
                                new_string_or_empty(sec->display_name), tuple);
                if (!item) {
                        Py_DECREF(t);
                        return NULL;
                }
                PyTuple_SET_ITEM(t, (Py_ssize_t) i, item);
        }
        return t;
}

static PyMethodDef action_methods[] = {
        { "name", (PyCFunction) action_name, METH_VARARGS, "name(base=NameBase_FUNCTION)." },
        { "workload_type", (PyCFunction) action_workload_type, METH_NOARGS, NULL },
        { "metric_by_name", (PyCFunction) action_metric_by_name, METH_O, "The metric of that name, or None." },
        { "metric_names", (PyCFunction) action_metric_names, METH_NOARGS, "The metric names, sorted." },
        { "source_files", (PyCFunction) action_source_files, METH_NOARGS, "{file name: content}." },
        { "section_identifiers", (PyCFunction) action_section_identifiers, METH_NOARGS,
                        "Identifiers of the sections embedded in the result." },
        { "_metric_names_in_file_order", (PyCFunction) action_metric_names_in_file_order, METH_NOARGS, NULL },
        { "_cubin", (PyCFunction) action_cubin, METH_NOARGS, NULL },
        { "_functions", (PyCFunction) action_functions, METH_NOARGS, NULL },
        { "_sections", (PyCFunction) action_sections, METH_NOARGS, NULL },
        { "_stored_rule_results", (PyCFunction) action_stored_rule_results, METH_NOARGS, NULL },
        { "_nvtx", (PyCFunction) action_nvtx, METH_NOARGS, NULL },
        { NULL },
};

static PyTypeObject ActionType = {
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nvprofiled._ncu_report.Action",
        .tp_basicsize = sizeof(ActionObject),
        .tp_dealloc = (destructor) action_dealloc,
        .tp_traverse = (traverseproc) action_traverse,
        .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
        .tp_doc = "A profile result (see nvprofiled.ncu_report.IAction).",
        .tp_methods = action_methods,
};

/* ---- Report ------------------------------------------------------------------------------------------ */

static void report_dealloc(ReportObject *o)
{
        ncu_report_free(o->report);
        Py_TYPE(o)->tp_free((PyObject *) o);
}

static PyObject *report_num_ranges(ReportObject *o, PyObject *unused)
{
        return PyLong_FromSize_t(o->report->n_ranges);
}

static PyObject *report_num_actions(ReportObject *o, PyObject *args)
{
        Py_ssize_t range;
        if (!PyArg_ParseTuple(args, "n", &range))
                return NULL;
        if (range < 0 || (size_t) range >= o->report->n_ranges)
                return PyLong_FromLong(0);
        return PyLong_FromSize_t(o->report->ranges[range].n_actions);
}

static PyObject *report_action(ReportObject *o, PyObject *args)
{
        Py_ssize_t range, action;
        if (!PyArg_ParseTuple(args, "nn", &range, &action))
                return NULL;
        if (range < 0 || action < 0)
                Py_RETURN_NONE;
        if ((size_t) range >= o->report->n_ranges || (size_t) action >= o->report->ranges[range].n_actions)
                Py_RETURN_NONE;
        return action_new((PyObject *) o, o->report->ranges[range].actions[action]);
}

static char **strings_from_sequence(PyObject *seq, size_t *ret_n)
{
        PyObject *fast = PySequence_Fast(seq, "NVTX expressions must be a sequence of strings");
        if (!fast)
                return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        char **strv = PyMem_Calloc((size_t) n + 1, sizeof(char *));
        if (!strv) {
                Py_DECREF(fast);
                PyErr_NoMemory();
                return NULL;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
                const char *s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
                if (!s) {
                        PyMem_Free(strv);
                        Py_DECREF(fast);
                        return NULL;
                }
                strv[i] = (char *) s; /* borrowed from the string, kept alive by fast (callers hold seq) */
        }
        Py_DECREF(fast);
        *ret_n = (size_t) n;
        return strv;
}

static PyObject *report_actions_by_nvtx(ReportObject *o, PyObject *args)
{
        Py_ssize_t range;
        PyObject *includes, *excludes;
        size_t n_in = 0, n_ex = 0;
        _cleanup_free_ size_t *indices = NULL;

        if (!PyArg_ParseTuple(args, "nOO", &range, &includes, &excludes))
                return NULL;
        if (range < 0 || (size_t) range >= o->report->n_ranges)
                return PyTuple_New(0);
        /* Keep the arguments as lists so the UTF-8 buffers borrowed above stay alive. */
        _cleanup_(py_object_unrefp) PyObject *in_list = PySequence_List(includes),
                                             *ex_list = in_list ? PySequence_List(excludes) : NULL;
        if (!in_list || !ex_list)
                return NULL;
        _cleanup_(py_mem_freep) char **in = strings_from_sequence(in_list, &n_in);
        _cleanup_(py_mem_freep) char **ex = in ? strings_from_sequence(ex_list, &n_ex) : NULL;
        if (!in || !ex)
                return NULL;
        int n = ncu_range_actions_by_nvtx(&o->report->ranges[range], in, n_in, ex, n_ex, &indices);
        if (n == -EINVAL) {
                PyErr_SetString(PyExc_ValueError, "malformed NVTX expression");
                return NULL;
        }
        if (n == -EOPNOTSUPP) {
                PyErr_SetString(PyExc_NotImplementedError, "the reader cannot select actions by NVTX state");
                return NULL;
        }
        if (n < 0) {
                errno = -n;
                PyErr_SetFromErrno(PyExc_OSError);
                return NULL;
        }
        _cleanup_(py_object_unrefp) PyObject *result = PyTuple_New(n);
        if (!result)
                return NULL;
        for (int i = 0; i < n; i++) {
                PyObject *v = PyLong_FromSize_t(indices[i]);
                if (!v)
                        return NULL;
                PyTuple_SET_ITEM(result, i, v);
        }
        return TAKE_PTR(result);
}

static PyObject *report_memory(ReportObject *o, PyObject *unused)
{
        return PyLong_FromSize_t(o->report->memory);
}

static PyMethodDef report_methods[] = {
        { "num_ranges", (PyCFunction) report_num_ranges, METH_NOARGS, NULL },
        { "_num_actions", (PyCFunction) report_num_actions, METH_VARARGS, NULL },
        { "_action", (PyCFunction) report_action, METH_VARARGS, NULL },
        { "_actions_by_nvtx", (PyCFunction) report_actions_by_nvtx, METH_VARARGS, NULL },
        { "_memory", (PyCFunction) report_memory, METH_NOARGS, NULL },
        { NULL },
};

static PyTypeObject ReportType = {
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nvprofiled._ncu_report.Report",
        .tp_basicsize = sizeof(ReportObject),
        .tp_dealloc = (destructor) report_dealloc,
        .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
        .tp_doc = "A loaded report (see nvprofiled.ncu_report.IContext).",
        .tp_methods = report_methods,
};

/* ---- Module ------------------------------------------------------------------------------------------ */

/* load(fd, cls): reads the report from fd (not closed) and returns it as an instance of cls, a subclass of
 * Report. Errors: OSError for a read error, ValueError (with the byte offset) for a bad file. An action's
 * metrics are decoded when first read, from the file again when it is a regular one (the report keeps a
 * duplicate of fd): that read may raise the same errors, and OSError(ESTALE) when the file changed since. */
static PyObject *module_load(PyObject *self, PyObject *args)
{
        int fd;
        PyTypeObject *cls = &ReportType;
        if (!PyArg_ParseTuple(args, "i|O!", &fd, &PyType_Type, &cls))
                return NULL;
        if (!PyType_IsSubtype(cls, &ReportType)) {
                PyErr_SetString(PyExc_TypeError, "cls must be a subclass of Report");
                return NULL;
        }
        NcuReport *report = NULL;
        NcuReportError error = { 0 };
        int r;
        Py_BEGIN_ALLOW_THREADS r = ncu_report_load_fd_flags(fd, NULL, NCU_REPORT_LAZY_METRICS, &report, &error);
        Py_END_ALLOW_THREADS if (r < 0)
        {
                raise_report_error(r, &error);
                return NULL;
        }
        ReportObject *o = (ReportObject *) cls->tp_alloc(cls, 0);
        if (!o) {
                ncu_report_free(report);
                return NULL;
        }
        o->report = report;
        return (PyObject *) o;
}

/* _register(action_class, ncu_py_metric_class): the classes actions and metrics are created as. */
static PyObject *module_register(PyObject *self, PyObject *args)
{
        PyTypeObject *a, *m;
        if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &a, &PyType_Type, &m))
                return NULL;
        if (!PyType_IsSubtype(a, &ActionType) || !PyType_IsSubtype(m, &ncu_py_metric_type)) {
                PyErr_SetString(PyExc_TypeError, "classes must derive from Action and Metric");
                return NULL;
        }
        Py_INCREF(a);
        Py_INCREF(m);
        action_class = a;
        ncu_py_metric_class = m;
        Py_RETURN_NONE;
}

static PyObject *module_double_repr(PyObject *self, PyObject *arg)
{
        char buf[NCU_DOUBLE_REPR_MAX];
        double d = PyFloat_AsDouble(arg);
        if (d == -1.0 && PyErr_Occurred())
                return NULL;
        return PyUnicode_FromString(ncu_format_double_repr(d, buf));
}

/* parse_chart(text, name): a .chart file (one section body item in protobuf text format, as rules load with
 * IFrontend.load_chart_from_file) read by the project's text-format reader; returns the item as JSON text
 * with the schema's field names. ValueError "name:line:column: message" for a bad chart. */
static PyObject *module_parse_chart(PyObject *self, PyObject *args)
{
        const char *text, *name;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(args, "y#s", &text, &len, &name))
                return NULL;
        NV__Profiler__ProfilerSectionBodyItem *item = NULL;
        TextFormatDiagnostics diags = { 0 };
        int r = section_chart_parse(text, (size_t) len, NULL, &item, &diags);
        if (r < 0) {
                const TextFormatDiagnostic *d = textformat_diagnostics_error(&diags);
                if (r == -ENOMEM)
                        PyErr_NoMemory();
                else if (d)
                        PyErr_Format(PyExc_ValueError, "%s:%u:%u: %s", name, d->line, d->column, d->message);
                else if (r == -EFBIG)
                        PyErr_Format(PyExc_ValueError, "%s: larger than %u bytes", name, TEXTFORMAT_MAX_INPUT);
                else
                        PyErr_Format(PyExc_ValueError, "%s: %s", name, strerror(-r));
                textformat_diagnostics_clear(&diags);
                return NULL;
        }
        textformat_diagnostics_clear(&diags);
        struct json_object *j = protobuf_message_to_json(&item->base);
        protobuf_c_message_free_unpacked(&item->base, NULL);
        if (!j)
                return PyErr_NoMemory();
        PyObject *out = new_string(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
        json_object_put(j);
        return out;
}

/* diff_json(baseline, current, specs): the comparison of daemon/nsight/report/report-diff.c (the one nvprofilectl
 * report diff and the daemon's Report.Diff make) of two reports, its "pairs" as JSON text. ValueError with the reader's
 * message for a spec that pairs nothing or a paired action whose metrics cannot be decoded; OSError as for a load. */
static PyObject *module_diff_json(PyObject *self, PyObject *args)
{
        ReportObject *baseline, *current;
        PyObject *specs;
        size_t n_specs = 0;
        char message[NCU_DIFF_MESSAGE_MAX];
        struct json_object *doc = NULL;

        if (!PyArg_ParseTuple(args, "O!O!O", &ReportType, &baseline, &ReportType, &current, &specs))
                return NULL;
        if (PyUnicode_Check(specs)) {
                PyErr_SetString(PyExc_TypeError, "specs must be a sequence of strings, not a string");
                return NULL;
        }
        /* A list of our own keeps the UTF-8 buffers strings_from_sequence() borrows alive. */
        _cleanup_(py_object_unrefp) PyObject *list = PySequence_List(specs);
        if (!list)
                return NULL;
        _cleanup_(py_mem_freep) char **strv = strings_from_sequence(list, &n_specs);
        if (!strv)
                return NULL;
        /* With the GIL held: decoding a lazily loaded action changes the report other threads may read. */
        int r = ncu_report_diff_json(baseline->report, current->report, strv, n_specs, &doc, message);
        if (r == -ENOMEM)
                return PyErr_NoMemory();
        if (r == -EDOM || r == -EBADMSG || r == -EPROTONOSUPPORT || r == -E2BIG) {
                PyErr_SetString(PyExc_ValueError, message);
                return NULL;
        }
        if (r < 0) {
                PyObject *e = Py_BuildValue("(is)", -r, message[0] ? message : strerror(-r));
                if (e) {
                        PyErr_SetObject(PyExc_OSError, e);
                        Py_DECREF(e);
                }
                return NULL;
        }
        PyObject *out = new_string(json_object_to_json_string_ext(
                        json_object_object_get(doc, "pairs"), JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(doc);
        return out;
}

static PyMethodDef module_methods[] = {
        { "load", module_load, METH_VARARGS, "load(fd, cls=Report): read a report from a file descriptor." },
        { "_register", module_register, METH_VARARGS, NULL },
        { "_double_repr", module_double_repr, METH_O, NULL },
        { "parse_chart", module_parse_chart, METH_VARARGS,
                        "parse_chart(text, name): a .chart file's body item as JSON text." },
        { "diff_json", module_diff_json, METH_VARARGS,
                        "diff_json(baseline, current, specs): two reports compared, the pairs as JSON text." },
        { "line_table", ncu_py_line_table, METH_VARARGS,
                        "line_table(cubin, functions): the cubin's SASS address -> source line table, or None." },
        { NULL },
};

static struct PyModuleDef module_def = {
        PyModuleDef_HEAD_INIT,
        .m_name = "nvprofiled._ncu_report",
        .m_doc = "nvprofiled's .ncu-rep reader as Python objects (use nvprofiled.ncu_report).",
        .m_size = -1,
        .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__ncu_report(void);
PyMODINIT_FUNC PyInit__ncu_report(void)
{
        if (PyType_Ready(&ReportType) < 0 || PyType_Ready(&ActionType) < 0 || PyType_Ready(&ncu_py_metric_type) < 0 ||
                        PyType_Ready(&ncu_py_line_table_type) < 0)
                return NULL;
        PyObject *m = PyModule_Create(&module_def);
        if (!m)
                return NULL;
        if (PyModule_AddObjectRef(m, "Report", (PyObject *) &ReportType) < 0 ||
                        PyModule_AddObjectRef(m, "Action", (PyObject *) &ActionType) < 0 ||
                        PyModule_AddObjectRef(m, "Metric", (PyObject *) &ncu_py_metric_type) < 0 ||
                        PyModule_AddObjectRef(m, "LineTable", (PyObject *) &ncu_py_line_table_type) < 0 ||
                        PyModule_AddIntConstant(m, "CHART_MAX_SIZE", TEXTFORMAT_MAX_INPUT) < 0) {
                Py_DECREF(m);
                return NULL;
        }
        return m;
}
