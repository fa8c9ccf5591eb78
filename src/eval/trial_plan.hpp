#pragma once
// The trial plan (docs/eval.md, "Correctness"): each trial's seed, derived from the run seed, and its
// input distribution; and a trial as the reference's preparation makes it. Internal to src/eval.
#include <cstdint>
#include <vector>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval {

struct trial_data {
  std::uint64_t seed = 0;
  int distribution = 0;
  std::vector<tensor> inputs;  // empty when the parent does not keep its trials (memory_plan.hpp)
  std::vector<tensor> outputs;
};

// Trial `index`'s seed; the reference's weights take index 1000, the timing sets 100 and up.
std::uint64_t trial_seed(std::uint64_t run_seed, int index);
// Trial `index`'s input distribution (docs/eval.md, "Correctness"): 0 (the problem's own inputs),
// then shifted and scaled, normal, outliers.
int trial_distribution(int index);
// How many distributions there are: trials 0 to this - 1 draw each once.
inline constexpr int trial_distributions = 4;

}  // namespace headroom::eval
