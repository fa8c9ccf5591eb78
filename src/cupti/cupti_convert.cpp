#include "cupti_convert.hpp"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace headroom::cupti {
namespace {

constexpr std::array<std::string_view, 11> copy_kind_names = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                              "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
constexpr std::array<std::string_view, 8> memory_kind_names = {
    "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static"};

template <std::size_t N>
std::string_view lookup(const std::array<std::string_view, N>& names, unsigned i) {
  return i < N ? names[i] : names[0];
}

}  // namespace

trace::copy_kind to_copy_kind(std::uint8_t k) {
  using trace::copy_kind;
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return copy_kind::host_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return copy_kind::device_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return copy_kind::device_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return copy_kind::host_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return copy_kind::peer_to_peer;
    default:
      return copy_kind::other;
  }
}

std::string copy_name(std::uint8_t copy_kind, std::uint8_t src_memory_kind, std::uint8_t dst_memory_kind) {
  return fmt::format("Memcpy {} ({} -> {})", lookup(copy_kind_names, copy_kind),
                     lookup(memory_kind_names, src_memory_kind), lookup(memory_kind_names, dst_memory_kind));
}

std::string memset_name(std::uint16_t memory_kind) {
  return fmt::format("Memset ({})", lookup(memory_kind_names, memory_kind));
}

std::optional<trace::sync_kind> to_sync_kind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return trace::sync_kind::event_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return trace::sync_kind::stream_wait_event;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return trace::sync_kind::stream_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return trace::sync_kind::context_synchronize;
    default:
      return std::nullopt;
  }
}

std::string_view without_version_suffix(std::string_view name) {
  // Runtime callbacks carry the CUDA version that introduced them ("_v7000", "_v11060"). Short
  // suffixes ("cuMemcpyHtoD_v2") are part of real driver symbol names and stay.
  const auto at = name.rfind("_v");
  if (at == std::string_view::npos || name.size() - at - 2 < 4) return name;
  for (auto c : name.substr(at + 2)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return name;
  }
  return name.substr(0, at);
}

activity_converter::activity_converter(trace::event_stream_writer& out, callback_name_fn callback_name)
    : out_(out), callback_name_(std::move(callback_name)) {}

void activity_converter::convert(const CUpti_Activity& record) noexcept {
  // Records are cast to the struct of their kind, as CUPTI's own samples do; the buffer holds the
  // struct version of the headers we were built with.
  try {
    switch (record.kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        kernel(reinterpret_cast<const kernel_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        copy(reinterpret_cast<const memcpy_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        peer_copy(reinterpret_cast<const peer_copy_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        memset(reinterpret_cast<const memset_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        api(reinterpret_cast<const api_record&>(record), trace::api_kind::runtime);
        return;
      case CUPTI_ACTIVITY_KIND_DRIVER:
        api(reinterpret_cast<const api_record&>(record), trace::api_kind::driver);
        return;
      case CUPTI_ACTIVITY_KIND_MARKER:
        marker(reinterpret_cast<const marker_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_MARKER_DATA:
        return;  // colour and category of a marker: not kept
      case CUPTI_ACTIVITY_KIND_OVERHEAD:
        overhead(reinterpret_cast<const overhead_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_DEVICE:
        device(reinterpret_cast<const device_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        synchronization(reinterpret_cast<const sync_record&>(record));
        return;
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
        cuda_event(reinterpret_cast<const cuda_event_record&>(record));
        return;
      default:
        unconverted(record.kind, "not converted by this build");
        return;
    }
  } catch (...) {
    // Only allocation can throw here; losing one record beats taking the host process down.
    ++counts_.unconverted;
  }
}

bool activity_converter::untimed(std::uint64_t start, std::uint64_t end) {
  // CUPTI leaves 0 when it could not collect a timestamp (and in records a forced flush cut short).
  if (start != 0 && end != 0) return false;
  ++counts_.untimed;
  out_.add_counter(trace::event_counter::untimed_records, 1);
  return true;
}

namespace {

// The fields every device activity record carries alike: when and where it ran, what launched it.
template <class Record>
trace::activity placed(const Record& r, trace::activity_kind kind) {
  trace::activity a;
  a.kind = kind;
  a.start = static_cast<trace::time_ns>(r.start);
  a.end = static_cast<trace::time_ns>(r.end);
  a.correlation = r.correlationId;
  a.stream = static_cast<std::int32_t>(r.streamId);
  a.device = static_cast<std::int16_t>(r.deviceId);  // for peer copies: the device that ran the copy
  a.graph_node = r.graphId != 0 ? trace::graph_node_tag(r.graphNodeId) : 0;
  return a;
}

}  // namespace

trace::string_id activity_converter::kernel_name(const char* name) {
  if (!name) return out_.intern("<unknown kernel>");
  if (const auto id = kernel_names_.find(name)) return *id;
  const std::string_view text(name);
  const auto id = out_.intern(text);
  kernel_names_.remember(name, text, id);
  return id;
}

void activity_converter::kernel(const kernel_record& r) {
  learn_context(r.contextId, r.deviceId);
  if (untimed(r.start, r.end)) return;
  trace::activity a = placed(r, trace::activity_kind::kernel);
  a.name = kernel_name(r.name);

  trace::launch_geometry g;
  g.grid[0] = static_cast<std::uint32_t>(r.gridX);
  g.grid[1] = static_cast<std::uint32_t>(r.gridY);
  g.grid[2] = static_cast<std::uint32_t>(r.gridZ);
  g.block[0] = static_cast<std::uint32_t>(r.blockX);
  g.block[1] = static_cast<std::uint32_t>(r.blockY);
  g.block[2] = static_cast<std::uint32_t>(r.blockZ);
  g.registers_per_thread = r.registersPerThread;
  g.static_shared_bytes = static_cast<std::uint32_t>(r.staticSharedMemory);
  g.dynamic_shared_bytes = static_cast<std::uint32_t>(r.dynamicSharedMemory);
  out_.add(a, g);
  ++counts_.kernels;
}

template <class Record>
void activity_converter::any_copy(const Record& r) {
  learn_context(r.contextId, r.deviceId);
  if (untimed(r.start, r.end)) return;
  trace::activity a = placed(r, trace::activity_kind::memcpy);
  a.copy = to_copy_kind(r.copyKind);
  a.bytes = r.bytes;
  a.name = out_.intern(copy_name(r.copyKind, r.srcKind, r.dstKind));
  out_.add(a);
  ++counts_.copies;
}

void activity_converter::copy(const memcpy_record& r) { any_copy(r); }
void activity_converter::peer_copy(const peer_copy_record& r) { any_copy(r); }

void activity_converter::memset(const memset_record& r) {
  learn_context(r.contextId, r.deviceId);
  if (untimed(r.start, r.end)) return;
  trace::activity a = placed(r, trace::activity_kind::memset);
  a.bytes = r.bytes;
  a.name = out_.intern(memset_name(r.memoryKind));
  out_.add(a);
  ++counts_.memsets;
}

trace::string_id activity_converter::api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const auto key = static_cast<std::uint64_t>(domain) << 32 | cbid;
  if (auto it = api_names_.find(key); it != api_names_.end()) return it->second;
  std::string_view name = callback_name_ ? callback_name_(domain, cbid) : std::string_view();
  std::string fallback;
  if (name.empty()) {
    fallback = fmt::format("<{} API {}>", domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime", cbid);
    name = fallback;
  }
  const auto id = out_.intern(without_version_suffix(name));
  api_names_.emplace(key, id);
  return id;
}

void activity_converter::api(const api_record& r, trace::api_kind kind) {
  if (untimed(r.start, r.end)) return;
  trace::api_call c;
  c.kind = kind;
  c.start = static_cast<trace::time_ns>(r.start);
  c.end = static_cast<trace::time_ns>(r.end);
  c.correlation = r.correlationId;
  c.thread = r.threadId;
  c.name = api_name(kind == trace::api_kind::driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, r.cbid);
  out_.add(c);
  ++counts_.api_calls;
}

void activity_converter::marker(const marker_record& r) {
  const auto thread = r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r.objectId.pt.threadId : 0u;
  const auto at = static_cast<trace::time_ns>(r.timestamp);
  if (r.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    trace::range mark;
    mark.kind = trace::range_kind::mark;
    mark.start = mark.end = at;
    mark.name = out_.intern(r.name ? r.name : "");
    mark.thread = thread;
    out_.add(mark);
    ++counts_.ranges;
    return;
  }
  if (r.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    // Push/pop and start/end ranges both arrive as a START and an END sharing an id; pairing by id
    // (not by nesting) keeps interleaved start/end ranges apart.
    open_ranges_[r.id] = {at, out_.intern(r.name ? r.name : ""), thread};
    return;
  }
  if (r.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    const auto it = open_ranges_.find(r.id);
    if (it == open_ranges_.end()) {
      ++counts_.unpaired_marker_ends;
      out_.add_warning("an NVTX range end arrived without its start; it was skipped");
      return;
    }
    trace::range range;
    range.kind = trace::range_kind::nvtx;
    range.start = it->second.start;
    range.end = at;
    range.name = it->second.name;
    range.thread = it->second.thread;  // an end may come from another thread; the range is the starter's
    open_ranges_.erase(it);
    out_.add(range);
    ++counts_.ranges;
    return;
  }
  unconverted(CUPTI_ACTIVITY_KIND_MARKER, "NVTX synchronisation markers are not converted");
}

void activity_converter::overhead(const overhead_record& r) {
  ++counts_.overhead_records;
  out_.add_counter(trace::event_counter::overhead_records, 1);
  if (r.end > r.start) out_.add_counter(trace::event_counter::overhead_ns, r.end - r.start);
}

void activity_converter::device(const device_record& r) {
  trace::device_info d;
  d.id = static_cast<std::int16_t>(r.id);
  d.name = r.name ? r.name : "";
  d.compute_major = static_cast<int>(r.computeCapabilityMajor);
  d.compute_minor = static_cast<int>(r.computeCapabilityMinor);
  d.sm_count = static_cast<int>(r.numMultiprocessors);
  d.memory_bytes = r.globalMemorySize;
  out_.add(d);
  ++counts_.devices;
}

void activity_converter::synchronization(const sync_record& r) {
  const auto kind = to_sync_kind(r.type);
  if (!kind) {
    unconverted(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronisation records of unknown type are not converted");
    return;
  }
  if (untimed(r.start, r.end)) return;
  trace::synchronization y;
  y.kind = *kind;
  y.start = static_cast<trace::time_ns>(r.start);
  y.end = static_cast<trace::time_ns>(r.end);
  y.correlation = r.correlationId;
  y.context = r.contextId;
  // CUPTI marks the fields a type does not have (no stream for cuCtxSynchronize, no event for
  // cuStreamSynchronize) with CUPTI_SYNCHRONIZATION_INVALID_VALUE.
  if (r.streamId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) y.stream = static_cast<std::int32_t>(r.streamId);
  if (r.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) y.event = r.cudaEventId;
  if (r.cudaEventSyncId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
    if (const auto it = record_of_sync_id_.find(r.cudaEventSyncId); it != record_of_sync_id_.end()) {
      y.record_correlation = it->second;
    }
  }
  write_synchronization(y, r.contextId);
}

void activity_converter::cuda_event(const cuda_event_record& r) {
  // The record carries no host time: the reader dates it by its cudaEventRecord call.
  trace::synchronization y;
  y.kind = trace::sync_kind::event_record;
  y.correlation = r.correlationId;
  y.context = r.contextId;
  y.device = static_cast<std::int16_t>(r.deviceId);
  y.event = r.eventId;
  if (r.streamId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) y.stream = static_cast<std::int32_t>(r.streamId);
  if (r.cudaEventSyncId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
    constexpr std::size_t max_records = 1u << 16;
    if (record_of_sync_id_.size() >= max_records) record_of_sync_id_.clear();
    record_of_sync_id_[r.cudaEventSyncId] = r.correlationId;
  }
  out_.add(y);
  ++counts_.synchronizations;
}

void activity_converter::write_synchronization(trace::synchronization y, std::uint32_t context) {
  // Bounded so a context that never runs anything cannot grow the host process's memory.
  constexpr std::size_t max_waiting = 1u << 16;
  if (const auto it = context_devices_.find(context); it != context_devices_.end()) {
    y.device = it->second;
  } else if (waiting_for_context_.size() < max_waiting) {
    waiting_for_context_.emplace_back(y, context);
    return;
  }
  out_.add(y);
  ++counts_.synchronizations;
}

void activity_converter::learn_context(std::uint32_t context, std::uint32_t device) {
  // Called for every device record: records come in runs from one context, so the last one seen
  // answers without a hash lookup; a known context allocates nothing.
  if (context == last_context_) return;
  last_context_ = context;
  if (!context_devices_.try_emplace(context, static_cast<std::int16_t>(device)).second) return;
  if (waiting_for_context_.empty()) return;
  std::vector<std::pair<trace::synchronization, std::uint32_t>> still_waiting;
  for (auto& [y, c] : waiting_for_context_) {
    if (c == context) {
      y.device = static_cast<std::int16_t>(device);
      out_.add(y);
      ++counts_.synchronizations;
    } else {
      still_waiting.emplace_back(y, c);
    }
  }
  waiting_for_context_ = std::move(still_waiting);
}

void activity_converter::unconverted(CUpti_ActivityKind kind, std::string_view why) {
  ++counts_.unconverted;
  out_.add_counter(trace::event_counter::unconverted_records, 1);
  if (unconverted_kinds_.insert(static_cast<std::uint32_t>(kind)).second) {
    out_.add_warning(fmt::format("CUPTI activity kind {}: {}; its records were skipped", static_cast<int>(kind), why));
  }
}

void activity_converter::add_dropped(std::uint64_t records) noexcept {
  if (records == 0) return;
  out_.add_counter(trace::event_counter::dropped_records, records);
}

void activity_converter::finish() noexcept {
  // Synchronisations on a context nothing ran on: kept, on an unknown device.
  for (const auto& [y, context] : waiting_for_context_) {
    out_.add(y);
    ++counts_.synchronizations;
  }
  waiting_for_context_.clear();
  if (!open_ranges_.empty()) {
    try {
      out_.add_warning(
          fmt::format("{} NVTX range(s) still open when profiling stopped were skipped", open_ranges_.size()));
    } catch (...) {}
    open_ranges_.clear();
  }
  out_.flush();
}

}  // namespace headroom::cupti
