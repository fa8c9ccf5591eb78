// The report hook: where a study's summary becomes its report, and the only place. Today the report
// is the study's tables (summary.md, summary.json). The HTML report of the whole study and the
// join of evaluation results to every workload belong here too: a document of one workload per
// row (the row's headline trace), joined to the `results` stores, with report::study_tables as
// its sections, written beside summary.md as report.html.
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
