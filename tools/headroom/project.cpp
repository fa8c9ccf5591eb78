// headroom project TRACE...: what a kernel speedup buys end to end (Amdahl over the trace).
#include "command.hpp"
#include "join_options.hpp"
#include "trace_options.hpp"
#include "headroom/project/replay_export.hpp"
#include "headroom/project/replay_report.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/report/replay_output.hpp"
#include "headroom/report/join_output.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
namespace {

struct project_args : trace_args, join_args {
  std::vector<std::string> speedup;
  std::vector<std::string> categories;
  std::vector<std::string> kernels;
  std::vector<std::string> ranges;
  std::vector<std::string> host_ranges;
  std::vector<std::string> results;  // files or postgresql:// URLs
  std::vector<std::filesystem::path> speedups;
  bool json = false;
  bool replay = false;
  std::string replay_trace;
};

constexpr const char* project_help = R"(Project the end-to-end speedup of faster kernels (Amdahl, per part).

Each kernel belongs to the first part that takes it: --kernel patterns first, then --range (the
kernels launched inside host ranges of that name: an operator's NVTX range or record_function), then
--category, then --speedup for the addressable rest. A part's fraction is the union of its kernels' time in the
window over the wall clock; parts combine term by term: S = 1 / (1 - sum f_i + sum f_i / s_i).
Categories of non-addressable kernels are allowed (what if cuBLAS got faster?). Parts that overlap
in time on other streams make the bound optimistic; see docs/method.md.

--replay also replays each step from the trace's launches, streams and synchronisations with those
kernels shrunk, and prints per step the measured wall clock, the replay with nothing shrunk (its
error against the measurement), the replay shrunk and Amdahl's figure beside it, with how much of
Amdahl's saving overlap, launch-bound GPU idle and other idle take back (docs/method.md, "Replay").
A trace without host activity (no launch calls) gets Amdahl's figure and a note saying so.
--host-range REGEX=S (with --replay) also divides by S the host's own time of the calls made inside
host ranges of that name: the time between them on their thread and each call's duration, never a
wait for the device. What an operator fused from many eager operations into one kernel saves the
host is not a kernel speedup; this says it (docs/method.md, "Checking a swap").

With --results (a store written by `headroom eval`: a SQLite file or a postgresql:// URL) or --speedups (a CSV of published figures or of a
distribution), the measured speedups are joined to the trace instead: each evaluated problem's
category (data/problems/categories.toml) says which addressable kernels its speedups replace, and
three estimates of the wall clock saved come out, each with a bootstrap interval over problems:
the published formula f * win rate * (1 - 1/median win speedup), the expectation over the
distribution (a wrong or slower candidate counts as 1x), and the best candidate per problem.

Examples:
  headroom project trace.json.gz --speedup 1.5
  headroom project trace.json.gz --category gemm=1.2 --kernel 'triton_.*=2' --speedup 1.1
  headroom project trace.json.gz --speedup 2 --replay --replay-trace replayed.json
  headroom project trace.sqlite --range 'swap:update=4.5' --host-range 'swap:update=2' --replay
  headroom project trace.json.gz --results kb.sqlite --source gpt-5/level1
  headroom project trace.json.gz --results postgresql://eval@db-host/kb
  headroom project trace.json.gz --speedups data/results/published-figures.csv)";

// The projection as JSON or a console table, made the output's content.
template <class Projection>
int write_projection(util::output_file& file, const Projection& p, bool json) {
  if (json) {
    report::write_json(file.stream(), p);
  } else {
    report::write_console(file.stream(), p);
  }
  file.commit();
  return 0;
}

int run_measured(const project_args& a) {
  if (!a.speedup.empty() || !a.categories.empty() || !a.kernels.empty() || !a.ranges.empty() ||
      !a.host_ranges.empty()) {
    throw input_error(
        "--results and --speedups join measured speedups; --speedup, --category and --kernel say them: use one or the other");
  }
  const auto sources = project::read_sources(
      {a.results, a.speedups, a.problem_categories, a.source.empty() ? std::nullopt : std::optional(a.source)});
  const auto jo = to_join_options(a);
  const auto classifier = classify::classifier::with_user_rules(a.rules);
  // Opened first: a target that cannot be written is refused before a long read; never over an input.
  auto inputs = a.traces;
  inputs.insert(inputs.end(), a.results.begin(), a.results.end());
  inputs.insert(inputs.end(), a.speedups.begin(), a.speedups.end());
  util::output_file file(a.output, inputs);
  trace::read_options read;
  read.launch_pairs_for_json = true;
  return write_projection(
      file, project::project_measured(read_inputs(a, read), classifier, to_analyze_options(a), sources, jo), a.json);
}

int run_project(const project_args& a) {
  if (!a.results.empty() || !a.speedups.empty()) return run_measured(a);
  const auto o = to_analyze_options(a);
  std::vector<project::speedup_rule> rules;
  for (const auto& k : a.kernels) rules.push_back(project::parse_kernel_speedup(k));
  for (const auto& r : a.ranges) rules.push_back(project::parse_range_speedup(r));
  for (const auto& c : a.categories) rules.push_back(project::parse_category_speedup(c));
  for (const auto& s : a.speedup) rules.push_back(project::parse_addressable_speedup(s));
  if (rules.empty()) rules.push_back(project::parse_addressable_speedup("inf"));
  std::vector<project::host_rule> host;
  for (const auto& h : a.host_ranges) host.push_back(project::parse_host_range_speedup(h));
  if (!host.empty() && !a.replay && a.replay_trace.empty()) {
    throw input_error("--host-range shrinks the host's time, which only the replay models: add --replay");
  }

  const auto classifier = classify::classifier::with_user_rules(a.rules);
  // Opened first: a target that cannot be written is refused before a long read.
  util::output_file file(a.output, a.traces);
  trace::read_options read;  // every runtime and driver call whole, as the replay needs them
  if (a.replay || !a.replay_trace.empty()) {
    const auto trace = read_inputs(a, read);
    const auto p = project::project_replay(trace, classifier, o, rules, host);
    if (!a.replay_trace.empty() && p.support.has_host_activity) {
      project::write_replay_chrome_trace(trace, p.graph, p.shrunk_timeline, p.shrink, a.replay_trace, a.traces);
    }
    return write_projection(file, p, a.json);
  }
  // --range needs each launch call's thread, which the launch pairs alone do not keep.
  read.launch_pairs_for_json = a.ranges.empty();
  return write_projection(file, project::project_amdahl(read_inputs(a, read), classifier, o, rules), a.json);
}

const command_registration registration{
    {"project", 40, [](CLI::App& app) -> std::function<int()> {
       auto args = std::make_shared<project_args>();
       auto* sub = app.add_subcommand("project", "Project what faster kernels buy end to end (Amdahl)");
       sub->description(project_help);
       add_trace_options(sub, *args);
       sub->add_option(
              "--speedup", args->speedup,
              "speedup of the addressable kernels not taken by another part (1.5, or inf; default inf: the ceiling)")
           ->allow_extra_args(false);
       sub->add_option("--category", args->categories, "CATEGORY=SPEEDUP, repeatable (gemm=1.5)")
           ->allow_extra_args(false);
       sub->add_option("--kernel", args->kernels, "REGEX=SPEEDUP over kernel names, repeatable ('triton_.*=2')")
           ->allow_extra_args(false);
       sub->add_option(
              "--range", args->ranges,
              "REGEX=SPEEDUP: the kernels launched inside host ranges (NVTX, record_function) of that name; repeatable")
           ->allow_extra_args(false);
       sub->add_option(
              "--results", args->results,
              "a results store written by headroom eval (a file or a postgresql:// URL): join its measured speedups; repeatable")
           ->allow_extra_args(false);
       sub->add_option("--speedups", args->speedups,
                       "a CSV of published figures or of a distribution (docs/method.md); repeatable")
           ->allow_extra_args(false);
       add_join_options(sub, *args);
       sub->add_flag("--json", args->json, "JSON output");
       sub->add_option(
           "--host-range", args->host_ranges,
           "REGEX=SPEEDUP, with --replay: the host's own time of the calls inside host ranges of that name "
           "(between them and their durations, not their waits for the device) divided by SPEEDUP; repeatable");
       sub->add_flag("--replay", args->replay,
                     "also replay each step with the kernels shrunk (launches, streams, synchronisations)");
       sub->add_option(
           "--replay-trace", args->replay_trace,
           "with --replay: write the measured and the replayed (shrunk) timelines to FILE as Chrome/Perfetto JSON");
       return [args] { return run_project(*args); };
     }}};

}  // namespace
}  // namespace headroom::cli
