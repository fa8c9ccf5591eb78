#pragma once
// The dependency graph trace replay runs on (docs/method.md, "Replay"). Nodes are the host calls
// that matter to the GPU (launches, synchronisations, blocking copies) and every device activity;
// an edge says that a node's start (or a waiting call's end) cannot come before another node's
// start or end, plus a latency. The graph keeps, for every edge, the delay the trace measured
// across it, so a replay can reproduce the trace and then move what a shrink moves.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::project {

using trace::time_ns;

// What an edge stands for.
enum class dependency : std::uint8_t {
  host_order,  // a host call after the previous call on its thread: the host time between them
  thread_handoff,  // a host call after another thread's call it waited for (inferred from timing)
  launch,  // device work after the start of the call that launched it: the launch latency
  stream_order,  // device work after the previous work on its stream (FIFO)
  event_wait,  // device work after the work recorded in an event its stream waits for
  graph_order,  // a CUDA graph node after an earlier node of the same graph launch
  host_wait,  // a call that returns only when awaited device work is done (synchronise, blocking copy)
  call,  // a waiting call's own duration, when it did not have to wait
  count_,
};
inline constexpr std::size_t dependency_count = static_cast<std::size_t>(dependency::count_);
std::string_view to_string(dependency d);

enum class node_kind : std::uint8_t {
  device,  // a kernel, copy or memset
  host_call,  // a call that launches work (or issues a blocking copy)
  host_wait,  // a call that blocks its thread until device work is done
};

struct replay_node {
  time_ns start = 0;  // as measured
  time_ns end = 0;
  std::uint32_t source = 0;  // device: index into trace::activities; host: index into trace::api_calls
  node_kind kind = node_kind::device;
  // Starts no earlier than measured: device work whose launch the trace did not record (launched
  // before it began, say).
  bool pinned = false;
};

// `node`'s start (or, for to_end, its end) >= `from`'s start or end + latency.
struct replay_edge {
  std::uint32_t from = 0;
  dependency kind = dependency::host_order;
  bool from_end = true;
  bool to_end = false;
  bool binding = false;  // the input that decided the node's measured time
  time_ns delay = 0;  // the measured gap across the edge: node's time minus from's time
};

// What the graph could and could not take from the trace, for the reader.
struct graph_support {
  std::size_t host_nodes = 0;
  std::size_t device_nodes = 0;
  std::size_t edges = 0;
  std::size_t activities_without_launch = 0;  // held at their measured start
  std::size_t graph_launches = 0;  // calls that launched several activities (CUDA graphs)
  std::size_t blocking_copies = 0;
  std::size_t synchronizations = 0;  // host waits from synchronisation records
  std::size_t synchronizations_inferred = 0;  // from the call's name, the awaited work from timing
  std::size_t event_waits = 0;  // stream waits tied to the work their event recorded
  std::size_t event_waits_inferred = 0;  // stream waits without a record, tied by the thread's launches
  std::size_t event_waits_unknown = 0;  // stream waits whose recorded work the trace does not say
  std::size_t overlapping_stream_pairs = 0;  // work that started before its stream predecessor ended
  std::size_t thread_handoffs = 0;  // host calls taken to have waited for another thread
  std::size_t cycles_broken = 0;  // nodes whose inputs formed a cycle (inconsistent times)
  std::array<std::size_t, dependency_count> contradicted{};  // edges the measured times rule out, dropped
  bool has_host_activity = false;  // any launch call tied to device work
};

class replay_graph {
 public:
  std::vector<replay_node> nodes;
  std::vector<std::uint32_t> edge_begin;  // edges into node i: edges[edge_begin[i] .. edge_begin[i + 1])
  std::vector<replay_edge> edges;
  std::vector<std::uint32_t> order;  // a topological order of the nodes
  std::vector<std::uint32_t> activity_node;  // per trace activity: its node
  std::vector<std::uint32_t> api_node;  // per trace api call: its (last) node, or no_node
  // Per dependency kind: the median measured delay over the edges that decided their node's time,
  // the latency a replay gives an edge whose measured delay says nothing (it did not decide).
  std::array<time_ns, dependency_count> typical_delay{};
  graph_support support;

  static constexpr std::uint32_t no_node = 0xFFFFFFFFu;
};

// Builds the graph from a trace with host activity (api calls kept whole: read with
// analyze::host_calls::whole). Linear in events after one sort per stream and per thread.
replay_graph build_replay_graph(const trace::trace& t);

}  // namespace headroom::project
