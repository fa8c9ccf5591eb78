// headroom project TRACE...: what a kernel speedup buys end to end (Amdahl over the trace).
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command.hpp"
#include "headroom/analyze/inputs.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct project_args {
  std::vector<std::filesystem::path> traces;
  std::vector<std::string> speedup;
  std::vector<std::string> categories;
  std::vector<std::string> kernels;
  std::string window = "steady";
  std::string step_marker;
  int warmup = 1;
  std::vector<std::filesystem::path> rules;
  bool json = false;
  std::string output;
};

constexpr const char* project_help = R"(Project the end-to-end speedup of faster kernels (Amdahl, per part).

Each kernel belongs to the first part that takes it: --kernel patterns first, then --category,
then --speedup for the addressable rest. A part's fraction is the union of its kernels' time in the
window over the wall clock; parts combine term by term: S = 1 / (1 - sum f_i + sum f_i / s_i).
Categories of non-addressable kernels are allowed (what if cuBLAS got faster?). Parts that overlap
in time on other streams make the bound optimistic; see docs/method.md.

Examples:
  headroom project trace.json.gz --speedup 1.5
  headroom project trace.json.gz --category gemm=1.2 --kernel 'triton_.*=2' --speedup 1.1)";

int run_project(const project_args& a) {
  analyze::analyze_options o;
  analyze::parse_window_spec(a.window, o);
  if (!a.step_marker.empty()) o.step_marker = a.step_marker;
  o.warmup_steps = a.warmup;
  std::vector<project::speedup_rule> rules;
  for (const auto& k : a.kernels) rules.push_back(project::parse_kernel_speedup(k));
  for (const auto& c : a.categories) rules.push_back(project::parse_category_speedup(c));
  for (const auto& s : a.speedup) rules.push_back(project::parse_addressable_speedup(s));
  if (rules.empty()) rules.push_back(project::parse_addressable_speedup("inf"));

  const auto classifier = analyze::load_classifier(a.rules);
  const auto trace = analyze::read_traces(a.traces);
  const auto p = project::project_amdahl(trace, classifier, o, rules);

  std::ofstream file;
  if (!a.output.empty()) {
    file.open(a.output);
    if (!file) throw input_error(fmt::format("cannot write '{}'", a.output));
  }
  std::ostream& out = a.output.empty() ? std::cout : file;
  if (a.json) {
    report::write_json(out, p);
  } else {
    report::write_console(out, p);
  }
  return 0;
}

const command_registration registration{{"project", 40, [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<project_args>();
  auto* sub = app.add_subcommand("project", "Project what faster kernels buy end to end (Amdahl)");
  sub->description(project_help);
  sub->add_option("traces", args->traces, "trace files (one per rank), as for analyze")->required()->check(CLI::ExistingFile);
  sub->add_option("--speedup", args->speedup, "speedup of the addressable kernels not taken by another part (1.5, or inf; default inf: the ceiling)");
  sub->add_option("--category", args->categories, "CATEGORY=SPEEDUP, repeatable (gemm=1.5)");
  sub->add_option("--kernel", args->kernels, "REGEX=SPEEDUP over kernel names, repeatable ('triton_.*=2')");
  sub->add_option("--window", args->window, "steady (default), whole, or START:END from the first activity");
  sub->add_option("--step-marker", args->step_marker, "regex over range names that mark one step");
  sub->add_option("--warmup", args->warmup, "steps skipped at the start, when at least two remain (default 1)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--rules", args->rules, "extra classification rules (TOML)")->check(CLI::ExistingFile);
  sub->add_flag("--json", args->json, "JSON output");
  sub->add_option("-o,--output", args->output, "write to FILE instead of standard output");
  return [args] { return run_project(*args); };
}}};

}  // namespace
}  // namespace headroom::cli
