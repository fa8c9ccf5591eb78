#include "headroom/worker/timing_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace headroom::worker {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  double m = *mid;
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), mid)) / 2;
  return m;
}

timing_sample make_sample(double event_ms, double wall_ms, double host_ms, double tail_ms, bool held) {
  return {event_ms, wall_ms, tail_ms, host_ms, held};
}

void sample_set::add(const timing_sample& s) {
  held_ = events_.empty() ? s.held : held_ && s.held;
  events_.push_back(s.event_ms);
  walls_.push_back(s.wall_ms);
  tails_.push_back(s.tail_ms);
  hosts_.push_back(s.host_ms);
}

bool sample_set::host_bound() const { return held_ && !hosts_.empty() && median_of(hosts_) > median_of(events_); }

double sample_set::rel_spread() const { return median_rel_error(costs()); }

double median_rel_error(const std::vector<double>& v) {
  if (v.size() < 3) return std::numeric_limits<double>::infinity();
  double med = median_of(v);
  if (med <= 0) return std::numeric_limits<double>::infinity();
  std::vector<double> dev(v.size());
  std::transform(v.begin(), v.end(), dev.begin(), [&](double x) { return std::abs(x - med); });
  double sigma = 1.4826 * median_of(dev);  // MAD scaled to a normal's standard deviation
  // The median's standard error is sqrt(pi/2) times the mean's for normal samples.
  return 1.2533 * sigma / std::sqrt(static_cast<double>(v.size())) / med;
}

bool sample_set::done(const stopping_rule& rule, double elapsed_seconds) const {
  int n = size();
  if (n >= rule.max_samples) return true;
  if (n >= rule.min_samples && elapsed_seconds >= rule.max_seconds) return true;
  return n >= rule.min_samples && rel_spread() <= rule.target_spread;
}

record::timing_summary sample_set::summarize(const empty_call& empty) const {
  record::timing_summary s;
  s.samples = size();
  if (events_.empty()) return s;
  // The statistics of the side that sets the cost (the host's when the call is launch-bound).
  s.host_bound = host_bound();
  const std::vector<double>& v = s.host_bound ? hosts_ : events_;
  s.device_median_ms = median_of(events_);
  s.median_ms = median_of(v);
  s.mean_ms = std::accumulate(v.begin(), v.end(), 0.0) / s.samples;
  double ss = 0;
  for (double x : v) ss += (x - s.mean_ms) * (x - s.mean_ms);
  s.stddev_ms = s.samples > 1 ? std::sqrt(ss / (s.samples - 1)) : 0;
  s.min_ms = *std::min_element(v.begin(), v.end());
  s.max_ms = *std::max_element(v.begin(), v.end());
  const double spread = median_rel_error(v);
  s.rel_spread = std::isfinite(spread) ? spread : 0;
  s.wall_median_ms = std::max(0.0, median_of(walls_) - empty.wall_ms);
  s.host_median_ms = median_of(hosts_);
  s.tail_median_ms = std::max(0.0, median_of(tails_) - empty.tail_ms);
  s.score_ms = s.median_ms;
  s.device_cost_ms = s.device_median_ms;
  if (hidden_work(s)) {
    // Each call costs until the device is done with it: its time plus its own tail (and, held, no
    // less than its dispatch).
    std::vector<double> until_done(events_.size());
    for (std::size_t i = 0; i < events_.size(); ++i)
      until_done[i] = events_[i] + std::max(0.0, tails_[i] - empty.tail_ms);
    s.score_ms = median_of(until_done);
    s.device_cost_ms = s.score_ms;
    if (held_) s.score_ms = std::max(s.score_ms, s.host_median_ms);
  }
  return s;
}

bool sample_set::hidden_work(const record::timing_summary& s) {
  return s.tail_median_ms > s.events_median_ms() * hidden_work_share + hidden_work_ms;
}

}  // namespace headroom::worker
