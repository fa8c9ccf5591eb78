#pragma once
// What the worker checks of a call's outputs once it has returned (docs/eval.md, "Integrity inside
// the worker"): where they live (output_memory.hpp: memory the harness's allocators handed out during
// the call, or memory the candidate keeps that the worker filled before it), their sketches, which
// the parent checks against the reference's replay, and their eviction from the caches before the
// next call.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "headroom/worker/device.hpp"
#include "worker/output_memory.hpp"
#include "worker/python_ref.hpp"
#include "worker/tensor_meta.hpp"

namespace headroom::worker {

class allocation_watch;
class python_tensors;

class call_outputs {
 public:
  call_outputs(const std::unique_ptr<device>& dev, const python_tensors& python, const allocation_watch& allocations)
      : dev_(dev), python_(python), allocations_(allocations) {}

  // Where the outputs of `value` (forward's result) live (output_memory.hpp), for the call just
  // logged, whose inputs are `inputs` and before which the worker filled the kept outputs `filled`;
  // `extents` receives each output's memory. A placement that failed says why in its code and
  // message; so does one whose outputs could not be inspected (code foreign_output). `not_tensor`
  // receives the message when the result is not tensors at all.
  output_placement place(const py_ref& value, const std::vector<memory_span>& inputs,
                         const std::vector<memory_span>& filled, bool first_return_allowed,
                         std::vector<output_extent>& extents, std::string& not_tensor) const;
  // The memory of a call's inputs: buffer `data[i]` holding `metas[i].bytes`.
  static std::vector<memory_span> input_spans(const std::vector<void*>& data, const std::vector<meta>& metas,
                                              bool on_device);
  // The JSON of a placement's memory per output: ["fresh", "kept", "first_returned", ...].
  static std::string memory_json(const output_placement& placed);

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
