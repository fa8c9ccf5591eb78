#pragma once
// Amdahl projection (docs/method.md): speedup s on the addressable fraction f gives
//   S = 1 / ((1 - f) + f / s), ceiling 1 / (1 - f);
// per-category speedups combine term by term.
#include <limits>
#include <span>

namespace headroom::project {

inline constexpr double infinite_speedup = std::numeric_limits<double>::infinity();

struct part {
  double fraction;  // share of wall clock, 0..1
  double speedup;  // >= 1 usually; infinite_speedup makes the part vanish
};

// End-to-end speedup when each part is sped up by its own factor and the rest is unchanged.
double amdahl(std::span<const part> parts);
double amdahl(double fraction, double speedup);
// 1 / (1 - sum of fractions); infinity when they cover everything.
double ceiling(std::span<const part> parts);
double ceiling(double fraction);

// The published reference speedups the tables are built over (KernelBench level-1 medians and
// round numbers): 1.235, 1.552, 2, 10, infinity.
std::span<const double> reference_speedups();

}  // namespace headroom::project
