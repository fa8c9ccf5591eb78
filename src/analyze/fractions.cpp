#include "headroom/analyze/analysis.hpp"

namespace headroom::analyze {
namespace {
double share(time_ns part, time_ns whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
}  // namespace

double timeline_report::addressable_fraction() const { return share(busy_addressable, win.length()); }
double timeline_report::addressable_exclusive_fraction() const {
  return share(busy_addressable_exclusive, win.length());
}
double timeline_report::idle_fraction() const { return share(win.length() - busy_all, win.length()); }

}  // namespace headroom::analyze
