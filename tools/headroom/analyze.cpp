// headroom analyze TRACE...: the addressable fraction of a workload's wall clock.
#include "command.hpp"
#include "trace_options.hpp"
#include "headroom/analyze/analysis.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
namespace {

struct analyze_args : trace_args {
  std::size_t top = 15;
  bool json = false;
  bool csv = false;
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
  auto o = to_analyze_options(a);
  o.top_kernels = a.top;
  const auto classifier = classify::classifier::with_user_rules(a.rules);
  // Opened first: a target that cannot be written is refused before a long read.
  util::output_file file(a.output, a.traces);
  trace::read_options read;
  read.launch_pairs_for_json = true;
  const auto trace = read_inputs(a, read);
  const auto report = analyze::analyze(trace, classifier, o);

  std::ostream& out = file.stream();
  if (a.json) {
    report::write_json(out, report);
  } else if (a.csv) {
    report::write_csv(out, report);
  } else {
    report::write_console(out, report);
  }
  file.commit();
  return 0;
}

const command_registration registration{
    {"analyze", 20, [](CLI::App& app) -> std::function<int()> {
       auto args = std::make_shared<analyze_args>();
       auto* sub = app.add_subcommand("analyze", "Report the addressable fraction of a trace's wall clock");
       sub->description(analyze_help);
       add_trace_options(sub, *args);
       sub->add_option("--top", args->top, "how many kernels to list (default 15)");
       auto* json = sub->add_flag("--json", args->json, "JSON output (docs/analysis-json.md)");
       sub->add_flag("--csv", args->csv, "CSV output: one row per timeline and class")->excludes(json);
       return [args] { return run_analyze(*args); };
     }}};

}  // namespace
}  // namespace headroom::cli
