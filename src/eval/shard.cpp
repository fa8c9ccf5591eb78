#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "headroom/eval/jobs.hpp"
#include "headroom/util/error.hpp"

namespace headroom::eval {

std::vector<eval_job> shard_jobs(const std::vector<eval_job>& jobs, int index, int count) {
  if (count < 1 || index < 0 || index >= count)
    throw input_error(fmt::format("--shard {}/{}: the share must be at least 0 and below the count", index, count));
  std::vector<const eval_job*> order;
  for (const eval_job& j : jobs) order.push_back(&j);
  std::sort(order.begin(), order.end(), [](const eval_job* a, const eval_job* b) {
    return std::tie(a->problem.hash, a->candidate.hash) < std::tie(b->problem.hash, b->candidate.hash);
  });
  // Share i holds [i * n / count, (i + 1) * n / count): sizes differ by one at most.
  const std::size_t n = order.size();
  const std::size_t from = n * static_cast<std::size_t>(index) / static_cast<std::size_t>(count);
  const std::size_t to = n * static_cast<std::size_t>(index + 1) / static_cast<std::size_t>(count);
  std::vector<eval_job> out;
  for (std::size_t i = from; i < to; ++i) out.push_back(*order[i]);
  return out;
}

}  // namespace headroom::eval
