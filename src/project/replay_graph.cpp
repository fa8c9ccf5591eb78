// build_replay_graph: host calls and device activities of a trace, and the dependencies between them
// (docs/method.md, "Replay", says which and why).
#include "headroom/project/replay_graph.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <map>
#include <tuple>

namespace headroom::project {

std::string_view to_string(dependency d) {
  switch (d) {
    case dependency::host_order:
      return "host_order";
    case dependency::thread_handoff:
      return "thread_handoff";
    case dependency::launch:
      return "launch";
    case dependency::stream_order:
      return "stream_order";
    case dependency::event_wait:
      return "event_wait";
    case dependency::graph_order:
      return "graph_order";
    case dependency::host_wait:
      return "host_wait";
    case dependency::call:
      return "call";
    case dependency::count_:
      break;
  }
  return "?";
}

namespace {

using trace::activity;
using trace::api_call;
using trace::sync_kind;
using trace::synchronization;

// Kineto JSON writes microseconds: a dependency the measured times break by less than this is
// rounding, kept with its (negative) measured delay; by more, the times rule it out.
constexpr time_ns tolerance = 1000;
constexpr std::uint32_t none = replay_graph::no_node;

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Calls that block their thread until the GPU is done, by name, for traces without synchronisation
// records (the CUDA runtime and driver, and HIP, spell them alike).
std::optional<sync_kind> blocking_call(std::string_view name) {
  if (contains(name, "DeviceSynchronize") || contains(name, "CtxSynchronize")) return sync_kind::context_synchronize;
  if (contains(name, "StreamSynchronize")) return sync_kind::stream_synchronize;
  if (contains(name, "EventSynchronize")) return sync_kind::event_synchronize;
  return std::nullopt;
}

struct stream_key {
  std::uint16_t process;
  std::int16_t device;
  std::int32_t stream;
  auto operator<=>(const stream_key&) const = default;
};

// One stream's work in FIFO order, with when each was enqueued (its launch call's start; made
// non-decreasing, as a queue is).
struct stream_queue {
  stream_key key;
  std::vector<std::uint32_t> activities;
  std::vector<time_ns> enqueued;
};

struct pending_edge {
  std::uint32_t to;
  replay_edge e;
};

class graph_builder {
 public:
  explicit graph_builder(const trace::trace& t) : t_(t) {}

  replay_graph build() {
    // About three edges and two nodes per activity: launch, stream order, host order.
    pending_.reserve(3 * t_.activities.size() + t_.synchronizations.size());
    g_.nodes.reserve(2 * t_.activities.size());
    index_calls();
    tie_activities_to_launches();
    find_waiting_calls();
    add_host_nodes();
    add_device_nodes();
    order_streams();
    add_graph_launch_edges();
    add_stream_edges();
    add_synchronization_edges();
    finish();
    return std::move(g_);
  }

 private:
  // --- calls ---------------------------------------------------------------------------------

  void index_calls() {
    by_correlation_.reserve(t_.api_calls.size());
    for (std::uint32_t i = 0; i < t_.api_calls.size(); ++i) {
      if (t_.api_calls[i].correlation != 0) by_correlation_.push_back(i);
    }
    const auto by_key = [&](std::uint32_t a, std::uint32_t b) { return call_key(a) < call_key(b); };
    // Correlation ids grow with time, so one thread's calls usually come sorted already.
    if (!std::is_sorted(by_correlation_.begin(), by_correlation_.end(), by_key)) {
      std::sort(by_correlation_.begin(), by_correlation_.end(), by_key);
    }
  }

  std::pair<std::uint16_t, std::uint64_t> call_key(std::uint32_t i) const {
    return {t_.api_calls[i].process, t_.api_calls[i].correlation};
  }

  std::uint32_t call_of(std::uint16_t process, std::uint64_t correlation) const {
    if (correlation == 0) return none;
    const std::pair key{process, correlation};
    const auto it = std::lower_bound(by_correlation_.begin(), by_correlation_.end(), key,
                                     [&](std::uint32_t i, const auto& k) { return call_key(i) < k; });
    return it != by_correlation_.end() && call_key(*it) == key ? *it : none;
  }

  void tie_activities_to_launches() {
    launch_of_.assign(t_.activities.size(), none);
    launched_count_.assign(t_.api_calls.size(), 0);
    for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
      const auto& a = t_.activities[i];
      const auto c = call_of(a.process, a.correlation);
      launch_of_[i] = c;
      if (c != none) {
        ++launched_count_[c];
        g_.support.has_host_activity = true;
      } else {
        ++g_.support.activities_without_launch;
      }
    }
    for (auto n : launched_count_) g_.support.graph_launches += n > 1;
  }

  // A copy call without "Async" returns when its copy is done, and so does one into pageable host
  // memory (the driver stages it); trusted only where the measured call outlasted its copy.
  bool is_blocking_copy(std::uint32_t call, std::uint32_t activity) const {
    const auto& a = t_.activities[activity];
    if (a.kind != trace::activity_kind::memcpy) return false;
    const auto name = t_.strings[t_.api_calls[call].name];
    const bool synchronous_call = contains(name, "Memcpy") && !contains(name, "Async");
    const bool to_pageable = a.copy == trace::copy_kind::device_to_host && contains(t_.strings[a.name], "Pageable");
    return (synchronous_call || to_pageable) && t_.api_calls[call].end + tolerance >= a.end;
  }

  void find_waiting_calls() {
    waits_.assign(t_.api_calls.size(), wait_none);
    blocking_copy_.assign(t_.api_calls.size(), none);
    for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
      const auto c = launch_of_[i];
      if (c != none && launched_count_[c] == 1 && is_blocking_copy(c, i)) {
        blocking_copy_[c] = i;
        ++g_.support.blocking_copies;
      }
    }
    // Synchronisation records name what the call waited for.
    for (std::uint32_t y = 0; y < t_.synchronizations.size(); ++y) {
      const auto& s = t_.synchronizations[y];
      if (s.kind == sync_kind::event_record || s.kind == sync_kind::stream_wait_event) continue;
      const auto c = call_of(s.process, s.correlation);
      if (c == none) continue;
      // CUPTI reports cudaEventQuery as an event synchronisation; a query never blocks.
      if (contains(t_.strings[t_.api_calls[c].name], "Query")) continue;
      waits_[c] = y;
    }
    for (std::uint32_t c = 0; c < t_.api_calls.size(); ++c) {
      if (waits_[c] == wait_none && name_of(c).blocking) waits_[c] = wait_inferred;
    }
  }

  // What a call's name says, worked out once per distinct name (a trace repeats a few hundred).
  struct call_name {
    bool known = false;
    bool blocking = false;  // a synchronising call (blocking_call)
    bool stream_wait = false;  // cudaStreamWaitEvent, cuStreamWaitEvent
  };
  const call_name& name_of(std::uint32_t call) {
    const auto id = t_.api_calls[call].name;
    if (id >= names_.size()) names_.resize(t_.strings.size());
    auto& n = names_[id];
    if (!n.known) {
      const auto text = t_.strings[id];
      n = {true, blocking_call(text).has_value(), contains(text, "StreamWaitEvent")};
    }
    return n;
  }

  // --- nodes -----------------------------------------------------------------------------------

  // A call's first node and the node before it on its thread.
  struct thread_entry {
    std::uint32_t node;
    std::uint32_t previous;
    std::uint16_t process;
    std::uint32_t thread;
  };
  // The last node of the call whose first node this is (a blocking copy has two).
  std::uint32_t last_of(const thread_entry& e) const {
    const auto& n = g_.nodes[e.node];
    return n.kind == node_kind::host_call && n.start == n.end && e.node + 1 < g_.nodes.size() &&
                   g_.nodes[e.node + 1].kind == node_kind::host_wait && g_.nodes[e.node + 1].source == n.source
               ? e.node + 1
               : e.node;
  }

  std::uint32_t add_node(time_ns start, time_ns end, std::uint32_t source, node_kind kind) {
    g_.nodes.push_back({start, end, source, kind});
    return static_cast<std::uint32_t>(g_.nodes.size() - 1);
  }

  void add_edge(std::uint32_t to, std::uint32_t from, dependency kind, bool from_end, bool to_end) {
    pending_.push_back({to, {from, kind, from_end, to_end, false, 0}});
  }

  void add_host_nodes() {
    // Per thread, the calls that matter to the GPU in the order they ran.
    std::vector<std::uint32_t> calls;
    for (std::uint32_t c = 0; c < t_.api_calls.size(); ++c) {
      if (launched_count_[c] > 0 || waits_[c] != wait_none) calls.push_back(c);
    }
    const auto by_thread = [&](std::uint32_t a, std::uint32_t b) {
      const auto& x = t_.api_calls[a];
      const auto& y = t_.api_calls[b];
      return std::tie(x.process, x.thread, x.start, x.end, a) < std::tie(y.process, y.thread, y.start, y.end, b);
    };
    if (!std::is_sorted(calls.begin(), calls.end(), by_thread)) std::sort(calls.begin(), calls.end(), by_thread);
    g_.api_node.assign(t_.api_calls.size(), none);
    issue_node_.assign(t_.api_calls.size(), none);
    std::uint32_t previous = none;
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const auto c = calls[k];
      const auto& call = t_.api_calls[c];
      const bool same_thread = k > 0 && t_.api_calls[calls[k - 1]].process == call.process &&
                               t_.api_calls[calls[k - 1]].thread == call.thread;
      if (!same_thread) previous = none;
      const bool launches = launched_count_[c] > 0;
      const bool waits = waits_[c] != wait_none || blocking_copy_[c] != none;
      std::uint32_t first = none;
      if (launches) {
        // A blocking copy issues its copy at once and then waits: two nodes, so the copy can
        // depend on the call and the call's return on the copy.
        first = add_node(call.start, waits ? call.start : call.end, c, node_kind::host_call);
        issue_node_[c] = first;
      }
      std::uint32_t last = first;
      if (waits) {
        last = add_node(call.start, call.end, c, node_kind::host_wait);
        if (first != none) add_edge(last, first, dependency::host_order, true, false);
        add_edge(last, last, dependency::call, false, true);
        if (first == none) first = last;
      }
      if (previous != none) {
        // Nested calls (a driver call inside a runtime call) are measured from the outer call's start.
        const bool nested = call.start < g_.nodes[previous].end;
        add_edge(first, previous, dependency::host_order, !nested, false);
      }
      thread_entries_.push_back({first, previous, call.process, call.thread});
      g_.api_node[c] = last;
      previous = last;
    }
    g_.support.host_nodes = g_.nodes.size();
    add_thread_handoffs();
  }

  // Host threads that hand work to each other leave no trace of it: PyTorch's autograd engine runs
  // the backward pass on a thread of its own while the thread that called backward() waits, and
  // the training loop resumes when it is done. A call that comes right after another thread's call
  // (within a quarter of its own thread's idle time before it, and after at least
  // min_handoff_idle of that idle time) is taken to have waited for it: a thread handoff edge.
  // Without it a shrink could not move the other thread, whose own gaps were that waiting.
  void add_thread_handoffs() {
    constexpr time_ns min_handoff_idle = 50'000;
    const bool one_thread = std::all_of(thread_entries_.begin(), thread_entries_.end(), [&](const thread_entry& e) {
      return e.process == thread_entries_.front().process && e.thread == thread_entries_.front().thread;
    });
    if (one_thread) return;
    auto entries = thread_entries_;  // by process, then start
    std::stable_sort(entries.begin(), entries.end(), [&](const thread_entry& a, const thread_entry& b) {
      return std::tie(a.process, g_.nodes[a.node].start) < std::tie(b.process, g_.nodes[b.node].start);
    });
    std::vector<std::uint32_t> by_end;
    for (std::size_t lo = 0; lo < entries.size();) {
      std::size_t hi = lo;
      while (hi < entries.size() && entries[hi].process == entries[lo].process) ++hi;
      // The latest-ending host node so far, and the latest one on a different thread than it.
      by_end.clear();
      for (std::size_t k = lo; k < hi; ++k) by_end.push_back(static_cast<std::uint32_t>(k));
      std::sort(by_end.begin(), by_end.end(), [&](std::uint32_t a, std::uint32_t b) {
        return g_.nodes[last_of(entries[a])].end < g_.nodes[last_of(entries[b])].end;
      });
      const thread_entry* top = nullptr;
      const thread_entry* other = nullptr;
      std::size_t ended = 0;
      for (std::size_t k = lo; k < hi; ++k) {
        const auto& e = entries[k];
        const time_ns at = g_.nodes[e.node].start;
        while (ended < by_end.size() && g_.nodes[last_of(entries[by_end[ended]])].end <= at) {
          const auto* x = &entries[by_end[ended++]];
          if (top != nullptr && top->thread != x->thread) other = top;
          top = x;
        }
        const thread_entry* m = top != nullptr && top->thread != e.thread ? top : other;
        if (m == nullptr) continue;
        const time_ns handoff = at - g_.nodes[last_of(*m)].end;
        const time_ns idle = e.previous == none ? std::numeric_limits<time_ns>::max() : at - g_.nodes[e.previous].end;
        if (idle < min_handoff_idle || handoff > idle / 4) continue;
        add_edge(e.node, last_of(*m), dependency::thread_handoff, true, false);
        ++g_.support.thread_handoffs;
      }
      lo = hi;
    }
  }

  void add_device_nodes() {
    g_.activity_node.resize(t_.activities.size());
    for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
      const auto& a = t_.activities[i];
      const auto n = add_node(a.start, a.end, i, node_kind::device);
      g_.activity_node[i] = n;
      const auto c = launch_of_[i];
      if (c == none) {
        g_.nodes[n].pinned = true;  // launched before the trace began, or its call was not recorded
      } else {
        add_edge(n, issue_node_[c], dependency::launch, false, false);
      }
    }
    g_.support.device_nodes = t_.activities.size();
  }

  // --- streams and graph launches ----------------------------------------------------------------

  void order_streams() {
    std::map<stream_key, std::uint32_t> index;
    for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
      const auto& a = t_.activities[i];
      const stream_key k{a.process, a.device, a.stream};
      auto [it, added] = index.emplace(k, static_cast<std::uint32_t>(streams_.size()));
      if (added) streams_.push_back({k, {}, {}});
      streams_[it->second].activities.push_back(i);
    }
    for (auto& q : streams_) {
      auto& v = q.activities;
      const auto by_start = [&](std::uint32_t x, std::uint32_t y) {
        const auto& a = t_.activities[x];
        const auto& b = t_.activities[y];
        return std::tie(a.start, a.end, x) < std::tie(b.start, b.end, y);
      };
      if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
      q.enqueued.reserve(v.size());
      time_ns latest = std::numeric_limits<time_ns>::min();
      for (auto i : v) {
        const auto c = launch_of_[i];
        latest = std::max(latest, c != none ? t_.api_calls[c].start : t_.activities[i].start);
        q.enqueued.push_back(latest);
      }
    }
    stream_index_ = std::move(index);
  }

  bool in_group(std::uint32_t activity) const {
    const auto c = launch_of_[activity];
    return c != none && launched_count_[c] > 1;
  }

  // A call that launched several activities (a CUDA graph) says nothing of how its nodes depend on
  // each other: each node is taken to wait for the node of the same launch that ended last before
  // it started (a chain stays a chain, parallel branches stay parallel). Nodes no other node waits
  // for are the launch's sinks: what later work on the stream waits for.
  void add_graph_launch_edges() {
    std::vector<std::uint32_t> grouped;
    for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
      if (in_group(i)) grouped.push_back(i);
    }
    std::sort(grouped.begin(), grouped.end(), [&](std::uint32_t x, std::uint32_t y) {
      const auto& a = t_.activities[x];
      const auto& b = t_.activities[y];
      return std::tie(launch_of_[x], a.start, a.end, x) < std::tie(launch_of_[y], b.start, b.end, y);
    });
    sink_.assign(t_.activities.size(), 0);
    graph_pred_.assign(t_.activities.size(), 0);
    std::vector<std::uint32_t> by_end;
    for (std::size_t lo = 0; lo < grouped.size();) {
      std::size_t hi = lo;
      while (hi < grouped.size() && launch_of_[grouped[hi]] == launch_of_[grouped[lo]]) ++hi;
      by_end.assign(grouped.begin() + static_cast<std::ptrdiff_t>(lo),
                    grouped.begin() + static_cast<std::ptrdiff_t>(hi));
      std::sort(by_end.begin(), by_end.end(), [&](std::uint32_t x, std::uint32_t y) {
        return std::tie(t_.activities[x].end, x) < std::tie(t_.activities[y].end, y);
      });
      for (std::size_t k = lo; k < hi; ++k) sink_[grouped[k]] = 1;
      std::size_t ended = 0;  // members of by_end that ended by the current start
      for (std::size_t k = lo; k < hi; ++k) {
        const auto m = grouped[k];
        while (ended < by_end.size() && t_.activities[by_end[ended]].end <= t_.activities[m].start + tolerance &&
               by_end[ended] != m) {
          ++ended;
        }
        if (ended == 0) continue;
        const auto pred = by_end[ended - 1];  // the latest end among those
        add_edge(g_.activity_node[m], g_.activity_node[pred], dependency::graph_order, true, false);
        sink_[pred] = 0;
        graph_pred_[m] = 1;
      }
      group_members_.emplace(launch_of_[grouped[lo]],
                             std::vector<std::uint32_t>(grouped.begin() + static_cast<std::ptrdiff_t>(lo),
                                                        grouped.begin() + static_cast<std::ptrdiff_t>(hi)));
      lo = hi;
    }
  }

  // What waiting for `activity` means: the activity, or every sink of the graph launch it is part of.
  template <class F>
  void for_each_awaited(std::uint32_t activity, F&& f) const {
    if (!in_group(activity)) {
      f(activity);
      return;
    }
    for (auto m : group_members_.at(launch_of_[activity])) {
      if (sink_[m]) f(m);
    }
  }

  void add_stream_edges() {
    for (const auto& q : streams_) {
      for (std::size_t k = 1; k < q.activities.size(); ++k) {
        const auto x = q.activities[k];
        const auto p = q.activities[k - 1];
        if (in_group(x) && (launch_of_[x] == launch_of_[p] || graph_pred_[x])) continue;  // inside one graph launch
        for_each_awaited(p, [&](std::uint32_t pred) {
          // Work that started before its predecessor ended (programmatic dependent launch on
          // Hopper, or two work queues behind one stream id) waits for its start instead.
          const bool overlaps = t_.activities[x].start + tolerance < t_.activities[pred].end;
          g_.support.overlapping_stream_pairs += overlaps;
          add_edge(g_.activity_node[x], g_.activity_node[pred], dependency::stream_order, !overlaps, false);
        });
      }
    }
  }

  // --- synchronisations --------------------------------------------------------------------------

  const stream_queue* queue(std::uint16_t process, std::int16_t device, std::int32_t stream) const {
    if (device >= 0) {
      const auto it = stream_index_.find({process, device, stream});
      return it != stream_index_.end() ? &streams_[it->second] : nullptr;
    }
    for (const auto& q : streams_) {
      if (q.key.process == process && q.key.stream == stream) return &q;
    }
    return nullptr;
  }

  // Position in q of the first work enqueued at or after t.
  static std::size_t enqueued_before(const stream_queue& q, time_ns t) {
    return static_cast<std::size_t>(std::lower_bound(q.enqueued.begin(), q.enqueued.end(), t) - q.enqueued.begin());
  }

  time_ns call_start(const synchronization& s) const {
    const auto c = call_of(s.process, s.correlation);
    return c != none ? t_.api_calls[c].start : s.start;
  }

  // The cudaEventRecord a wait refers to: where it recorded (nullptr: a stream without work, so the
  // event marks nothing) and when; nothing when the trace does not say.
  struct event_mark {
    const stream_queue* queue;
    time_ns at;
  };
  std::optional<event_mark> recorded(const synchronization& s, time_ns wait_time) const {
    const synchronization* record = nullptr;
    if (s.record_correlation != 0) {
      const auto it = records_.find({s.process, s.record_correlation});
      if (it != records_.end()) record = &t_.synchronizations[it->second];
    } else if (s.event >= 0) {
      // The latest record of the same event before the wait: what CUDA waits for.
      const event_time key{s.process, s.event, wait_time, none};
      auto it = std::upper_bound(records_by_event_.begin(), records_by_event_.end(), key);
      if (it != records_by_event_.begin()) {
        --it;
        if (it->process == s.process && it->event == s.event) record = &t_.synchronizations[it->row];
      }
    }
    if (record == nullptr || record->stream < 0) return std::nullopt;
    return event_mark{queue(record->process, record->device, record->stream), call_start(*record)};
  }

  // The work an event marks: the last work enqueued on its stream before it was recorded.
  template <class F>
  void for_each_marked(const event_mark& m, F&& f) const {
    if (m.queue == nullptr) return;
    const auto done = enqueued_before(*m.queue, m.at);
    if (done > 0) for_each_awaited(m.queue->activities[done - 1], f);
  }

  void add_synchronization_edges() {
    for (std::uint32_t y = 0; y < t_.synchronizations.size(); ++y) {
      const auto& s = t_.synchronizations[y];
      if (s.kind == sync_kind::event_record) {
        if (s.correlation != 0) records_.emplace(std::pair{s.process, s.correlation}, y);
        if (s.event >= 0) records_by_event_.push_back({s.process, s.event, call_start(s), y});
      }
    }
    std::sort(records_by_event_.begin(), records_by_event_.end());
    std::vector<char> has_row(t_.api_calls.size(), 0);
    for (const auto& s : t_.synchronizations) {
      if (s.kind != sync_kind::stream_wait_event) continue;
      add_stream_wait(s);
      if (const auto c = call_of(s.process, s.correlation); c != none) has_row[c] = 1;
    }
    for (std::uint32_t c = 0; c < t_.api_calls.size(); ++c) {
      if (!has_row[c] && name_of(c).stream_wait) add_inferred_stream_wait(c);
    }
    for (std::uint32_t c = 0; c < t_.api_calls.size(); ++c) {
      if (waits_[c] == wait_inferred) {
        add_inferred_wait(c);
      } else if (waits_[c] != wait_none) {
        add_recorded_wait(c, t_.synchronizations[waits_[c]]);
      }
      if (blocking_copy_[c] != none) {
        add_edge(g_.api_node[c], g_.activity_node[blocking_copy_[c]], dependency::host_wait, true, true);
      }
    }
  }

  void add_stream_wait(const synchronization& s) {
    const time_ns at = call_start(s);
    const auto rec = recorded(s, at);
    if (!rec) {
      // nsys names the waiting stream but not where the event was recorded.
      const auto c = call_of(s.process, s.correlation);
      if (c != none) {
        add_inferred_stream_wait(c, s.stream >= 0 ? queue(s.process, s.device, s.stream) : nullptr);
      } else {
        ++g_.support.event_waits_unknown;
      }
      return;
    }
    if (s.stream < 0) {
      ++g_.support.event_waits_unknown;
      return;
    }
    ++g_.support.event_waits;
    const auto* waiting = queue(s.process, s.device, s.stream);
    if (waiting == nullptr) return;  // a stream that never ran anything
    const auto next = enqueued_before(*waiting, at);
    if (next >= waiting->activities.size()) return;  // nothing enqueued after the wait
    const auto w = g_.activity_node[waiting->activities[next]];
    for_each_marked(*rec,
                    [&](std::uint32_t a) { add_edge(w, g_.activity_node[a], dependency::event_wait, true, false); });
  }

  // A cudaStreamWaitEvent the trace has no record for (Kineto before PyTorch 2.1) names neither
  // stream; nsys's record names the waiting one only. PyTorch records an event on the stream that
  // produced the work and makes the consuming stream wait for it, from the same thread: the waiting
  // stream, where unknown, is taken to be that of the next work the thread launches, and the
  // awaited work the last work enqueued before the wait on the stream the thread launched onto
  // last before it, other than the waiting one. Edges this guesses wrong are dropped by the times
  // when they contradict them.
  void add_inferred_stream_wait(std::uint32_t call, const stream_queue* waiting = nullptr) {
    const auto& c = t_.api_calls[call];
    const auto& launches = thread_launches(c.process, c.thread);
    auto next = std::lower_bound(launches.begin(), launches.end(), c.start,
                                 [](const thread_launch& l, time_ns t) { return l.at < t; });
    if (waiting == nullptr) {
      if (next == launches.end()) {
        ++g_.support.event_waits_unknown;
        return;
      }
      waiting = next->queue;
    }
    const stream_queue* producer = nullptr;
    for (auto it = next; it != launches.begin();) {
      --it;
      if (it->queue != waiting) {
        producer = it->queue;
        break;
      }
    }
    if (producer == nullptr) {
      ++g_.support.event_waits_unknown;
      return;
    }
    ++g_.support.event_waits_inferred;
    const auto w = enqueued_before(*waiting, c.start);
    if (w >= waiting->activities.size()) return;
    for_each_marked({producer, c.start}, [&](std::uint32_t a) {
      add_edge(g_.activity_node[waiting->activities[w]], g_.activity_node[a], dependency::event_wait, true, false);
    });
  }

  struct thread_launch {
    time_ns at;
    const stream_queue* queue;
  };

  // The launches of one host thread in time order, each with the stream of its (first) work.
  const std::vector<thread_launch>& thread_launches(std::uint16_t process, std::uint32_t thread) {
    if (launches_by_thread_.empty()) {
      for (std::uint32_t i = 0; i < t_.activities.size(); ++i) {
        const auto c = launch_of_[i];
        if (c == none) continue;
        const auto& a = t_.activities[i];
        const auto& call = t_.api_calls[c];
        const auto* q = queue(a.process, a.device, a.stream);
        launches_by_thread_[{call.process, call.thread}].push_back({call.start, q});
      }
      for (auto& [k, v] : launches_by_thread_) {
        std::stable_sort(v.begin(), v.end(),
                         [](const thread_launch& a, const thread_launch& b) { return a.at < b.at; });
      }
    }
    static const std::vector<thread_launch> empty;
    const auto it = launches_by_thread_.find({process, thread});
    return it != launches_by_thread_.end() ? it->second : empty;
  }

  void await(std::uint32_t call, const stream_queue& q) {
    const auto done = enqueued_before(q, t_.api_calls[call].start);
    if (done == 0) return;
    for_each_awaited(q.activities[done - 1], [&](std::uint32_t a) {
      add_edge(g_.api_node[call], g_.activity_node[a], dependency::host_wait, true, true);
    });
  }

  void add_recorded_wait(std::uint32_t call, const synchronization& s) {
    ++g_.support.synchronizations;
    const auto& c = t_.api_calls[call];
    switch (s.kind) {
      case sync_kind::stream_synchronize:
        if (const auto* q = queue(c.process, s.device, s.stream)) await(call, *q);
        break;
      case sync_kind::context_synchronize:
        for (const auto& q : streams_) {
          if (q.key.process == c.process && (s.device < 0 || q.key.device == s.device)) await(call, q);
        }
        break;
      case sync_kind::event_synchronize:
        if (const auto rec = recorded(s, c.start)) {
          for_each_marked(*rec, [&](std::uint32_t a) {
            add_edge(g_.api_node[call], g_.activity_node[a], dependency::host_wait, true, true);
          });
        }
        break;
      default:
        break;
    }
  }

  // A synchronising call the trace has no record for: a device synchronisation waits for every
  // stream of its process; a stream or event one for the stream whose last work before the call
  // ended last before the call returned (which stream it named is not in the trace).
  void add_inferred_wait(std::uint32_t call) {
    ++g_.support.synchronizations_inferred;
    const auto& c = t_.api_calls[call];
    const auto kind = *blocking_call(t_.strings[c.name]);
    const stream_queue* best = nullptr;
    time_ns best_end = std::numeric_limits<time_ns>::min();
    for (const auto& q : streams_) {
      if (q.key.process != c.process) continue;
      const auto done = enqueued_before(q, c.start);
      if (done == 0) continue;
      if (kind == sync_kind::context_synchronize) {
        await(call, q);
        continue;
      }
      const auto end = t_.activities[q.activities[done - 1]].end;
      if (end <= c.end + tolerance && end > best_end) best = &q, best_end = end;
    }
    if (best != nullptr) await(call, *best);
  }

  // --- delays, binding inputs, order ---------------------------------------------------------------

  time_ns at(std::uint32_t node, bool end) const { return end ? g_.nodes[node].end : g_.nodes[node].start; }

  void finish() {
    const auto n = static_cast<std::uint32_t>(g_.nodes.size());
    // Measured delays; an edge the measured times rule out is dropped (and counted).
    std::erase_if(pending_, [&](pending_edge& p) {
      p.e.delay = at(p.to, p.e.to_end) - at(p.e.from, p.e.from_end);
      if (p.e.delay >= -tolerance) return false;
      ++g_.support.contradicted[static_cast<std::size_t>(p.e.kind)];
      return true;
    });
    const auto& kept = pending_;
    // Bucket by target (counting sort keeps each node's edges in the order they were added).
    g_.edge_begin.assign(n + 1, 0);
    for (const auto& p : kept) ++g_.edge_begin[p.to + 1];
    for (std::uint32_t i = 0; i < n; ++i) g_.edge_begin[i + 1] += g_.edge_begin[i];
    g_.edges.resize(kept.size());
    {
      std::vector<std::uint32_t> fill(g_.edge_begin.begin(), g_.edge_begin.end() - 1);
      for (const auto& p : kept) g_.edges[fill[p.to]++] = p.e;
    }
    pending_.clear();
    pending_.shrink_to_fit();
    g_.support.edges = g_.edges.size();
    // The input that decided each measured time is the one whose measured time came last.
    std::array<std::vector<time_ns>, dependency_count> decided;
    for (std::uint32_t v = 0; v < n; ++v) {
      for (const bool to_end : {false, true}) {
        replay_edge* best = nullptr;
        for (auto k = g_.edge_begin[v]; k < g_.edge_begin[v + 1]; ++k) {
          auto& e = g_.edges[k];
          if (e.to_end != to_end) continue;
          if (best == nullptr || e.delay < best->delay) best = &e;
        }
        if (best != nullptr) {
          best->binding = true;
          if (best->delay >= 0) decided[static_cast<std::size_t>(best->kind)].push_back(best->delay);
        }
      }
    }
    for (std::size_t k = 0; k < dependency_count; ++k) {
      auto& d = decided[k];
      if (d.empty()) continue;
      auto mid = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
      std::nth_element(d.begin(), mid, d.end());
      g_.typical_delay[k] = *mid;
    }
    topological_order();
  }

  void topological_order() {
    const auto n = static_cast<std::uint32_t>(g_.nodes.size());
    std::vector<std::uint32_t> indegree(n, 0);
    std::vector<std::uint32_t> out_begin(n + 1, 0);
    for (std::uint32_t v = 0; v < n; ++v) {
      for (auto k = g_.edge_begin[v]; k < g_.edge_begin[v + 1]; ++k) {
        const auto u = g_.edges[k].from;
        if (u == v) continue;
        ++indegree[v];
        ++out_begin[u + 1];
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) out_begin[i + 1] += out_begin[i];
    std::vector<std::uint32_t> out(out_begin[n]);
    {
      std::vector<std::uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
      for (std::uint32_t v = 0; v < n; ++v) {
        for (auto k = g_.edge_begin[v]; k < g_.edge_begin[v + 1]; ++k) {
          const auto u = g_.edges[k].from;
          if (u != v) out[fill[u]++] = v;
        }
      }
    }
    g_.order.clear();
    g_.order.reserve(n);
    std::vector<char> done(n, 0);
    std::vector<std::uint32_t> ready;
    for (std::uint32_t v = n; v-- > 0;) {
      if (indegree[v] == 0) ready.push_back(v);
    }
    std::vector<std::uint32_t> by_start;  // built only if a cycle has to be broken
    std::size_t cursor = 0;
    while (g_.order.size() < n) {
      if (ready.empty()) {
        // Inputs that form a cycle, which consistent times cannot: the earliest node left is
        // taken anyway, and its unfinished inputs read as measured.
        if (by_start.empty()) {
          by_start.resize(n);
          for (std::uint32_t i = 0; i < n; ++i) by_start[i] = i;
          std::sort(by_start.begin(), by_start.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::tie(g_.nodes[a].start, a) < std::tie(g_.nodes[b].start, b);
          });
        }
        while (done[by_start[cursor]]) ++cursor;
        ++g_.support.cycles_broken;
        indegree[by_start[cursor]] = 0;
        ready.push_back(by_start[cursor]);
      }
      const auto v = ready.back();
      ready.pop_back();
      if (done[v]) continue;
      done[v] = 1;
      g_.order.push_back(v);
      for (auto k = out_begin[v]; k < out_begin[v + 1]; ++k) {
        const auto w = out[k];
        if (!done[w] && indegree[w] > 0 && --indegree[w] == 0) ready.push_back(w);
      }
    }
  }

  static constexpr std::uint32_t wait_none = 0xFFFFFFFFu;
  static constexpr std::uint32_t wait_inferred = 0xFFFFFFFEu;

  const trace::trace& t_;
  replay_graph g_;
  std::vector<std::uint32_t> by_correlation_;  // api call indices by (process, correlation)
  std::vector<std::uint32_t> launch_of_;  // per activity: the api call that launched it
  std::vector<std::uint32_t> launched_count_;  // per api call: activities it launched
  std::vector<std::uint32_t> waits_;  // per api call: its synchronisation row, wait_inferred or wait_none
  std::vector<std::uint32_t> blocking_copy_;  // per api call: the copy it waited for
  std::vector<std::uint32_t> issue_node_;  // per api call: the node device work depends on
  std::vector<stream_queue> streams_;
  std::map<stream_key, std::uint32_t> stream_index_;
  std::map<std::uint64_t, std::vector<std::uint32_t>> group_members_;  // by launch call
  std::vector<char> sink_;  // per activity: a graph launch's node no other node of it waits for
  std::vector<char> graph_pred_;  // per activity: waits for an earlier node of its graph launch
  std::map<std::pair<std::uint16_t, std::uint64_t>, std::uint32_t> records_;  // event records by (process, correlation)
  struct event_time {
    std::uint16_t process;
    std::int64_t event;
    time_ns at;
    std::uint32_t row;
    auto operator<=>(const event_time&) const = default;
  };
  std::vector<event_time> records_by_event_;  // sorted: the latest record of an event before a time
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::vector<thread_launch>> launches_by_thread_;
  std::vector<pending_edge> pending_;
  std::vector<thread_entry> thread_entries_;
  std::vector<call_name> names_;  // by string id
};

}  // namespace

replay_graph build_replay_graph(const trace::trace& t) { return graph_builder(t).build(); }

}  // namespace headroom::project
