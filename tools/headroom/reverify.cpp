// headroom reverify DB : rerun stored candidates under the current checker; list changed verdicts.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "headroom/eval/reverify.hpp"
#include "headroom/report/eval_output.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct reverify_args {
  eval_cli common;
  std::string source, problem;
  bool drop_timing = false;
};

int run_reverify(reverify_args& a) {
  finish_eval_options(a.common);
  if (store::location::parse(a.common.db).kind == store::backend::sqlite && !std::filesystem::exists(a.common.db))
    throw input_error(fmt::format("{}: no such results store", a.common.db));
  store::results_store store(a.common.db);
  store::evaluation_filter f;
  if (!a.source.empty()) f.source = a.source;
  if (!a.problem.empty()) f.problem = a.problem;
  const auto plan = eval::plan_reverify(store, f, a.common.options.cache / "reverify");
  for (const auto& s : plan.skipped) fmt::print(stderr, "{}\n", s);
  if (plan.jobs.empty()) {
    fmt::print("nothing stored{} to reverify\n", a.source.empty() ? "" : " for source " + a.source);
    return 0;
  }
  // A row of this checker version is replaced by its rerun: without timing, its speedup would go.
  const auto lost = eval::timing_lost(plan, a.common.options);
  if (!lost.empty() && !a.drop_timing) {
    throw input_error(fmt::format(
        "--no-timing would replace {} timed evaluation(s) of checker v{} with untimed ones and lose their speedups "
        "(the first: {} on {}); reverify with timing, or pass --drop-timing to replace them anyway",
        lost.size(), eval::checker_version, std::filesystem::path(lost.front()->candidate_path).filename().string(),
        lost.front()->problem));
  }
  a.common.options.force = true;
  const auto after = eval::run_evaluations(plan.jobs, store, a.common.options, print_progress());
  report::write_verdict_changes(std::cout, eval::changed_verdicts(plan, after), after.size());
  return 0;
}

const command_registration registration{command{
    "reverify", 55, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<reverify_args>();
      auto* sub =
          app.add_subcommand("reverify", "Rerun stored candidates under the current checker and list changed verdicts");
      sub->description(
          "Rerun stored candidates under the current checker and list every verdict that changed.\n\n"
          "Takes the candidate and problem texts kept in the results store (not the files, which may have moved),\n"
          "evaluates them again, stores the new rows beside the old ones (rows are kept per checker version) and\n"
          "prints each evaluation whose verdict differs from its latest stored one. A row of the current checker\n"
          "version on the same device is replaced by its rerun; --no-timing refuses to replace a timed one unless\n"
          "--drop-timing is given.");
      sub->add_option("--db", a->common.db,
                      "Results store: a SQLite file (default results.sqlite) or a postgresql:// URL");
      sub->add_option("--source", a->source, "Only this source's candidates");
      sub->add_option("--problem", a->problem, "Only this problem id (level1/19_ReLU)");
      sub->add_flag("--drop-timing", a->drop_timing,
                    "With --no-timing: replace timed rows of the current checker version with untimed ones (their "
                    "speedups are lost); without it such a reverify is refused");
      add_eval_options(sub, a->common, true);
      return [a] { return run_reverify(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
