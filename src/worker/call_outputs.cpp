#include "worker/call_outputs.hpp"

#include <cmath>

#include <fmt/format.h>

#include "worker/allocation_watch.hpp"
#include "worker/cuda_poison.hpp"
#include "worker/dlpack.hpp"
#include "worker/poison_cpu.hpp"
#include "worker/python_driver.hpp"
#include "worker/python_tensors.hpp"

namespace headroom::worker {
namespace {

// Our dtype for a DLPack type (a bool output travels as a uint8 view: driver.output_capsules).
dtype dtype_of(const dlpack::data_type& d) {
  switch (d.code) {
    case dlpack::float_code:
      return d.bits == 64 ? dtype::f64 : d.bits == 16 ? dtype::f16 : dtype::f32;
    case dlpack::bfloat_code:
      return dtype::bf16;
    case dlpack::int_code:
      return d.bits == 64 ? dtype::i64 : d.bits == 32 ? dtype::i32 : d.bits == 16 ? dtype::i16 : dtype::i8;
    default:
      return dtype::u8;
  }
}

// The memory a tensor's elements span, views and strides as they are.
output_extent extent_of(const dlpack::tensor& t) {
  std::size_t element = t.dtype.bits / 8 * t.dtype.lanes;
  std::int64_t last = 0;  // the farthest element's offset, in elements
  std::size_t numel = 1;
  for (std::int32_t d = 0; d < t.ndim; ++d) {
    numel *= static_cast<std::size_t>(t.shape[d]);
    std::int64_t stride = t.strides ? t.strides[d] : 1;
    if (!t.strides)
      for (std::int32_t e = d + 1; e < t.ndim; ++e) stride *= t.shape[e];
    if (t.shape[d] > 0) last += (t.shape[d] - 1) * stride;
  }
  output_extent x;
  x.begin = static_cast<const char*>(t.data) + t.byte_offset;
  x.bytes = numel == 0 ? 0 : static_cast<std::size_t>(last + 1) * element;
  x.on_device = t.dev.type == dlpack::cuda;
  // Elements that reach as far as their count does cover the extent once each (no gap, no overlap).
  x.dense = x.bytes == numel * element;
  x.type = dtype_of(t.dtype);
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

output_placement call_outputs::place(const py_ref& value, const std::vector<memory_span>& inputs,
                                     const std::vector<memory_span>& filled, bool first_return_allowed,
                                     std::vector<output_extent>& extents, std::string& not_tensor) const {
  output_placement placed;
  if (std::string why = output_extents(value, extents, not_tensor); !why.empty()) {
    placed.code = "foreign_output";
    placed.why = why;
    return placed;
  }
  if (!not_tensor.empty()) return placed;
  const cuda_poison* device = allocations_.cuda();
  output_sources s;
  s.allocated_during_call = [&](const output_extent& x) {
    return x.on_device ? device && device->holds(x.begin, x.bytes) : cpu_allocations().holds(x.begin, x.bytes);
  };
  s.allocated_since_load = [&](const output_extent& x) {
    return x.on_device ? device && device->handed_out(x.begin, x.bytes)
                       : cpu_lifetime_allocations().holds(x.begin, x.bytes);
  };
  s.private_read_write = [](const output_extent& x) { return mapped_private_read_write(x.begin, x.bytes); };
  s.blocks_during_call = cpu_allocations().blocks() + (device ? device->logged_blocks() : 0);
  s.inputs = inputs;
  s.filled = filled;
  s.first_return_allowed = first_return_allowed;
  return place_outputs(extents, s);
}

std::vector<memory_span> call_outputs::input_spans(const std::vector<void*>& data, const std::vector<meta>& metas,
                                                   bool on_device) {
  std::vector<memory_span> spans;
  for (std::size_t i = 0; i < data.size() && i < metas.size(); ++i)
    spans.push_back({data[i], metas[i].bytes, on_device});
  return spans;
}

std::string call_outputs::memory_json(const output_placement& placed) {
  std::string out = "[";
  for (std::size_t i = 0; i < placed.places.size(); ++i) {
    const output_memory m = placed.places[i].memory;
    out += i ? "," : "";
    out += m == output_memory::kept             ? R"("kept")"
           : m == output_memory::first_returned ? R"("first_returned")"
                                                : R"("fresh")";
  }
  return out + "]";
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
