#pragma once
// Options shared by the commands that read traces (analyze, project, import, export): the inputs,
// --allow-partial, and for the analysing commands the window, the rules and where the output goes.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/trace/reader.hpp"

namespace headroom::cli {

struct inputs_args {
  std::vector<std::filesystem::path> traces;
  bool allow_partial = false;
};

struct trace_args : inputs_args {
  std::string window = "steady";
  std::string step_marker;
  int warmup = 1;
  std::vector<std::filesystem::path> rules;
  std::string output;
};

// Adds the trace positionals and --allow-partial.
void add_inputs_options(CLI::App* sub, inputs_args& a);
// Adds those and --window, --step-marker, --warmup, --rules, -o.
void add_trace_options(CLI::App* sub, trace_args& a);

// Reads the traces (trace::read_traces); with --allow-partial, says on standard error what was lost.
trace::trace read_inputs(const inputs_args& a, trace::read_options options);

// The analysis options the arguments ask for; throws input_error on a bad --window.
analyze::analyze_options to_analyze_options(const trace_args& a);

}  // namespace headroom::cli
