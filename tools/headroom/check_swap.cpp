// headroom check-swap BEFORE... --after AFTER...: a kernel swap measured against its projection.
#include <fmt/format.h>

#include <sstream>

#include "command.hpp"
#include "trace_options.hpp"
#include "headroom/project/measured_speedups.hpp"
#include "headroom/project/swap_check.hpp"
#include "headroom/report/swap_check_output.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
namespace {

struct check_swap_args : trace_args {
  std::vector<std::filesystem::path> after;
  std::vector<std::string> kernels;
  std::vector<std::string> ranges;
  std::vector<std::string> categories;
  std::vector<std::string> host_ranges;
  std::string speedup;
  std::vector<std::string> results;
  std::string source;
  bool json = false;
  std::string section;
  std::string section_title;
  std::string workload;
};

constexpr const char* check_swap_help = R"(Check a kernel swap against what its projection said it would buy.

Give the program's trace before the swap (BEFORE, one file per rank), its trace after the swap
(--after), and which kernels the swap replaced with their speedups, as `headroom project` takes
them: --kernel REGEX=S over kernel names, --range REGEX=S for the kernels launched inside host
ranges of that name (an NVTX range or record_function around the operator: the way to name an
operator whose kernels are generic elementwise, sort or index kernels), --category C=S, --speedup S
for the addressable rest. A speedup written @PROBLEM is read from --results: the newest verified
evaluation of that problem by `headroom eval` (a speedup below 1 is a slower kernel). --host-range
REGEX=S tells the replay that the host's own time inside those ranges (between the calls, and the
calls themselves, not their waits for the device) fell by S too, as it does where a swap fuses an
operator's many eager operations into one kernel; each --range's figures show what that host time
did in the two traces (its in-situ host speedup).

It prints:
  - the measured step time before and after (median and interquartile range over the steps of
    each trace's steady-state window) and the gain, in points of the before step time;
  - what Amdahl and the replay predicted from the before-trace and the speedups alone, and the
    error of each in points (predicted minus measured);
  - a route audit: every targeted kernel, every kernel name that appeared or went, launches per
    step before and after, and the targeted kernels the rules still find after the swap (a
    fallback: the commonest reason a swap gains nothing).

Record both traces the same way (same steps, same profiler); `headroom profile` records the NVTX
ranges --range needs, torch.profiler its record_function ranges with CPU activity. Each trace's
steps carry some noise of their own: a swap worth less than the steps' spread is best measured in
one process, blocks of steps alternating (workloads/README.md, --swap-ab).

Examples:
  headroom check-swap before.sqlite --after after.sqlite --kernel 'Gelu.*Kernel=1.05'
  headroom check-swap before.sqlite --after after.sqlite --range 'swap:embedding_bag_forward=@01_embedding_bag_zipf' \
      --results kb.sqlite --json -o check.json
  headroom check-swap b.sqlite --after a.sqlite --kernel 'Gelu=0.33' --section gelu.json --workload gpt_train)";

// "REGEX=@PROBLEM" with the speedup read from the results stores; anything else as written.
std::string resolve(const std::string& rule, const check_swap_args& a, std::vector<std::string>& read) {
  const auto eq = rule.rfind('=');
  if (eq == std::string::npos || eq + 1 >= rule.size() || rule[eq + 1] != '@') return rule;
  const std::string problem = rule.substr(eq + 2);
  if (a.results.empty()) {
    throw input_error(
        fmt::format("'{}': a speedup written @PROBLEM is read from --results (a store of headroom eval)", rule));
  }
  std::optional<std::string> source;
  if (!a.source.empty()) source = a.source;
  std::optional<project::stored_speedup> found;
  std::string why;
  for (const auto& db : a.results) {
    try {
      auto s = project::read_stored_speedup(db, problem, source);
      if (!found || s.started_at > found->started_at) found = std::move(s);
    } catch (const input_error& e) {
      why = e.what();
    }
  }
  if (!found) throw input_error(fmt::format("'{}': {}", rule, why));
  read.push_back(fmt::format("{}: {:.4f}x, {} by {} ({})", rule.substr(0, eq), found->speedup, found->problem,
                             found->source, found->started_at));
  return fmt::format("{}={:.17g}", rule.substr(0, eq), found->speedup);
}

int run_check_swap(const check_swap_args& a) {
  std::vector<std::string> from_store;
  std::vector<project::speedup_rule> rules;
  for (const auto& k : a.kernels) rules.push_back(project::parse_kernel_speedup(resolve(k, a, from_store)));
  for (const auto& r : a.ranges) rules.push_back(project::parse_range_speedup(resolve(r, a, from_store)));
  for (const auto& c : a.categories) rules.push_back(project::parse_category_speedup(c));
  if (!a.speedup.empty()) rules.push_back(project::parse_addressable_speedup(a.speedup));
  std::vector<project::host_rule> host;
  for (const auto& h : a.host_ranges) host.push_back(project::parse_host_range_speedup(h));
  if (a.after.empty()) throw input_error("--after: the trace of the program after the swap is required");
  const auto o = to_analyze_options(a);
  const auto classifier = classify::classifier::with_user_rules(a.rules);

  auto inputs = a.traces;
  inputs.insert(inputs.end(), a.after.begin(), a.after.end());
  // Opened first: a target that cannot be written is refused before a long read; never over an input.
  util::output_file file(a.output, inputs);
  std::optional<util::output_file> section;
  if (!a.section.empty()) section.emplace(a.section, inputs);

  trace::read_options read;  // every runtime and driver call whole, as the replay and --range need them
  const auto before = read_inputs(a, read);
  inputs_args after_inputs;
  after_inputs.traces = a.after;
  after_inputs.allow_partial = a.allow_partial;
  const auto after = read_inputs(after_inputs, read);
  auto check = project::check_swap(before, after, classifier, o, rules, host);
  for (const auto& s : from_store) check.notes.insert(check.notes.begin(), "speedup from the results store: " + s);

  if (a.json) {
    report::write_json(file.stream(), check);
  } else {
    report::write_console(file.stream(), check);
  }
  if (section) {
    const std::string title = a.section_title.empty() ? "Swap check" : a.section_title;
    report::write_section_json(section->stream(), check, title, a.workload);
    section->commit();
  }
  file.commit();
  return 0;
}

const command_registration registration{
    {"check-swap", 42, [](CLI::App& app) -> std::function<int()> {
       auto args = std::make_shared<check_swap_args>();
       auto* sub =
           app.add_subcommand("check-swap", "Check a kernel swap: measured before and after, against its projection");
       sub->description(check_swap_help);
       add_trace_options(sub, *args);
       sub->add_option("--after", args->after, "the trace after the swap (one file per rank); repeatable")
           ->allow_extra_args(false);
       sub->add_option("--kernel", args->kernels,
                       "REGEX=SPEEDUP over kernel names, repeatable ('Gelu.*=1.1', 'Gelu=@PROBLEM')")
           ->allow_extra_args(false);
       sub->add_option(
              "--range", args->ranges,
              "REGEX=SPEEDUP: the kernels launched inside host ranges (NVTX, record_function) of that name; repeatable")
           ->allow_extra_args(false);
       sub->add_option("--category", args->categories, "CATEGORY=SPEEDUP, repeatable (embedding=2)")
           ->allow_extra_args(false);
       sub->add_option(
              "--host-range", args->host_ranges,
              "REGEX=SPEEDUP: the host's own time of the calls inside host ranges of that name (between them and "
              "their durations, not their waits for the device) divided by SPEEDUP in the replay; repeatable")
           ->allow_extra_args(false);
       sub->add_option("--speedup", args->speedup, "speedup of the addressable kernels no other rule takes");
       sub->add_option(
              "--results", args->results,
              "a results store of headroom eval (a file or a postgresql:// URL) that @PROBLEM speedups are read from; "
              "repeatable")
           ->allow_extra_args(false);
       sub->add_option("--source", args->source,
                       "with --results: only evaluations of this source (model configuration)");
       sub->add_flag("--json", args->json, "JSON output (docs/analysis-json.md, \"Swap check\")");
       sub->add_option("--section", args->section,
                       "also write the check as a report section to FILE (headroom report --section FILE)");
       sub->add_option("--section-title", args->section_title, "the section's title (default: Swap check)");
       sub->add_option("--workload", args->workload, "the report workload the section goes under (default: the end)");
       return [args] { return run_check_swap(*args); };
     }}};

}  // namespace
}  // namespace headroom::cli
