#include "headroom/report/units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace headroom::report {

std::string format_duration(std::int64_t ns) {
  const double v = static_cast<double>(ns);
  const double a = std::fabs(v);
  if (a < 1e3) return fmt::format("{} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} us", v / 1e3);
  if (a < 1e9) return fmt::format("{:.2f} ms", v / 1e6);
  return fmt::format("{:.3f} s", v / 1e9);
}

std::string format_percent(double fraction, int decimals) {
  return fmt::format("{:.{}f}%", 100.0 * fraction, decimals);
}

}  // namespace headroom::report
