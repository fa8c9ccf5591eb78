// The report hook: where a study's summary becomes its report. The HTML report of the whole study
// (`headroom report`) and the join of evaluation results (`headroom project --results`) are called
// from here, and only from here, once they exist; today the report is the study's tables.
#include <fmt/format.h>

#include <sstream>

#include "headroom/report/study_output.hpp"
#include "headroom/study/study.hpp"
#include "headroom/util/error.hpp"

namespace headroom::study {

void check_report_inputs(const std::vector<std::filesystem::path>& results) {
  if (!results.empty()) {
    throw input_error(fmt::format("--results {}: joining evaluation results to the study needs `headroom project "
                                  "--results`, which this build does not have", results.front().string()));
  }
}

void write_study_report(const study_summary& s, const std::filesystem::path& out_dir,
                        const std::vector<std::filesystem::path>& results) {
  check_report_inputs(results);
  std::filesystem::create_directories(out_dir);
  std::ostringstream markdown, json;
  report::write_markdown(markdown, s);
  report::write_json(json, s);
  write_file_atomically(out_dir / "summary.md", markdown.str());
  write_file_atomically(out_dir / "summary.json", json.str());
}

}  // namespace headroom::study
