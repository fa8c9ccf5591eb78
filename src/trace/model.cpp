#include "headroom/trace/model.hpp"

#include <algorithm>

namespace headroom::trace {

string_table::string_table() { intern(""); }

string_id string_table::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  const auto id = static_cast<string_id>(views_.size());
  const std::string& stored = storage_.emplace_back(s);
  views_.emplace_back(stored);
  index_.emplace(views_.back(), id);
  return id;
}

std::optional<string_id> string_table::find(std::string_view s) const {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  return std::nullopt;
}

namespace {

void add_warning(std::vector<reader_warning>& warnings, reader_warning w) {
  for (auto& m : warnings) {
    if (m.what == w.what && m.lost == w.lost) {
      m.count += w.count;
      return;
    }
  }
  warnings.push_back(std::move(w));
}

}  // namespace

void trace::warn(std::string what) { add_warning(warnings, {std::move(what), 1, false}); }

void trace::lose(std::string what) { add_warning(warnings, {std::move(what), 1, true}); }

bool trace::partial() const {
  return std::any_of(warnings.begin(), warnings.end(), [](const reader_warning& w) { return w.lost; });
}

void append(trace& into, trace&& from) {
  if (into.processes.empty() && into.activities.empty()) {
    // The first trace is taken whole: copying it would double the peak memory of a large read.
    into = std::move(from);
    return;
  }
  std::vector<string_id> remap(from.strings.size());
  for (string_id i = 0; i < from.strings.size(); ++i) remap[i] = into.strings.intern(from.strings[i]);
  const auto process_base = static_cast<std::uint16_t>(into.processes.size());
  const auto rebase = [&](std::uint16_t p) { return static_cast<std::uint16_t>(p + process_base); };
  const bool geometry =
      into.geometry.size() == into.activities.size() && from.geometry.size() == from.activities.size();

  into.activities.reserve(into.activities.size() + from.activities.size());
  for (auto a : from.activities) {
    a.name = remap[a.name];
    a.process = rebase(a.process);
    into.activities.push_back(a);
  }
  if (geometry) {
    into.geometry.insert(into.geometry.end(), from.geometry.begin(), from.geometry.end());
  } else {
    into.geometry.clear();
  }
  into.api_calls.reserve(into.api_calls.size() + from.api_calls.size());
  for (auto c : from.api_calls) {
    c.name = remap[c.name];
    c.process = rebase(c.process);
    into.api_calls.push_back(c);
  }
  into.launches.reserve(into.launches.size() + from.launches.size());
  for (auto l : from.launches) {
    l.name = remap[l.name];
    l.process = rebase(l.process);
    into.launches.push_back(l);
  }
  into.ranges.reserve(into.ranges.size() + from.ranges.size());
  for (auto r : from.ranges) {
    r.name = remap[r.name];
    r.process = rebase(r.process);
    into.ranges.push_back(r);
  }
  into.synchronizations.reserve(into.synchronizations.size() + from.synchronizations.size());
  for (auto y : from.synchronizations) {
    y.process = rebase(y.process);
    into.synchronizations.push_back(y);
  }
  for (auto d : from.devices) {
    d.process = rebase(d.process);
    into.devices.push_back(std::move(d));
  }
  for (auto& p : from.processes) into.processes.push_back(std::move(p));
  for (auto& w : from.warnings) add_warning(into.warnings, std::move(w));
  if (into.platform.empty()) into.platform = from.platform;
  into.dropped_records += from.dropped_records;
}

void complete_synchronizations(trace& t) {
  if (t.synchronizations.empty()) return;
  struct call_info {
    std::uint16_t process;
    std::uint64_t correlation;
    std::uint32_t thread;
    time_ns start;
    time_ns end;
  };
  std::vector<call_info> calls;
  calls.reserve(t.api_calls.size() + t.launches.size());
  for (const auto& c : t.api_calls) {
    if (c.correlation != 0) calls.push_back({c.process, c.correlation, c.thread, c.start, c.end});
  }
  for (const auto& l : t.launches) calls.push_back({l.process, l.correlation, 0, l.start, l.start});
  if (calls.empty()) return;
  const auto key = [](const call_info& c) { return std::pair{c.process, c.correlation}; };
  const auto less = [&](const call_info& a, const call_info& b) { return key(a) < key(b); };
  std::sort(calls.begin(), calls.end(), less);
  for (auto& y : t.synchronizations) {
    const bool undated = y.kind == sync_kind::event_record && y.start == 0 && y.end == 0;
    if ((y.thread != 0 && !undated) || y.correlation == 0) continue;
    const call_info probe{y.process, y.correlation, 0, 0, 0};
    const auto it = std::lower_bound(calls.begin(), calls.end(), probe, less);
    if (it == calls.end() || key(*it) != key(probe)) continue;
    if (y.thread == 0) y.thread = it->thread;
    if (undated) y.start = it->start, y.end = it->end;
  }
}

std::string_view to_string(activity_kind k) {
  switch (k) {
    case activity_kind::kernel:
      return "kernel";
    case activity_kind::memcpy:
      return "memcpy";
    case activity_kind::memset:
      return "memset";
  }
  return "?";
}

std::string_view to_string(copy_kind k) {
  switch (k) {
    case copy_kind::none:
      return "none";
    case copy_kind::host_to_device:
      return "HtoD";
    case copy_kind::device_to_host:
      return "DtoH";
    case copy_kind::device_to_device:
      return "DtoD";
    case copy_kind::peer_to_peer:
      return "PtoP";
    case copy_kind::host_to_host:
      return "HtoH";
    case copy_kind::other:
      return "other";
  }
  return "?";
}

std::string_view to_string(range_kind k) {
  switch (k) {
    case range_kind::cpu_annotation:
      return "cpu_annotation";
    case range_kind::gpu_annotation:
      return "gpu_annotation";
    case range_kind::nvtx:
      return "nvtx";
    case range_kind::mark:
      return "mark";
  }
  return "?";
}

std::string_view to_string(sync_kind k) {
  switch (k) {
    case sync_kind::event_synchronize:
      return "event_synchronize";
    case sync_kind::stream_wait_event:
      return "stream_wait_event";
    case sync_kind::stream_synchronize:
      return "stream_synchronize";
    case sync_kind::context_synchronize:
      return "context_synchronize";
    case sync_kind::event_record:
      return "event_record";
  }
  return "?";
}

std::string_view to_string(source_format f) {
  switch (f) {
    case source_format::kineto_json:
      return "kineto-json";
    case source_format::nsys_sqlite:
      return "nsys-sqlite";
    case source_format::headroom_store:
      return "headroom-store";
    case source_format::synthetic:
      return "synthetic";
  }
  return "?";
}

}  // namespace headroom::trace
