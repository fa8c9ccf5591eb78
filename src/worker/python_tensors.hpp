#pragma once
// Tensors as PyTorch sees them, on the Python side of the DLPack bridge (part of the Python
// gateway): tensors exported as DLPack capsules (driver.to_capsules, output_capsules), tensors
// made from ours (driver.from_capsule), forward's argument tuple and its result as a list. The C++
// side, which copies and owns the memory, is dlpack_bridge.hpp.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "headroom/util/dtype.hpp"
#include "worker/dlpack.hpp"
#include "worker/python_ref.hpp"

namespace headroom::worker {

class python_driver;

class python_tensors {
 public:
  explicit python_tensors(const python_driver& driver) : driver_(driver) {}

  // Tensors exported through driver.to_capsules: each with its dtype's name and its DLPack view,
  // valid while `capsules` is held.
  struct exported {
    py_ref capsules;
    struct tensor {
      std::string dtype;
      const dlpack::tensor* view;
    };
    std::vector<tensor> tensors;
  };
  // False with the Python error pending when the list could not be exported.
  bool export_tensors(const py_ref& list, exported& out) const;

  // The views of forward's outputs (driver.output_capsules), valid while `capsules` is held.
  struct output_views {
    py_ref capsules;
    std::vector<const dlpack::tensor*> views;
  };
  // Empty, or why the outputs could not be inspected; `not_tensor` receives the message when the
  // result is not tensors at all.
  std::string view_outputs(const py_ref& value, output_views& out, std::string& not_tensor) const;

  // Weak handles of the storages of forward's outputs (driver.storage_handles), one per output (0
  // where none could be had). A handle keeps nothing alive; each must be dropped once.
  std::vector<std::uintptr_t> storage_handles(const py_ref& value) const;
  // The storage a handle names, alive while `holder` is held: where its memory is; none once gone.
  struct held_storage {
    py_ref holder;
    std::uintptr_t data = 0;
    std::size_t bytes = 0;
  };
  std::optional<held_storage> hold_storage(std::uintptr_t handle) const;
  void drop_storage_handle(std::uintptr_t handle) const;

  // A PyTorch tensor over `managed` (which it owns from then on: its deleter runs when the tensor
  // goes). Throws request_error when PyTorch refuses it.
  py_ref tensor_from(dlpack::managed_tensor* managed, dtype type) const;

  // forward's arguments: `count` tensors made by `tensor(i)` in order, in the places the problem's
  // constants (a list of (position, value), driver.parse_constants; may be empty) leave free.
  // Throws request_error when the constants' positions do not fit.
  static py_ref argument_tuple(const py_ref& constants, std::size_t count,
                               const std::function<py_ref(std::size_t)>& tensor);

  // A sequence as a list; forward's result as the list of its outputs.
  static py_ref as_list(const py_ref& sequence);
  static py_ref result_list(const py_ref& result);

 private:
  const python_driver& driver_;
};

}  // namespace headroom::worker
