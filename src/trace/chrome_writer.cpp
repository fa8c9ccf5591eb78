#include "headroom/trace/chrome_writer.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"

namespace headroom::trace {
namespace {

// Reserved colour names of the trace-event format (catapult's colour scheme), chosen to be told
// apart at a glance; chrome://tracing honours `cname`, Perfetto colours by name.
constexpr std::string_view palette[] = {
    "thread_state_running",
    "thread_state_iowait",
    "rail_response",
    "thread_state_uninterruptible",
    "rail_animation",
    "yellow",
    "rail_load",
    "olive",
    "cq_build_failed",
    "rail_idle",
    "generic_work",
    "thread_state_runnable",
    "grey",
    "black",
};

// Host threads and the annotation row of a device sit in the same Chrome process as streams;
// this tid keeps the annotation row apart from any real stream id.
constexpr std::int64_t annotation_tid = 2147483647;

// Nanoseconds as microseconds with three decimals, exactly (a double would lose nanoseconds at
// epoch-scale timestamps).
void append_us(std::string& out, time_ns ns) {
  if (ns < 0) {
    out.push_back('-');
    ns = -ns;
  }
  out += fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

class chrome_writer {
 public:
  chrome_writer(const trace& t, std::ostream& out, const chrome_options& options)
      : t_(t), out_(out), options_(options) {}

  void write() {
    assign_tracks();
    assign_colours();
    buf_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"headroom\",\"source_format\":";
    util::append_json_string(buf_, to_string(t_.format));
    buf_ += ",\"platform\":";
    util::append_json_string(buf_, t_.platform);
    // A partial input says so in the file, as in every other output (docs/method.md).
    std::string lost;
    for (const auto& w : t_.warnings) {
      if (!w.lost) continue;
      buf_ += lost.empty() ? ",\"partial_input\":[" : ",";
      lost = w.what;
      util::append_json_string(buf_, w.what);
    }
    if (!lost.empty()) buf_ += "]";
    buf_ += "},\"traceEvents\":[\n";
    write_metadata();
    for (std::size_t i = 0; i < t_.activities.size(); ++i) write_activity(i);
    for (const auto& c : t_.api_calls) write_api_call(c);
    for (const auto& r : t_.ranges) write_range(r);
    for (const auto& y : t_.synchronizations) write_synchronization(y);
    buf_ += "\n]}\n";
    flush(true);
  }

 private:
  std::int64_t host_pid(std::uint16_t process) const { return 1 + static_cast<std::int64_t>(process); }

  void assign_tracks() {
    std::int64_t next = 1 + static_cast<std::int64_t>(t_.processes.size());
    auto add = [&](std::uint16_t p, std::int16_t d) {
      if (device_pid_.emplace(std::pair{p, d}, next).second) ++next;
    };
    for (const auto& a : t_.activities) add(a.process, a.device);
    for (const auto& r : t_.ranges) {
      if (r.kind == range_kind::gpu_annotation) add(r.process, r.device);
    }
  }

  void assign_colours() {
    if (!options_.label) return;
    std::set<std::string, std::less<>> labels;
    for (std::size_t i = 0; i < t_.activities.size(); ++i) labels.emplace(options_.label(i));
    std::size_t k = 0;
    for (const auto& l : labels) {
      if (l.empty()) continue;
      colours_.emplace(l, palette[k++ % std::size(palette)]);
    }
  }

  void begin_event() {
    if (!first_) buf_ += ",\n";
    first_ = false;
  }

  void metadata(std::string_view what, std::int64_t pid, std::int64_t tid, std::string_view name) {
    begin_event();
    buf_ += fmt::format("{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":", what, pid, tid);
    util::append_json_string(buf_, name);
    buf_ += "}}";
  }

  void sort_index(std::int64_t pid) {
    begin_event();
    buf_ += fmt::format(
        "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}}", pid,
        pid);
  }

  std::string process_label(std::uint16_t p) const {
    if (p >= t_.processes.size()) return fmt::format("process {}", p);
    const auto& info = t_.processes[p];
    std::string s = fmt::format("{} pid {}", info.name, info.pid);
    if (info.rank >= 0) s += fmt::format(" rank {}", info.rank);
    if (!info.host.empty()) s += fmt::format(" on {}", info.host);
    return s;
  }

  std::string_view device_name(std::uint16_t p, std::int16_t d) const {
    for (const auto& info : t_.devices) {
      if (info.process == p && info.id == d) return info.name;
    }
    return {};
  }

  void write_metadata() {
    for (std::uint16_t p = 0; p < t_.processes.size(); ++p) {
      metadata("process_name", host_pid(p), 0, process_label(p));
      sort_index(host_pid(p));
    }
    for (const auto& [key, pid] : device_pid_) {
      const auto [p, d] = key;
      std::string name = fmt::format("{} / GPU {}", process_label(p), d);
      if (auto dn = device_name(p, d); !dn.empty()) name += fmt::format(" ({})", dn);
      metadata("process_name", pid, 0, name);
      sort_index(pid);
    }
    std::set<std::tuple<std::int64_t, std::int64_t>> named;
    for (const auto& a : t_.activities) {
      const auto pid = device_pid_.at({a.process, a.device});
      if (named.emplace(pid, a.stream).second)
        metadata("thread_name", pid, a.stream, fmt::format("stream {}", a.stream));
    }
    for (const auto& r : t_.ranges) {
      if (r.kind == range_kind::gpu_annotation) {
        const auto pid = device_pid_.at({r.process, r.device});
        if (named.emplace(pid, annotation_tid).second) metadata("thread_name", pid, annotation_tid, "annotations");
      }
    }
  }

  void event_head(std::string_view ph, std::string_view cat, string_id name, std::int64_t pid, std::int64_t tid,
                  time_ns start) {
    event_head(ph, cat, t_.strings[name], pid, tid, start);
  }

  void event_head(std::string_view ph, std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
                  time_ns start) {
    begin_event();
    buf_ += fmt::format("{{\"ph\":\"{}\",\"cat\":\"{}\",\"name\":", ph, cat);
    util::append_json_string(buf_, name);
    buf_ += fmt::format(",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
    append_us(buf_, start);
  }

  void duration(time_ns start, time_ns end) {
    buf_ += ",\"dur\":";
    append_us(buf_, std::max<time_ns>(0, end - start));
  }

  void write_activity(std::size_t i) {
    const activity& a = t_.activities[i];
    const std::string_view cat = a.kind == activity_kind::kernel   ? "kernel"
                                 : a.kind == activity_kind::memcpy ? "gpu_memcpy"
                                                                   : "gpu_memset";
    event_head("X", cat, a.name, device_pid_.at({a.process, a.device}), a.stream, a.start);
    duration(a.start, a.end);
    std::string_view label;
    if (options_.label) label = options_.label(i);
    if (auto it = colours_.find(label); it != colours_.end()) buf_ += fmt::format(",\"cname\":\"{}\"", it->second);
    buf_ +=
        fmt::format(",\"args\":{{\"correlation\":{},\"device\":{},\"stream\":{}", a.correlation, a.device, a.stream);
    if (a.kind != activity_kind::kernel) buf_ += fmt::format(",\"bytes\":{}", a.bytes);
    if (a.kind == activity_kind::memcpy) buf_ += fmt::format(",\"kind\":\"{}\"", to_string(a.copy));
    if (a.graph_node != 0) buf_ += fmt::format(",\"graph node\":{}", a.graph_node);
    if (!label.empty()) {
      buf_ += ",\"class\":";
      util::append_json_string(buf_, label);
    }
    if (options_.args) {
      for (const auto& [k, v] : options_.args(i)) {
        buf_ += ',';
        util::append_json_string(buf_, k);
        buf_ += ':';
        util::append_json_string(buf_, v);
      }
    }
    buf_ += "}}";
    flush(false);
  }

  void write_api_call(const api_call& c) {
    event_head("X", c.kind == api_kind::runtime ? "cuda_runtime" : "cuda_driver", c.name, host_pid(c.process), c.thread,
               c.start);
    duration(c.start, c.end);
    buf_ += fmt::format(",\"args\":{{\"correlation\":{}}}}}", c.correlation);
    flush(false);
  }

  void write_range(const range& r) {
    switch (r.kind) {
      case range_kind::mark:
        event_head("i", "mark", r.name, host_pid(r.process), r.thread, r.start);
        buf_ += ",\"s\":\"t\"}";
        break;
      case range_kind::gpu_annotation:
        event_head("X", "gpu_user_annotation", r.name, device_pid_.at({r.process, r.device}), annotation_tid, r.start);
        duration(r.start, r.end);
        buf_ += "}";
        break;
      case range_kind::cpu_annotation:
      case range_kind::nvtx:
        event_head("X", r.kind == range_kind::nvtx ? "nvtx" : "user_annotation", r.name, host_pid(r.process), r.thread,
                   r.start);
        duration(r.start, r.end);
        buf_ += "}";
        break;
    }
    flush(false);
  }

  // On the host thread that waited, named and categorised as torch.profiler names its cuda_sync events.
  void write_synchronization(const synchronization& y) {
    static constexpr std::string_view names[] = {"Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync",
                                                 "Event Record"};
    event_head("X", "cuda_sync", names[static_cast<std::size_t>(y.kind)], host_pid(y.process), y.thread, y.start);
    duration(y.start, y.end);
    buf_ += fmt::format(",\"args\":{{\"correlation\":{},\"device\":{},\"stream\":{},\"event\":{}", y.correlation,
                        y.device, y.stream, y.event);
    if (y.record_correlation != 0) buf_ += fmt::format(",\"record_correlation\":{}", y.record_correlation);
    buf_ += "}}";
    flush(false);
  }

  void flush(bool all) {
    if (all || buf_.size() > (1u << 20)) {
      out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      buf_.clear();
    }
  }

  const trace& t_;
  std::ostream& out_;
  const chrome_options& options_;
  std::string buf_;
  bool first_ = true;
  std::map<std::pair<std::uint16_t, std::int16_t>, std::int64_t> device_pid_;
  std::map<std::string, std::string_view, std::less<>> colours_;
};

}  // namespace

std::string json_quote(std::string_view s) {
  std::string out;
  util::append_json_string(out, s);
  return out;
}

void write_chrome_trace(const trace& t, std::ostream& out, const chrome_options& options) {
  chrome_writer(t, out, options).write();
}

}  // namespace headroom::trace
