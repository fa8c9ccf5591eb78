// The trial plan (trial_plan.hpp): seeds from the run seed, and each trial's distribution.
#include "trial_plan.hpp"

namespace headroom::eval {

std::uint64_t trial_seed(std::uint64_t run_seed, int index) {
  // splitmix64: well-spread seeds from one run seed.
  std::uint64_t z = run_seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) & 0x7fffffffffffull;
}

int trial_distribution(int index) { return index < trial_distributions ? index : 0; }

}  // namespace headroom::eval
