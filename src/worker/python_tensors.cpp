#include <Python.h>  // before any other header, as CPython asks

#include "worker/python_tensors.hpp"

#include <fmt/format.h>

#include "worker/python_driver.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {
namespace {

void capsule_destructor(PyObject* capsule) {
  // Only a capsule nobody consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, dlpack::capsule_name)) {
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
    if (mt && mt->deleter) mt->deleter(mt);
  }
}

const dlpack::tensor* view_of(PyObject* capsule) {
  auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
  return mt ? &mt->dl_tensor : nullptr;
}

}  // namespace

bool python_tensors::export_tensors(const py_ref& list, exported& out) const {
  out.capsules = driver_.call("to_capsules", {list.get()});
  if (!out.capsules) return false;
  Py_ssize_t n = PyList_Size(out.capsules.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GetItem(out.capsules.get(), i);
    const dlpack::tensor* view = view_of(PyTuple_GetItem(item, 1));
    if (!view) return false;
    out.tensors.push_back({to_string(PyTuple_GetItem(item, 0)), view});
  }
  return true;
}

std::string python_tensors::view_outputs(const py_ref& value, output_views& out, std::string& not_tensor) const {
  out.capsules = driver_.call("output_capsules", {value.get()});
  if (!out.capsules) return "its outputs could not be inspected: " + python_driver::take_plain_error().message;
  if (PyUnicode_Check(out.capsules.get())) {
    not_tensor = to_string(out.capsules);
    return {};
  }
  for (Py_ssize_t i = 0; i < PyList_Size(out.capsules.get()); ++i) {
    const dlpack::tensor* view = view_of(PyList_GetItem(out.capsules.get(), i));
    if (!view) {
      PyErr_Clear();
      return fmt::format("output {} could not be inspected", i);
    }
    out.views.push_back(view);
  }
  return {};
}

std::vector<std::uintptr_t> python_tensors::storage_handles(const py_ref& value) const {
  std::vector<std::uintptr_t> handles;
  py_ref list = driver_.call("storage_handles", {value.get()});
  if (!list) {
    PyErr_Clear();
    return handles;
  }
  for (Py_ssize_t i = 0; i < PyList_Size(list.get()); ++i) {
    PyObject* h = PyList_GetItem(list.get(), i);
    std::uintptr_t handle = h == Py_None ? 0 : static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(h));
    if (PyErr_Occurred()) {
      PyErr_Clear();
      handle = 0;
    }
    handles.push_back(handle);
  }
  return handles;
}

std::optional<python_tensors::held_storage> python_tensors::hold_storage(std::uintptr_t handle) const {
  py_ref h(PyLong_FromUnsignedLongLong(handle));
  py_ref held = driver_.call("hold_storage", {h.get()});
  if (!held || held.get() == Py_None) {
    PyErr_Clear();
    return std::nullopt;
  }
  held_storage out;
  out.data = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(PyTuple_GetItem(held.get(), 1)));
  out.bytes = static_cast<std::size_t>(PyLong_AsUnsignedLongLong(PyTuple_GetItem(held.get(), 2)));
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  out.holder = held;
  return out;
}

void python_tensors::drop_storage_handle(std::uintptr_t handle) const {
  if (!handle) return;
  py_ref h(PyLong_FromUnsignedLongLong(handle));
  if (!driver_.call("drop_storage_handle", {h.get()})) PyErr_Clear();
}

py_ref python_tensors::tensor_from(dlpack::managed_tensor* managed, dtype type) const {
  py_ref capsule(PyCapsule_New(managed, dlpack::capsule_name, capsule_destructor));
  py_ref name(PyUnicode_FromString(std::string(dtype_name(type)).c_str()));
  py_ref t = driver_.call("from_capsule", {capsule.get(), name.get()});
  if (!t) throw request_error("cannot hand an input to PyTorch: " + python_driver::take_plain_error().message);
  return t;
}

py_ref python_tensors::argument_tuple(const py_ref& constants, std::size_t count,
                                      const std::function<py_ref(std::size_t)>& tensor) {
  const Py_ssize_t n_constants = constants ? PyList_Size(constants.get()) : 0;
  const auto total = static_cast<Py_ssize_t>(count) + n_constants;
  py_ref tuple(PyTuple_New(total));
  for (Py_ssize_t k = 0; k < n_constants; ++k) {
    PyObject* pair = PyList_GetItem(constants.get(), k);
    Py_ssize_t position = PyLong_AsSsize_t(PyTuple_GetItem(pair, 0));
    if (position < 0 || position >= total)
      throw request_error(fmt::format("a constant argument at position {} of {}", position, total));
    PyObject* value = PyTuple_GetItem(pair, 1);
    Py_INCREF(value);
    PyTuple_SET_ITEM(tuple.get(), position, value);
  }
  Py_ssize_t slot = 0;
  for (std::size_t i = 0; i < count; ++i) {
    while (slot < total && PyTuple_GET_ITEM(tuple.get(), slot) != nullptr) ++slot;  // a constant's position
    if (slot == total) throw request_error("constant arguments overlap");
    py_ref t = tensor(i);
    PyTuple_SET_ITEM(tuple.get(), slot++, t.get());
    Py_INCREF(t.get());
  }
  return tuple;
}

py_ref python_tensors::as_list(const py_ref& sequence) { return py_ref(PySequence_List(sequence.get())); }

py_ref python_tensors::result_list(const py_ref& result) {
  if (PyTuple_Check(result.get()) || PyList_Check(result.get())) return py_ref(PySequence_List(result.get()));
  py_ref list(PyList_New(0));
  PyList_Append(list.get(), result.get());
  return list;
}

}  // namespace headroom::worker
