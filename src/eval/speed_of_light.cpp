#include "headroom/eval/speed_of_light.hpp"

#include <algorithm>

namespace headroom::eval {

std::optional<double> speed_of_light_ms(double bytes, double flops, double bandwidth, double matmul) {
  if (bandwidth <= 0) return std::nullopt;
  double seconds = bytes / bandwidth;
  if (flops > 0 && matmul > 0) seconds = std::max(seconds, flops / matmul);
  return seconds * 1e3;
}

}  // namespace headroom::eval
