#pragma once
// The join of measured kernel speedups to a workload (docs/method.md, "Projection from measured
// speedups"): each kernel category's addressable share of wall clock f_c gets the speedups measured
// on problems of that category, and three estimates of the wall clock saved come out, each with a
// bootstrap interval over problems:
//   published    sum_c f_c * win rate_c * (1 - 1/median win speedup_c)  (the published formula)
//   expectation  sum_c f_c * E[1 - 1/s] over the category's evaluations, a wrong or slower
//                candidate counting as s = 1 (the user keeps the old kernel)
//   best         sum_c f_c * mean over problems of (1 - 1/best candidate's s)
// The end-to-end speedup is 1 / (1 - saved).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/project/measured_speedups.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

// The published formula for one part: time saved = f * win rate * (1 - 1 / median win speedup).
double published_time_saved(double fraction, double win_rate, double median_win);

// What a category that no problem of the source covers gets.
enum class uncovered_policy {
  pooled,  // the source's distribution over all its problems (its "all" row, for published figures)
  none,  // nothing: 1x
};
std::string_view to_string(uncovered_policy p);
std::optional<uncovered_policy> parse_uncovered_policy(std::string_view s);

struct join_options {
  uncovered_policy uncovered = uncovered_policy::pooled;
  int resamples = 2000;  // bootstrap resamples; 0: no intervals
  double confidence = 0.95;  // of the percentile interval
  std::uint64_t seed = 1;  // the resampling is reproducible
};

struct estimate {
  bool available = false;  // false: the source cannot give it (published figures hold no distribution)
  double time_saved = 0;  // share of the window's wall clock, 0..1
  std::optional<double> low;  // the bootstrap interval of time_saved, when there is one
  std::optional<double> high;
  double speedup() const { return 1.0 / (1.0 - time_saved); }
};

// How a category's speedups were chosen.
enum class basis { measured, pooled, none };
std::string_view to_string(basis b);

struct category_join {
  classify::category cat = classify::category::other;
  double fraction = 0;  // the addressable kernels' share of wall clock
  basis applied = basis::none;
  std::string basis_text;  // for people: "7 problems", "pooled over all 56 problems", "no evaluation: 1x"
  int problems = 0;  // behind the figures applied (pooled: all of the source's)
  int evaluations = 0;
  int wins = 0;
  double win_rate = 0;
  std::optional<double> median_win;
  double saved_published = 0;  // this category's part of each point estimate
  std::optional<double> saved_expectation;
  std::optional<double> saved_best;
};

struct source_join {
  std::string source;
  std::string origin;
  bool published_only = false;
  std::vector<category_join> categories;  // every category with addressable time, largest first
  estimate published, expectation, best;
  std::vector<std::string> notes;  // unmapped problems, what the interval covers, ...
};

// Joins each source to a workload whose addressable share of wall clock per kernel category is
// `fractions` (indexed by classify::category).
std::vector<source_join> join_speedups(const std::array<double, classify::category_count>& fractions,
                                       const std::vector<measured_source>& sources, const join_options& o);

// A workload analysed for the join: its analysis (with the wall clock attributed to provenance and
// category for a stacked bar) and each category's addressable fraction.
struct measured_projection {
  analyze::analysis_report analysis;
  std::array<double, classify::category_count> fractions{};
  std::vector<source_join> sources;
  join_options options;
};

measured_projection project_measured(const trace::trace& t, const classify::classifier& c, analyze::analyze_options o,
                                     const std::vector<measured_source>& sources, const join_options& jo);

}  // namespace headroom::project
