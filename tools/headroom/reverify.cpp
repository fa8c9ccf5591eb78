// headroom reverify DB : rerun stored candidates under the current checker; list changed verdicts.
#include <fstream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/kernelbench_results.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct reverify_args {
  eval_cli common;
  std::string source, problem;
};

int run_reverify(reverify_args& a) {
  finish_eval_options(a.common);
  if (store::location::parse(a.common.db).kind == store::backend::sqlite && !std::filesystem::exists(a.common.db))
    throw input_error(fmt::format("{}: no such results store", a.common.db));
  store::results_store store(a.common.db);
  store::evaluation_filter f;
  if (!a.source.empty()) f.source = a.source;
  if (!a.problem.empty()) f.problem = a.problem;
  auto before = store.evaluations(f);
  if (before.empty()) {
    fmt::print("nothing stored{} to reverify\n", a.source.empty() ? "" : " for source " + a.source);
    return 0;
  }
  // The stored texts are what gets rerun: the files may have moved or changed since.
  auto dir = a.common.options.cache / "reverify";
  std::vector<eval::eval_job> jobs;
  std::map<std::pair<std::string, std::string>, const eval::evaluation*> old;
  for (const auto& e : before) {
    if (e.result == eval::verdict::reference_error) continue;
    auto c = store.candidate(e.candidate_hash);
    auto p = store.problem_by_hash(e.problem_hash);
    if (!c || !p) {
      fmt::print(stderr, "{} on {}: the stored source text is missing; skipped\n", e.candidate_path, e.problem);
      continue;
    }
    auto ppath = dir / "problems" / p->hash.substr(0, 16) / p->id;
    ppath += ".py";
    auto cpath = dir / "candidates" / (c->hash.substr(0, 16) + "_" + std::filesystem::path(c->path).filename().string());
    std::filesystem::create_directories(ppath.parent_path());
    std::filesystem::create_directories(cpath.parent_path());
    std::ofstream(ppath, std::ios::binary) << p->text;
    std::ofstream(cpath, std::ios::binary) << c->text;
    eval::eval_job j{eval::load_problem(ppath), eval::load_candidate(cpath, c->source)};
    j.problem.id = p->id;
    jobs.push_back(j);
    old[{e.candidate_hash, e.problem_hash}] = &e;
  }
  a.common.options.force = true;
  auto after = eval::run_evaluations(jobs, store, a.common.options,
                                     [](const eval::eval_job& j, const eval::evaluation& e, int done, int total) {
                                       fmt::print(stderr, "[{}/{}] {}  {}\n", done, total, j.problem.id,
                                                  eval::verdict_name(e.result));
                                     });
  int changed = 0;
  for (const auto& e : after) {
    auto it = old.find({e.candidate_hash, e.problem_hash});
    if (it == old.end() || it->second->result == e.result) continue;
    if (!changed) fmt::print("{:<36} {:<30} {:<15} {:<15} {}\n", "problem", "candidate", "was", "now", "reason");
    ++changed;
    fmt::print("{:<36} {:<30} {:<15} {:<15} {}\n", e.problem, std::filesystem::path(it->second->candidate_path).filename().string(),
               fmt::format("{} ({})", eval::verdict_name(it->second->result),
                           it->second->checker == eval::imported_checker ? std::string("imported")
                                                                          : fmt::format("v{}", it->second->checker)),
               eval::verdict_name(e.result), e.reasons.empty() ? "" : e.reasons.front().code);
  }
  fmt::print("{} evaluation(s) reverified under checker v{}; {} verdict(s) changed\n", after.size(),
             eval::checker_version, changed);
  return 0;
}

const command_registration registration{command{
    "reverify", 55, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<reverify_args>();
      auto* sub = app.add_subcommand("reverify", "Rerun stored candidates under the current checker and list changed verdicts");
      sub->description(
          "Rerun stored candidates under the current checker and list every verdict that changed.\n\n"
          "Takes the candidate and problem texts kept in the results store (not the files, which may have moved),\n"
          "evaluates them again, stores the new rows beside the old ones (rows are kept per checker version) and\n"
          "prints each evaluation whose verdict differs from its latest stored one.");
      sub->add_option("--db", a->common.db, "Results store: a SQLite file (default results.sqlite) or a postgresql:// URL");
      sub->add_option("--source", a->source, "Only this source's candidates");
      sub->add_option("--problem", a->problem, "Only this problem id (level1/19_ReLU)");
      add_eval_options(sub, a->common, true);
      return [a] { return run_reverify(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
