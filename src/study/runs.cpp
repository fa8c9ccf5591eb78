// The study's runs and the command that records each.
#include "headroom/study/runs.hpp"

#include <fmt/format.h>

namespace headroom::study {

std::string_view to_string(variant v) { return v == variant::eager ? "eager" : "compile"; }
std::string_view to_string(recorder r) { return r == recorder::headroom ? "headroom" : "torch"; }

std::optional<variant> parse_variant(std::string_view s) {
  if (s == "eager") return variant::eager;
  if (s == "compile") return variant::compiled;
  return std::nullopt;
}

std::optional<recorder> parse_recorder(std::string_view s) {
  if (s == "headroom") return recorder::headroom;
  if (s == "torch") return recorder::torch;
  return std::nullopt;
}

std::string run_key::folder_name() const { return fmt::format("{}.{}.{}", workload, to_string(var), to_string(rec)); }

std::vector<planned_run> plan_runs(const std::vector<workload>& workloads, bool compiled, bool compare_torch) {
  std::vector<planned_run> out;
  for (const recorder r : {recorder::headroom, recorder::torch}) {
    if (r == recorder::torch && !compare_torch) continue;
    for (const variant v : {variant::eager, variant::compiled}) {
      if (v == variant::compiled && !compiled) continue;
      for (const auto& w : workloads) out.push_back({{w.name, v, r}, w});
    }
  }
  return out;
}

std::vector<std::string> run_command(const planned_run& run, const run_settings& s,
                                     const std::filesystem::path& run_dir) {
  std::vector<std::string> argv;
  if (run.key.rec == recorder::headroom) {
    // Every kind recorded (kernels, copies, memsets, launches, NVTX, synchronisations): the trace
    // a user of `headroom profile` gets.
    argv = {s.headroom.string(), "profile", "-o", (run_dir / store_file).string(), "--"};
  }
  argv.push_back(s.python);
  argv.push_back((s.workloads_dir / run.w.script).string());
  argv.insert(argv.end(), run.w.args.begin(), run.w.args.end());
  argv.insert(argv.end(), {"--preset", s.preset, "--summary", (run_dir / harness_file).string()});
  if (s.steps) argv.insert(argv.end(), {"--steps", std::to_string(*s.steps)});
  if (run.key.var == variant::compiled) argv.push_back("--compile");
  if (run.key.rec == recorder::torch) {
    // CUDA activity only, every timed step: what `headroom profile` records, so the two traces
    // cover the same steps (workloads/common.py, torch-all).
    argv.insert(argv.end(), {"--profile", "torch-all", "--trace", (run_dir / kineto_file).string()});
  }
  return argv;
}

}  // namespace headroom::study
