#pragma once
// Fabricated traces with host activity for the replay tests: runtime calls on host threads, the
// work they launch (tied by correlation id), synchronisation records and step markers, with real
// kernel names.
#include <string_view>

#include "analyze/trace_builder.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::test {

struct replay_builder {
  trace::trace t;
  std::uint64_t next_correlation = 100;

  replay_builder() {
    t.platform = "cuda";
    t.format = trace::source_format::synthetic;
    t.processes.push_back({1000, "train", 0, "host"});
  }

  // A runtime call on a host thread; returns its correlation id.
  std::uint64_t call(std::string_view name, time_ns start, time_ns end, std::uint32_t thread = 1) {
    trace::api_call c;
    c.start = start;
    c.end = end;
    c.correlation = ++next_correlation;
    c.name = t.strings.intern(name);
    c.thread = thread;
    t.api_calls.push_back(c);
    return c.correlation;
  }

  // Device work tied to the call with `correlation`; returns its activity index.
  std::size_t work(std::uint64_t correlation, std::string_view name, time_ns start, time_ns end,
                   std::int32_t stream = 7, trace::activity_kind kind = trace::activity_kind::kernel,
                   trace::copy_kind copy = trace::copy_kind::none) {
    trace::activity a;
    a.start = start;
    a.end = end;
    a.correlation = correlation;
    a.name = t.strings.intern(name);
    a.stream = stream;
    a.device = 0;
    a.kind = kind;
    a.copy = copy;
    t.activities.push_back(a);
    return t.activities.size() - 1;
  }

  // cudaLaunchKernel at [call_start, call_end) running `kernel` at [start, end) on `stream`.
  std::size_t launch(time_ns call_start, time_ns call_end, std::string_view kernel, time_ns start, time_ns end,
                     std::int32_t stream = 7, std::uint32_t thread = 1) {
    return work(call("cudaLaunchKernel", call_start, call_end, thread), kernel, start, end, stream);
  }

  void sync(trace::sync_kind kind, std::uint64_t correlation, time_ns start, time_ns end, std::int32_t stream = -1,
            std::int64_t event = -1, std::uint64_t record = 0) {
    trace::synchronization y;
    y.kind = kind;
    y.correlation = correlation;
    y.start = start;
    y.end = end;
    y.stream = stream;
    y.event = event;
    y.record_correlation = record;
    y.device = 0;
    y.thread = 1;
    t.synchronizations.push_back(y);
  }

  // A call that records `event` on `stream`, with its event_record row; returns its correlation.
  std::uint64_t record(std::int64_t event, std::int32_t stream, time_ns start, time_ns end, std::uint32_t thread = 1) {
    const auto c = call("cudaEventRecord", start, end, thread);
    sync(trace::sync_kind::event_record, c, start, end, stream, event);
    return c;
  }

  void step(int n, time_ns start, time_ns end) {
    trace::range r;
    r.start = start;
    r.end = end;
    r.name = t.strings.intern("ProfilerStep#" + std::to_string(n));
    r.thread = 1;
    r.kind = trace::range_kind::cpu_annotation;
    t.ranges.push_back(r);
  }
};

}  // namespace headroom::test
