#pragma once
// Reproducible resampling for bootstrap intervals: the same seed gives the same draws with every
// standard library (std::uniform_int_distribution and std::binomial_distribution do not promise that).
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace headroom::project {

class resampler {
  __extension__ using wide = unsigned __int128;  // GCC and Clang; -Wpedantic would warn without it

 public:
  explicit resampler(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n), n > 0 (the high half of a 128-bit product: Lemire's method without the
  // rejection step, whose bias is below 2^-64 * n).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>((static_cast<wide>(engine_()) * n) >> 64); }
  // True with probability p.
  bool chance(double p) { return static_cast<double>(engine_() >> 11) * 0x1.0p-53 < p; }

 private:
  std::mt19937_64 engine_;
};

// The percentile interval holding `confidence` of the values (linear interpolation between order
// statistics); `values` is sorted in place. Needs at least one value.
std::pair<double, double> percentile_interval(std::vector<double>& values, double confidence);

}  // namespace headroom::project
