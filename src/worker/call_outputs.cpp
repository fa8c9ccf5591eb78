#include "worker/call_outputs.hpp"

#include <cmath>

#include <fmt/format.h>

#include "worker/allocation_watch.hpp"
#include "worker/dlpack.hpp"
#include "worker/output_memory.hpp"
#include "worker/poison_cpu.hpp"
#include "worker/python_driver.hpp"
#include "worker/python_tensors.hpp"

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

std::string call_outputs::output_extents(const py_ref& value, std::vector<output_extent>& extents,
                                         std::string& not_tensor) const {
  python_tensors::output_views views;
  if (std::string why = python_.view_outputs(value, views, not_tensor); !why.empty() || !not_tensor.empty()) return why;
  for (const dlpack::tensor* t : views.views) extents.push_back(extent_of(*t));
  return {};
}

std::string call_outputs::foreign_outputs(const py_ref& value, std::string& not_tensor) const {
  std::vector<output_extent> extents;
  if (std::string why = output_extents(value, extents, not_tensor); !why.empty() || !not_tensor.empty()) return why;
  return check_output_memory(extents, cpu_allocations(), allocations_.cuda());
}

std::string call_outputs::sketch_outputs(const py_ref& result, std::uint64_t seed) const {
  python_tensors::exported caps;
  if (!python_.export_tensors(python_tensors::result_list(result), caps)) {
    python_driver::clear_error();
    return "[]";
  }
  std::string out = "[";
  for (std::size_t i = 0; i < caps.tensors.size(); ++i) {
    auto type = parse_dtype(caps.tensors[i].dtype);
    if (!type) return "[]";
    const dlpack::tensor& t = *caps.tensors[i].view;
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

void call_outputs::evict_outputs(const py_ref& result) const {
  std::vector<output_extent> extents;
  std::string not_tensor;
  output_extents(result, extents, not_tensor);  // what could not be inspected is not evicted
  for (const output_extent& x : extents)
    if (!x.on_device) dev_->evict(x.begin, x.bytes);
}

}  // namespace headroom::worker
