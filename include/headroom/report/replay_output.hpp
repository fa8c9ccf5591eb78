#pragma once
// Renderings of `project --replay`: a console table per timeline for people, JSON for programs
// (docs/analysis-json.md, "Replay projection").
#include <ostream>

#include "headroom/project/replay_report.hpp"

namespace headroom::report {

void write_console(std::ostream& out, const project::replay_projection& p);
void write_json(std::ostream& out, const project::replay_projection& p);

}  // namespace headroom::report
