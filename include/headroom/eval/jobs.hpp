#pragma once
// What to evaluate: problems found in files and folders, candidates paired with them (KernelBench
// runs folders as they are), and a problem's own reference as a candidate. Suites with expected
// verdicts are suite.hpp.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/record/verdict.hpp"

namespace headroom::eval {

// A KernelBench generation's file name, level_<L>_problem_<P>_sample_<S>_kernel.py: the digits of
// L, P and S. Empty for any other name.
struct generation_name {
  std::string level, problem, sample;
};
std::optional<generation_name> parse_generation_name(const std::string& filename);

// *.py files (folders searched one level deep, in name order); files named like KernelBench
// generations (level_1_problem_3_sample_0_kernel.py) are never problems.
std::vector<problem_spec> find_problems(const std::vector<std::filesystem::path>& paths);

// Pairs each candidate file with its problem:
//  - KernelBench runs naming `level_<L>_problem_<P>_sample_<S>_kernel.py` -> the problem whose file
//    name starts with `<P>_` (in a folder named level<L> when several match);
//  - a file whose stem is a problem's stem, or starts with it followed by '_' or '.';
//  - any file, when there is exactly one problem.
// `source` names the model configuration; empty means each file's folder name. Unpairable files are
// an input_error naming them.
std::vector<eval_job> pair_candidates(const std::vector<problem_spec>& problems,
                                      const std::vector<std::filesystem::path>& candidates, const std::string& source);

// Each problem evaluated with its own Model as the candidate (source "reference"): the harness's
// own consistency check, which must come out correct with speedup 1.00.
std::vector<eval_job> reference_jobs(const std::vector<problem_spec>& problems, const std::filesystem::path& cache);

// Share `index` of `count` (--shard i/N): the jobs sorted by problem and candidate hash and cut into
// `count` runs of consecutive jobs, the same in every process given the same jobs; a problem's
// jobs stay together where they can, so few shares prepare one problem's reference. Throws
// input_error unless 0 <= index < count.
std::vector<eval_job> shard_jobs(const std::vector<eval_job>& jobs, int index, int count);

}  // namespace headroom::eval
