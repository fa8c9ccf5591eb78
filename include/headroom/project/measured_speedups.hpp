#pragma once
// Measured kernel speedups by results source, as the join uses them (docs/method.md, "Projection
// from measured speedups"): a distribution, one figure per evaluation, from a results store written
// by `headroom eval` or a CSV; or only published figures (a win rate and a median), from a CSV.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/stats.hpp"
#include "headroom/project/problem_categories.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::project {

// One problem's evaluations by one source.
struct problem_result {
  std::string problem;  // "level1/19_ReLU"
  std::optional<problem_category> category;  // nullopt: no problem-categories file names it
  // One per evaluation: what adopting the candidate gives, its verified speedup when above 1, else 1
  // (a wrong, failed or slower candidate leaves the old kernel in place).
  std::vector<double> effective;
};

// Published figures where no distribution is at hand: of the candidates for `problems` problems
// (when the publication says), a share `win_rate` were verified faster than the baseline, with
// median speedup `median_win` among those.
struct published_summary {
  std::optional<problem_category> scope;  // nullopt: "all" (every category the source has no row for)
  std::optional<int> problems;
  std::optional<int> wins;
  double win_rate = 0;
  double median_win = 1;
  std::string note;
};

struct measured_source {
  std::string name;  // the model configuration ("gpt-5/level1"), or the summary's name
  std::string origin;  // the file it came from
  std::vector<problem_result> problems;  // a distribution: the join resamples these
  std::vector<published_summary> summaries;  // or published figures only
  // What `headroom stats` shows for a distribution (correctness rate, fast_p, ...), and its verified
  // speedups sorted (for a CDF); empty for published figures.
  std::optional<eval::source_stats> figures;
  std::vector<double> verified_speedups;
  bool published_only() const { return problems.empty() && !summaries.empty(); }
};

// Evaluations grouped by source (evaluations of the reference itself, source "reference", left out)
// into distributions; problems found in no problem-categories file keep an empty category.
std::vector<measured_source> sources_from_evaluations(const std::vector<record::evaluation>& rows,
                                                      const problem_categories& categories, const std::string& origin);

// Every source of a results store written by `headroom eval` (a SQLite file or a postgresql:// URL),
// or only `source`. Opens it read-only.
std::vector<measured_source> read_results_store(const std::string& where, const std::optional<std::string>& source,
                                                const problem_categories& categories);

// A CSV of published figures or of a distribution (docs/method.md, "Speedups from a CSV file"),
// every source in it or only `source`. Throws input_error naming the file, line and column.
std::vector<measured_source> read_speedups_csv(const std::filesystem::path& file,
                                               const std::optional<std::string>& source,
                                               const problem_categories& categories);

// One problem's speedup as a results store holds it: its newest verified evaluation (correct, with a
// speedup, no disqualifying flag; a slower candidate's speedup is below 1), of `source` when given.
// `problem` is a problem id ("dlrm-bench/01_embedding_bag_zipf") or its last part. Throws
// input_error when the store holds no such evaluation.
struct stored_speedup {
  double speedup = 1;
  std::string problem;
  std::string source;
  std::string started_at;
};
stored_speedup read_stored_speedup(const std::string& where, const std::string& problem,
                                   const std::optional<std::string>& source);

// Every source of the results stores and speedup CSVs named, problem categories from the built-in
// file and then `category_files`, only `source` when given.
struct source_files {
  std::vector<std::string> results;  // SQLite files or postgresql:// URLs
  std::vector<std::filesystem::path> speedups;
  std::vector<std::filesystem::path> category_files;
  std::optional<std::string> source;
};
std::vector<measured_source> read_sources(const source_files& f);

}  // namespace headroom::project
