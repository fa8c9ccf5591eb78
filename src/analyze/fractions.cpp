#include "headroom/analyze/analysis.hpp"

namespace headroom::analyze {

double timeline_report::share(time_ns t) const {
  return wall > 0 ? static_cast<double>(t) / static_cast<double>(wall) : 0.0;
}
double timeline_report::addressable_fraction() const { return share(busy_addressable); }
double timeline_report::addressable_exclusive_fraction() const { return share(busy_addressable_exclusive); }
double timeline_report::busy_fraction() const { return share(busy_all); }
double timeline_report::idle_fraction() const { return wall > 0 ? 1.0 - busy_fraction() : 0.0; }

}  // namespace headroom::analyze
