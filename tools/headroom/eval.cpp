// headroom eval PROBLEMS... [--candidates PATH...] [--reference-as-candidate] [--suite MANIFEST] ...
#include <cstdio>
#include <algorithm>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

std::string speedup_text(const eval::evaluation& e) {
  return e.speedup ? fmt::format("{:.3f}x", *e.speedup) : "-";
}

std::string first_reason(const eval::evaluation& e) {
  for (const auto& r : e.reasons)
    if (r.code != "trials_skipped") return r.code + ": " + r.detail;
  return "";
}

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
  if (!(a.common.options.lease_s >= 3)) throw input_error("--lease: at least 3 seconds (the heartbeat renews every third)");
  store::results_store store(a.common.db);
  std::vector<eval::eval_job> jobs;
  std::vector<eval::suite_case> cases;
  if (!a.suite.empty()) {
    std::string kind = eval::expand_devices(a.common.options.device).front() == "cpu" ? "cpu" : "cuda";
    for (auto& c : eval::load_suite(a.suite, a.source.empty() ? "suite" : a.source))
      if (std::find(c.devices.begin(), c.devices.end(), kind) != c.devices.end()) cases.push_back(std::move(c));
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
  bool tty = isatty(2);
  auto results = eval::run_evaluations(jobs, store, a.common.options,
                                       [&](const eval::eval_job& j, const eval::evaluation& e, int done, int total) {
                                         fmt::print(stderr, "[{}/{}] {}  {}  {}  {}  ({:.1f} s){}\n", done, total,
                                                    j.problem.id, j.candidate.path.filename().string(),
                                                    eval::verdict_name(e.result), speedup_text(e), e.duration_s,
                                                    tty ? "" : "");
                                       });
  int failures = 0;
  if (!cases.empty()) {
    fmt::print("{:<34} {:<16} {:<30} {}\n", "case", "verdict", "reasons", "expected");
    for (const auto& c : cases) {
      const eval::evaluation* got = nullptr;
      for (const auto& e : results)
        if (e.candidate_hash == c.job.candidate.hash && e.problem_hash == c.job.problem.hash) got = &e;
      std::string why;
      bool ok = got && eval::meets_expectation(c, *got, why);
      if (!got) why = "not evaluated";
      std::string codes;
      if (got)
        for (const auto& r : got->reasons) codes += (codes.empty() ? "" : ",") + r.code;
      fmt::print("{:<34} {:<16} {:<30} {}\n", c.name, got ? std::string(eval::verdict_name(got->result)) : "-", codes,
                 ok ? "ok" : "MISMATCH: " + why);
      failures += ok ? 0 : 1;
    }
    fmt::print("{} of {} case(s) got the expected verdict\n", cases.size() - failures, cases.size());
    return failures ? 1 : 0;
  }
  fmt::print("{:<36} {:<28} {:<15} {:>9}  {}\n", "problem", "candidate", "verdict", "speedup", "reason");
  for (const auto& e : results)
    fmt::print("{:<36} {:<28} {:<15} {:>9}  {}\n", e.problem, std::filesystem::path(e.candidate_path).filename().string(),
               eval::verdict_name(e.result), speedup_text(e), first_reason(e).substr(0, 120));
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
      sub->add_option("--source", a->source, "The model configuration that wrote the candidates (default: their folder name)");
      sub->add_flag("--reference-as-candidate", a->reference, "Also evaluate each problem's own Model as a candidate");
      sub->add_option("--suite", a->suite, "A suite manifest with expected verdicts (suites/adversarial/manifest.toml); "
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
