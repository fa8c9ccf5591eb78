#pragma once
// Sums of many float64 values that stay accurate to a few ulps, shared by the checker's norms and
// the audit's mean.
#include <cmath>
#include <cstddef>

namespace headroom::eval::detail {

// Elements summed plainly before their partial sum joins the compensated total: small enough that
// the plain sum loses nothing that matters (4096 * 2^-53), large enough to keep the loop tight.
constexpr std::size_t block_size = 4096;

// Neumaier's compensated sum of the block partial sums: a 1e8-element norm stays accurate to a few
// ulps instead of drifting by n * eps.
struct compensated_sum {
  double sum = 0;
  double compensation = 0;
  void add(double x) {
    const double t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + compensation; }
};

}  // namespace headroom::eval::detail
