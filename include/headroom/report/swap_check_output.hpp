#pragma once
// Renderings of a swap check (project/swap_check.hpp): a console text for people, JSON for programs
// (docs/analysis-json.md, "Swap check"), and a report section (docs/report.md, "Extra sections")
// that `headroom report --section` places under its workload.
#include <ostream>
#include <string>

#include "headroom/project/swap_check.hpp"

namespace headroom::report {

void write_console(std::ostream& out, const project::swap_check& s);
void write_json(std::ostream& out, const project::swap_check& s);
// `title` heads the section; `workload` places it under that workload of the report ("": the end).
void write_section_json(std::ostream& out, const project::swap_check& s, const std::string& title,
                        const std::string& workload);

}  // namespace headroom::report
