#include "memory_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace headroom::eval {

memory_plan estimate_memory(set_bytes b, int trials, int timing_sets, bool keep_trials, bool paired) {
  const std::uint64_t i = b.inputs, o = b.outputs, sets = static_cast<std::uint64_t>(std::max(0, timing_sets));
  const std::uint64_t kept_sets = sets * i;  // every timing worker keeps the timing sets' inputs
  memory_plan p;
  p.trials = trials;
  p.timing_sets = timing_sets;
  p.keep_trials = keep_trials;
  p.paired = paired && timing_sets > 0;
  // The parent: the kept trials (or the one made again), one call's outputs of the candidate being
  // compared and its mask of poisoned elements, and a timed call's outputs beside the reference's
  // run of it again (timed_calls.hpp).
  p.parent = (keep_trials ? static_cast<std::uint64_t>(std::max(1, trials)) : 1) * (i + o) + 2 * o;
  // The reference's worker: the timing sets; making a trial: get_inputs' tensors, a redrawn copy
  // and the inputs' bytes, then the call's own copy of its inputs, its outputs and their bytes; the
  // payload region it answers through.
  p.reference = worker_base_bytes + kept_sets + 3 * i + 2 * o + std::max(i, o);
  if (timing_sets > 0) {
    // The candidate's worker: the timing sets; a trial's inputs as received and as the call's own,
    // with the previous request's buffer; the call's outputs and their bytes, and a checked timed
    // call's; the payload regions each way.
    p.candidate = worker_base_bytes + kept_sets + 3 * i + 3 * o + i;
    // The second reference worker of paired rounds: the sets as received, one call's fresh inputs
    // and outputs.
    if (p.paired) p.paired_reference = worker_base_bytes + kept_sets + 2 * i + o;
  } else {
    p.candidate = worker_base_bytes + 3 * i + 2 * o + i;
  }
  p.idle = 2 * worker_base_bytes;
  return p;
}

memory_plan least_memory(set_bytes b, int trials, int timing_sets, bool paired) {
  return estimate_memory(b, trials, std::min(timing_sets, 1), false, paired);
}

std::optional<memory_plan> fit_memory(set_bytes b, int trials, int timing_sets, bool paired, std::uint64_t budget) {
  // Trials made again cost time only; fewer timing sets change what is measured: they go last.
  if (memory_plan p = estimate_memory(b, trials, timing_sets, true, paired); p.total() <= budget) return p;
  for (int sets = timing_sets; sets >= std::min(timing_sets, 1); --sets)
    if (memory_plan p = estimate_memory(b, trials, sets, false, paired); p.total() <= budget) return p;
  return std::nullopt;
}

std::string gib_text(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

}  // namespace headroom::eval
