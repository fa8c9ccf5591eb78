#pragma once
// The trials' calls (docs/eval.md, "Correctness"): inputs (the reference's get_inputs under a seed
// and a distribution, copied out and kept) and run (one forward on inputs, poisoned, with the
// operator record, the inputs compared after it, the outputs checked and copied out). It counts
// the calls, since threads PyTorch starts for itself appear during the first.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/util/phase_trace.hpp"
#include "headroom/worker/device.hpp"
#include "worker/op_record_loader.hpp"
#include "worker/output_memory.hpp"
#include "worker/python_ref.hpp"
#include "worker/tensor_meta.hpp"

namespace headroom::worker {

class allocation_watch;
class call_outputs;
class error_replies;
class kept_outputs;
class parent_channel;
class python_driver;
class request_memory;
class tensor_bridge;
class timing_sets;
struct built_inputs;
struct loaded_problem;

class trial_calls {
 public:
  struct parts {
    const std::unique_ptr<device>& dev;
    parent_channel& channel;
    const error_replies& errors;
    python_driver& python;
    const tensor_bridge& bridge;
    const call_outputs& outputs;
    timing_sets& sets;
    allocation_watch& allocations;
    request_memory& memory;
    loaded_problem& problem;
    const op_record& record;
    kept_outputs& kept;
  };
  explicit trial_calls(const parts& p) : p_(p) {}

  // Outputs of the reference worker's problem: get_inputs() under a seed and a distribution.
  // keep_set k: the tensors are also kept as timing set k (0 starts the sets afresh).
  void inputs(simdjson::dom::element req);
  // kept_inputs: on the inputs this worker holds (its inputs request's, or its previous run's: a
  // candidate's second call on a trial's inputs), not on the payload.
  void run(simdjson::dom::element req, std::vector<std::byte>& sent);

 private:
  // A run's forward, made: its result, the C++ record's operators, the threads it left behind.
  struct made_call {
    py_ref result;
    std::optional<op_record_result> recorded;
    int threads_added = 0;
  };
  using phase = std::optional<util::phase_trace>;
  // The run's inputs: the payload's, or those kept.
  const std::vector<std::byte>& take_inputs(simdjson::dom::element req, std::vector<std::byte>& sent);
  // forward, poisoned and logged, under the operator record; false when it failed and was answered.
  bool call(const built_inputs& in, int poison, bool record_ops, phase& trace, made_call& made);
  // The inputs forward wrote to, as "i,j,...".
  std::string mutated(const std::vector<meta>& metas, const built_inputs& in, const std::vector<std::byte>& payload);
  // The run's answer: what was checked of the call, and its outputs. `inputs`: the call's input
  // buffers (an output in them is an input handed back).
  void answer(simdjson::dom::element req, const made_call& made, const std::string& mutated,
              const std::vector<memory_span>& inputs, phase& trace);
  // Where the outputs lie (output_memory.hpp), as JSON fields of the answer: the memory of each,
  // or why they fail (then `failed`). The outputs are noted for the next call (kept_outputs.hpp)
  // by the caller, once answered.
  std::string placement_json(const py_ref& outputs, const std::vector<memory_span>& inputs,
                             std::vector<output_extent>& extents, bool& failed);

  parts p_;
  int calls_ = 0;
};

}  // namespace headroom::worker
