#pragma once
// One evaluation of one candidate on one problem: the record the harness (src/eval) writes and the
// results store (src/store) keeps (docs/eval-results.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headroom/record/timing_summary.hpp"
#include "headroom/record/verdict.hpp"

namespace headroom::record {

// Paired rounds (docs/eval.md): the candidate and a fresh reference worker timed again in short
// turns, one after the other; the evaluation's speedup then comes from the rounds (src/eval/paired.hpp).
struct paired_timing {
  int rounds = 0;
  double rel_spread = 0;  // (max - min) of the rounds' ratios / the speedup
};

// Where and with what the evaluation ran.
struct environment {
  std::string device;  // "cuda:0" or "cpu"
  std::string gpu;  // "NVIDIA H200" or the CPU model
  std::string driver;
  std::string cuda;
  std::string torch;
  std::string python;
  std::string host;
  std::string clocks;  // e.g. "sm 1980 MHz, mem 3201 MHz" at the start; empty when unknown
};

struct error_metrics {
  double normwise_error = 0;  // worst over trials and outputs
  double max_abs_error = 0;
  std::int64_t mismatched = 0;
  std::int64_t unwritten = 0;
  int trials = 0;
  int trials_passed = 0;
};

struct evaluation {
  std::string candidate_hash;  // sha256 of the candidate file's bytes
  std::string source;  // the model configuration that wrote it ("gpt-5/level1", "reference")
  std::string candidate_path;  // as given when it was evaluated
  std::string problem;  // problem id, e.g. "level1/19_ReLU"
  std::string problem_hash;  // sha256 of the problem file's bytes
  verdict result = verdict::reference_error;
  std::vector<reason> reasons;  // why (for failures) and flags (for correct results)
  error_metrics errors;
  std::optional<timing_summary> candidate_timing;
  std::optional<timing_summary> eager_timing;  // the reference, eager
  std::optional<timing_summary> compiled_timing;  // the reference under torch.compile
  std::optional<double> speedup;  // eager score / candidate score, or paired rounds' median ratio
  std::optional<paired_timing> paired;  // set when paired rounds gave the speedup
  std::optional<double> speedup_compiled;
  // The speed-of-light floor: the least time of any correct kernel, from the bytes every one moves
  // (docs/eval.md, "The speed-of-light floor"); none when it could not be had.
  std::optional<double> speed_of_light_ms;
  // The roofline of the reference's work: its FLOPs over the device's matmul rate, or the floor's
  // bytes over its bandwidth, whichever is longer (informative: a kernel doing less work runs below
  // it); none on the CPU or when unknown.
  std::optional<double> roofline_ms;
  // The share of the gap from eager PyTorch to the floor that the candidate closed (SOL-ExecBench's
  // SOL score): 0 at eager's time, 1 at the floor, negative when slower than eager.
  std::optional<double> sol_gap_closed;
  environment env;
  int checker = 0;  // eval::checker_version at evaluation time
  std::string started_at;  // ISO 8601 UTC
  double duration_s = 0;
  std::string log;  // the tail of the worker's stderr for failures, else empty
};

// A correct verdict with a speedup and no disqualifying flag.
bool verified(const evaluation& e);

}  // namespace headroom::record
