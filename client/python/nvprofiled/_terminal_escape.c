/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofiled._terminal_escape: nvprofilectl's terminal escaping (client/terminal-escape.c) for the Python
 * package, so that a string from a report or rule file reaches a terminal escaped by the one rule both
 * write by. nvprofiled._terminal wraps it for str. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "terminal-escape.h"

static PyObject *escape_bytes(PyObject *self, PyObject *arg)
{
        PyObject *result;
        char *escaped;

        if (!PyBytes_Check(arg)) {
                PyErr_SetString(PyExc_TypeError, "escape_bytes() takes bytes");
                return NULL;
        }
        escaped = terminal_escape_n(PyBytes_AS_STRING(arg), (size_t) PyBytes_GET_SIZE(arg));
        if (!escaped)
                return PyErr_NoMemory();
        /* Valid UTF-8 whatever came in: each byte of what is not printable UTF-8 became "\xNN". */
        result = PyUnicode_DecodeUTF8(escaped, (Py_ssize_t) strlen(escaped), "strict");
        free(escaped);
        return result;
}

static PyMethodDef methods[] = {
        { "escape_bytes", escape_bytes, METH_O,
                        "escape_bytes(data: bytes) -> str: data as nvprofilectl writes it to a terminal." },
        { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
        PyModuleDef_HEAD_INIT,
        .m_name = "nvprofiled._terminal_escape",
        .m_doc = "nvprofilectl's terminal escaping (client/terminal-escape.h).",
        .m_size = -1,
        .m_methods = methods,
};

PyMODINIT_FUNC PyInit__terminal_escape(void);

PyMODINIT_FUNC PyInit__terminal_escape(void)
{
        return PyModule_Create(&module);
}
