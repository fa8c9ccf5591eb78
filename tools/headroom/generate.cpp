// headroom generate PROBLEMS... --models MODELS.toml -o RUNS_DIR [--turns N] [--samples N]
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "headroom/generate/generation.hpp"
#include "headroom/generate/model_config.hpp"
#include "headroom/report/eval_output.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct generate_args {
  eval_cli common;
  std::vector<std::string> problems;
  std::string models, output;
  std::vector<std::string> only;
  int turns = 0, samples = 0;
  double backoff_s = 1;
  bool db_given = false;
};

constexpr const char* generate_help =
    R"(Ask model endpoints for kernel candidates and write them as KernelBench runs folders.

For every model configuration in MODELS.toml (an OpenAI-compatible endpoint: vLLM, SGLang, llama.cpp's
server or a hosted API) and every problem, asks for `samples` candidates through /chat/completions,
cuts the code out of each answer and writes

  RUNS_DIR/<name>/level_<L>_problem_<P>_sample_<S>_kernel.py   the first turn's candidates
  RUNS_DIR/<name>.turn<T>/...                                   turn T's, with --turns (or turns = N)
  RUNS_DIR/generate.jsonl                                       every attempt of every request: prompt hash,
                                                                tokens in and out, latency, cost, finish
                                                                reason, error, what was cut from the answer
  RUNS_DIR/prompts/<sha256>.json                                each distinct prompt, once

so that `headroom eval PROBLEMS --candidates RUNS_DIR/<name>` judges a folder as it is. With more than one
turn, each further turn is shown what the evaluation found of the last candidate (its verdict and
reasons, the first mismatch, the build log's end, the speedup) and asked for a better one; the
evaluations go to --db, as `headroom eval` stores them, and their verdicts to the log.

Requests are retried on 429 and 5xx answers (after Retry-After when the server sends it, else with
exponential backoff), on timeouts, cut connections and malformed answers. A rerun asks only for what
is missing; every file is written whole or not at all, so an interrupted run (Ctrl-C) is safe to rerun.
Keys come from the environment variable each configuration names (api_key_env), never from the file.
The exit status is 2 when a request failed for good (the log says why); a rerun asks for it again.
docs/generate.md describes the configuration file, the prompt templates and the log.

Examples:
  headroom generate KernelBench/level1 --models MODELS.toml -o runs
  headroom generate KernelBench/level1 --models MODELS.toml -o runs --only qwen-coder --samples 4
  headroom generate KernelBench/level1 --models MODELS.toml -o runs --turns 3 --device cuda --db runs/results.sqlite
  headroom eval KernelBench/level1 --candidates runs/qwen-coder --db kb.sqlite && headroom stats kb.sqlite)";

int run_generate(generate_args& a) {
  auto configs = generate::load_models(a.models);
  if (!a.only.empty()) {
    const std::set<std::string> wanted(a.only.begin(), a.only.end());
    for (const auto& w : wanted)
      if (std::none_of(configs.begin(), configs.end(), [&](const auto& c) { return c.name == w; }))
        throw input_error(fmt::format("--only: {} names no configuration in {}", w, a.models));
    std::erase_if(configs, [&](const generate::model_config& c) { return !wanted.contains(c.name); });
  }
  std::vector<std::filesystem::path> paths(a.problems.begin(), a.problems.end());
  const auto problems = eval::find_problems(paths);

  generate::generate_options options;
  options.runs_dir = a.output;
  options.backoff_s = a.backoff_s;
  if (a.turns > 0) options.turns = a.turns;
  if (a.samples > 0) options.samples = a.samples;
  if (!a.db_given) a.common.db = (options.runs_dir / "results.sqlite").string();

  // Further turns are shown the evaluation of the last: headroom eval's harness, on the turn's folders.
  std::unique_ptr<store::results_store> store;
  generate::evaluate_fn evaluate = [&](const std::vector<std::filesystem::path>& candidates) {
    if (!store) {
      finish_eval_options(a.common);
      store = std::make_unique<store::results_store>(a.common.db);
    }
    const auto jobs = eval::pair_candidates(problems, candidates, "");
    fmt::print(stderr, "evaluating {} candidate(s) for the next turn\n", jobs.size());
    return eval::run_evaluations(jobs, *store, a.common.options, print_progress());
  };
  const auto summary = generate::run_generation(
      configs, problems, options, evaluate,
      [](const generate::progress_event& e) { fmt::print(stderr, "{}\n", generate::progress_line(e)); });

  for (const auto& p : summary.log_problems) fmt::print(stderr, "headroom generate: {}\n", p);
  fmt::print(
      stderr,
      "{} request(s) asked ({} attempt(s)), {} found done by an earlier run: {} candidate(s), {} answer(s) without "
      "code, {} failed, {} skipped; {} tokens in, {} out{}\n",
      summary.asked, summary.attempts, summary.resumed, summary.candidates, summary.no_code, summary.failed,
      summary.skipped, summary.tokens_in, summary.tokens_out,
      summary.cost > 0 ? fmt::format(", cost {:.4f}", summary.cost) : "");
  fmt::print(stderr, "runs in {}, log in {}\n", options.runs_dir.string(),
             (options.runs_dir / "generate.jsonl").string());
  for (const auto& e : summary.failed_endpoints) fmt::print(stderr, "headroom generate: endpoint failed: {}\n", e);
  if (summary.failed > 0 || summary.skipped > 0)
    throw input_error(fmt::format(
        "{} request(s) failed and {} were not sent (the lines above and the log say why); run the same command "
        "again to ask for them",
        summary.failed, summary.skipped));
  return 0;
}

const command_registration registration{command{
    "generate", 35, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<generate_args>();
      auto* sub =
          app.add_subcommand("generate", "Ask model endpoints for kernel candidates (KernelBench runs folders)");
      sub->description(generate_help);
      sub->add_option("problems", a->problems, "Problem files or folders (KernelBench format)")->required();
      sub->add_option("--models", a->models, "The model configurations: a TOML file (docs/generate.md)")->required();
      sub->add_option("-o,--output", a->output, "The runs folder: one folder per configuration and turn, the log")
          ->required();
      sub->add_option("--only", a->only, "Only these configurations (names, comma-separated)")->delimiter(',');
      sub->add_option("--turns", a->turns, "Turns per sample for every configuration (default: each one's `turns`)")
          ->check(CLI::Range(1, 100));
      sub->add_option("--samples", a->samples,
                      "Samples per problem for every configuration (default: each one's `samples`)")
          ->check(CLI::Range(1, 10000));
      sub->add_option(
             "--backoff", a->backoff_s,
             "Seconds before the first retry when the server sends no Retry-After; doubled each time (default 1)")
          ->check(CLI::Range(0.0, 600.0));
      sub->add_option("--db", a->common.db,
                      "Results store for the evaluations further turns are shown (default RUNS_DIR/results.sqlite)")
          ->each([a](const std::string&) { a->db_given = true; });
      add_eval_options(sub, a->common, true);
      return [a] { return run_generate(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
