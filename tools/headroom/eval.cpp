// headroom eval PROBLEMS... [--candidates PATH...] [--reference-as-candidate] [--suite MANIFEST] ...
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/eval/suite.hpp"
#include "headroom/report/eval_output.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct eval_args {
  eval_cli common;
  std::vector<std::string> problems, candidates;
  std::string source, suite, shard;
  bool reference = false;
};

// "i/N": share i (from 0) of N.
eval::eval_options::shard_spec parse_shard(const std::string& text) {
  eval::eval_options::shard_spec s;
  const auto slash = text.find('/');
  try {
    std::size_t used = 0;
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    s.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    s.count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw input_error(fmt::format("--shard {}: expected i/N, share i (from 0) of N, such as 3/8", text));
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw input_error(fmt::format("--shard {}: the share must be at least 0 and below N", text));
  return s;
}

int run_eval(eval_args& a) {
  finish_eval_options(a.common);
  if (!a.shard.empty()) a.common.options.shard = parse_shard(a.shard);
  if (!(a.common.options.lease_s >= 3))
    throw input_error("--lease: at least 3 seconds (the heartbeat renews every third)");
  store::results_store store(a.common.db);
  std::vector<eval::eval_job> jobs;
  std::vector<eval::suite_case> cases;
  if (!a.suite.empty()) {
    std::string kind = eval::expand_devices(a.common.options.device).front() == "cpu" ? "cpu" : "cuda";
    cases = eval::cases_for(eval::load_suite(a.suite, a.source.empty() ? "suite" : a.source), kind);
    for (const auto& c : cases) jobs.push_back(c.job);
    fmt::print(stderr, "suite {}: {} case(s) meaningful on {}\n", a.suite, cases.size(), kind);
  }
  if (!a.problems.empty()) {
    std::vector<std::filesystem::path> pp(a.problems.begin(), a.problems.end());
    auto problems = eval::find_problems(pp);
    if (a.reference)
      for (auto& j : eval::reference_jobs(problems, a.common.options.cache)) jobs.push_back(std::move(j));
    if (!a.candidates.empty()) {
      std::vector<std::filesystem::path> cc(a.candidates.begin(), a.candidates.end());
      for (auto& j : eval::pair_candidates(problems, cc, a.source)) jobs.push_back(std::move(j));
    }
    if (!a.reference && a.candidates.empty())
      throw input_error("nothing to evaluate: give --candidates, --reference-as-candidate or --suite");
  }
  if (jobs.empty()) throw input_error("nothing to evaluate");
  auto results = eval::run_evaluations(jobs, store, a.common.options, print_progress());
  if (!cases.empty()) {
    const auto outcomes = eval::judge_cases(cases, results);
    report::write_suite_outcomes(std::cout, outcomes);
    return std::all_of(outcomes.begin(), outcomes.end(), [](const eval::case_outcome& o) { return o.ok; }) ? 0 : 1;
  }
  report::write_evaluations(std::cout, results);
  fmt::print(stderr, "results in {}\n", store.where().display());
  return 0;
}

const command_registration registration{command{
    "eval", 40, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<eval_args>();
      auto* sub = app.add_subcommand("eval", "Judge kernel candidates (KernelBench format): correct? how much faster?");
      sub->description(
          "Judge kernel candidates in the KernelBench format: correct? how much faster?\n\n"
          "PROBLEMS are KernelBench problem files or folders (Model, get_inputs, get_init_inputs). Candidates are\n"
          "ModelNew files (inline CUDA/C++ through load_inline, or any Python), paired with problems by name or by\n"
          "KernelBench's runs naming (level_1_problem_19_sample_0_kernel.py), grouped by --source.\n"
          "Each candidate runs in a fresh worker process that never sees reference outputs; outputs are poisoned\n"
          "before every call, compared in float64 by this process over several seeds and input distributions, and\n"
          "timed by C++ with the L2 flushed and the device synchronised (docs/eval.md). Every evaluation is stored\n"
          "in --db; running the same command again continues where an interrupted run stopped.\n\n"
          "Many processes, on many hosts, share one evaluation through a PostgreSQL store (--db postgresql://...):\n"
          "each claims jobs from the store's queue under a lease its heartbeat renews, so the jobs of a process\n"
          "that dies are taken by the others; or --shard i/N gives each process a fixed share (a job array).\n"
          "docs/scale.md has a Slurm script and a Kubernetes manifest.");
      sub->add_option("problems", a->problems, "Problem files or folders");
      sub->add_option("--candidates", a->candidates, "Candidate files or folders (a KernelBench runs folder as it is)");
      sub->add_option("--source", a->source,
                      "The model configuration that wrote the candidates (default: their folder name)");
      sub->add_flag("--reference-as-candidate", a->reference, "Also evaluate each problem's own Model as a candidate");
      sub->add_option("--suite", a->suite,
                      "A suite manifest with expected verdicts (suites/adversarial/manifest.toml); "
                      "exit status 1 when any case gets another verdict");
      sub->add_option("--db", a->common.db,
                      "Results store: a SQLite file (default results.sqlite) or a PostgreSQL URL "
                      "(postgresql://user@host:5432/db) that other processes may share");
      sub->add_flag("--force", a->common.options.force,
                    "Evaluate again what the store already has (in this process alone, outside a shared queue)");
      sub->add_option("--shard", a->shard,
                      "i/N: only share i (from 0) of N of the jobs, the same split in every process given the same "
                      "jobs (a job array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
      sub->add_option("--lease", a->common.options.lease_s,
                      "Seconds a claim on a shared store outlives its process's last heartbeat before another "
                      "process takes the job (default 120)");
      sub->add_option("--audit-to", a->common.options.audit_output,
                      "Append each problem's discrimination audit (as `headroom audit --json` rows) to this file, "
                      "from the reference data the run prepares anyway");
      add_eval_options(sub, a->common, true);
      sub->footer(
          "Examples:\n"
          "  headroom eval KernelBench/level1 --candidates runs/gpt5_level1 --db kb.sqlite\n"
          "  headroom eval KernelBench/level1 --reference-as-candidate --db self.sqlite\n"
          "  headroom eval --suite suites/adversarial/manifest.toml --device cpu\n"
          "  headroom eval KernelBench/level1 --candidates runs/gpt5_level1 --db postgresql://eval@db-host/kb\n"
          "  headroom stats kb.sqlite\n"
          "Verdicts: correct, incorrect, compile_error, load_error, runtime_error, crash, timeout, reference_error.");
      return [a] { return run_eval(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
