#pragma once
// What a study found, run by run: plain data that src/report renders (the study's table) and that
// src/study fills from each run's trace or, when the trace stayed behind, its analysis.json.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::study {

// The published study this one is read beside: addressable fractions of 8.9% to 58.2% over seven
// workloads in three domains, and GEMM plus attention at 80-86% of transformers' kernel time.
inline constexpr double published_addressable_low = 0.089;
inline constexpr double published_addressable_high = 0.582;
inline constexpr double published_gemm_attention_low = 0.80;
inline constexpr double published_gemm_attention_high = 0.86;
// Its recommender's addressable fraction: the f of its 8.63% projection (0.582 x 0.417 x
// (1 - 1/1.552)), the published figure beside the study's recommender rows.
inline constexpr double published_recommender_addressable = 0.582;
// The kernel speedup the projected gain is quoted at by default: KernelBench level 1's published
// median speedup of correct generated kernels.
inline constexpr double default_kernel_speedup = 1.235;
// The published median speedup of the recommender kernels that won (the 1.552 of the 8.63%): the
// second speedup the study's report quotes the projected gain at.
inline constexpr double published_recommender_speedup = 1.552;

// One analysis reduced to what the study's tables show (docs/method.md defines each figure).
struct run_figures {
  std::string window_source;  // step_markers, repeating_unit, whole_span, explicit
  std::string window_description;  // "steps ProfilerStep#1..#19 (19 steps; 1 skipped as warm-up)"
  std::string device;  // the first timeline's label: "rank 0 / GPU 0 (NVIDIA H200)"
  int steps = 0;  // steps or repeating units in the window (first timeline)
  int timelines = 0;
  // Device-time weighted totals over the timelines, in ns.
  std::int64_t wall = 0;
  std::int64_t busy = 0;
  std::int64_t kernel_busy = 0;
  std::int64_t addressable = 0;
  std::int64_t addressable_exclusive = 0;
  std::int64_t gemm = 0;  // busy time of the gemm category
  std::int64_t attention = 0;  // busy time of the attention category

  double addressable_fraction() const { return share(addressable); }
  double addressable_exclusive_fraction() const { return share(addressable_exclusive); }
  double idle_fraction() const { return wall > 0 ? 1.0 - share(busy) : 0.0; }
  // GEMM plus attention over kernel busy time (the published study's 80-86% is of kernel time).
  double gemm_attention_share() const {
    return kernel_busy > 0 ? static_cast<double>(gemm + attention) / static_cast<double>(kernel_busy) : 0.0;
  }
  double share(std::int64_t t) const { return wall > 0 ? static_cast<double>(t) / static_cast<double>(wall) : 0.0; }
};

// What the workload's harness measured about its own run (its run.json).
struct harness_figures {
  std::optional<double> median_step_s;
  std::optional<double> warmup_s;  // the warm-up steps together: torch.compile's compilation lands here
  int steps = 0;  // timed steps
  std::string device;  // "NVIDIA H200"
  std::string torch_version;
  std::string step_marker_api;  // "nvtx": the timed steps carry ProfilerStep#N ranges in headroom's trace
  std::string description;  // the workload's own line: sizes, parameters
};

// One run's contribution to a row: its figures, or why it has none.
struct run_result {
  std::string status = "not run";  // "ok", or "failed: ...", "timed out: ...", "not run"
  std::optional<run_figures> figures;  // the steady-state window: the study's table
  std::optional<run_figures> all_steps_figures;  // every timed step: the two recorders' comparison
  std::optional<harness_figures> harness;
  std::string figures_from;  // "trace" or "analysis.json" (the trace was not in the folder)
  std::string folder;  // the run folder, relative to the study folder
};

// One workload and variant: its headroom run and, when recorded, its torch.profiler run.
struct study_row {
  std::string workload;
  std::string domain;
  std::string variant;  // "eager", "compile"
  run_result headroom;
  run_result torch;
  // The run the headline figures come from: headroom's when it has figures, else torch.profiler's.
  const run_result* headline() const {
    if (headroom.figures) return &headroom;
    if (torch.figures) return &torch;
    return nullptr;
  }
};

struct study_summary {
  std::string folder;
  std::string preset;
  double kernel_speedup = default_kernel_speedup;
  std::vector<study_row> rows;  // transformer, recommender, vision, then other domains; eager before compile
  std::vector<std::string> notes;  // what the reader should know (runs not read, rules added)
};

}  // namespace headroom::study
