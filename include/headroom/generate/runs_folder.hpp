#pragma once
// The runs folder (docs/generate.md, "The runs folder"): RUNS_DIR/<configuration>/ holds the first
// turn's candidates named as KernelBench's runs are, level_<L>_problem_<P>_sample_<S>_kernel.py, so
// `headroom eval PROBLEMS --candidates RUNS_DIR/<configuration>` takes it as it is and pairs every
// file with its problem; turn T > 1 is RUNS_DIR/<configuration>.turn<T>/. Beside them:
// generate.jsonl (the log) and prompts/<sha256>.json (every distinct prompt, once).
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/eval/orchestrator.hpp"

namespace headroom::generate {

// A problem as the runs folder names it.
struct named_problem {
  eval::problem_spec spec;
  std::string level;  // the digits of the folder's name `level<L>`, else "1" (eval pairs by both)
  std::string number;  // digits before the file name's first '_' ("19" of 19_ReLU.py); empty when none
};

// Names every problem; throws input_error when two problems would get the same candidate names
// (the same level and number, or the same file name when unnumbered), which eval could not pair.
std::vector<named_problem> name_problems(const std::vector<eval::problem_spec>& problems);

// level_<L>_problem_<P>_sample_<S>_kernel.py, or <stem>_sample_<S>_kernel.py for an unnumbered
// problem (eval pairs it by the stem).
std::string candidate_file_name(const named_problem& p, int sample);

// RUNS_DIR/<config> for turn 1, RUNS_DIR/<config>.turn<T> after.
std::filesystem::path turn_folder(const std::filesystem::path& runs_dir, const std::string& config, int turn);

}  // namespace headroom::generate
