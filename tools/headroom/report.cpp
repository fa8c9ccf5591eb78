// headroom report INPUTS... -o report.html: workloads, measured speedups and their join in one file.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>

#include "command.hpp"
#include "join_options.hpp"
#include "trace_options.hpp"
#include "headroom/report/build.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {
namespace {

struct report_args : trace_args, join_args {
  std::vector<std::filesystem::path> sections;
  std::string title = "headroom report";
  bool markdown = false;
};

constexpr const char* report_help =
    R"(Write a report of workloads, measured kernel speedups and what they buy, for a reader.
HTML with inline SVG (no script, nothing from the network: it opens from disk and prints), or
Markdown with the plots as SVG files beside it.

INPUTS are recognised by content:
  a trace (Kineto JSON, plain or .gz; Nsight Systems SQLite; a headroom trace store): one workload
      each; its window, where its wall clock goes by provenance and category, the addressable and
      exclusive fractions, top kernels and the Amdahl curve
  a results store written by `headroom eval` (a SQLite file, or a postgresql:// URL): one results
      source per model configuration, with its correctness rate, fast_p and speedup distribution
  a .csv of speedups (published figures or a distribution; docs/method.md)
Every workload is joined to every results source: the three estimates of the wall clock saved,
with bootstrap intervals. --section adds sections measured elsewhere (profiler overhead, replay
projections; docs/report.md has the JSON format).

Examples:
  headroom report data/examples/*.sqlite data/results/published-figures.csv -o report.html
  headroom report train.json.gz kb.sqlite --source gpt-5/level1 --markdown -o report.md
  headroom report train.json.gz postgresql://eval@db-host/kb -o report.html)";

int run_report(const report_args& a) {
  if (a.output.empty())
    throw input_error("-o FILE is required: the report is one file (plots beside it with --markdown)");
  const auto started = std::chrono::steady_clock::now();
  report::build_options o;
  o.title = a.title;
  o.generator = "headroom 0.1.0";
  o.analysis = to_analyze_options(a);
  o.rules = a.rules;
  o.problem_category_files = a.problem_categories;
  if (!a.source.empty()) o.source = a.source;
  o.join = to_join_options(a);
  o.sections = a.sections;
  o.allow_partial = a.allow_partial;
  const auto doc = report::build_document(a.traces, o);

  const std::filesystem::path out_path(a.output);
  auto inputs = a.traces;
  inputs.insert(inputs.end(), a.sections.begin(), a.sections.end());
  report::write_report_file(doc, out_path, a.markdown ? report::report_format::markdown : report::report_format::html,
                            inputs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print(stderr, "headroom report: wrote {} ({} workload{}, {} results source{}, {:.1f} KiB) in {:.2f} s\n",
             a.output, doc.workloads.size(), doc.workloads.size() == 1 ? "" : "s", doc.sources.size(),
             doc.sources.size() == 1 ? "" : "s", static_cast<double>(std::filesystem::file_size(out_path)) / 1024.0,
             seconds);
  return 0;
}

const command_registration registration{
    {"report", 45, [](CLI::App& app) -> std::function<int()> {
       auto args = std::make_shared<report_args>();
       auto* sub =
           app.add_subcommand("report", "Write an HTML (or Markdown) report of workloads and measured speedups");
       sub->description(report_help);
       add_trace_options(sub, *args);
       sub->get_option("traces")->description(
           "traces, results stores (headroom eval; files or postgresql:// URLs) and speedup CSVs, recognised by content");
       sub->get_option("-o")->description("the report file (required); with --markdown its plots go to FILE-plots/");
       add_join_options(sub, *args);
       sub->add_option("--section", args->sections, "an extra section (JSON, docs/report.md); repeatable")
           ->allow_extra_args(false);
       sub->add_option("--title", args->title, "the report's title (default: headroom report)");
       sub->add_flag("--markdown", args->markdown,
                     "Markdown instead of HTML; the plots go to FILE-plots/ as SVG files");
       return [args] { return run_report(*args); };
     }}};

}  // namespace
}  // namespace headroom::cli
