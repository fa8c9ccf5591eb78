// summarize_study: every run of a study folder read into the study's rows.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "figures.hpp"
#include "headroom/analyze/inputs.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/study/study.hpp"
#include "headroom/util/error.hpp"

namespace headroom::study {
namespace {

int domain_rank(const std::string& d) {
  if (d == "transformer") return 0;
  if (d == "recommender") return 1;
  if (d == "vision") return 2;
  return 3;
}

void write_analysis(const analyze::analysis_report& r, const std::filesystem::path& path) {
  std::ostringstream out;
  report::write_json(out, r);
  write_file_atomically(path, out.str());
}

// The run's figures from its traces (analysed now, the analyses written beside them), or from the
// analysis.json that came with the folder when the traces did not.
void read_figures(const run_record& r, const classify::classifier& c, run_result& out, const progress_fn& progress) {
  std::vector<std::filesystem::path> traces;
  for (const auto& t : r.traces) traces.push_back(r.dir / t);
  const bool have_traces =
      std::all_of(traces.begin(), traces.end(), [](const auto& p) { return std::filesystem::exists(p); });
  if (have_traces) {
    progress(fmt::format("analysing {}", out.folder));
    const auto trace = analyze::read_traces(traces);
    analyze::analyze_options o;
    const auto steady = analyze::analyze(trace, c, o);
    write_analysis(steady, r.dir / analysis_file);
    out.figures = figures_of(steady);
    // Every timed step, the window the two recorders are compared on: headroom's store holds
    // start-up and warm-up too, with ProfilerStep#N ranges around the timed steps, so its steady
    // window with no step skipped; torch.profiler (torch-all) records exactly the timed steps, so
    // its whole trace.
    if (r.key.rec == recorder::torch) {
      o.mode = analyze::window_mode::whole;
    } else {
      o.warmup_steps = 0;
    }
    const auto all_steps = analyze::analyze(trace, c, o);
    write_analysis(all_steps, r.dir / all_steps_analysis_file);
    out.all_steps_figures = figures_of(all_steps);
    out.figures_from = "trace";
  } else if (std::filesystem::exists(r.dir / analysis_file)) {
    out.figures = read_analysis_figures(r.dir / analysis_file);
    if (std::filesystem::exists(r.dir / all_steps_analysis_file)) {
      out.all_steps_figures = read_analysis_figures(r.dir / all_steps_analysis_file);
    }
    out.figures_from = std::string(analysis_file);
  } else {
    throw input_error(
        fmt::format("neither its trace ({}) nor its {} is in the folder", fmt::join(r.traces, ", "), analysis_file));
  }
  // A row of zeros would read as a workload with nothing addressable.
  if (out.figures->kernel_busy == 0) {
    out.figures.reset();
    out.all_steps_figures.reset();
    throw input_error("the trace holds no GPU kernel in its window");
  }
}

}  // namespace

study_summary summarize_study(const study_folder& folder, const classify::classifier& c, double kernel_speedup,
                              const progress_fn& progress) {
  const auto manifest = folder.read_manifest();
  if (!manifest) {
    throw input_error(
        fmt::format("{} is not a study folder: it has no {} (docs/study.md)", folder.root().string(), manifest_file));
  }
  study_summary s;
  s.folder = folder.root().string();
  s.preset = manifest->preset;
  s.kernel_speedup = kernel_speedup;
  std::map<std::pair<std::string, variant>, study_row> rows;
  int from_analysis = 0;
  for (const auto& r : folder.records()) {
    auto& row = rows[{r.key.workload, r.key.var}];
    row.workload = r.key.workload;
    row.variant = std::string(to_string(r.key.var));
    if (row.domain.empty()) row.domain = r.domain;
    run_result& slot = r.key.rec == recorder::headroom ? row.headroom : row.torch;
    slot.folder = std::filesystem::relative(r.dir, folder.root()).string();
    if (!r.harness.empty() && std::filesystem::exists(r.dir / r.harness)) {
      try {
        slot.harness = read_harness(r.dir / r.harness);
      } catch (const input_error& e) {
        s.notes.push_back(fmt::format("{}: the workload's summary was not read: {}", slot.folder, e.what()));
      }
    }
    if (r.status != run_status::ok) {
      slot.status = fmt::format("{}: {}", r.status == run_status::timed_out ? "timed out" : "failed", r.reason);
      continue;
    }
    try {
      read_figures(r, c, slot, progress);
      slot.status = "ok";
      from_analysis += slot.figures_from == analysis_file;
    } catch (const input_error& e) {
      slot.status = fmt::format("not read: {}", e.what());
    }
  }
  for (auto& [key, row] : rows) {
    const auto& h = row.headroom;
    // The step markers are what puts headroom's window on whole timed steps; without them the
    // window falls back to the kernel sequence's repeating unit, which a reader should know.
    if (h.figures && h.harness && h.harness->step_marker_api == "nvtx" && h.figures->window_source != "step_markers") {
      s.notes.push_back(
          fmt::format("{} {}: the workload marked its steps with NVTX, yet headroom's trace was windowed "
                      "by {} (no ProfilerStep#N range was recorded)",
                      row.workload, row.variant, h.figures->window_source));
    }
    s.rows.push_back(std::move(row));
  }
  std::stable_sort(s.rows.begin(), s.rows.end(), [](const study_row& a, const study_row& b) {
    return std::tuple(domain_rank(a.domain), a.domain, a.workload, a.variant != "eager") <
           std::tuple(domain_rank(b.domain), b.domain, b.workload, b.variant != "eager");
  });
  if (from_analysis > 0) {
    s.notes.push_back(
        fmt::format("{} run{} read from {} (the trace was not copied with the folder): rules given now do "
                    "not apply to {}",
                    from_analysis, from_analysis == 1 ? "" : "s", analysis_file, from_analysis == 1 ? "it" : "them"));
  }
  return s;
}

}  // namespace headroom::study
