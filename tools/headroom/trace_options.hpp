#pragma once
// Options shared by the commands that analyse traces (analyze, project): the inputs, the window,
// the rules and where the output goes.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"

namespace headroom::cli {

struct trace_args {
  std::vector<std::filesystem::path> traces;
  std::string window = "steady";
  std::string step_marker;
  int warmup = 1;
  std::vector<std::filesystem::path> rules;
  std::string output;
};

// Adds the trace positionals and --window, --step-marker, --warmup, --rules, -o.
void add_trace_options(CLI::App* sub, trace_args& a);

// The analysis options the arguments ask for; throws input_error on a bad --window.
analyze::analyze_options to_analyze_options(const trace_args& a);

// Standard output, or the -o file (input_error when it cannot be written).
class output_stream {
 public:
  explicit output_stream(const std::string& path);
  std::ostream& get() { return path_empty_ ? std::cout : file_; }

 private:
  bool path_empty_;
  std::ofstream file_;
};

}  // namespace headroom::cli
