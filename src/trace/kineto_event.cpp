#include "kineto_event.hpp"

#include <cstring>
#include <optional>

#include "headroom/trace/kineto.hpp"

namespace headroom::trace::detail {
namespace ondemand = simdjson::ondemand;
namespace {

// What an event's category makes of it.
enum class event_class : std::uint8_t {
  unresolved,
  skip,  // flows, metadata, categories we do not model
  cpu_skip,  // host-side ops we do not keep (cpu_op, python_function); their pid names the process
  kernel,
  memcpy,
  memset,
  runtime,
  driver,
  cpu_annotation,
  gpu_annotation,
  nvtx,
  mtia_device,  // MTIA device timeline: compute jobs, DMA, event record/wait
  mtia_runtime,  // MTIA host runtime calls
  cuda_sync,  // CUPTI synchronisation records (torch.profiler 2.1 and later)
};

event_class classify_category(std::string_view cat) {
  // Most frequent first; the capitalised names are the pre-2022 Kineto spellings.
  if (cat == "cpu_op") return event_class::cpu_skip;
  if (cat == "cuda_runtime" || cat == "Runtime") return event_class::runtime;
  if (cat == "kernel" || cat == "Kernel") return event_class::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return event_class::memcpy;
  if (cat == "gpu_memset" || cat == "Memset") return event_class::memset;
  if (cat == "cuda_driver" || cat == "Driver") return event_class::driver;
  if (cat == "user_annotation") return event_class::cpu_annotation;
  if (cat == "gpu_user_annotation") return event_class::gpu_annotation;
  if (cat == "python_function") return event_class::cpu_skip;
  if (cat == "nvtx" || cat == "NVTX") return event_class::nvtx;
  if (cat == "mtia_ccp_events") return event_class::mtia_device;
  if (cat == "mtia_runtime") return event_class::mtia_runtime;
  if (cat == "cuda_sync") return event_class::cuda_sync;
  return event_class::skip;
}

// Compares a key as simdjson hands it (raw, after the opening quote) with a literal; the padded
// buffer makes reading one byte past the literal safe.
bool key_is(const char* raw, std::string_view literal) {
  return std::memcmp(raw, literal.data(), literal.size()) == 0 && raw[literal.size()] == '"';
}

std::string_view trim_token(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

// An integer from a number or a string holding one ("7", "0x1f", "3.0"); nullopt otherwise.
std::optional<std::int64_t> integer_token(std::string_view s) {
  s = trim_token(s);
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  std::uint64_t v = 0;
  std::size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (i = 2; i < s.size(); ++i) {
      const char c = s[i];
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return std::nullopt;
      if (v >> 59) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(d);
    }
  } else {
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (v > (UINT64_MAX - 9) / 10) return std::nullopt;
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    }
    if (i == 0) return std::nullopt;
    if (i < s.size()) {
      if (s[i] != '.') return std::nullopt;
      for (++i; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
      }
    }
  }
  if (v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

std::optional<std::int64_t> integer_value(ondemand::value& v) { return integer_token(v.raw_json_token()); }

template <class T>
T clamp_to(std::int64_t v) {
  if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v > static_cast<std::int64_t>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// CUPTI writes "no stream" as -1 or as 0xFFFFFFFF (CUPTI_SYNCHRONIZATION_INVALID_VALUE) in
// different torch versions.
std::int32_t stream_or_none(const std::optional<std::int64_t>& v) {
  if (!v || *v < 0 || *v >= 0xFFFFFFFFll) return -1;
  return clamp_to<std::int32_t>(*v);
}

std::optional<sync_kind> sync_kind_from(std::string_view kind) {
  if (kind == "Event Sync") return sync_kind::event_synchronize;
  if (kind == "Stream Wait Event") return sync_kind::stream_wait_event;
  if (kind == "Stream Sync") return sync_kind::stream_synchronize;
  if (kind == "Context Sync") return sync_kind::context_synchronize;
  return std::nullopt;
}

copy_kind copy_from_name(std::string_view name) {
  // "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", "Memcpy PtoP ..."
  const auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
  if (has("HtoD")) return copy_kind::host_to_device;
  if (has("DtoH")) return copy_kind::device_to_host;
  if (has("DtoD")) return copy_kind::device_to_device;
  if (has("PtoP")) return copy_kind::peer_to_peer;
  if (has("HtoH")) return copy_kind::host_to_host;
  return copy_kind::other;
}

copy_kind copy_from_direction(std::string_view dir) {
  // MTIA DMA requests say "HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE".
  if (dir == "HOST_TO_DEVICE") return copy_kind::host_to_device;
  if (dir == "DEVICE_TO_HOST") return copy_kind::device_to_host;
  if (dir == "DEVICE_TO_DEVICE") return copy_kind::device_to_device;
  return copy_kind::other;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

// The args fields we use, whatever the category (args can come before cat).
struct event_args {
  std::optional<std::int64_t> device, stream, correlation, bytes, registers, shared_memory, graph_node, size;
  std::optional<std::int64_t> context, wait_on_stream, wait_on_record, wait_on_event;  // cuda_sync
  std::string_view direction, sync_kind_name;
  std::uint32_t grid[3] = {0, 0, 0};
  std::uint32_t block[3] = {0, 0, 0};
};

namespace {

bool read_dim3(ondemand::value& v, std::uint32_t (&out)[3]) {
  ondemand::array arr;
  if (v.get_array().get(arr) != simdjson::SUCCESS) return true;  // not an array: ignore
  std::size_t i = 0;
  for (auto element : arr) {
    ondemand::value e;
    if (element.get(e) != simdjson::SUCCESS) return false;
    if (i < 3) {
      if (auto x = integer_value(e)) out[i] = clamp_to<std::uint32_t>(*x);
    }
    ++i;
  }
  return true;
}

// One field of an object as its raw key (for key_is) and its value; false when the JSON is malformed.
// Forced inline: called for every field of every event, as an ordinary call it cost `analyze` 18% of
// its throughput on a 2.2 GB trace (bench/RESULTS.md, "Reading traces").
[[gnu::always_inline]] inline bool split_field(simdjson::simdjson_result<ondemand::field>& field, const char*& key,
                                               ondemand::value& value) {
  ondemand::raw_json_string raw;
  if (field.key().get(raw) != simdjson::SUCCESS) return false;
  if (field.value().get(value) != simdjson::SUCCESS) return false;
  key = raw.raw();
  return true;
}

bool read_args(ondemand::value& v, event_args& a, bool geometry) {
  ondemand::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return true;  // args not an object: nothing to use
  for (auto field : obj) {
    const char* k = nullptr;
    ondemand::value value;
    if (!split_field(field, k, value)) return false;
    switch (k[0]) {
      case 'd':
        if (key_is(k, "device")) a.device = integer_value(value);
        else if (key_is(k, "direction") && value.get_string().get(a.direction) != simdjson::SUCCESS) a.direction = {};
        break;
      case 's':
        if (key_is(k, "stream")) a.stream = integer_value(value);
        else if (key_is(k, "size")) a.size = integer_value(value);
        else if (geometry && key_is(k, "shared memory")) a.shared_memory = integer_value(value);
        break;
      case 'c':
        if (key_is(k, "correlation")) a.correlation = integer_value(value);
        else if (key_is(k, "context")) a.context = integer_value(value);
        else if (key_is(k, "cuda_sync_kind") && value.get_string().get(a.sync_kind_name) != simdjson::SUCCESS) {
          a.sync_kind_name = {};
        }
        break;
      case 'w':
        if (key_is(k, "wait_on_stream")) a.wait_on_stream = integer_value(value);
        else if (key_is(k, "wait_on_cuda_event_record_corr_id")) a.wait_on_record = integer_value(value);
        else if (key_is(k, "wait_on_cuda_event_id")) a.wait_on_event = integer_value(value);
        break;
      case 'b':
        if (key_is(k, "bytes")) a.bytes = integer_value(value);
        else if (geometry && key_is(k, "block") && !read_dim3(value, a.block)) return false;
        break;
      case 'g':
        if (geometry && key_is(k, "grid") && !read_dim3(value, a.grid)) return false;
        else if (key_is(k, "graph node id")) a.graph_node = integer_value(value);
        break;
      case 'r':
        if (geometry && key_is(k, "registers per thread")) a.registers = integer_value(value);
        break;
      default:
        break;
    }
  }
  return true;
}

}  // namespace

kineto_event_mapper::kineto_event_mapper(trace& out, const read_options& options) : out_(out), options_(options) {}

bool kineto_event_mapper::map(ondemand::value event) {
  ondemand::object obj;
  if (event.get_object().get(obj) != simdjson::SUCCESS) {
    count(kineto_problem::not_an_object);
    return true;
  }
  char ph = 0;
  event_class cls = event_class::unresolved;
  std::string_view name, ts_tok, dur_tok;
  std::optional<std::int64_t> pid, tid;
  event_args args;
  bool have_args = false;

  for (auto field : obj) {
    const char* k = nullptr;
    ondemand::value value;
    if (!split_field(field, k, value)) return false;
    switch (k[0]) {
      case 'p':
        if (key_is(k, "ph")) {
          std::string_view s;
          if (value.get_string().get(s) != simdjson::SUCCESS) return true;  // not a trace event we know
          ph = s.size() == 1 ? s[0] : '?';
          if (ph != 'X' && ph != 'i' && ph != 'I') return true;  // flows, metadata, counters: skipped unread
        } else if (key_is(k, "pid")) {
          pid = integer_value(value);
        }
        break;
      case 'c':
        if (key_is(k, "cat")) {
          std::string_view s;
          if (value.get_string().get(s) != simdjson::SUCCESS) return true;
          cls = classify_category(s);
          if (cls == event_class::mtia_device || cls == event_class::mtia_runtime) hint_mtia_ = true;
        }
        break;
      case 'n':
        if (key_is(k, "name") && value.get_string().get(name) != simdjson::SUCCESS) name = {};
        break;
      case 't':
        if (key_is(k, "ts")) ts_tok = value.raw_json_token();
        else if (key_is(k, "tid")) tid = integer_value(value);
        break;
      case 'd':
        if (key_is(k, "dur")) dur_tok = value.raw_json_token();
        break;
      case 'a':
        if (key_is(k, "args") && cls != event_class::skip && cls != event_class::cpu_skip &&
            cls != event_class::cpu_annotation) {
          if (!read_args(value, args, options_.launch_geometry)) return false;
          have_args = true;
        }
        break;
      default:
        break;
    }
    // Leave as soon as the event is known to be one we drop: most of a trace is cpu_op and flows.
    if (ph == 'X' && cls != event_class::unresolved) {
      const bool need_pid = pid_ < 0 && !pid;
      switch (cls) {
        case event_class::skip:
          return true;
        case event_class::cpu_skip:
          if (!need_pid) return true;
          break;
        case event_class::runtime:
        case event_class::driver:
        case event_class::mtia_runtime:
          // Runtime names tell CUDA from ROCm (hipLaunchKernel), so read one when nothing else has.
          if (!options_.api_calls && !options_.launch_calls && !need_pid && (hint_cuda_ || hint_rocm_ || hint_mtia_)) {
            return true;
          }
          break;
        case event_class::cpu_annotation:
        case event_class::gpu_annotation:
        case event_class::nvtx:
          if (!options_.ranges && !need_pid) return true;
          break;
        default:
          break;
      }
    }
  }
  (void)have_args;

  const bool host_side = cls == event_class::cpu_skip || cls == event_class::runtime || cls == event_class::driver ||
                         cls == event_class::cpu_annotation || cls == event_class::mtia_runtime;
  if (pid_ < 0 && host_side && pid) pid_ = *pid;

  if (ph == 'i' || ph == 'I') {
    if (!options_.ranges) return true;
    const auto ts = microseconds_text_to_ns(ts_tok);
    if (!ts) {
      count(kineto_problem::missing_time);
      return true;
    }
    range r;
    r.start = r.end = *ts;
    r.name = out_.strings.intern(name);
    r.thread = tid ? static_cast<std::uint32_t>(*tid) : 0;
    r.kind = range_kind::mark;
    out_.ranges.push_back(r);
    return true;
  }
  if (ph != 'X') return true;

  switch (cls) {
    case event_class::unresolved:
    case event_class::skip:
    case event_class::cpu_skip:
      return true;
    case event_class::runtime:
    case event_class::driver:
    case event_class::mtia_runtime:
      if (name.starts_with("hip")) hint_rocm_ = true;
      else if (name.starts_with("cu")) hint_cuda_ = true;
      if (!options_.api_calls && !options_.launch_calls) return true;
      break;
    case event_class::cpu_annotation:
    case event_class::gpu_annotation:
    case event_class::nvtx:
      if (!options_.ranges) return true;
      break;
    case event_class::mtia_device:
      // Event record/wait on the MTIA timeline are synchronisation, not work.
      if (name == "event_record" || name == "event_wait") return true;
      break;
    default:
      break;
  }

  const auto ts = microseconds_text_to_ns(ts_tok);
  auto dur = microseconds_text_to_ns(dur_tok);
  if (!ts || !dur) {
    count(kineto_problem::missing_time);
    return true;
  }
  if (*dur < 0) {
    count(kineto_problem::negative_duration);
    *dur = 0;
  }
  const time_ns start = *ts;
  const time_ns end = start + *dur;

  switch (cls) {
    case event_class::kernel:
    case event_class::memcpy:
    case event_class::memset:
    case event_class::mtia_device: {
      if (*ts == 0 && *dur == 0) {
        count(kineto_problem::zero_time_kernel);
        return true;
      }
      activity a;
      a.start = start;
      a.end = end;
      a.name = out_.strings.intern(name);
      a.correlation = args.correlation ? static_cast<std::uint64_t>(*args.correlation) : 0;
      a.stream = args.stream ? clamp_to<std::int32_t>(*args.stream) : -1;
      // GPU events carry the device in args; pid is the device index too (and the only one on MTIA).
      a.device = args.device ? clamp_to<std::int16_t>(*args.device) : pid ? clamp_to<std::int16_t>(*pid) : -1;
      a.graph_node = args.graph_node ? graph_node_tag(static_cast<std::uint64_t>(*args.graph_node)) : 0;
      if (cls == event_class::memcpy) {
        a.kind = activity_kind::memcpy;
        a.copy = copy_from_name(name);
        a.bytes = args.bytes ? static_cast<std::uint64_t>(*args.bytes) : 0;
      } else if (cls == event_class::memset) {
        a.kind = activity_kind::memset;
        a.bytes = args.bytes ? static_cast<std::uint64_t>(*args.bytes) : 0;
      } else if (cls == event_class::mtia_device && name == "dma_request") {
        a.kind = activity_kind::memcpy;
        a.copy = copy_from_direction(args.direction);
        a.bytes = args.size ? static_cast<std::uint64_t>(*args.size) : 0;
      }
      out_.activities.push_back(a);
      if (options_.launch_geometry) {
        launch_geometry g;
        std::memcpy(g.grid, args.grid, sizeof g.grid);
        std::memcpy(g.block, args.block, sizeof g.block);
        g.registers_per_thread = args.registers ? clamp_to<std::uint32_t>(*args.registers) : 0;
        // Kineto reports static plus dynamic shared memory as one figure.
        g.static_shared_bytes = args.shared_memory ? clamp_to<std::uint32_t>(*args.shared_memory) : 0;
        out_.geometry.push_back(g);
      }
      return true;
    }
    case event_class::runtime:
    case event_class::driver:
    case event_class::mtia_runtime: {
      if (!options_.api_calls) {
        if (!args.correlation || *args.correlation == 0) return true;
        launch_call l;
        l.start = start;
        l.correlation = static_cast<std::uint64_t>(*args.correlation);
        l.name = out_.strings.intern(name);
        out_.launches.push_back(l);
        return true;
      }
      api_call c;
      c.start = start;
      c.end = end;
      c.name = out_.strings.intern(name);
      c.correlation = args.correlation ? static_cast<std::uint64_t>(*args.correlation) : 0;
      c.thread = tid ? static_cast<std::uint32_t>(*tid) : 0;
      c.kind = cls == event_class::driver ? api_kind::driver : api_kind::runtime;
      out_.api_calls.push_back(c);
      return true;
    }
    case event_class::cuda_sync:
      sync(args, name, start, end);
      return true;
    case event_class::cpu_annotation:
    case event_class::gpu_annotation:
    case event_class::nvtx: {
      range r;
      r.start = start;
      r.end = end;
      r.name = out_.strings.intern(name);
      r.thread = tid ? static_cast<std::uint32_t>(*tid) : 0;
      if (cls == event_class::gpu_annotation) {
        r.kind = range_kind::gpu_annotation;
        r.device = args.device ? clamp_to<std::int16_t>(*args.device) : pid ? clamp_to<std::int16_t>(*pid) : -1;
      } else {
        r.kind = cls == event_class::nvtx ? range_kind::nvtx : range_kind::cpu_annotation;
      }
      out_.ranges.push_back(r);
      return true;
    }
    default:
      return true;
  }
}

void kineto_event_mapper::sync(const event_args& args, std::string_view name, time_ns start, time_ns end) {
  auto kind = sync_kind_from(args.sync_kind_name);
  if (!kind) kind = sync_kind_from(name);
  if (!kind) {
    count(kineto_problem::unknown_sync);
    return;
  }
  synchronization y;
  y.kind = *kind;
  y.start = start;
  y.end = end;
  y.correlation = args.correlation && *args.correlation > 0 ? static_cast<std::uint64_t>(*args.correlation) : 0;
  y.device = args.device ? clamp_to<std::int16_t>(*args.device) : -1;
  y.context = args.context && *args.context > 0 ? clamp_to<std::uint32_t>(*args.context) : 0;
  if (y.kind == sync_kind::stream_wait_event || y.kind == sync_kind::stream_synchronize)
    y.stream = stream_or_none(args.stream);
  if (y.kind == sync_kind::event_synchronize || y.kind == sync_kind::stream_wait_event) {
    if (args.wait_on_event && *args.wait_on_event >= 0) y.event = *args.wait_on_event;
    if (args.wait_on_record && *args.wait_on_record > 0) {
      y.record_correlation = static_cast<std::uint64_t>(*args.wait_on_record);
      // The record itself is not an event of the trace: the wait says which call recorded the
      // event and on which stream, and the call says when.
      synchronization r;
      r.kind = sync_kind::event_record;
      r.correlation = y.record_correlation;
      r.event = y.event;
      r.stream = stream_or_none(args.wait_on_stream);
      r.device = y.device;
      r.context = y.context;
      records_.push_back(r);
    }
  }
  out_.synchronizations.push_back(y);
}

void kineto_event_mapper::add_event_records() {
  // One row per recording call; complete_synchronizations dates it by that call.
  std::sort(records_.begin(), records_.end(),
            [](const synchronization& a, const synchronization& b) { return a.correlation < b.correlation; });
  records_.erase(
      std::unique(records_.begin(), records_.end(),
                  [](const synchronization& a, const synchronization& b) { return a.correlation == b.correlation; }),
      records_.end());
  out_.synchronizations.insert(out_.synchronizations.end(), records_.begin(), records_.end());
  records_.clear();
}

void kineto_event_mapper::top_level(std::string_view key, ondemand::document& doc) {
  if (key == "deviceProperties") {
    ondemand::array devices;
    if (doc.get_array().get(devices) != simdjson::SUCCESS) return;
    for (auto element : devices) {
      ondemand::object obj;
      if (element.get_object().get(obj) != simdjson::SUCCESS) continue;
      device_info d;
      std::int64_t warp = 0;
      for (auto field : obj) {
        std::string_view k;
        ondemand::value v;
        if (field.unescaped_key().get(k) != simdjson::SUCCESS || field.value().get(v) != simdjson::SUCCESS) break;
        if (k == "id") {
          if (auto x = integer_value(v)) d.id = clamp_to<std::int16_t>(*x);
        } else if (k == "name") {
          std::string_view s;
          if (v.get_string().get(s) == simdjson::SUCCESS) d.name = s;
        } else if (k == "computeMajor") {
          if (auto x = integer_value(v)) d.compute_major = clamp_to<int>(*x);
        } else if (k == "computeMinor") {
          if (auto x = integer_value(v)) d.compute_minor = clamp_to<int>(*x);
        } else if (k == "numSms") {
          if (auto x = integer_value(v)) d.sm_count = clamp_to<int>(*x);
        } else if (k == "totalGlobalMem") {
          if (auto x = integer_value(v)) d.memory_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(*x, 0));
        } else if (k == "warpSize") {
          warp = integer_value(v).value_or(0);
        }
      }
      // AMD GPUs run 64-wide wavefronts and say "AMD" in the name; NVIDIA ones never do either.
      if (contains(d.name, "AMD") || contains(d.name, "Radeon") || contains(d.name, "Instinct") || warp == 64) {
        hint_rocm_ = true;
      } else if (warp == 32 || contains(d.name, "NVIDIA") || contains(d.name, "Tesla")) {
        hint_cuda_ = true;
      }
      out_.devices.push_back(std::move(d));
    }
  } else if (key == "distributedInfo") {
    ondemand::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) return;
    for (auto field : obj) {
      std::string_view k;
      ondemand::value v;
      if (field.unescaped_key().get(k) != simdjson::SUCCESS || field.value().get(v) != simdjson::SUCCESS) break;
      if (k == "rank") {
        if (auto x = integer_value(v)) rank_ = clamp_to<std::int32_t>(*x);
      } else if (k == "backend") {
        std::string_view s;
        if (v.get_string().get(s) == simdjson::SUCCESS && contains(s, "mtia")) hint_mtia_ = true;
      }
    }
  } else if (key == "host_name") {
    std::string_view s;
    if (doc.get_string().get(s) == simdjson::SUCCESS) host_ = s;
  } else if (key == "baseTimeNanoseconds") {
    // Kineto writes ts relative to this base (to keep doubles precise); adding it back puts every
    // rank of a job on the same clock.
    std::string_view raw;
    if (doc.raw_json_token().get(raw) == simdjson::SUCCESS) base_time_ = integer_token(raw).value_or(0);
  } else if (key == "cupti_version" || key == "cuda_runtime_version" || key == "cuda_driver_version") {
    hint_cuda_ = true;
  }
}

void kineto_event_mapper::finish(std::string_view file_name) {
  if (base_time_ != 0) {
    for (auto& a : out_.activities) a.start += base_time_, a.end += base_time_;
    for (auto& c : out_.api_calls) c.start += base_time_, c.end += base_time_;
    for (auto& l : out_.launches) l.start += base_time_;
    for (auto& r : out_.ranges) r.start += base_time_, r.end += base_time_;
    for (auto& y : out_.synchronizations) y.start += base_time_, y.end += base_time_;
  }
  add_event_records();
  complete_synchronizations(out_);
  process_info p;
  p.pid = pid_ >= 0 ? static_cast<std::uint32_t>(pid_) : 0;
  p.name = file_name;
  p.rank = rank_;
  p.host = host_;
  out_.processes.push_back(std::move(p));
  out_.format = source_format::kineto_json;
  out_.platform = hint_mtia_ ? "mtia" : hint_rocm_ ? "rocm" : hint_cuda_ ? "cuda" : "";

  static constexpr std::string_view messages[] = {
      "events without a usable ts or dur skipped",
      "kernels with ts 0 and dur 0 dropped (Kineto could not place them)",
      "negative durations clamped to 0",
      "entries of traceEvents that are not objects skipped",
      "cuda_sync events of a kind this reader does not know skipped",
  };
  for (std::size_t i = 0; i < problems_.size(); ++i) {
    if (problems_[i] != 0) out_.warnings.push_back({std::string(messages[i]), problems_[i]});
  }
}

}  // namespace headroom::trace::detail
