#pragma once
// Renderings of per-source summaries (`headroom stats`): a console table for people, JSON and CSV
// for programs (docs/eval-results.md, "headroom stats"). Each is pinned line by line by golden tests.
#include <ostream>
#include <vector>

#include "headroom/eval/stats.hpp"

namespace headroom::report {

inline constexpr int stats_json_schema_version = 2;

// The fast_p columns are the p values of the summaries (default_fast_p() when there are none).
void write_stats_console(std::ostream& out, const std::vector<eval::source_stats>& s);
void write_stats_json(std::ostream& out, const std::vector<eval::source_stats>& s);
void write_stats_csv(std::ostream& out, const std::vector<eval::source_stats>& s);

}  // namespace headroom::report
