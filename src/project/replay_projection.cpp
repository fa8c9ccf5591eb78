// project_replay: Amdahl's projection, the replay graph, three replays and the step report.
#include <fmt/format.h>

#include "headroom/project/amdahl.hpp"
#include "headroom/project/replay_report.hpp"

namespace headroom::project {
namespace {

void describe_support(const graph_support& s, std::vector<std::string>& notes) {
  // What the graph had to infer or could not use, each with how often; `{}` is the count.
  const std::pair<std::size_t, const char*> counted[] = {
      {s.activities_without_launch,
       "{} device activities have no recorded launch call (launched before the trace began, or their call was not "
       "recorded): held at their measured start"},
      {s.synchronizations_inferred,
       "{} synchronising calls have no synchronisation record: a device synchronisation waits for every stream, a "
       "stream or event one for the stream that finished last before it returned"},
      {s.event_waits_inferred,
       "{} stream waits (cudaStreamWaitEvent) have no synchronisation record: the next work their thread launches "
       "waits for the last work enqueued on the stream it launched onto before, as PyTorch records and waits"},
      {s.event_waits_unknown,
       "{} stream waits (cudaStreamWaitEvent) do not say which recorded work they wait for (no event record in the "
       "trace): not replayed as dependencies"},
      {s.thread_handoffs,
       "{} host calls came right after another thread's call, their own thread idle long before: taken to have "
       "waited for it (a thread handoff, as the autograd engine's backward thread and the training loop hand over)"},
      {s.cycles_broken, "{} nodes sat on dependency cycles (inconsistent times) and were replayed as measured"},
  };
  for (const auto& [count, text] : counted) {
    if (count > 0) notes.push_back(fmt::format(fmt::runtime(text), count));
  }
  std::size_t contradicted = 0;
  std::string kinds;
  for (std::size_t k = 0; k < dependency_count; ++k) {
    if (s.contradicted[k] == 0) continue;
    contradicted += s.contradicted[k];
    kinds +=
        fmt::format("{}{} {}", kinds.empty() ? "" : ", ", s.contradicted[k], to_string(static_cast<dependency>(k)));
  }
  if (contradicted > 0) {
    notes.push_back(fmt::format("{} dependencies the measured times rule out were dropped ({})", contradicted, kinds));
  }
}

}  // namespace

replay_projection project_replay(const trace::trace& t, const classify::classifier& c,
                                 const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                                 const std::vector<host_rule>& host) {
  return project_replay(t, c, o, rules, shrink_by_rules(t, c, rules), host);
}

replay_projection project_replay(const trace::trace& t, const classify::classifier& c,
                                 const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                                 shrink_set shrink, const std::vector<host_rule>& host) {
  replay_projection p;
  p.amdahl = project_amdahl(t, c, o, rules);
  p.shrink = std::move(shrink);
  p.graph = build_replay_graph(t);
  const auto& g = p.graph;
  p.support = g.support;
  p.typical_delay = g.typical_delay;
  if (!g.support.has_host_activity) {
    p.notes.push_back(
        "no replay: no device activity in this trace is tied to a launch call (a CUDA-only trace, or one read "
        "without its runtime calls); the replay needs the host's calls. Amdahl's projection stands alone");
    return p;
  }
  describe_support(g.support, p.notes);
  const auto speedups = p.shrink.speedups();
  const auto unshrunk = replay(g, {});
  const auto typical = replay(g, {}, replay_latency::typical);
  p.host = shrink_host(t, g, host);
  p.shrunk_timeline = replay(g, speedups, replay_latency::measured, p.host);
  p.timelines = replay_steps(t, p.amdahl.analysis, g, p.shrink, unshrunk, typical, p.shrunk_timeline);
  time_ns measured = 0, replayed = 0, after = 0, amdahl = 0;
  for (const auto& tl : p.timelines) {
    if (!tl.replayed) {
      p.notes.push_back(fmt::format("{}: no replay ({}); Amdahl's figure stands alone", tl.label, tl.not_replayed));
      continue;
    }
    for (const auto& s : tl.steps) {
      measured += s.measured;
      replayed += s.replayed;
      after += s.shrunk;
      amdahl += s.amdahl;
    }
  }
  if (after > 0) p.speedup_replay = static_cast<double>(replayed) / static_cast<double>(after);
  if (amdahl > 0) p.speedup_amdahl = static_cast<double>(measured) / static_cast<double>(amdahl);
  if (amdahl <= 0 && measured > 0) p.speedup_amdahl = infinite_speedup;
  if (after <= 0 && replayed > 0) p.speedup_replay = infinite_speedup;
  return p;
}

}  // namespace headroom::project
