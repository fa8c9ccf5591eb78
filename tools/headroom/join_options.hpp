#pragma once
// Options shared by the commands that join measured speedups to workloads (project, report).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "headroom/project/join.hpp"

namespace headroom::cli {

struct join_args {
  std::string source;
  std::string uncovered = "pooled";
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 1;
  std::vector<std::filesystem::path> problem_categories;
};

// Adds --source, --uncovered, --bootstrap, --confidence, --seed and --problem-categories.
void add_join_options(CLI::App* sub, join_args& a);

// Throws input_error on a bad --uncovered.
project::join_options to_join_options(const join_args& a);

}  // namespace headroom::cli
