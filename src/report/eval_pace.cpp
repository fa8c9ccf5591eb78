#include "headroom/report/eval_pace.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace headroom::report {

std::string rough_duration(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", std::max(0.0, seconds));
  if (seconds < 90 * 60) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string eval_pace::finished(int done, int total, clock::time_point now) {
  ++finished_;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed <= 0) return "";
  const double per_hour = finished_ * 3600.0 / elapsed;
  const int left = std::max(0, total - done);
  if (left == 0) return fmt::format("{:.0f}/h", per_hour);
  return fmt::format("{:.0f}/h, about {} left", per_hour, rough_duration(left * elapsed / finished_));
}

}  // namespace headroom::report
