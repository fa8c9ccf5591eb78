#pragma once
// Per-source summaries of stored evaluations (`headroom stats`, docs/eval-results.md).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "headroom/record/evaluation.hpp"

namespace headroom::eval {

struct source_stats {
  std::string source;
  int evaluations = 0;  // rows counted: every verdict but reference_error, no degenerate problem
  int skipped = 0;  // reference_error rows: they say nothing about the candidate
  int degenerate = 0;  // rows of a degenerate problem (reason degenerate_problem): left out too
  int correct = 0;
  double correctness_rate = 0;  // correct / evaluations
  std::map<double, double> fast_p;  // p -> share of all evaluations verified with speedup > p
  int verified = 0;  // correct, timed, no disqualifying flag
  std::optional<double> median_speedup;  // over verified speedups (finite and positive ones)
  std::optional<double> geomean_speedup;
  // The share of the speed-of-light gap closed (SOL-ExecBench's score, docs/eval-results.md): the mean
  // over verified evaluations with a floor of each one's share, within [0, 1] (a kernel slower than
  // eager closes none of the gap); none when no verified evaluation has a floor.
  int sol_scored = 0;
  std::optional<double> sol_gap_closed;
  std::map<std::string, int> verdicts;  // verdict name -> count (reference_error is in `skipped`)
};

// The p values `headroom stats` reports: 0, 1, 1.5, 2.
std::vector<double> default_fast_p();

std::vector<source_stats> summarize(const std::vector<record::evaluation>& rows, const std::vector<double>& ps);

}  // namespace headroom::eval
