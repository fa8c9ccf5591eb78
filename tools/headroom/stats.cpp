// headroom stats DB: per-source correctness and fast_p over a results store.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "command.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/eval/stats.hpp"
#include "headroom/report/stats_output.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
namespace {

struct stats_args {
  std::string db;
  std::string source;
  std::string output;
  std::vector<double> ps;
  bool json = false;
  bool csv = false;
};

constexpr const char* stats_help = R"(Per-source figures over a results store written by `headroom eval`.

  evals      evaluations counted (reference_error rows are not: the problem failed, not the candidate)
  correct %  correct verdicts over evals
  fast_p     share of ALL evals that are correct, verified and faster than p times eager PyTorch
             (fast_0: verified share)
  verified   correct, timed, and no flag that disqualifies the speedup
  median, geomean  over verified speedups
Only the newest checker version's row of each candidate, problem and device is counted.
docs/eval-results.md documents the store and these outputs.

Example:
  headroom stats results.sqlite --source gpt-5/level1 --p 0,1,2,4 --csv -o stats.csv
  headroom stats postgresql://eval@db-host/kb)";

int run_stats(stats_args a) {
  for (double p : a.ps) {
    if (!std::isfinite(p) || p < 0)
      throw input_error(fmt::format("--p: {} is not a speedup threshold (need p >= 0)", p));
  }
  if (a.ps.empty()) a.ps = eval::default_fast_p();
  std::sort(a.ps.begin(), a.ps.end());
  a.ps.erase(std::unique(a.ps.begin(), a.ps.end()), a.ps.end());

  store::results_store store(a.db, store::results_store::access::read_only);
  store::evaluation_filter f;
  if (!a.source.empty()) f.source = a.source;
  const auto summaries = eval::summarize(store.evaluations(f), a.ps);
  if (summaries.empty()) {
    fmt::print(stderr, "headroom stats: {} holds no evaluations{}\n", store.where().display(),
               a.source.empty() ? "" : fmt::format(" of source '{}'", a.source));
  }

  util::output_file file(a.output, std::vector<std::filesystem::path>{a.db});
  std::ostream& out = file.stream();
  if (a.json) {
    report::write_stats_json(out, summaries);
  } else if (a.csv) {
    report::write_stats_csv(out, summaries);
  } else if (!summaries.empty()) {
    report::write_stats_console(out, summaries);
  }
  file.commit();
  return 0;
}

const command_registration registration{
    {"stats", 60, [](CLI::App& app) -> std::function<int()> {
       auto args = std::make_shared<stats_args>();
       auto* sub = app.add_subcommand("stats", "Per-source correctness and fast_p of a results store");
       sub->description(stats_help);
       sub->add_option("db", args->db, "results store written by headroom eval: a SQLite file or a postgresql:// URL")
           ->required();
       sub->add_option("--source", args->source, "only this source (model configuration)");
       sub->add_option("--p", args->ps, "speedup thresholds for fast_p, comma-separated (default 0,1,1.5,2)")
           ->delimiter(',');
       sub->add_option(
           "-o,--output", args->output,
           "write to FILE instead of standard output (replaced whole or not at all; never the store itself)");
       auto* json = sub->add_flag("--json", args->json, "JSON output (docs/eval-results.md)");
       sub->add_flag("--csv", args->csv, "CSV output: a header and one row per source")->excludes(json);
       return [args] { return run_stats(*args); };
     }}};

}  // namespace
}  // namespace headroom::cli
