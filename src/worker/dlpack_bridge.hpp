#pragma once
// Tensors across the DLPack bridge, the C++ side: the worker's bytes as PyTorch tensors in memory
// the worker owns on the device, and PyTorch's tensors copied out as bytes with their metas. The
// Python side (capsules, argument tuples) is python_tensors.hpp.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "headroom/worker/device.hpp"
#include "worker/python_ref.hpp"
#include "worker/tensor_meta.hpp"

namespace headroom::worker {

class python_tensors;

// forward's arguments, and the buffers of its tensors (in the order of their metas).
struct built_inputs {
  py_ref tuple;
  std::vector<void*> data;
};

class tensor_bridge {
 public:
  // `dev`: the worker's device, made by hello.
  tensor_bridge(const std::unique_ptr<device>& dev, const python_tensors& python) : dev_(dev), python_(python) {}

  // Copies tensors (a Python list) out; appends bytes and meta JSON (and the metas themselves to
  // `parsed` when given). Tensors of more than `max_bytes` together throw too_large. False with
  // the Python error pending.
  bool read_tensors(const py_ref& list, std::vector<std::byte>& payload, std::string& metas,
                    std::vector<meta>* parsed = nullptr,
                    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max()) const;
  // The same for forward's result (one tensor, or a tuple or list of them).
  bool read_result_tensors(const py_ref& result, std::vector<std::byte>& payload, std::string& metas) const;

  // The forward's arguments: the tensors of `metas` in order, copied from `src` (on the host, or
  // on the device when `device_src`; from `device_sources[i]` when given), with the problem's
  // `constants` at their positions.
  built_inputs build_inputs(const std::vector<meta>& metas, const std::byte* src, bool device_src,
                            const py_ref& constants, const std::vector<const void*>* device_sources = nullptr) const;

 private:
  // A tensor on the device in memory we own, holding `m.bytes` from `src`; `data` receives the buffer.
  py_ref make_tensor(const meta& m, const void* src, bool device_src, void** data) const;

  const std::unique_ptr<device>& dev_;
  const python_tensors& python_;
};

}  // namespace headroom::worker
