#include "headroom/worker/gpu_idle.hpp"

#include <algorithm>
#include <vector>

#include "headroom/worker/timing_stats.hpp"

namespace headroom::worker {

double busy_threshold_ms(double quiet_ms) {
  return std::max(busy_floor_ms, busy_multiple * std::min(quiet_ms, quiet_ceiling_ms));
}

double probe_once(const std::function<double()>& round_trip) {
  std::vector<double> trips;
  for (int i = 0; i < probe_round_trips; ++i) trips.push_back(round_trip());
  return median_of(trips);
}

bool idle_watch::busy(double probe_ms) {
  quiet_ = quiet_ ? std::min(*quiet_, probe_ms) : probe_ms;
  const bool is_busy = probe_ms > busy_threshold_ms(*quiet_);
  if (!is_busy) worst_quiet_ = std::max(worst_quiet_, probe_ms);
  return is_busy;
}

idle_check idle_watch::check(const std::function<double()>& probe, const std::function<double()>& clock_ms,
                             double settle_ms) {
  idle_check c;
  c.first_ms = c.probe_ms = probe();
  c.probes = 1;
  c.quiet = !busy(c.probe_ms);
  c.threshold_ms = busy_threshold_ms(*quiet_);
  if (c.quiet) return c;
  const double began = clock_ms();
  while (!c.quiet && clock_ms() - began < settle_ms) {
    c.probe_ms = probe();
    ++c.probes;
    c.quiet = !busy(c.probe_ms);
    c.threshold_ms = busy_threshold_ms(*quiet_);
  }
  c.waited_ms = clock_ms() - began;
  waited_ += c.waited_ms;
  return c;
}

}  // namespace headroom::worker
