#pragma once
// The replay: walks a replay_graph in topological order and gives every node a new start and end.
// Host threads keep their own time between calls; a launch returns after its recorded host
// duration; device work starts at the latest of its launch, its stream predecessor's end and the
// events it waits for, each plus a latency, and runs for its (possibly shrunk) duration; a waiting
// call returns when the work it waits for is done. docs/method.md, "Replay", has the latencies.
#include <span>
#include <vector>

#include "headroom/project/host_shrink.hpp"
#include "headroom/project/replay_graph.hpp"

namespace headroom::project {

// Where an edge's latency comes from.
enum class replay_latency {
  // The measured delay on the input that decided the node's time; on the others the kind's typical
  // delay, capped at their measured slack. With nothing shrunk this reproduces the trace exactly
  // (where its times contradict no kept dependency): the mode projections use.
  measured,
  // Every latency is its kind's typical delay (host time between calls and durations stay as
  // measured). With nothing shrunk, how far this lands from the trace says how well the
  // dependencies alone explain it.
  typical,
};

struct replayed_timeline {
  std::vector<time_ns> start;  // per graph node
  std::vector<time_ns> end;
  std::vector<dependency> bound_by;  // per node: the input that decided its start (count_: none, pinned)
};

// `speedup` holds one factor per trace activity (a kernel runs duration / speedup; infinity makes
// it take no time), or is empty for nothing shrunk. `host` (shrink_host) takes host time away: from
// the gap before a host call and from its own duration (a waiting call's own part, never its wait).
// Linear in nodes and edges.
replayed_timeline replay(const replay_graph& g, std::span<const double> speedup,
                         replay_latency latency = replay_latency::measured, const host_shrink& host = {});

}  // namespace headroom::project
