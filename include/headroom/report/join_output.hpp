#pragma once
// `headroom project --results/--speedups`: the join of measured speedups to a workload, as a console
// table for people and JSON for programs (docs/analysis-json.md, "Measured projection").
#include <ostream>

#include "headroom/project/join.hpp"

namespace headroom::report {

inline constexpr int join_json_schema_version = 1;

void write_console(std::ostream& out, const project::measured_projection& p);
void write_json(std::ostream& out, const project::measured_projection& p);

}  // namespace headroom::report
