// Per-source figures over stored evaluations. fast_p follows KernelBench: the share of *all*
// evaluations (failures included) that are verified and faster than p, so a source is not rewarded
// for giving up on hard problems. The share of the speed-of-light gap closed is over verified
// evaluations, as the median speedup is. reference_error rows are left out of every figure: the
// problem failed, not the candidate; so are the rows of a degenerate problem (docs/eval.md,
// "Degenerate problems"): nothing on it tells a kernel from a trivial output.
#include "headroom/eval/stats.hpp"

#include <algorithm>
#include <cmath>

namespace headroom::eval {

using record::evaluation;
using record::verdict;
using record::verdict_name;
using record::verified;

std::vector<double> default_fast_p() { return {0.0, 1.0, 1.5, 2.0}; }

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double geometric_mean(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

}  // namespace

std::vector<source_stats> summarize(const std::vector<evaluation>& rows, const std::vector<double>& ps) {
  std::map<std::string, std::vector<const evaluation*>> by_source;
  for (const auto& e : rows) by_source[e.source].push_back(&e);

  std::vector<source_stats> out;
  for (const auto& [source, group] : by_source) {
    source_stats s;
    s.source = source;
    std::vector<double> speedups;  // verified ones
    double gap_sum = 0;
    std::map<double, int> faster;
    for (double p : ps) faster[p] = 0;
    for (const evaluation* e : group) {
      if (e->result == verdict::reference_error) {
        ++s.skipped;
        continue;
      }
      if (std::any_of(e->reasons.begin(), e->reasons.end(),
                      [](const record::reason& r) { return r.code == "degenerate_problem"; })) {
        ++s.degenerate;  // a speedup on it measures nothing; nor does a failure on it
        continue;
      }
      ++s.evaluations;
      ++s.verdicts[std::string(verdict_name(e->result))];
      if (e->result == verdict::correct) ++s.correct;
      if (!verified(*e) || !e->speedup) continue;
      ++s.verified;
      const double x = *e->speedup;
      // A zero, negative or infinite speedup is a measurement fault; it would poison the means.
      if (std::isfinite(x) && x > 0) speedups.push_back(x);
      for (auto& [p, n] : faster) n += x > p ? 1 : 0;
      if (e->sol_gap_closed && std::isfinite(*e->sol_gap_closed)) {
        gap_sum += std::clamp(*e->sol_gap_closed, 0.0, 1.0);
        ++s.sol_scored;
      }
    }
    const double n = s.evaluations;
    s.correctness_rate = n > 0 ? s.correct / n : 0;
    for (const auto& [p, k] : faster) s.fast_p[p] = n > 0 ? k / n : 0;
    if (!speedups.empty()) {
      s.median_speedup = median(speedups);
      s.geomean_speedup = geometric_mean(speedups);
    }
    if (s.sol_scored > 0) s.sol_gap_closed = gap_sum / s.sol_scored;
    out.push_back(std::move(s));
  }
  return out;  // std::map iterated in order: sorted by source name
}

}  // namespace headroom::eval
