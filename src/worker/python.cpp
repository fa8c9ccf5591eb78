#include "worker/python.hpp"

#include <stdexcept>

namespace headroom::worker {

void start_python(const std::string& executable) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  // Python computes sys.prefix from the program name; a virtual environment is found through the
  // pyvenv.cfg next to its executable.
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, executable.c_str());
  if (!PyStatus_Exception(status)) status = PyConfig_SetBytesString(&config, &config.executable, executable.c_str());
  config.install_signal_handlers = 0;  // SIGINT and SIGTERM end the worker; the parent decides
  config.write_bytecode = 0;
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status))
    throw std::runtime_error(std::string("cannot start Python for ") + executable + ": " +
                             (status.err_msg ? status.err_msg : "unknown error"));
}

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
