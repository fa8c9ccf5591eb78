// Nsight Systems `nsys export --type sqlite` files -> trace. Columns drift between nsys versions, so
// every query is built from the columns the file has (PRAGMA table_info); a missing optional column
// reads as NULL and a missing optional table is skipped.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "headroom/trace/reader.hpp"
#include "headroom/util/error.hpp"
#include "headroom/store/sqlite.hpp"
#include "geometry_columns.hpp"

namespace headroom::trace {
namespace sqlite = headroom::store::sqlite;
namespace {

// globalPid / globalTid pack (hardware id, vm id, pid, tid): the low 24 bits are the tid, the next
// 24 the pid. Processes are keyed by everything above the tid, so equal pids on two hosts stay apart.
constexpr std::uint64_t tid_bits = 0xFFFFFF;
std::uint64_t process_key(std::int64_t global) { return static_cast<std::uint64_t>(global) & ~tid_bits; }
std::uint32_t pid_of(std::int64_t global) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(global) >> 24) & 0xFFFFFF);
}
std::uint32_t tid_of(std::int64_t global) { return static_cast<std::uint32_t>(global & tid_bits); }

constexpr std::array<const char*, 5> activity_tables = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                        "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                        "CUPTI_ACTIVITY_KIND_DRIVER"};

// Uppercase letters and digits only: "Host-to-Device" and "CUDA_MEMCPY_OPER_HTOD" both compare.
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::optional<copy_kind> copy_kind_from_label(std::string_view label) {
  const std::string s = squash(label);
  // Arrays are device memory laid out for textures: a copy to or from one is a device-side copy.
  if (ends_with(s, "HTOD") || ends_with(s, "HOSTTODEVICE") || ends_with(s, "HTOA")) return copy_kind::host_to_device;
  if (ends_with(s, "DTOH") || ends_with(s, "DEVICETOHOST") || ends_with(s, "ATOH")) return copy_kind::device_to_host;
  if (ends_with(s, "DTOD") || ends_with(s, "DEVICETODEVICE") || ends_with(s, "ATOA") || ends_with(s, "ATOD") ||
      ends_with(s, "DTOA")) {
    return copy_kind::device_to_device;
  }
  if (ends_with(s, "PTOP") || ends_with(s, "PEERTOPEER")) return copy_kind::peer_to_peer;
  if (ends_with(s, "HTOH") || ends_with(s, "HOSTTOHOST")) return copy_kind::host_to_host;
  return std::nullopt;
}

// CUpti_ActivityMemcpyKind, for files without ENUM_CUDA_MEMCPY_OPER.
copy_kind copy_kind_from_cupti(std::int64_t v) {
  switch (v) {
    case 1:
    case 3:
      return copy_kind::host_to_device;
    case 2:
    case 4:
      return copy_kind::device_to_host;
    case 5:
    case 6:
    case 7:
    case 8:
      return copy_kind::device_to_device;
    case 9:
      return copy_kind::host_to_host;
    case 10:
      return copy_kind::peer_to_peer;
    default:
      return copy_kind::other;
  }
}

class nsys_reader {
 public:
  nsys_reader(const std::filesystem::path& path, const read_options& options)
      : path_(path), db_(check_header(path), sqlite::open_mode::read_only), options_(options) {}

  trace read() {
    bool any = false;
    for (const char* table : activity_tables) any = any || db_.has_table(table);
    if (!any) {
      throw input_error(
          fmt::format("no CUDA activity in {}: was the capture started with --trace=cuda?", path_.string()));
    }
    t_.format = source_format::nsys_sqlite;
    t_.platform = "cuda";
    size_bytes_ = std::filesystem::file_size(path_);
    count_rows();
    load_process_names();
    read_kernels();
    read_copies();
    read_memsets();
    if (options_.api_calls) {
      read_api_calls("CUPTI_ACTIVITY_KIND_RUNTIME", api_kind::runtime);
      read_api_calls("CUPTI_ACTIVITY_KIND_DRIVER", api_kind::driver);
    }
    if (options_.ranges) read_nvtx();
    read_synchronizations();
    read_devices();
    if (options_.progress) options_.progress(size_bytes_, size_bytes_);
    return std::move(t_);
  }

 private:
  static const std::filesystem::path& check_header(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(fmt::format("cannot open {}", path.string()));
    char magic[16] = {};
    in.read(magic, sizeof magic);
    if (std::string_view(magic, static_cast<std::size_t>(in.gcount())) != std::string_view("SQLite format 3\0", 16)) {
      throw input_error(fmt::format("{} is not an SQLite file (nsys export --type sqlite writes one)", path.string()));
    }
    return path;
  }

  // SELECT of `wanted` columns, NULL for each one the table lacks; `required` ones must exist.
  sqlite::statement select(std::string_view table, std::initializer_list<std::string_view> wanted,
                           std::initializer_list<std::string_view> required) {
    const auto have = db_.columns(table);
    for (auto r : required) {
      if (!have.contains(std::string(r))) {
        throw input_error(fmt::format("{}: table {} has no column {}: not an nsys export this reader knows",
                                      path_.string(), table, r));
      }
    }
    std::string sql = "SELECT ";
    bool first = true;
    for (auto w : wanted) {
      if (!first) sql += ", ";
      first = false;
      sql += have.contains(std::string(w)) ? fmt::format("\"{}\"", w) : std::string("NULL");
    }
    sql += fmt::format(" FROM \"{}\"", table);
    return db_.prepare(sql);
  }

  void count_rows() {
    for (const char* table : activity_tables) {
      if (db_.has_table(table)) rows_total_ += count(table);
    }
    if (db_.has_table("NVTX_EVENTS")) rows_total_ += count("NVTX_EVENTS");
  }

  std::uint64_t count(std::string_view table) {
    auto s = db_.prepare(fmt::format("SELECT count(*) FROM \"{}\"", table));
    return s.step() ? static_cast<std::uint64_t>(s.int64(0)) : 0;
  }

  void row_done() {
    if (++rows_done_ % 65536 == 0 && options_.progress && rows_total_ > 0) {
      options_.progress(size_bytes_ * rows_done_ / rows_total_, size_bytes_);
    }
  }

  void load_process_names() {
    if (!db_.has_table("PROCESSES")) return;
    auto s = select("PROCESSES", {"globalPid", "pid", "name"}, {"globalPid"});
    while (s.step()) process_names_[process_key(s.int64(0))] = std::string(s.text(2));
  }

  std::uint16_t process(std::int64_t global) {
    const auto key = process_key(global);
    if (auto it = processes_.find(key); it != processes_.end()) return it->second;
    if (t_.processes.size() > 0xFFFF) throw input_error(fmt::format("{}: more than 65536 processes", path_.string()));
    const auto index = static_cast<std::uint16_t>(t_.processes.size());
    process_info p;
    p.pid = pid_of(global);
    if (auto it = process_names_.find(key); it != process_names_.end() && !it->second.empty()) {
      p.name = it->second;
    } else {
      p.name = path_.filename().string();
    }
    t_.processes.push_back(std::move(p));
    processes_.emplace(key, index);
    return index;
  }

  std::optional<string_id> lookup(std::int64_t id) {
    if (auto it = names_.find(id); it != names_.end()) return it->second;
    if (!string_lookup_) {
      if (!db_.has_table("StringIds")) return std::nullopt;
      string_lookup_.emplace(db_.prepare("SELECT value FROM StringIds WHERE id = ?"));
    }
    auto& s = *string_lookup_;
    s.reset();
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    const auto ours = t_.strings.intern(s.text(0));
    names_.emplace(id, ours);
    return ours;
  }

  // A name column holds a StringIds id, or (in some exports) the text itself.
  std::optional<string_id> name_at(const sqlite::statement& s, int column) {
    if (s.is_null(column)) return std::nullopt;
    if (s.is_text(column)) return t_.strings.intern(s.text(column));
    return lookup(s.int64(column));
  }

  void clamp(time_ns start, time_ns& end) {
    if (end < start) {
      t_.warn("an activity ends before it starts; its end was set to its start");
      end = start;
    }
  }

  void seen_device(std::uint16_t process, std::int16_t device) {
    if (device_pairs_.insert({process, device}).second) device_order_.emplace_back(process, device);
  }

  void read_kernels() {
    if (!db_.has_table("CUPTI_ACTIVITY_KIND_KERNEL")) return;
    auto s = select("CUPTI_ACTIVITY_KIND_KERNEL",
                    {"start",
                     "end",
                     "deviceId",
                     "streamId",
                     "correlationId",
                     "globalPid",
                     "demangledName",
                     "shortName",
                     "mangledName",
                     "name",
                     "gridX",
                     "gridY",
                     "gridZ",
                     "blockX",
                     "blockY",
                     "blockZ",
                     "registersPerThread",
                     "staticSharedMemory",
                     "dynamicSharedMemory",
                     "graphNodeId"},
                    {"start", "end"});
    while (s.step()) {
      activity a = placed(s, activity_kind::kernel, 19);
      std::optional<string_id> name;
      for (int column : {6, 7, 8, 9}) {
        if ((name = name_at(s, column))) break;
      }
      if (!name) t_.warn("a kernel's name is missing from StringIds; it reads as \"<unknown kernel>\"");
      a.name = name ? *name : t_.strings.intern("<unknown kernel>");
      t_.activities.push_back(a);
      if (options_.launch_geometry) t_.geometry.push_back(geometry_columns(s, 10));
      row_done();
    }
  }

  void read_copies() {
    if (!db_.has_table("CUPTI_ACTIVITY_KIND_MEMCPY")) return;
    std::unordered_map<std::int64_t, copy_kind> labels;
    const bool have_enum = db_.has_table("ENUM_CUDA_MEMCPY_OPER");
    if (have_enum) {
      auto e = select("ENUM_CUDA_MEMCPY_OPER", {"id", "name", "label"}, {"id"});
      while (e.step()) {
        auto k = copy_kind_from_label(e.text(1));
        if (!k) k = copy_kind_from_label(e.text(2));
        labels[e.int64(0)] = k.value_or(copy_kind::other);
      }
    }
    auto s = select(
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind", "graphNodeId"},
        {"start", "end"});
    while (s.step()) {
      activity a = placed(s, activity_kind::memcpy, 8);
      a.bytes = static_cast<std::uint64_t>(s.int64(6));
      const auto raw = s.int64(7);
      if (have_enum) {
        auto it = labels.find(raw);
        a.copy = it != labels.end() ? it->second : copy_kind::other;
      } else {
        a.copy = copy_kind_from_cupti(raw);
      }
      a.name = t_.strings.intern(fmt::format("Memcpy {}", to_string(a.copy)));
      push_activity(a);
      row_done();
    }
  }

  void read_memsets() {
    if (!db_.has_table("CUPTI_ACTIVITY_KIND_MEMSET")) return;
    auto s = select("CUPTI_ACTIVITY_KIND_MEMSET",
                    {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "graphNodeId"},
                    {"start", "end"});
    const auto name = t_.strings.intern("Memset");
    while (s.step()) {
      activity a = placed(s, activity_kind::memset, 7);
      a.bytes = static_cast<std::uint64_t>(s.int64(6));
      a.name = name;
      push_activity(a);
      row_done();
    }
  }

  // Columns 0..5 of every activity query are start, end, deviceId, streamId, correlationId and
  // globalPid; graph_column holds graphNodeId (NULL when not launched from a graph).
  activity placed(sqlite::statement& s, activity_kind kind, int graph_column) {
    activity a;
    a.kind = kind;
    a.start = s.int64(0);
    a.end = s.int64(1);
    clamp(a.start, a.end);
    a.device = static_cast<std::int16_t>(s.int64(2, -1));
    a.stream = static_cast<std::int32_t>(s.int64(3, -1));
    a.correlation = static_cast<std::uint64_t>(s.int64(4));
    a.process = process(s.int64(5));
    a.graph_node = s.is_null(graph_column) ? 0 : graph_node_tag(static_cast<std::uint64_t>(s.int64(graph_column)));
    seen_device(a.process, a.device);
    return a;
  }

  void push_activity(const activity& a) {
    t_.activities.push_back(a);
    if (options_.launch_geometry) t_.geometry.emplace_back();
  }

  void read_api_calls(std::string_view table, api_kind kind) {
    if (!db_.has_table(table)) return;
    auto s = select(table, {"start", "end", "globalTid", "correlationId", "nameId"}, {"start", "end"});
    while (s.step()) {
      api_call c;
      c.kind = kind;
      c.start = s.int64(0);
      c.end = s.int64(1);
      clamp(c.start, c.end);
      const auto tid = s.int64(2);
      c.process = process(tid);
      c.thread = tid_of(tid);
      c.correlation = static_cast<std::uint64_t>(s.int64(3));
      auto name = name_at(s, 4);
      if (!name) t_.warn("an API call's name is missing from StringIds; it reads as \"<unknown call>\"");
      c.name = name ? *name : t_.strings.intern("<unknown call>");
      t_.api_calls.push_back(c);
      row_done();
    }
  }

  // CUpti_ActivitySynchronizationType; ENUM_CUPTI_SYNC_TYPE names them when the file has it.
  std::optional<sync_kind> sync_kind_of(std::int64_t type, const std::unordered_map<std::int64_t, std::string>& names) {
    if (auto it = names.find(type); it != names.end()) {
      const std::string s = squash(it->second);
      if (ends_with(s, "EVENTSYNCHRONIZE")) return sync_kind::event_synchronize;
      if (ends_with(s, "STREAMWAITEVENT")) return sync_kind::stream_wait_event;
      if (ends_with(s, "STREAMSYNCHRONIZE")) return sync_kind::stream_synchronize;
      if (ends_with(s, "CONTEXTSYNCHRONIZE")) return sync_kind::context_synchronize;
      return std::nullopt;
    }
    switch (type) {
      case 1:
        return sync_kind::event_synchronize;
      case 2:
        return sync_kind::stream_wait_event;
      case 3:
        return sync_kind::stream_synchronize;
      case 4:
        return sync_kind::context_synchronize;
      default:
        return std::nullopt;
    }
  }

  void read_synchronizations() {
    if (!db_.has_table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return;
    std::unordered_map<std::int64_t, std::string> names;
    if (db_.has_table("ENUM_CUPTI_SYNC_TYPE")) {
      auto e = select("ENUM_CUPTI_SYNC_TYPE", {"id", "name"}, {"id", "name"});
      while (e.step()) names[e.int64(0)] = std::string(e.text(1));
    }
    auto s = select(
        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"},
        {"start", "end", "syncType"});
    // CUPTI_SYNCHRONIZATION_INVALID_VALUE marks a field the kind does not have.
    const auto valid = [](std::int64_t v) { return v >= 0 && v < 0xFFFFFFFFll; };
    std::uint64_t unknown = 0;
    while (s.step()) {
      const auto kind = sync_kind_of(s.int64(7), names);
      if (!kind) {
        ++unknown;
        continue;
      }
      synchronization y;
      y.kind = *kind;
      y.start = s.int64(0);
      y.end = s.int64(1);
      clamp(y.start, y.end);
      y.device = static_cast<std::int16_t>(s.int64(2, -1));
      y.context = static_cast<std::uint32_t>(std::max<std::int64_t>(s.int64(3), 0));
      if (const auto stream = s.int64(4, -1); valid(stream)) y.stream = static_cast<std::int32_t>(stream);
      y.correlation = static_cast<std::uint64_t>(s.int64(5));
      if (!s.is_null(6)) y.process = process(s.int64(6));
      if (const auto event = s.int64(8, -1); valid(event)) y.event = event;
      t_.synchronizations.push_back(y);
    }
    if (unknown > 0) t_.warnings.push_back({"synchronisation records of an unknown syncType skipped", unknown});
    complete_synchronizations(t_);
  }

  void read_nvtx() {
    if (!db_.has_table("NVTX_EVENTS")) return;
    // Event type ids by name when the file labels them, else the values nsys has always used.
    std::unordered_set<std::int64_t> ranges = {59, 60, 70, 71};
    std::unordered_set<std::int64_t> marks = {34};
    if (db_.has_table("ENUM_NSYS_EVENT_TYPE")) {
      ranges.clear();
      marks.clear();
      auto e = select("ENUM_NSYS_EVENT_TYPE", {"id", "name"}, {"id", "name"});
      while (e.step()) {
        const auto name = e.text(1);
        if (name == "NvtxPushPopRange" || name == "NvtxStartEndRange" || name == "NvtxtPushPopRange" ||
            name == "NvtxtStartEndRange") {
          ranges.insert(e.int64(0));
        } else if (name == "NvtxMark") {
          marks.insert(e.int64(0));
        }
      }
    }
    auto s =
        select("NVTX_EVENTS", {"start", "end", "eventType", "text", "textId", "globalTid"}, {"start", "eventType"});
    while (s.step()) {
      row_done();
      const auto type = s.int64(2);
      const bool is_mark = marks.contains(type);
      if (!is_mark && !ranges.contains(type)) continue;  // domain creation, categories, thread names
      range r;
      r.kind = is_mark ? range_kind::mark : range_kind::nvtx;
      r.start = s.int64(0);
      if (is_mark) {
        r.end = r.start;
      } else if (s.is_null(1)) {
        t_.warn("an NVTX range has no end (still open when the capture stopped); it was skipped");
        continue;
      } else {
        r.end = s.int64(1);
        clamp(r.start, r.end);
      }
      std::optional<string_id> name;
      if (!s.is_null(3)) {
        name = t_.strings.intern(s.text(3));
      } else if (!s.is_null(4)) {
        name = lookup(s.int64(4));
        if (!name) t_.warn("an NVTX range's text is missing from StringIds; it reads as \"\"");
      }
      r.name = name.value_or(0);
      const auto tid = s.int64(5);
      r.process = process(tid);
      r.thread = tid_of(tid);
      t_.ranges.push_back(r);
    }
  }

  struct gpu {
    std::string name;
    std::uint64_t memory = 0;
    int sm_count = 0, major = 0, minor = 0;
    std::optional<std::int64_t> cu_device;
  };

  void read_devices() {
    std::unordered_map<std::int64_t, gpu> gpus;
    if (db_.has_table("TARGET_INFO_GPU")) {
      auto s = select("TARGET_INFO_GPU",
                      {"id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor", "cuDevice"}, {"id"});
      while (s.step()) {
        gpu g;
        g.name = std::string(s.text(1));
        g.memory = static_cast<std::uint64_t>(s.int64(2));
        g.sm_count = static_cast<int>(s.int64(3));
        g.major = static_cast<int>(s.int64(4));
        g.minor = static_cast<int>(s.int64(5));
        if (!s.is_null(6)) g.cu_device = s.int64(6);
        gpus[s.int64(0)] = std::move(g);
      }
    }
    // (pid, CUDA device ordinal) -> (gpu id, SMs the process saw)
    std::unordered_map<std::uint64_t, std::pair<std::int64_t, int>> cuda_devices;
    auto key = [](std::uint64_t pid, std::int64_t cuda) {
      return (pid << 16) ^ static_cast<std::uint64_t>(cuda & 0xFFFF);
    };
    if (db_.has_table("TARGET_INFO_CUDA_DEVICE")) {
      auto s = select("TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid", "numMultiprocessors"}, {"cudaId", "pid"});
      while (s.step()) {
        cuda_devices[key(static_cast<std::uint64_t>(s.int64(2)), s.int64(1))] = {s.int64(0, s.int64(1)),
                                                                                 static_cast<int>(s.int64(3))};
      }
    }
    for (auto [process, device] : device_order_) {
      if (device < 0) continue;
      device_info d;
      d.id = device;
      d.process = process;
      std::int64_t gpu_id = device;
      int sms = 0;
      if (auto it = cuda_devices.find(key(t_.processes[process].pid, device)); it != cuda_devices.end()) {
        gpu_id = it->second.first;
        sms = it->second.second;
      } else {
        for (const auto& [id, g] : gpus) {
          if (g.cu_device && *g.cu_device == device) gpu_id = id;
        }
      }
      if (auto it = gpus.find(gpu_id); it != gpus.end()) {
        d.name = it->second.name;
        d.memory_bytes = it->second.memory;
        d.sm_count = it->second.sm_count;
        d.compute_major = it->second.major;
        d.compute_minor = it->second.minor;
      }
      if (d.sm_count == 0) d.sm_count = sms;
      t_.devices.push_back(std::move(d));
    }
  }

  struct pair_hash {
    std::size_t operator()(const std::pair<std::uint16_t, std::int16_t>& p) const {
      return (static_cast<std::size_t>(p.first) << 16) ^ static_cast<std::uint16_t>(p.second);
    }
  };

  std::filesystem::path path_;
  sqlite::database db_;
  const read_options& options_;
  trace t_;
  std::unordered_map<std::int64_t, string_id> names_;
  std::optional<sqlite::statement> string_lookup_;
  std::unordered_map<std::uint64_t, std::uint16_t> processes_;
  std::unordered_map<std::uint64_t, std::string> process_names_;
  std::unordered_set<std::pair<std::uint16_t, std::int16_t>, pair_hash> device_pairs_;
  std::vector<std::pair<std::uint16_t, std::int16_t>> device_order_;
  std::uint64_t size_bytes_ = 0, rows_total_ = 0, rows_done_ = 0;
};

}  // namespace

trace read_nsys_sqlite(const std::filesystem::path& path, const read_options& options) {
  return nsys_reader(path, options).read();
}

}  // namespace headroom::trace
