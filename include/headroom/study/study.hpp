#pragma once
// `headroom study`: every reference workload recorded, analysed and reported in one command,
// resumable run by run (docs/study.md).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/study/folder.hpp"
#include "headroom/study/runs.hpp"
#include "headroom/study/summary.hpp"

namespace headroom::study {

// Receives one line per event worth a line: a run starting, a run done, skipped or failed.
using progress_fn = std::function<void(const std::string& line)>;

struct study_options {
  std::filesystem::path folder;
  std::vector<workload> workloads;
  bool compiled = false;  // the torch.compile variant beside eager
  bool compare_torch = false;  // each run again under torch.profiler
  bool dry_run = false;  // say what would run; run and write nothing
  run_settings settings;
  std::string headroom_version;
};

struct study_outcome {
  int planned = 0;
  int done_before = 0;  // skipped: recorded by an earlier invocation
  int recorded = 0;  // run now, successfully
  int failed = 0;  // run now, without a usable trace (the record says why)
  int interrupted_by = 0;  // SIGINT, SIGTERM or SIGHUP (0: none): the run under way was stopped and left unrecorded
};

// Runs every planned run that has no successful record in the folder (a failed one runs again),
// each to completion or its timeout, writing its record last. Throws input_error when the folder
// holds a study of another preset.
study_outcome run_study(const study_options& o, const progress_fn& progress);

// Every run of the folder read into the study's rows: each trace analysed with `c` (its analysis
// written beside it), or its analysis.json read when the trace is not there. Throws input_error
// when `folder` is not a study folder.
study_summary summarize_study(const study_folder& folder, const classify::classifier& c, double kernel_speedup,
                              const progress_fn& progress);

// The report hook: the one place the study hands its summary to the report. Writes summary.md and
// summary.json (src/report's study tables) and report.html (`headroom report`'s document: a workload
// per row from its headline run's traces, classified with `c`, joined to the evaluation results
// stores or speedup CSVs in `results`, the study's tables as closing sections, then the report
// sections in `sections`: checks measured beside the study, such as `check-swap --section`) into
// `out_dir`. check_report_inputs reads `results` and `sections` once before any run starts, so that a
// wrong path is said before hours of runs rather than after; both throw input_error naming the file.
void check_report_inputs(const std::vector<std::filesystem::path>& results,
                         const std::vector<std::filesystem::path>& sections = {});
void write_study_report(const study_summary& s, const std::filesystem::path& out_dir, const classify::classifier& c,
                        const std::vector<std::filesystem::path>& results,
                        const std::vector<std::filesystem::path>& sections = {});

}  // namespace headroom::study
