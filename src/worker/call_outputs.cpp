// Where a candidate call's outputs live (memory the harness's allocators handed out during the
// call) and their sketches, which the parent checks against the reference's replay.
#include "worker/worker.hpp"

#include <fmt/format.h>

#include "worker/dlpack.hpp"
#include "worker/output_memory.hpp"

namespace headroom::worker {
namespace {

// The memory a tensor's elements span, views and strides as they are.
output_extent extent_of(const dlpack::tensor& t) {
  std::size_t element = t.dtype.bits / 8 * t.dtype.lanes;
  std::int64_t last = 0;  // the farthest element's offset, in elements
  bool empty = false;
  for (std::int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) empty = true;
    std::int64_t stride = t.strides ? t.strides[d] : 1;
    if (!t.strides)
      for (std::int32_t e = d + 1; e < t.ndim; ++e) stride *= t.shape[e];
    if (t.shape[d] > 0) last += (t.shape[d] - 1) * stride;
  }
  output_extent x;
  x.begin = static_cast<const char*>(t.data) + t.byte_offset;
  x.bytes = empty ? 0 : static_cast<std::size_t>(last + 1) * element;
  x.on_device = t.dev.type == dlpack::cuda;
  return x;
}

}  // namespace

// The blocks the allocators hand out during a candidate's call are logged (output_memory.hpp).
void worker::begin_allocation_log() {
  cpu_allocations().begin();
  if (poison_) poison_->begin_log();
}

void worker::end_allocation_log() {
  cpu_allocations().end();
  if (poison_) poison_->end_log();
}

// The memory each output of `value` (forward's result) spans, into `extents`; empty, or why the
// outputs could not be inspected. `not_tensor` receives the message when the result is not tensors.
std::string worker::output_extents(PyObject* value, std::vector<output_extent>& extents, std::string& not_tensor) {
  py_ref caps = call("output_capsules", {value});
  if (!caps) {
    python_error e = take_python_error(nullptr);
    return "its outputs could not be inspected: " + e.message;
  }
  if (PyUnicode_Check(caps.get())) {
    not_tensor = to_string(caps.get());
    return {};
  }
  for (Py_ssize_t i = 0; i < PyList_Size(caps.get()); ++i) {
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyList_GetItem(caps.get(), i), dlpack::capsule_name));
    if (!mt) {
      PyErr_Clear();
      return fmt::format("output {} could not be inspected", i);
    }
    extents.push_back(extent_of(mt->dl_tensor));
  }
  return {};
}

// Where the outputs of `value` live: empty when every one is memory the allocators handed out
// during the call just logged; otherwise why not.
std::string worker::foreign_outputs(PyObject* value, std::string& not_tensor) {
  std::vector<output_extent> extents;
  if (std::string why = output_extents(value, extents, not_tensor); !why.empty() || !not_tensor.empty()) return why;
  return check_output_memory(extents, cpu_allocations(), poison_.get());
}

// The sketches of a result's outputs, as JSON: one array of sketch_width numbers per output (null
// for a value that is not finite).
std::string worker::sketch_outputs(PyObject* result, std::uint64_t seed) {
  py_ref list = result_list(result);
  py_ref caps = call("to_capsules", {list.get()});
  if (!caps) {
    PyErr_Clear();
    return "[]";
  }
  std::string out = "[";
  for (Py_ssize_t i = 0; i < PyList_Size(caps.get()); ++i) {
    PyObject* item = PyList_GetItem(caps.get(), i);
    auto type = parse_dtype(to_string(PyTuple_GetItem(item, 0)));
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyTuple_GetItem(item, 1), dlpack::capsule_name));
    if (!mt || !type) {
      PyErr_Clear();
      return "[]";
    }
    const dlpack::tensor& t = mt->dl_tensor;
    std::size_t numel = 1;
    for (std::int32_t d = 0; d < t.ndim; ++d) numel *= static_cast<std::size_t>(t.shape[d]);
    auto v = dev_->sketch(static_cast<const char*>(t.data) + t.byte_offset, *type == dtype::boolean ? dtype::u8 : *type,
                          numel, seed);
    out += i ? ",[" : "[";
    for (std::size_t k = 0; k < v.size(); ++k)
      out += (k ? "," : "") + (std::isfinite(v[k]) ? fmt::format("{:.17g}", v[k]) : std::string("null"));
    out += "]";
  }
  return out + "]";
}

void worker::evict_outputs(PyObject* result) {
  std::vector<output_extent> extents;
  std::string not_tensor;
  output_extents(result, extents, not_tensor);  // what could not be inspected is not evicted
  for (const output_extent& x : extents)
    if (!x.on_device) dev_->evict(x.begin, x.bytes);
}

}  // namespace headroom::worker
