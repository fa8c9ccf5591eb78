#pragma once
// `project --replay`: per step of each timeline, the measured wall clock, the replay with nothing
// shrunk (how well it reproduces the trace), the replay with the shrink, Amdahl's figure beside it,
// and why the two projections differ.
#include <array>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/project/replay.hpp"
#include "headroom/project/replay_graph.hpp"
#include "headroom/project/shrink.hpp"
#include "headroom/project/what_if.hpp"

namespace headroom::project {

// One step (or repeating unit, or the whole window) of one timeline, in nanoseconds.
//
// Amdahl takes the shrunk kernels' busy time off the step; the replay says what the step becomes.
// The gap between them splits exactly:
//   amdahl_saving - (replayed - shrunk) = hidden_by_overlap + launch_bound + other_idle
struct replay_step {
  time_ns measured = 0;
  time_ns replayed = 0;  // nothing shrunk, measured latencies (replay_latency::measured)
  time_ns typical = 0;  // nothing shrunk, typical latencies (replay_latency::typical)
  time_ns shrunk = 0;  // the shrink, measured latencies
  time_ns amdahl = 0;  // measured - amdahl_saving
  time_ns amdahl_saving = 0;  // sum over parts of (union of the part's kernels in the step) x (1 - 1/s)
  time_ns hidden_by_overlap = 0;  // saving that did not shorten the GPU's busy time: other work ran meanwhile
  time_ns launch_bound = 0;  // more GPU idle waiting for the host to launch work
  time_ns other_idle = 0;  // more GPU idle of other causes (streams, events, latencies)
  time_ns launch_idle = 0;  // GPU idle waiting for launches in the shrunk step
};

// |replayed - measured| / measured over a timeline's steps (Lumos's form).
struct replay_error {
  double mean = 0.0;
  double max = 0.0;
};

struct replay_timeline_report {
  std::uint16_t process = 0;
  std::int16_t device = -1;
  std::string label;  // as analyze labels timelines
  std::string window;  // how its steps were found
  bool replayed = false;
  std::string not_replayed;  // why not, when not
  std::size_t activities_without_launch = 0;  // in the window, held at their measured start
  std::vector<replay_step> steps;
  replay_error error;  // replayed against measured
  replay_error error_typical;  // typical against measured
};

struct replay_projection {
  projection amdahl;  // the Amdahl projection `project` prints without --replay
  shrink_set shrink;
  graph_support support;
  std::array<time_ns, dependency_count> typical_delay{};
  std::vector<replay_timeline_report> timelines;
  // Over the steps of the replayed timelines: end-to-end speedups, replayed (replayed / shrunk)
  // and Amdahl's (measured / amdahl).
  double speedup_replay = 1.0;
  double speedup_amdahl = 1.0;
  std::vector<std::string> notes;  // what the replay could not use, and fall-backs to Amdahl
  replay_graph graph;  // what was replayed, for write_replay_chrome_trace
  replayed_timeline shrunk_timeline;
  host_shrink host;  // the host's side taken away in the shrunk replay (--host-range), if any
};

// The per-step figures of every timeline of `analysis` (its windows' step boundaries), from the
// three replays of `g`.
std::vector<replay_timeline_report> replay_steps(const trace::trace& t, const analyze::analysis_report& analysis,
                                                 const replay_graph& g, const shrink_set& shrink,
                                                 const replayed_timeline& unshrunk, const replayed_timeline& typical,
                                                 const replayed_timeline& shrunk);

// Amdahl's projection and the replay, for a trace read with analyze::host_calls::whole. A trace
// without host activity gets Amdahl's projection and a note saying why there is no replay.
replay_projection project_replay(const trace::trace& t, const classify::classifier& c,
                                 const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                                 const std::vector<host_rule>& host = {});
// The same with a shrink made elsewhere (a join of measured speedups): `rules` still make the
// Amdahl projection printed beside it.
replay_projection project_replay(const trace::trace& t, const classify::classifier& c,
                                 const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                                 shrink_set shrink, const std::vector<host_rule>& host = {});

}  // namespace headroom::project
