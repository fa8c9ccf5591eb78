#include <Python.h>  // before any other header, as CPython asks

#include "worker/python_record_switches.hpp"

#include <algorithm>
#include <deque>

namespace headroom::worker {
namespace {

std::vector<std::string>& calls() {
  static std::vector<std::string> c;
  return c;
}

// `self` is the replaced function's qualified name.
PyObject* noted_call(PyObject* self, PyObject*, PyObject*) {
  std::string name = to_string(self);
  if (std::find(calls().begin(), calls().end(), name) == calls().end()) calls().push_back(name);
  Py_RETURN_NONE;
}

}  // namespace

bool take_record_switches(PyObject* originals, PyObject* replace_everywhere) {
  // A method table per replaced function, so the stand-in keeps its __name__; they live as long
  // as the process.
  static std::deque<std::string> names;
  static std::deque<PyMethodDef> defs;
  Py_ssize_t n = PyList_Size(originals);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* original = PyList_GetItem(originals, i);
    py_ref module(PyObject_GetAttrString(original, "__module__"));
    py_ref name(PyObject_GetAttrString(original, "__name__"));
    if (!module || !name) return false;
    names.push_back(to_string(name.get()));
    defs.push_back({names.back().c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(noted_call)),
                    METH_VARARGS | METH_KEYWORDS, nullptr});
    py_ref qualified(PyUnicode_FromString((to_string(module.get()) + "." + names.back()).c_str()));
    py_ref stand_in(PyCFunction_NewEx(&defs.back(), qualified.get(), nullptr));
    if (!stand_in) return false;
    py_ref replaced(PyObject_CallFunctionObjArgs(replace_everywhere, original, stand_in.get(), nullptr));
    if (!replaced) return false;
  }
  return true;
}

const std::vector<std::string>& record_switch_calls() { return calls(); }

}  // namespace headroom::worker
