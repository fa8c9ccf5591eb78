// headroom study: every reference workload recorded, analysed and reported, resumably.
#include <fmt/format.h>

#include <iostream>
#include <unistd.h>

#include "command.hpp"
#include "headroom/study/summary_output.hpp"
#include "headroom/study/study.hpp"
#include "headroom/study/workloads.hpp"

namespace headroom::cli {
namespace {

struct study_args {
  std::string output = "headroom-study";
  bool output_given = false;
  std::string from;
  std::string workloads;
  bool compile = false;
  bool compare_torch = false;
  std::vector<std::filesystem::path> results;
  std::vector<std::filesystem::path> sections;
  std::vector<std::filesystem::path> rules;
  double speedup = study::default_kernel_speedup;
  std::string preset = "large";
  std::optional<int> steps;
  std::optional<int> timeout;
  std::string python;
  std::string workloads_dir;
  bool list = false;
  bool dry_run = false;
};

constexpr const char* study_help =
    R"(Run the reference workloads, record, analyse and report them: the study in one command.

For each workload (workloads/study.toml) and variant (eager; with --compile also torch.compile), runs
the workload under `headroom profile` (and, with --compare-torch, again under torch.profiler), analyses
each trace, and writes the study's report: one table of every workload's addressable fraction,
ceiling and projected gain, with the transformers' GEMM+attention share beside the published 80-86%
and the addressable fractions beside the published 8.9% to 58.2%.

Resumable: each run's trace, log and record live in the study folder (-o); a rerun skips every run
recorded as done and runs the rest again (an interrupted or failed run included). Ctrl-C stops the
run under way and leaves it undone. A progress line per run goes to stderr; the report is printed
and written as DIR/summary.md, DIR/summary.json and DIR/report.html (each workload's analysis joined
to the --results given). `headroom profile` needs a CUDA GPU: on a machine
without one, record elsewhere and report here with --from. docs/study.md describes the folder.

Exit status: 0 when every run is done, 1 when some run failed (the report shows why), 2 on bad input,
130 (or 128 + the signal) when interrupted.

Examples:
  headroom study -o study-large --compile --compare-torch      # everything, on a GPU machine
  headroom study -o study-large --workloads gpt_train,dlrm_infer
  headroom study --from study-large -o report-here               # report a study recorded elsewhere
  headroom study --list)";

int list_workloads(const study_args& a) {
  const auto dir = study::find_workloads_dir(a.workloads_dir);
  fmt::print("{:<16}  {:<12}  {:<7}  {}\n", "workload", "domain", "timeout", "command");
  for (const auto& w : study::read_workloads(dir / "study.toml")) {
    fmt::print("{:<16}  {:<12}  {:>5} s  {} {}\n", w.name, w.domain, w.timeout_s, w.script, fmt::join(w.args, " "));
  }
  fmt::print("({})\n", (dir / "study.toml").string());
  return 0;
}

study::study_summary report(const study_args& a, const std::filesystem::path& folder,
                            const std::filesystem::path& out) {
  const auto classifier = classify::classifier::with_user_rules(a.rules);
  const auto progress = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  auto summary = study::summarize_study(study::study_folder(folder), classifier, a.speedup, progress);
  study::write_study_report(summary, out, classifier, a.results, a.sections);
  study::write_markdown(std::cout, summary);
  fmt::print(stderr, "wrote {}, {} and {}\n", (out / "summary.md").string(), (out / "summary.json").string(),
             (out / "report.html").string());
  return summary;
}

int run(const study_args& a) {
  if (a.list) return list_workloads(a);
  study::check_report_inputs(a.results, a.sections);
  if (!a.from.empty()) {
    report(a, a.from, a.output_given ? a.output : a.from);
    return 0;
  }
  study::study_options o;
  o.folder = a.output;
  o.compiled = a.compile;
  o.compare_torch = a.compare_torch;
  o.dry_run = a.dry_run;
  o.headroom_version = HEADROOM_VERSION;
  o.settings.workloads_dir = study::find_workloads_dir(a.workloads_dir);
  o.workloads = study::select_workloads(study::read_workloads(o.settings.workloads_dir / "study.toml"), a.workloads);
  o.settings.headroom = std::filesystem::read_symlink("/proc/self/exe");
  if (!a.python.empty()) o.settings.python = a.python;
#ifdef HEADROOM_DEFAULT_PYTHON
  else o.settings.python = HEADROOM_DEFAULT_PYTHON;
#endif
  o.settings.preset = a.preset;
  o.settings.steps = a.steps;
  o.settings.timeout_s = a.timeout;
  const auto outcome = study::run_study(o, [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  if (outcome.interrupted_by != 0) {
    fmt::print(stderr, "headroom: study interrupted; run the same command again to continue\n");
    return 128 + outcome.interrupted_by;
  }
  fmt::print(stderr, "{} run{} planned: {} done earlier, {} recorded now, {} failed\n", outcome.planned,
             outcome.planned == 1 ? "" : "s", outcome.done_before, outcome.recorded, outcome.failed);
  if (a.dry_run) return 0;
  report(a, o.folder, o.folder);
  return outcome.failed > 0 ? 1 : 0;
}

const command_registration registration{
    {"study", 45, [](CLI::App& app) -> std::function<int()> {
       auto a = std::make_shared<study_args>();
       auto* sub = app.add_subcommand("study", "Run, record, analyse and report the reference workloads (resumable)");
       sub->description(study_help);
       auto* output = sub->add_option(
           "-o,--output", a->output,
           "the study folder (default headroom-study); with --from, where the report goes (default: that folder)");
       auto* from =
           sub->add_option("--from", a->from, "report the study folder DIR, recorded here or elsewhere; runs nothing");
       sub->add_option("--workloads", a->workloads, "comma list of workloads (default all; --list shows them)")
           ->excludes(from);
       sub->add_flag("--compile", a->compile, "the torch.compile variant of every workload beside eager")
           ->excludes(from);
       sub->add_flag("--compare-torch", a->compare_torch,
                     "each run again under torch.profiler (CUDA activity, every timed step): the agreement check")
           ->excludes(from);
       sub->add_option("--results", a->results,
                       "evaluation results store or speedups CSV to join to every workload in report.html; repeatable")
           ->allow_extra_args(false);
       sub->add_option(
              "--section", a->sections,
              "a report section (JSON, docs/report.md) to add to report.html after the study's tables, such as "
              "`headroom check-swap --section`'s; repeatable")
           ->allow_extra_args(false);
       sub->add_option("--rules", a->rules, "extra classification rules (TOML); repeatable; they take precedence")
           ->allow_extra_args(false);
       sub->add_option("--speedup", a->speedup, "kernel speedup the projected gain is quoted at (default 1.235)")
           ->check(CLI::Range(1.0, 1e9));
       sub->add_option("--preset", a->preset,
                       "the workloads' sizes: large (default: what the study measures, each workload well inside one "
                       "80 GB GPU), tiny (seconds on a CPU), or small, medium, xl (the transformers' scale sweep; "
                       "workloads/README.md lists each preset's shapes)")
           ->check(CLI::IsMember({"tiny", "small", "medium", "large", "xl"}))
           ->excludes(from);
       sub->add_option("--steps", a->steps, "timed steps of every workload instead of its preset's")
           ->check(CLI::PositiveNumber)
           ->excludes(from);
       sub->add_option("--timeout", a->timeout, "seconds one run may take instead of study.toml's")
           ->check(CLI::PositiveNumber)
           ->excludes(from);
       sub->add_option("--python", a->python, "the Python that runs the workloads (with PyTorch)")->excludes(from);
       sub->add_option("--workloads-dir", a->workloads_dir, "the workloads folder (default: found beside headroom)");
       sub->add_flag("--list", a->list, "list the study's workloads and exit");
       sub->add_flag("--dry-run", a->dry_run, "say which runs are done and what would run; run nothing")
           ->excludes(from);
       return [a, output] {
         a->output_given = output->count() > 0;
         return run(*a);
       };
     }}};

}  // namespace
}  // namespace headroom::cli
