#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <sstream>

#include "headroom/report/analysis_output.hpp"
#include "headroom/report/replay_output.hpp"
#include "headroom/util/json.hpp"

namespace headroom::report {
namespace {

std::string quote(std::string_view s) { return util::json_string(s); }
std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

void step(std::ostream& out, const project::replay_step& s) {
  fmt::print(out,
             "{{\"measured_ns\": {}, \"replayed_ns\": {}, \"typical_ns\": {}, \"shrunk_ns\": {}, \"amdahl_ns\": {}, "
             "\"amdahl_saving_ns\": {}, \"hidden_by_overlap_ns\": {}, \"launch_bound_ns\": {}, \"other_idle_ns\": {}, "
             "\"launch_idle_ns\": {}}}",
             s.measured, s.replayed, s.typical, s.shrunk, s.amdahl, s.amdahl_saving, s.hidden_by_overlap,
             s.launch_bound, s.other_idle, s.launch_idle);
}

void timeline(std::ostream& out, const project::replay_timeline_report& t) {
  fmt::print(
      out,
      "{{\"label\": {}, \"process\": {}, \"device\": {}, \"window\": {}, \"replayed\": {}, \"not_replayed\": {}, "
      "\"activities_without_launch\": {},\n      \"error\": {{\"mean\": {}, \"max\": {}}}, "
      "\"error_typical\": {{\"mean\": {}, \"max\": {}}},\n      \"steps\": [",
      quote(t.label), t.process, t.device, quote(t.window), t.replayed ? "true" : "false", quote(t.not_replayed),
      t.activities_without_launch, number(t.error.mean), number(t.error.max), number(t.error_typical.mean),
      number(t.error_typical.max));
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    fmt::print(out, "{}\n        ", i ? "," : "");
    step(out, t.steps[i]);
  }
  fmt::print(out, "{}]}}", t.steps.empty() ? "" : "\n      ");
}

}  // namespace

void write_json(std::ostream& out, const project::replay_projection& p) {
  std::ostringstream amdahl;
  write_json(amdahl, p.amdahl);
  std::string amdahl_text = amdahl.str();
  while (!amdahl_text.empty() && amdahl_text.back() == '\n') amdahl_text.pop_back();
  const auto& s = p.support;
  fmt::print(out,
             "{{\n  \"schema_version\": {},\n  \"kind\": \"replay_projection\",\n  \"speedup_replay\": {},\n"
             "  \"speedup_amdahl\": {},\n",
             analysis_json_schema_version, number(p.speedup_replay), number(p.speedup_amdahl));
  fmt::print(
      out,
      "  \"graph\": {{\"host_nodes\": {}, \"device_nodes\": {}, \"edges\": {}, \"activities_without_launch\": {}, "
      "\"graph_launches\": {}, \"blocking_copies\": {}, \"synchronizations\": {}, \"synchronizations_inferred\": {}, "
      "\"event_waits\": {}, \"event_waits_inferred\": {}, \"event_waits_unknown\": {}, \"overlapping_stream_pairs\": {}, \"thread_handoffs\": {}, \"cycles_broken\": {},\n"
      "    \"typical_latency_ns\": {{",
      s.host_nodes, s.device_nodes, s.edges, s.activities_without_launch, s.graph_launches, s.blocking_copies,
      s.synchronizations, s.synchronizations_inferred, s.event_waits, s.event_waits_inferred, s.event_waits_unknown,
      s.overlapping_stream_pairs, s.thread_handoffs, s.cycles_broken);
  for (std::size_t k = 0; k < project::dependency_count; ++k) {
    fmt::print(out, "{}{}: {}", k ? ", " : "", quote(project::to_string(static_cast<project::dependency>(k))),
               p.typical_delay[k]);
  }
  fmt::print(out, "}},\n    \"contradicted\": {{");
  for (std::size_t k = 0; k < project::dependency_count; ++k) {
    fmt::print(out, "{}{}: {}", k ? ", " : "", quote(project::to_string(static_cast<project::dependency>(k))),
               s.contradicted[k]);
  }
  fmt::print(out, "}}}},\n  \"parts\": [");
  for (std::size_t i = 0; i < p.shrink.parts.size(); ++i) {
    fmt::print(out, "{}{{\"label\": {}, \"speedup\": {}}}", i ? ", " : "", quote(p.shrink.parts[i].label),
               number(p.shrink.parts[i].speedup));
  }
  fmt::print(out, "],\n  \"timelines\": [");
  for (std::size_t i = 0; i < p.timelines.size(); ++i) {
    fmt::print(out, "{}\n    ", i ? "," : "");
    timeline(out, p.timelines[i]);
  }
  fmt::print(out, "{}],\n  \"notes\": [", p.timelines.empty() ? "" : "\n  ");
  for (std::size_t i = 0; i < p.notes.size(); ++i) fmt::print(out, "{}\n    {}", i ? "," : "", quote(p.notes[i]));
  fmt::print(out, "{}],\n  \"amdahl\": {}\n}}\n", p.notes.empty() ? "" : "\n  ", amdahl_text);
}

}  // namespace headroom::report
