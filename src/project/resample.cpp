#include "resample.hpp"

#include <algorithm>
#include <cmath>

namespace headroom::project {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

std::pair<double, double> percentile_interval(std::vector<double>& values, double confidence) {
  std::sort(values.begin(), values.end());
  const double tail = (1.0 - confidence) / 2.0;
  return {quantile(values, tail), quantile(values, 1.0 - tail)};
}

}  // namespace headroom::project
