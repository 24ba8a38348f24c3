/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of the _ncu_report extension share (_ncu_report.c: the module, Report and Action;
 * _ncu_report_metric.c: Metric): the objects, and small helpers. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <string.h>

#include "report.h"

typedef struct {
        PyObject_HEAD NcuReport *report;
} ReportObject;

typedef struct {
        PyObject_HEAD PyObject *owner; /* the ReportObject */
        NcuAction *action; /* its metrics decoded on first use: reports are loaded lazily */
} ActionObject;

typedef struct {
        PyObject_HEAD PyObject *owner; /* the ReportObject */
        const NcuAction *action; /* the metric's (its attributes depend on the action's GPU) */
        const NcuMetric *metric;
        bool ids; /* a view whose instance values are the metric's correlation ids */
} MetricObject;

/* Owners of Python references and PyMem buffers, released on scope exit like the daemon's _cleanup_ variables. */
static inline void py_object_unrefp(PyObject **p)
{
        Py_XDECREF(*p);
}

static inline void py_mem_freep(void *p)
{
        PyMem_Free(*(void **) p);
}

/* The Metric type (_ncu_report_metric.c), and the Python subclass metrics are created as (ncu_report.py
 * registers it). */
extern PyTypeObject ncu_py_metric_type;
extern PyTypeObject *ncu_py_metric_class;
/* A Metric of action a of owner's report: m itself, or (ids) the view of its correlation ids. */
PyObject *ncu_py_metric_new(PyObject *owner, const NcuAction *a, const NcuMetric *m, bool ids);

/* The LineTable type and line_table() (_ncu_report_lines.c). */
extern PyTypeObject ncu_py_line_table_type;
PyObject *ncu_py_line_table(PyObject *module, PyObject *args);

/* ncu_report's IMetric.ValueKind numbering: UNKNOWN 0, ANY 1, STRING 2, FLOAT 3, DOUBLE 4, UINT32 5,
 * UINT64 6; the model's has no ANY. */
static inline long value_kind_number(NcuValueKind k)
{
        return k == NCU_VALUE_UNKNOWN ? 0 : (long) k + 1;
}

static inline PyObject *new_string(const char *s)
{
        if (!s)
                Py_RETURN_NONE;
        /* Reports are written by ncu in UTF-8; a stray byte must not make a metric unreadable. */
        return PyUnicode_DecodeUTF8(s, (Py_ssize_t) strlen(s), "surrogateescape");
}

static inline PyObject *new_string_or_empty(const char *s)
{
        return new_string(s ? s : "");
}
