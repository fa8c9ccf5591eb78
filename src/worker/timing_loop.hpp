#pragma once
// Timed calls (docs/eval.md, "Timing"): each on fresh inputs the parent names as it is about to
// run, the device's caches flushed, the call announced on the stamped socket, the times kept under
// the stopping rule and summarised; and the reference's replay of a candidate's timed calls on the
// same fresh inputs.
#include <cstdint>
#include <memory>
#include <vector>

#include <simdjson.h>

#include "headroom/worker/device.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "worker/dlpack_bridge.hpp"
#include "worker/tensor_meta.hpp"

namespace headroom::worker {

class allocation_watch;
class call_outputs;
class error_replies;
class kept_outputs;
class parent_channel;
class python_driver;
class request_memory;
class timing_sets;
struct loaded_problem;

class timing_loop {
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
    kept_outputs& kept;
    int announce;  // each timed call's start and end, one stamped datagram each (announcements.hpp)
    bool trace;  // HEADROOM_WORKER_TRACE
  };
  explicit timing_loop(const parts& p) : p_(p) {}

  // Times on the sets this worker keeps (its own inputs requests' with keep_set, or those the parent
  // sent with set requests): the reference is timed several ways on the same sets. eager: the eager
  // model even after compile_baseline replaced it (paired rounds).
  void time(simdjson::dom::element req);
  // The reference's side of the check of timed calls (docs/eval.md, "Integrity inside the worker"):
  // calls of a candidate's timing run again here, on the same fresh inputs (the same sets, kept from
  // this worker's own timing, and the same seeds), with the eager model; for each, the sketch of
  // the outputs, and for those asked whole, the outputs themselves.
  void replay(simdjson::dom::element req);

 private:
  struct timed_run;  // one time request's calls (timing_loop.cpp)

  // The empty call: what the timed path costs without any work (held or not), subtracted from the
  // wall clock and the tail.
  empty_call measure_empty_call(bool held);
  // A call's plan, from the parent: which input set, and the seed of its fresh inputs.
  struct call_plan {
    std::size_t set = 0;
    std::uint64_t seed = 0;
  };
  call_plan ask_call(int call, std::size_t sets);
  // A call's inputs: every floating tensor of the pristine set perturbed under the call's seed
  // (fresh_inputs.hpp), every other tensor copied as it is.
  built_inputs fresh_inputs(const std::vector<meta>& set, const std::vector<void*>& pristine, std::uint64_t seed,
                            const std::vector<std::uint64_t>& symmetric);

  parts p_;
};

}  // namespace headroom::worker
