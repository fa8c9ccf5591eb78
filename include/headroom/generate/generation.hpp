#pragma once
// `headroom generate`: every configuration asked for its candidates for every problem, turn after
// turn, into a runs folder (runs_folder.hpp) with its log (request_log.hpp). A rerun asks only for
// what is missing: a candidate whose file exists, or an answer the log records as holding no code,
// is not asked for again; failed requests are.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/orchestrator.hpp"
#include "headroom/generate/model_config.hpp"
#include "headroom/generate/retry.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::generate {

struct generate_options {
  std::filesystem::path runs_dir;
  double backoff_s = 1;  // the first wait before a retry without Retry-After (retry.hpp)
  std::optional<int> turns;  // overrides every configuration's
  std::optional<int> samples;  // overrides every configuration's
};

// Evaluates these candidate files (each has its folder's name as its source: the configuration,
// with .turn<T> after the first turn) and returns their evaluations; the CLI runs `headroom
// eval`'s harness. Only the files a further turn needs are given, not whole folders, which may hold
// candidates of problems this run was not given.
using evaluate_fn =
    std::function<std::vector<record::evaluation>(const std::vector<std::filesystem::path>& candidates)>;

// One line per finished request, and one per attempt that is retried, for the progress display.
struct progress_event {
  std::string config, problem;
  int sample = 0, turn = 1;
  std::string outcome;  // candidate, no_code, failed, skipped (the endpoint failed before); retry (not finished)
  std::string detail;  // the error, or how the code was cut out
  std::optional<std::int64_t> tokens_in, tokens_out;
  double latency_s = 0;
  int done = 0, total = 0;  // requests of this turn
  std::int64_t all_tokens_in = 0, all_tokens_out = 0;  // so far, in this run
  double all_cost = 0;
  bool cost_known = false;  // some configuration has prices
};
using progress_fn = std::function<void(const progress_event&)>;

struct generate_summary {
  int asked = 0;  // requests sent (not counting retries)
  int resumed = 0;  // found done by an earlier run
  int candidates = 0, no_code = 0, failed = 0, skipped = 0;
  int attempts = 0;  // HTTP attempts, retries included
  std::int64_t tokens_in = 0, tokens_out = 0;
  double cost = 0;
  std::vector<std::string> failed_endpoints;  // "name: the error" per configuration whose endpoint failed
  std::vector<std::string> log_problems;  // lines of the log that could not be read
};

// Throws input_error before any request for a configuration whose api_key_env is not set, for
// problems that cannot be named apart, or for a runs folder that cannot be written.
generate_summary run_generation(const std::vector<model_config>& configs,
                                const std::vector<eval::problem_spec>& problems, const generate_options& options,
                                const evaluate_fn& evaluate, const progress_fn& progress);

}  // namespace headroom::generate

namespace headroom::generate {

// "[3/12] gpt-x level1/19_ReLU sample 0 turn 1: candidate (1234 in, 2345 out, 12.3 s) | so far 5.1k in,
// 9.8k out tokens, 0.42"
std::string progress_line(const progress_event& e);

}  // namespace headroom::generate
