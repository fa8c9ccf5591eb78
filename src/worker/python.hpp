#pragma once
// The embedded interpreter: starting it on a given environment's executable, owning references,
// and turning a raised exception into data.
#include <Python.h>

#include <string>
#include <utility>

namespace headroom::worker {

// An owned reference.
class py_ref {
 public:
  py_ref() = default;
  explicit py_ref(PyObject* p) : p_(p) {}  // steals
  static py_ref borrow(PyObject* p) {
    Py_XINCREF(p);
    return py_ref(p);
  }
  py_ref(const py_ref& o) : p_(o.p_) { Py_XINCREF(p_); }
  py_ref(py_ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  py_ref& operator=(py_ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~py_ref() { Py_XDECREF(p_); }
  PyObject* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  PyObject* p_ = nullptr;
};

// Starts Python as if `executable` had been run, so its virtual environment's site-packages are on
// the path. Throws with Python's own message when it cannot start.
void start_python(const std::string& executable);

// The pending Python exception, described by driver.describe_exception: kind (out_of_memory,
// illegal_address or empty), message, traceback. Clears it.
struct python_error {
  std::string type;
  std::string kind;
  std::string message;
  std::string traceback;
};
python_error take_python_error(PyObject* describe);

std::string to_string(PyObject* o);  // str(o), or "" when it fails

}  // namespace headroom::worker
