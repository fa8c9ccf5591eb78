// headroom analyze TRACE...: the addressable fraction of a workload's wall clock.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command.hpp"
#include "headroom/analyze/analysis.hpp"
#include "headroom/analyze/inputs.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct analyze_args {
  std::vector<std::filesystem::path> traces;
  std::string window = "steady";
  std::string step_marker;
  int warmup = 1;
  std::vector<std::filesystem::path> rules;
  std::size_t top = 15;
  bool json = false;
  bool csv = false;
  std::string output;
};

constexpr const char* analyze_help = R"(Classify every GPU kernel of a trace and report the addressable fraction.

What the figures mean (docs/method.md defines them exactly):
  window       the span measured: by default the steady state (ProfilerStep#/NVTX step markers
               mapped onto the GPU, else the kernel sequence's repeating unit, after warm-up);
               always printed with the result
  busy         union of all GPU activity inside the window (overlaps count once), over wall clock
  idle         1 - busy
  addressable  union of kernels a new kernel could replace (framework, compiler-generated, custom;
               not vendor libraries, collectives, copies or memsets), over wall clock: f
  exclusive    addressable time not overlapped by non-addressable work on other streams
  Amdahl       end-to-end speedup 1/((1-f) + f/s) for kernel speedup s; ceiling 1/(1-f)
Several files (one per rank) are merged; the total is device-time weighted.

Example:
  headroom analyze rank0.json.gz rank1.json.gz --top 10
  headroom analyze trace.json --window 120ms:480ms --json -o summary.json)";

int run_analyze(const analyze_args& a) {
  analyze::analyze_options o;
  analyze::parse_window_spec(a.window, o);
  if (!a.step_marker.empty()) o.step_marker = a.step_marker;
  o.warmup_steps = a.warmup;
  o.top_kernels = a.top;
  const auto classifier = analyze::load_classifier(a.rules);
  const auto trace = analyze::read_traces(a.traces);
  const auto report = analyze::analyze(trace, classifier, o);

  std::ofstream file;
  if (!a.output.empty()) {
    file.open(a.output);
    if (!file) throw input_error(fmt::format("cannot write '{}'", a.output));
  }
  std::ostream& out = a.output.empty() ? std::cout : file;
  if (a.json) {
    report::write_json(out, report);
  } else if (a.csv) {
    report::write_csv(out, report);
  } else {
    report::write_console(out, report);
  }
  return 0;
}

const command_registration registration{{"analyze", 20, [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<analyze_args>();
  auto* sub = app.add_subcommand("analyze", "Report the addressable fraction of a trace's wall clock");
  sub->description(analyze_help);
  sub->add_option("traces", args->traces, "Kineto JSON (.json, .json.gz), Nsight Systems SQLite or headroom store files")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--window", args->window, "steady (default), whole, or START:END from the first activity (12.5ms:40ms)");
  sub->add_option("--step-marker", args->step_marker, "regex over range names that mark one step (default: ProfilerStep#N, step N, iteration N)");
  sub->add_option("--warmup", args->warmup, "steps or repeating units skipped at the start, when at least two remain (default 1)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--rules", args->rules, "extra classification rules (TOML, as data/rules/*.toml); they take precedence")
      ->check(CLI::ExistingFile);
  sub->add_option("--top", args->top, "how many kernels to list (default 15)");
  auto* json = sub->add_flag("--json", args->json, "JSON output (docs/analysis-json.md)");
  sub->add_flag("--csv", args->csv, "CSV output: one row per timeline and class")->excludes(json);
  sub->add_option("-o,--output", args->output, "write to FILE instead of standard output");
  return [args] { return run_analyze(*args); };
}}};

}  // namespace
}  // namespace headroom::cli
