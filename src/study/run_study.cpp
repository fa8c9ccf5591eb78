// run_study: every planned run that is not done yet, one after another, each recorded last.
#include <fmt/format.h>

#include "child_process.hpp"
#include "execute.hpp"
#include "figures.hpp"
#include "headroom/study/study.hpp"
#include "headroom/util/error.hpp"

namespace headroom::study {
namespace {

std::string recorded_by(recorder r) { return r == recorder::headroom ? "headroom profile" : "torch.profiler"; }

// "20 steps, median 148.6 ms, warm-up 12.3 s" from the workload's own summary, when it wrote one.
std::string harness_line(const run_record& r) {
  if (r.harness.empty()) return {};
  try {
    const auto h = read_harness(r.dir / r.harness);
    std::string out = fmt::format("{} steps", h.steps);
    if (h.median_step_s) out += fmt::format(", median {:.3f} ms", *h.median_step_s * 1e3);
    if (h.warmup_s) out += fmt::format(", warm-up {:.1f} s", *h.warmup_s);
    return " (" + out + ")";
  } catch (const input_error&) {
    return " (its run.json does not parse)";
  }
}

void check_manifest(const study_folder& folder, const study_options& o) {
  if (const auto m = folder.read_manifest()) {
    if (m->preset != o.settings.preset) {
      throw input_error(
          fmt::format("{} holds a study of the {} preset; a table must not mix presets, so record "
                      "the {} preset into another folder",
                      folder.root().string(), m->preset, o.settings.preset));
    }
  } else {
    // Runs are only ever removed from a study folder's runs/: a folder holding anything else is
    // not one to write a study into.
    std::error_code ec;
    const bool empty = !std::filesystem::exists(folder.root(), ec) || std::filesystem::is_empty(folder.root(), ec);
    if (!empty) {
      throw input_error(fmt::format("{} is not empty and holds no {}: give -o a new folder or a study folder",
                                    folder.root().string(), manifest_file));
    }
    if (!o.dry_run) folder.write_manifest({o.settings.preset, utc_now(), o.headroom_version});
  }
}

}  // namespace

study_outcome run_study(const study_options& o, const progress_fn& progress) {
  const study_folder folder(o.folder);
  check_manifest(folder, o);
  const auto runs = plan_runs(o.workloads, o.compiled, o.compare_torch);
  study_outcome outcome;
  outcome.planned = static_cast<int>(runs.size());
  const interrupt_guard guard;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    const auto tag = fmt::format("[{:>{}}/{}] {} {}, {}", i + 1, fmt::format("{}", runs.size()).size(), runs.size(),
                                 run.key.workload, to_string(run.key.var), recorded_by(run.key.rec));
    std::optional<run_record> earlier;
    try {
      earlier = folder.read_record(run.key);
    } catch (const input_error& e) {
      progress(fmt::format("{}: its record does not parse ({}); running it again", tag, e.what()));
    }
    if (earlier && earlier->status == run_status::ok) {
      progress(fmt::format("{}: done earlier, skipped{}", tag, harness_line(*earlier)));
      ++outcome.done_before;
      continue;
    }
    if (o.dry_run) {
      progress(
          fmt::format("{}: would run: {}", tag, shell_line(run_command(run, o.settings, folder.run_dir(run.key)))));
      continue;
    }
    progress(fmt::format("{}: running (timeout {} s)", tag, o.settings.timeout_s.value_or(run.w.timeout_s)));
    auto done = execute_run(run, o.settings, folder);
    if (done.interrupted) {
      progress(fmt::format("{}: interrupted (signal {}); not recorded, a rerun starts it again", tag,
                           interrupt_guard::signal()));
      outcome.interrupted_by = interrupt_guard::signal();
      break;
    }
    auto& r = *done.record;
    folder.write_record(r);
    r.dir = folder.run_dir(r.key);
    if (r.status == run_status::ok) {
      ++outcome.recorded;
      progress(fmt::format("{}: ok in {:.1f} s{}", tag, r.seconds, harness_line(r)));
    } else {
      ++outcome.failed;
      progress(fmt::format("{}: {} after {:.1f} s: {} (log: {})", tag,
                           r.status == run_status::timed_out ? "timed out" : "failed", r.seconds, r.reason,
                           (folder.run_dir(r.key) / log_file).string()));
    }
    if (interrupt_guard::signal() != 0) {
      outcome.interrupted_by = interrupt_guard::signal();
      break;
    }
  }
  return outcome;
}

}  // namespace headroom::study
