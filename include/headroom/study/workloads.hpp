#pragma once
// The reference workloads a study runs: workloads/study.toml, one entry per workload and mode, in
// the order the study runs them (docs/study.md describes the fields).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::study {

struct workload {
  std::string name;  // "gpt_train": the run's name in the study folder and its tables
  std::string script;  // "gpt.py", in the workloads folder
  std::vector<std::string> args;  // the script's arguments beside the study's own ("--mode", "train")
  std::string domain;  // transformer, recommender, vision
  int timeout_s = 300;  // one run of the large preset, torch.compile's warm-up included
};

// Reads the registry. Throws input_error naming the file, the entry and the problem.
std::vector<workload> read_workloads(const std::filesystem::path& toml_file);

// The entries a comma list names, in the registry's order ("" or "all": every one). Throws
// input_error naming each unknown name and listing the known ones.
std::vector<workload> select_workloads(const std::vector<workload>& all, std::string_view list);

// The folder of the workload scripts and study.toml: `chosen` when not empty, else
// $HEADROOM_WORKLOADS, else the source tree's workloads/ this binary was built from, else
// <executable>/../share/headroom/workloads (an installed headroom). Throws input_error when the
// folder found holds no study.toml.
std::filesystem::path find_workloads_dir(const std::filesystem::path& chosen);

}  // namespace headroom::study
