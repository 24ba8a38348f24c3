/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* _ncu_report's Metric: one metric of an action, or the view of its correlation ids, with ncu_report's
 * IMetric methods (_ncu_report.h). */

#include "_ncu_report.h"
#include "report-attrs.h"

PyTypeObject *ncu_py_metric_class = &ncu_py_metric_type;

/* ---- Metric ------------------------------------------------------------------------------------------ */

PyObject *ncu_py_metric_new(PyObject *owner, const NcuAction *a, const NcuMetric *m, bool ids)
{
        MetricObject *o = (MetricObject *) ncu_py_metric_class->tp_alloc(ncu_py_metric_class, 0);
        if (!o)
                return NULL;
        Py_INCREF(owner);
        o->owner = owner;
        o->action = a;
        o->metric = m;
        o->ids = ids;
        return (PyObject *) o;
}

static void metric_dealloc(MetricObject *o)
{
        Py_XDECREF(o->owner);
        Py_TYPE(o)->tp_free((PyObject *) o);
}

/* The optional instance argument: SIZE_MAX for none (the aggregate value). The accessors take it by
 * METH_FASTCALL, without an argument tuple to build and parse: scripts call them for every instance. */
static int parse_instance(PyObject *const *args, Py_ssize_t nargs, const char *method, size_t *ret)
{
        PyObject *instance = nargs > 0 ? args[0] : Py_None;
        if (nargs > 1) {
                PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given)", method, nargs);
                return -1;
        }
        if (instance == Py_None) {
                *ret = SIZE_MAX;
                return 0;
        }
        long long i = PyLong_AsLongLong(instance);
        if (i == -1 && PyErr_Occurred())
                return -1;
        *ret = i < 0 ? SIZE_MAX - 1 : (size_t) i; /* negative: out of range, like NVIDIA's (unsigned) */
        return 0;
}

/* The value an accessor reads: NULL when there is none. */
static const NcuValue *metric_slot(const MetricObject *o, size_t instance)
{
        const NcuMetric *m = o->metric;
        if (o->ids) {
                if (instance == SIZE_MAX || instance >= m->n_instances)
                        return NULL;
                const NcuValue *v = &m->instances[instance].correlation_id;
                return v->kind == NCU_VALUE_UNKNOWN ? NULL : v;
        }
        return ncu_metric_value(m, instance);
}

static PyObject *metric_name(MetricObject *o, PyObject *unused)
{
        return new_string(o->metric->name);
}

/* The kind accessors read value i with (instance or aggregate): for the aggregate the metric's kind (its
 * value's, else its first instance's), for an instance that instance's own: ncu 2025 stores the instances
 * of some double metrics as uint64 (launch__occupancy_per_block_size), and NVIDIA's module reads each as
 * stored. The id view's aggregate is its first id's kind. */
static NcuValueKind slot_kind(const MetricObject *o, size_t instance)
{
        if (instance == SIZE_MAX && !o->ids)
                return o->metric->kind;
        const NcuValue *v = metric_slot(o, instance == SIZE_MAX ? 0 : instance);
        return v ? v->kind : NCU_VALUE_UNKNOWN;
}

static PyObject *metric_kind(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        if (parse_instance(args, nargs, "kind", &i) < 0)
                return NULL;
        return PyLong_FromLong(value_kind_number(slot_kind(o, i)));
}

static PyObject *metric_has_value(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        if (parse_instance(args, nargs, "has_value", &i) < 0)
                return NULL;
        return PyBool_FromLong(metric_slot(o, i) != NULL);
}

static PyObject *metric_as_double(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        double d = 0;
        if (parse_instance(args, nargs, "as_double", &i) < 0)
                return NULL;
        const NcuValue *v = metric_slot(o, i);
        if (!v || !ncu_value_as_double(v, &d))
                d = 0;
        return PyFloat_FromDouble(d);
}

static PyObject *metric_as_uint64(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        uint64_t u = 0;
        if (parse_instance(args, nargs, "as_uint64", &i) < 0)
                return NULL;
        const NcuValue *v = metric_slot(o, i);
        if (!v || !ncu_value_as_uint64(v, &u))
                u = 0;
        return PyLong_FromUnsignedLongLong(u);
}

static PyObject *metric_as_string(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        if (parse_instance(args, nargs, "as_string", &i) < 0)
                return NULL;
        const NcuValue *v = metric_slot(o, i);
        return new_string(v ? ncu_value_as_string(v) : NULL);
}

/* IMetric.value(instance=None): the accessor the value's kind calls for (as_double for double and float,
 * as_uint64 for the integers, as_string for strings), None for no kind; in C because scripts call it for
 * every value. */
static PyObject *metric_value(MetricObject *o, PyObject *const *args, Py_ssize_t nargs)
{
        size_t i;
        if (parse_instance(args, nargs, "value", &i) < 0)
                return NULL;
        const NcuValue *v = metric_slot(o, i);
        switch (slot_kind(o, i)) {
        case NCU_VALUE_FLOAT:
        case NCU_VALUE_DOUBLE: {
                double d = 0;
                if (!v || !ncu_value_as_double(v, &d))
                        d = 0;
                return PyFloat_FromDouble(d);
        }
        case NCU_VALUE_UINT32:
        case NCU_VALUE_UINT64: {
                uint64_t u = 0;
                if (!v || !ncu_value_as_uint64(v, &u))
                        u = 0;
                return PyLong_FromUnsignedLongLong(u);
        }
        case NCU_VALUE_STRING:
                return new_string(v ? ncu_value_as_string(v) : NULL);
        case NCU_VALUE_UNKNOWN:
        case _NCU_VALUE_KIND_MAX:
                break;
        }
        Py_RETURN_NONE;
}

static PyObject *metric_num_instances(MetricObject *o, PyObject *unused)
{
        return PyLong_FromSize_t(o->metric->n_instances);
}

static PyObject *metric_has_correlation_ids(MetricObject *o, PyObject *unused)
{
        return PyBool_FromLong(!o->ids && o->metric->has_correlation_ids);
}

static PyObject *metric_correlation_ids(MetricObject *o, PyObject *unused)
{
        if (o->ids || !o->metric->has_correlation_ids)
                Py_RETURN_NONE;
        return ncu_py_metric_new(o->owner, o->action, o->metric, true);
}

static void metric_attrs(const MetricObject *o, MetricAttrs *ret)
{
        ncu_metric_attrs(o->action, o->metric, NULL, ret);
}

static PyObject *metric_metric_type(MetricObject *o, PyObject *unused)
{
        MetricAttrs a;
        metric_attrs(o, &a);
        return PyLong_FromLong(a.type);
}

/* NVIDIA's module answers None where the subtype or rollup is NONE (its Python layer maps it so): scripts
 * that key a dict by rollup_operation() rely on it. */
static PyObject *metric_metric_subtype(MetricObject *o, PyObject *unused)
{
        MetricAttrs a;
        metric_attrs(o, &a);
        if (a.subtype == METRIC_SUBTYPE_NONE)
                Py_RETURN_NONE;
        return PyLong_FromLong(a.subtype);
}

static PyObject *metric_rollup_operation(MetricObject *o, PyObject *unused)
{
        MetricAttrs a;
        metric_attrs(o, &a);
        if (a.rollup == METRIC_ROLLUP_NONE)
                Py_RETURN_NONE;
        return PyLong_FromLong(a.rollup);
}

static PyObject *metric_unit(MetricObject *o, PyObject *unused)
{
        MetricAttrs a;
        metric_attrs(o, &a);
        return new_string(a.unit);
}

static PyMethodDef metric_methods[] = {
        { "name", (PyCFunction) metric_name, METH_NOARGS, "The metric's name." },
        { "kind", (PyCFunction) (void (*)(void)) metric_kind, METH_FASTCALL, "kind(instance=None): the value kind." },
        { "has_value", (PyCFunction) (void (*)(void)) metric_has_value, METH_FASTCALL, "has_value(instance=None)." },
        { "as_double", (PyCFunction) (void (*)(void)) metric_as_double, METH_FASTCALL,
                        "as_double(instance=None); 0 on failure." },
        { "as_uint64", (PyCFunction) (void (*)(void)) metric_as_uint64, METH_FASTCALL,
                        "as_uint64(instance=None); 0 on failure." },
        { "as_string", (PyCFunction) (void (*)(void)) metric_as_string, METH_FASTCALL,
                        "as_string(instance=None); None on failure." },
        { "value", (PyCFunction) (void (*)(void)) metric_value, METH_FASTCALL,
                        "value(instance=None): the value as its kind reads (float, int, str), or None." },
        { "num_instances", (PyCFunction) metric_num_instances, METH_NOARGS, "Number of instance values." },
        { "has_correlation_ids", (PyCFunction) metric_has_correlation_ids, METH_NOARGS, NULL },
        { "correlation_ids", (PyCFunction) metric_correlation_ids, METH_NOARGS,
                        "A metric whose instance values are the correlation ids, or None." },
        { "metric_type", (PyCFunction) metric_metric_type, METH_NOARGS, NULL },
        { "metric_subtype", (PyCFunction) metric_metric_subtype, METH_NOARGS, NULL },
        { "rollup_operation", (PyCFunction) metric_rollup_operation, METH_NOARGS, NULL },
        { "unit", (PyCFunction) metric_unit, METH_NOARGS, NULL },
        { NULL },
};

PyTypeObject ncu_py_metric_type = {
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nvprofiled._ncu_report.Metric",
        .tp_basicsize = sizeof(MetricObject),
        .tp_dealloc = (destructor) metric_dealloc,
        .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
        .tp_doc = "A metric of an action (see nvprofiled.ncu_report.IMetric).",
        .tp_methods = metric_methods,
};
