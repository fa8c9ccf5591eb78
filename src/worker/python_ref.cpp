// py_ref's reference counting and str(): the Python gateway's part of every handle.
#include <Python.h>  // before any other header, as CPython asks

#include "worker/python_ref.hpp"

namespace headroom::worker {

py_ref py_ref::borrow(PyObject* p) {
  Py_XINCREF(p);
  return py_ref(p);
}

py_ref::py_ref(const py_ref& o) : p_(o.p_) { Py_XINCREF(p_); }

py_ref::~py_ref() { Py_XDECREF(p_); }

std::string to_string(PyObject* o) {
  if (!o) return "";
  py_ref s(PyObject_Str(o));
  if (!s) {
    PyErr_Clear();
    return "";
  }
  const char* c = PyUnicode_AsUTF8(s.get());
  if (!c) {
    PyErr_Clear();
    return "";
  }
  return c;
}

}  // namespace headroom::worker
