#pragma once
// An owned reference to a Python object: the handle the worker's components keep (a model, its
// constants, a call's result) and hand back to the Python gateway (the python_*.cpp files), which
// alone looks inside it. No Python.h here: a file that sees only this header cannot call CPython.
#include <string>
#include <utility>

struct _object;  // CPython's PyObject

namespace headroom::worker {

class py_ref {
 public:
  py_ref() = default;
  explicit py_ref(_object* p) : p_(p) {}  // steals
  static py_ref borrow(_object* p);
  py_ref(const py_ref& o);
  py_ref(py_ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  py_ref& operator=(py_ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~py_ref();
  _object* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  _object* p_ = nullptr;
};

// str(o), or "" when it fails (the error is cleared).
std::string to_string(_object* o);
inline std::string to_string(const py_ref& o) { return to_string(o.get()); }

}  // namespace headroom::worker
