#pragma once
// A KernelBench runs folder's results (runs/<run>/eval_results.json, written by KernelBench's
// eval_from_generations.py beside the generated kernels) as evaluations, so a published run can be
// imported into a results store and judged again by `headroom reverify` (docs/releases.md).
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::store {
class results_store;
}

namespace headroom::eval {

// The checker version of an evaluation judged by another harness and imported (KernelBench's
// check); headroom's own versions start at 1, so a reverified row is always the newer one.
inline constexpr int imported_checker = 0;

struct kernelbench_run {
  std::vector<eval_job> jobs;  // the candidate and problem of each evaluation, with their texts
  std::vector<record::evaluation> evaluations;
  std::vector<std::string> skipped;  // results without their kernel file or problem, and why
};

// `problems`: the KernelBench problems the run was generated for (level1/...). `source` names the
// model configuration (default: the folder's name). Throws input_error when eval_results.json is
// missing or not KernelBench's format.
kernelbench_run read_kernelbench_run(const std::filesystem::path& runs_dir, const std::vector<problem_spec>& problems,
                                     const std::string& source);

// Stores the run's evaluations with their candidates' and problems' texts, in one transaction: all
// of it or, interrupted, none.
void import_kernelbench_run(store::results_store& into, const kernelbench_run& run);

}  // namespace headroom::eval
