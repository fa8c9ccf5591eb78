#pragma once
// Renderings of an analysis: a console table for people, JSON (docs/analysis-json.md) and CSV for
// programs. Each is pinned line by line by golden tests.
#include <ostream>

#include "headroom/analyze/analysis.hpp"
#include "headroom/project/what_if.hpp"

namespace headroom::report {

inline constexpr int analysis_json_schema_version = 1;

void write_console(std::ostream& out, const analyze::analysis_report& r);
void write_json(std::ostream& out, const analyze::analysis_report& r);
// One row per timeline (and the total) and class; docs/analysis-json.md describes the columns.
void write_csv(std::ostream& out, const analyze::analysis_report& r);

void write_console(std::ostream& out, const project::projection& p);
void write_json(std::ostream& out, const project::projection& p);

}  // namespace headroom::report
