// The timing sets passed on from the reference's worker to a worker that times (timing_sets.hpp).
#include "timing_sets.hpp"

#include <span>
#include <utility>

#include <fmt/format.h>

namespace headroom::eval {

set_transfer send_timing_sets(const reference_data& ref, session& to, const run_state& run) {
  set_transfer r;
  if (!ref.worker) {
    r.error = "the reference's worker is gone";
    return r;
  }
  for (int k = 0; k < ref.timing_sets; ++k) {
    answer set = ref.worker->ask(fmt::format(R"("op":"get_set","index":{})", k), {}, run.options.run_timeout);
    if (set.failure != worker_failure::none || !set.ok) {
      r.error = "the reference's worker did not give its timing set: " + describe(set);
      return r;
    }
    const std::span<const std::byte> part(set.payload);
    answer kept = to.ask(fmt::format(R"("op":"set","index":{},"inputs":{})", k, simdjson::minify(set.doc["tensors"])),
                         std::span(&part, 1), run.options.run_timeout);
    to.recycle(std::move(set.payload));
    if (kept.failure != worker_failure::none || !kept.ok) {
      r.error = "the timing set was not taken: " + describe(kept);
      r.failed = std::move(kept);
      r.receiver = true;
      return r;
    }
  }
  return r;
}

}  // namespace headroom::eval
