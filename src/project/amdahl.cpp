#include "headroom/project/amdahl.hpp"

#include <array>
#include <cmath>

namespace headroom::project {

double amdahl(std::span<const part> parts) {
  double remaining = 1.0;
  for (const auto& p : parts) {
    remaining -= p.fraction;
    if (!std::isinf(p.speedup)) remaining += p.fraction / p.speedup;
  }
  return remaining > 0.0 ? 1.0 / remaining : infinite_speedup;
}

double amdahl(double fraction, double speedup) {
  const part p{fraction, speedup};
  return amdahl(std::span<const part>(&p, 1));
}

double ceiling(std::span<const part> parts) {
  double rest = 1.0;
  for (const auto& p : parts) rest -= p.fraction;
  return rest > 0.0 ? 1.0 / rest : infinite_speedup;
}

double ceiling(double fraction) { return fraction < 1.0 ? 1.0 / (1.0 - fraction) : infinite_speedup; }

std::span<const double> reference_speedups() {
  // 1.235 and 1.552: median and geometric-mean verified speedups published for frontier models on
  // KernelBench level 1; 2 and 10 round numbers; infinity the ceiling.
  static constexpr std::array<double, 5> values{1.235, 1.552, 2.0, 10.0, infinite_speedup};
  return values;
}

}  // namespace headroom::project
