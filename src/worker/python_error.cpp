#include <Python.h>  // before any other header, as CPython asks

#include "worker/python_error.hpp"

namespace headroom::worker {

python_error take_python_error(PyObject* describe) {
  python_error e;
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  py_ref t(type), v(value), b(tb);
  if (!v) {
    e.message = "unknown Python error";
    return e;
  }
  if (b) PyException_SetTraceback(v.get(), b.get());
  if (t) e.type = to_string(py_ref(PyObject_GetAttrString(t.get(), "__name__")).get());
  PyErr_Clear();
  py_ref described(describe ? PyObject_CallOneArg(describe, v.get()) : nullptr);
  if (described && PyTuple_Check(described.get()) && PyTuple_Size(described.get()) == 3) {
    e.kind = to_string(PyTuple_GetItem(described.get(), 0));
    e.message = to_string(PyTuple_GetItem(described.get(), 1));
    e.traceback = to_string(PyTuple_GetItem(described.get(), 2));
  } else {
    PyErr_Clear();
    e.message = to_string(v.get());
  }
  return e;
}

}  // namespace headroom::worker
