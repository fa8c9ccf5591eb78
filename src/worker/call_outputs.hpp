#pragma once
// What the worker checks of a call's outputs once it has returned (docs/eval.md, "Integrity inside
// the worker"): where they live (memory the harness's allocators handed out during the call), their
// sketches, which the parent checks against the reference's replay, and their eviction from the
// caches before the next call.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "headroom/worker/device.hpp"
#include "worker/python_ref.hpp"

namespace headroom::worker {

class allocation_watch;
class python_tensors;
struct output_extent;

class call_outputs {
 public:
  call_outputs(const std::unique_ptr<device>& dev, const python_tensors& python, const allocation_watch& allocations)
      : dev_(dev), python_(python), allocations_(allocations) {}

  // Where the outputs of `value` (forward's result) live: empty when every one is memory the
  // allocators handed out during the call just logged; otherwise why not. `not_tensor` receives
  // the message when the result is not tensors at all.
  std::string foreign_outputs(const py_ref& value, std::string& not_tensor) const;
  // The sketches of a result's outputs, as JSON: one array of sketch_width numbers per output (null
  // for a value that is not finite).
  std::string sketch_outputs(const py_ref& result, std::uint64_t seed) const;
  // Evicts a result's outputs from the caches (device::evict): whatever the worker did with them
  // after the call (a sketch read on many cores, a copy) leaves nothing for the next call.
  void evict_outputs(const py_ref& result) const;

 private:
  // The memory each output spans: empty, or why the outputs could not be inspected.
  std::string output_extents(const py_ref& value, std::vector<output_extent>& extents, std::string& not_tensor) const;

  const std::unique_ptr<device>& dev_;
  const python_tensors& python_;
  const allocation_watch& allocations_;
};

}  // namespace headroom::worker
