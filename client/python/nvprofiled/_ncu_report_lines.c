/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* _ncu_report's LineTable: a cubin's SASS address -> source line table (daemon/nsight/report/cubin-lines.h),
 * what IAction.source_info answers from. */

#include "_ncu_report.h"
#include "cubin-lines.h"

typedef struct {
        PyObject_HEAD CubinLines *lines;
} LineTableObject;

static void line_table_dealloc(LineTableObject *o)
{
        cubin_lines_free(o->lines);
        Py_TYPE(o)->tp_free((PyObject *) o);
}

static PyObject *line_table_lookup(LineTableObject *o, PyObject *arg)
{
        unsigned long long pc = PyLong_AsUnsignedLongLong(arg);
        const char *file;
        int64_t line;

        if (PyErr_Occurred()) {
                /* An address no instruction can have (negative, past 64 bits) is on no line. */
                if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                        return NULL;
                PyErr_Clear();
                Py_RETURN_NONE;
        }
        if (!cubin_lines_lookup(o->lines, pc, &file, &line))
                Py_RETURN_NONE;
        return Py_BuildValue("(NL)", new_string(file), (long long) line);
}

static PyMethodDef line_table_methods[] = {
        { "lookup", (PyCFunction) line_table_lookup, METH_O, "lookup(pc): (file name, line), or None." },
        { NULL },
};

PyTypeObject ncu_py_line_table_type = {
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nvprofiled._ncu_report.LineTable",
        .tp_basicsize = sizeof(LineTableObject),
        .tp_dealloc = (destructor) line_table_dealloc,
        .tp_flags = Py_TPFLAGS_DEFAULT,
        .tp_doc = "A cubin's line table (see line_table()).",
        .tp_methods = line_table_methods,
};

/* line_table(cubin, functions): functions are ((symbol name, address or None), ...), where the report says
 * the cubin's functions were loaded. None when the cubin has no line information this reader takes. */
PyObject *ncu_py_line_table(PyObject *module, PyObject *args)
{
        _cleanup_(py_mem_freep) CubinFunction *functions = NULL;
        _cleanup_(cubin_lines_freep) CubinLines *lines = NULL;
        PyObject *list;
        Py_buffer cubin;
        size_t n = 0;
        int r;

        if (!PyArg_ParseTuple(args, "y*O!", &cubin, &PyTuple_Type, &list))
                return NULL;
        functions = PyMem_Calloc((size_t) PyTuple_GET_SIZE(list) + 1, sizeof(CubinFunction));
        if (!functions) {
                PyBuffer_Release(&cubin);
                return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(list); i++) {
                PyObject *name, *address;

                if (!PyArg_ParseTuple(PyTuple_GET_ITEM(list, i), "OO", &name, &address)) {
                        PyBuffer_Release(&cubin);
                        return NULL;
                }
                if (address == Py_None)
                        continue;
                functions[n].name = PyUnicode_AsUTF8(name);
                functions[n].address = PyLong_AsUnsignedLongLong(address);
                if (!functions[n].name || PyErr_Occurred()) {
                        PyBuffer_Release(&cubin);
                        return NULL;
                }
                n++;
        }
        r = cubin_lines_new(cubin.buf, (size_t) cubin.len, functions, n, &lines);
        PyBuffer_Release(&cubin);
        if (r < 0)
                return PyErr_NoMemory();
        if (!lines)
                Py_RETURN_NONE;
        LineTableObject *o = PyObject_New(LineTableObject, &ncu_py_line_table_type);
        if (!o)
                return NULL;
        o->lines = TAKE_PTR(lines);
        return (PyObject *) o;
}
