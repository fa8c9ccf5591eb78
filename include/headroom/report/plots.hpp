#pragma once
// The report's plots, each a standalone SVG document (it keeps its own styles, so a copy of it
// renders the same outside the report). Axes are labelled with their units; colours come from
// palette.hpp; `id` must be unique within one HTML page.
#include <string>
#include <string_view>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/project/join.hpp"

namespace headroom::report {

// The window's wall clock as one bar: the time attributed to each provenance and category
// (analysis attribution; addressable provenances first), then idle. Needs the analysis to have
// been run with analyze_options::attribute_wall_clock. `window` names the window in the plot.
std::string wall_clock_bar(const analyze::timeline_report& t, std::string_view window, std::string_view id);

// How a workload's window reads in a plot: its one timeline's window, or how many were summed.
std::string window_text(const analyze::analysis_report& a);

// End-to-end speedup against the speedup of the addressable kernels, for f and the exclusive f,
// with the ceilings 1/(1 - f) and the reference speedups marked.
std::string amdahl_curve(double fraction, double exclusive_fraction, std::string_view id);

// The empirical CDF of verified speedups (sorted), out of `evaluations` evaluations.
std::string speedup_cdf(const std::vector<double>& sorted_speedups, int evaluations, std::string_view id);

// The three estimates of the join with their intervals, one group of bars per row.
struct estimate_group {
  std::string label;  // "h200-dlrm-train / recommender"
  project::estimate published, expectation, best;
};
std::string estimates_chart(const std::vector<estimate_group>& groups, std::string_view id);

}  // namespace headroom::report
