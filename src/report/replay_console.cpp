#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "headroom/report/analysis_output.hpp"
#include "headroom/report/replay_output.hpp"
#include "headroom/report/units.hpp"

namespace headroom::report {
namespace {

using project::dependency;
using project::replay_step;

std::string speedup(double s) { return std::isinf(s) ? "inf" : fmt::format("{:.3f}x", s); }

std::string signed_duration(trace::time_ns ns) { return ns < 0 ? "-" + format_duration(-ns) : format_duration(ns); }

std::string error(trace::time_ns replayed, trace::time_ns measured) {
  if (measured <= 0) return "-";
  return format_percent(std::abs(static_cast<double>(replayed - measured)) / static_cast<double>(measured), 2);
}

constexpr std::size_t max_step_rows = 40;

void timeline(std::ostream& out, const project::replay_timeline_report& t) {
  fmt::print(out, "\n  {}\n    window: {}\n", t.label, t.window);
  if (!t.replayed) {
    fmt::print(out, "    no replay: {}\n", t.not_replayed);
    return;
  }
  fmt::print(out,
             "    {:>5}  {:>10}  {:>10}  {:>7}  {:>10}  {:>7}  {:>10}  {:>10}  |  {:>10}  {:>10}  {:>10}  {:>10}\n",
             "step", "measured", "replayed", "error", "typical", "error", "shrunk", "Amdahl", "saving", "overlap",
             "launches", "other idle");
  replay_step sum;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    sum.measured += s.measured;
    sum.replayed += s.replayed;
    sum.typical += s.typical;
    sum.shrunk += s.shrunk;
    sum.amdahl += s.amdahl;
    sum.amdahl_saving += s.amdahl_saving;
    sum.hidden_by_overlap += s.hidden_by_overlap;
    sum.launch_bound += s.launch_bound;
    sum.other_idle += s.other_idle;
    if (i == max_step_rows) fmt::print(out, "    ({} more steps in the total)\n", t.steps.size() - max_step_rows);
    if (i >= max_step_rows) continue;
    fmt::print(out,
               "    {:>5}  {:>10}  {:>10}  {:>7}  {:>10}  {:>7}  {:>10}  {:>10}  |  {:>10}  {:>10}  {:>10}  {:>10}\n",
               i + 1, format_duration(s.measured), format_duration(s.replayed), error(s.replayed, s.measured),
               format_duration(s.typical), error(s.typical, s.measured), format_duration(s.shrunk),
               format_duration(s.amdahl), format_duration(s.amdahl_saving), signed_duration(s.hidden_by_overlap),
               signed_duration(s.launch_bound), signed_duration(s.other_idle));
  }
  fmt::print(out,
             "    {:>5}  {:>10}  {:>10}  {:>7}  {:>10}  {:>7}  {:>10}  {:>10}  |  {:>10}  {:>10}  {:>10}  {:>10}\n",
             "total", format_duration(sum.measured), format_duration(sum.replayed), error(sum.replayed, sum.measured),
             format_duration(sum.typical), error(sum.typical, sum.measured), format_duration(sum.shrunk),
             format_duration(sum.amdahl), format_duration(sum.amdahl_saving), signed_duration(sum.hidden_by_overlap),
             signed_duration(sum.launch_bound), signed_duration(sum.other_idle));
  fmt::print(out, "    replay error over {} step{}: mean {}, max {} (typical latencies: mean {}, max {})\n",
             t.steps.size(), t.steps.size() == 1 ? "" : "s", format_percent(t.error.mean, 2),
             format_percent(t.error.max, 2), format_percent(t.error_typical.mean, 2),
             format_percent(t.error_typical.max, 2));
  if (sum.shrunk > 0 && sum.amdahl > 0) {
    fmt::print(out, "    end to end here: replay {}, Amdahl {}\n",
               speedup(static_cast<double>(sum.replayed) / static_cast<double>(sum.shrunk)),
               speedup(static_cast<double>(sum.measured) / static_cast<double>(sum.amdahl)));
  }
  if (t.activities_without_launch > 0) {
    fmt::print(out, "    {} activities in the window have no recorded launch and stay where they were measured\n",
               t.activities_without_launch);
  }
}

}  // namespace

void write_console(std::ostream& out, const project::replay_projection& p) {
  write_console(out, p.amdahl);
  fmt::print(out, "\nReplay: the steps after the shrink, replayed from launches, streams and synchronisations\n");
  const auto& s = p.support;
  if (s.has_host_activity) {
    fmt::print(
        out,
        "  graph: {} host calls, {} device activities, {} dependencies ({} synchronisations recorded, {} inferred; "
        "{} stream waits tied to their event, {} inferred; {} blocking copies; {} graph launches)\n",
        s.host_nodes, s.device_nodes, s.edges, s.synchronizations, s.synchronizations_inferred, s.event_waits,
        s.event_waits_inferred, s.blocking_copies, s.graph_launches);
    const auto typical = [&](dependency d) { return format_duration(p.typical_delay[static_cast<std::size_t>(d)]); };
    fmt::print(out,
               "  typical latencies: launch {}, stream gap {}, event wait {}, graph node {}, host wake-up {}; "
               "{} thread handoffs\n",
               typical(dependency::launch), typical(dependency::stream_order), typical(dependency::event_wait),
               typical(dependency::graph_order), typical(dependency::host_wait), s.thread_handoffs);
    fmt::print(out,
               "  columns: replayed and typical have nothing shrunk (measured and typical latencies); saving is\n"
               "  Amdahl's; of it, overlap ran under other work, and launches and other idle are GPU idle time the\n"
               "  shrink adds (waiting for the host to launch, or for other reasons)\n");
  }
  for (const auto& t : p.timelines) timeline(out, t);
  if (!p.timelines.empty()) {
    fmt::print(out, "\nReplayed end-to-end speedup: {}   (Amdahl over the same steps: {})\n", speedup(p.speedup_replay),
               speedup(p.speedup_amdahl));
  }
  if (!p.notes.empty()) {
    fmt::print(out, "\nReplay notes\n");
    for (const auto& n : p.notes) fmt::print(out, "  - {}\n", n);
  }
}

}  // namespace headroom::report
