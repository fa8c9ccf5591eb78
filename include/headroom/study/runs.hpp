#pragma once
// The runs of a study: each workload eager and (with --compile) under torch.compile, recorded by
// `headroom profile` and (with --compare-torch) by torch.profiler, and the command that records one.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/study/workloads.hpp"

namespace headroom::study {

enum class variant { eager, compiled };
enum class recorder { headroom, torch };

std::string_view to_string(variant v);  // "eager", "compile"
std::string_view to_string(recorder r);  // "headroom", "torch"
std::optional<variant> parse_variant(std::string_view s);
std::optional<recorder> parse_recorder(std::string_view s);

struct run_key {
  std::string workload;
  variant var = variant::eager;
  recorder rec = recorder::headroom;
  // The run's folder under runs/: "gpt_train.eager.headroom".
  std::string folder_name() const;
  auto operator<=>(const run_key&) const = default;
};

// The files of one run folder (docs/study.md).
inline constexpr std::string_view record_file = "result.json";  // written last: the run is done
inline constexpr std::string_view harness_file = "run.json";  // the workload's own summary
inline constexpr std::string_view log_file = "log.txt";  // the run's stdout and stderr
inline constexpr std::string_view store_file = "trace.sqlite";  // headroom profile's store
inline constexpr std::string_view kineto_file = "trace.json.gz";  // torch.profiler's trace
inline constexpr std::string_view analysis_file = "analysis.json";  // headroom analyze --json, steady state
// The trace over every timed step, the window on which the two recorders are compared: headroom's
// store with no warm-up step skipped, torch.profiler's whole trace.
inline constexpr std::string_view all_steps_analysis_file = "analysis.all-steps.json";

struct planned_run {
  run_key key;
  workload w;
};

// Every run in the order they matter to the study's table: headroom's runs first (eager, then
// compiled, workload by workload), torch.profiler's after them, so a study cut short has its
// table and misses comparisons only.
std::vector<planned_run> plan_runs(const std::vector<workload>& workloads, bool compiled, bool compare_torch);

struct run_settings {
  std::filesystem::path headroom;  // the executable that runs `headroom profile`
  std::filesystem::path workloads_dir;
  std::string python = "python3";
  std::string preset = "large";
  std::optional<int> steps;  // timed steps instead of the preset's
  std::optional<int> timeout_s;  // instead of each workload's
};

// The argv that records `run` into `run_dir`.
std::vector<std::string> run_command(const planned_run& run, const run_settings& s,
                                     const std::filesystem::path& run_dir);

}  // namespace headroom::study
