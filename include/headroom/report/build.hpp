#pragma once
// Reads what `headroom report INPUTS...` is given into a document: each trace a workload (analysed,
// its wall clock attributed, joined to every results source), each results store or speedups CSV
// one or more results sources, each section file an extra section.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/report/document.hpp"

namespace headroom::report {

enum class input_kind { trace, results_store, speedups_csv };

// By content: a results store (an SQLite file whose headroom_meta says kind 'eval-results', or a
// postgresql:// URL); a file ending in .csv holds speedups; anything else is read as a trace.
input_kind recognise_input(const std::filesystem::path& p);

struct build_options {
  std::string title = "headroom report";
  std::string generator = "headroom";
  analyze::analyze_options analysis;
  std::vector<std::filesystem::path> rules;  // --rules
  std::vector<std::filesystem::path> problem_category_files;  // --problem-categories
  std::optional<std::string> source;  // only this results source
  project::join_options join;
  std::vector<std::filesystem::path> sections;  // extra sections (JSON)
  bool allow_partial = false;  // read a trace cut short or partly damaged; its notes say what was lost
};

// Throws input_error naming a file that cannot be read.
document build_document(const std::vector<std::filesystem::path>& inputs, const build_options& o);

// The pieces build_document is made of, for callers that know their inputs' kinds already (a study
// names each run's traces): the results sources of stores and speedup CSVs (recognised by content),
// and one workload from trace files read together (several: the ranks of one run), joined to them.
std::vector<project::measured_source> read_results_sources(const std::vector<std::filesystem::path>& files,
                                                           const build_options& o);
workload build_workload(std::string name, const std::vector<std::filesystem::path>& traces,
                        const classify::classifier& c, const build_options& o,
                        const std::vector<project::measured_source>& sources);

}  // namespace headroom::report
