#include "memory_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace headroom::eval {

memory_plan estimate_memory(set_bytes b, int trials, int timing_sets, bool keep_trials) {
  const std::uint64_t i = b.inputs, o = b.outputs, s = i + o, w = worker_base_bytes;
  const std::uint64_t sets = static_cast<std::uint64_t>(std::max(0, timing_sets)) * i;  // kept by each timing worker
  const std::uint64_t kept = keep_trials ? static_cast<std::uint64_t>(std::max(1, trials)) * s : 0;
  memory_plan p;
  p.trials = trials;
  p.timing_sets = timing_sets;
  p.keep_trials = keep_trials;
  // A call of the forward on fresh inputs: the inputs, the outputs, what the forward makes on the
  // way, and what the heap cannot give back between calls (2.7 times one set's bytes measured on
  // x / ||x|| of 0.5 GiB in and out, bench/eval_memory.py).
  const std::uint64_t call = 3 * s;
  // The reference's worker making a trial: get_inputs' tensors (and a redrawn copy), the inputs'
  // bytes, the call's own copy of them, its outputs and their bytes (2.1 times measured).
  const std::uint64_t making = 5 * s / 2;
  // The candidate's worker running a trial: the inputs as received, the call's own copy, its outputs
  // and their bytes, and the previous request's buffer unless it is lean (keeps no buffer from one
  // request to the next: the trials are not kept, candidate.cpp); and what it holds between runs.
  const std::uint64_t running = keep_trials ? 3 * i + 2 * o : 2 * i + 2 * o;
  const std::uint64_t between = keep_trials ? 2 * i + o : i;
  // The payload regions keep their largest size: the reference's answers (a set, a call's outputs),
  // the candidate's requests (a trial's inputs, a set) and answers (its outputs).
  const std::uint64_t regions = std::max(i, o) + i + o;
  const std::uint64_t reference_idle = w + sets;

  // Preparing: the parent holds the trials made so far (or the first, while the plan is made); the
  // reference's worker makes them, then times its forward on its sets; the first candidate's starts.
  const std::uint64_t prepare =
      std::max(kept, s) + std::max(w + making, timing_sets > 0 ? reference_idle + call : 0) + w + std::max(i, o);
  // Checking a candidate's trials: the parent holds the trials (or the one made again) and one
  // call's outputs; one worker works while the other waits.
  const std::uint64_t checking =
      (keep_trials ? kept : s) + o +
      std::max((keep_trials ? reference_idle : reference_idle + making) + w + between, reference_idle + w + running) +
      regions;
  // Timing (the candidate's, the reference's runs of its timed calls again, the paired turns): one
  // worker calls the forward while the other holds its sets and its last outputs, or, when the
  // trials are kept (memory to spare), the heap of its own calls, kept mapped for its next turn
  // (timing_request.hpp, keep_heap); the parent compares a timed call's outputs with the reference's.
  const std::uint64_t waiting = keep_trials ? reference_idle + call : reference_idle + o;
  const std::uint64_t timing = timing_sets > 0 ? kept + 2 * o + (reference_idle + call) + waiting + regions : 0;
  p.parent = std::max(std::max(kept, s), kept + 2 * o);
  p.peak = std::max({prepare, checking, timing});
  // The workers started ahead: the next candidate's and the next problem's reference's.
  p.idle = 2 * w;
  return p;
}

memory_plan least_memory(set_bytes b, int trials, int timing_sets) {
  return estimate_memory(b, trials, std::min(timing_sets, 1), false);
}

std::optional<memory_plan> fit_memory(set_bytes b, int trials, int timing_sets, std::uint64_t budget) {
  // Trials made again cost time only; fewer timing sets change what is measured: they go last.
  if (memory_plan p = estimate_memory(b, trials, timing_sets, true); p.total() <= budget) return p;
  for (int sets = timing_sets; sets >= std::min(timing_sets, 1); --sets)
    if (memory_plan p = estimate_memory(b, trials, sets, false); p.total() <= budget) return p;
  return std::nullopt;
}

std::string gib_text(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30));
}

}  // namespace headroom::eval
