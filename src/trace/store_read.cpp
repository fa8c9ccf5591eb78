// read_store: checks the schema version, migrates an older store in memory (the file is never
// modified by a read), and rebuilds the trace with its original string ids and activity order.
#include <fmt/core.h>

#include <optional>
#include <string>
#include <vector>

#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/store/sqlite_connection.hpp"
#include "geometry_columns.hpp"
#include "store_schema.hpp"

namespace headroom::trace {
namespace sqlite = headroom::store::sqlite;
namespace {

[[noreturn]] void bad(const std::filesystem::path& path, std::string_view what) {
  throw input_error(fmt::format("{}: {}", path.string(), what));
}

std::string meta(sqlite::database& db, std::string_view key) {
  auto s = db.prepare("SELECT value FROM headroom_meta WHERE key = ?");
  s.bind(1, key);
  return s.step() ? std::string(s.text(0)) : std::string();
}

std::string_view to_string(api_kind k) { return k == api_kind::runtime ? "runtime" : "driver"; }

template <class Enum, std::size_t N>
Enum parse(const std::filesystem::path& path, std::string_view column, std::string_view text, const Enum (&values)[N]) {
  for (Enum v : values) {
    if (to_string(v) == text) return v;
  }
  bad(path, fmt::format("unknown {} \"{}\"", column, text));
}

class store_reader {
 public:
  store_reader(sqlite::database& db, const std::filesystem::path& path) : db_(db), path_(path) {}

  trace read() {
    read_meta();
    read_strings();
    read_processes();
    read_devices();
    read_activities();
    read_api_calls();
    read_ranges();
    read_synchronizations();
    read_warnings();
    return std::move(t_);
  }

 private:
  void read_meta() {
    static constexpr source_format formats[] = {source_format::kineto_json, source_format::nsys_sqlite,
                                                source_format::headroom_store, source_format::synthetic};
    const auto format = meta(db_, "source_format");
    t_.format = format.empty() ? source_format::headroom_store : parse(path_, "source_format", format, formats);
    t_.platform = meta(db_, "platform");
    t_.dropped_records = std::strtoull(meta(db_, "dropped_records").c_str(), nullptr, 10);
    geometry_ = meta(db_, "launch_geometry") == "1";
  }

  string_id name(std::int64_t id) {
    if (id < 0 || static_cast<std::uint64_t>(id) >= t_.strings.size()) {
      bad(path_, fmt::format("string id {} is not in the strings table", id));
    }
    return static_cast<string_id>(id);
  }

  std::uint16_t process(std::int64_t id) {
    if (id < 0 || static_cast<std::uint64_t>(id) >= t_.processes.size()) {
      bad(path_, fmt::format("process {} is not in the processes table", id));
    }
    return static_cast<std::uint16_t>(id);
  }

  void read_strings() {
    auto s = db_.prepare("SELECT id, value FROM strings ORDER BY id");
    while (s.step()) {
      const auto id = s.int64(0);
      if (id == 0) continue;  // the empty string, id 0 in every string_table
      if (t_.strings.intern(s.text(1)) != id) bad(path_, fmt::format("strings table is not dense at id {}", id));
    }
  }

  void read_processes() {
    auto s = db_.prepare("SELECT pid, name, rank, host FROM processes ORDER BY id");
    while (s.step()) {
      process_info p;
      p.pid = static_cast<std::uint32_t>(s.int64(0));
      p.name = std::string(s.text(1));
      p.rank = static_cast<std::int32_t>(s.int64(2));
      p.host = std::string(s.text(3));
      t_.processes.push_back(std::move(p));
    }
  }

  void read_devices() {
    auto s = db_.prepare(
        "SELECT process, device, name, compute_major, compute_minor, sm_count, memory_bytes FROM devices ORDER BY rowid");
    while (s.step()) {
      device_info d;
      d.process = process(s.int64(0));
      d.id = static_cast<std::int16_t>(s.int64(1));
      d.name = std::string(s.text(2));
      d.compute_major = static_cast<int>(s.int64(3));
      d.compute_minor = static_cast<int>(s.int64(4));
      d.sm_count = static_cast<int>(s.int64(5));
      d.memory_bytes = static_cast<std::uint64_t>(s.int64(6));
      t_.devices.push_back(std::move(d));
    }
  }

  // The three activity tables share their first columns; `id` is the index in trace::activities.
  void read_activities() {
    static constexpr copy_kind copy_kinds[] = {
        copy_kind::none,         copy_kind::host_to_device, copy_kind::device_to_host, copy_kind::device_to_device,
        copy_kind::peer_to_peer, copy_kind::host_to_host,   copy_kind::other};
    auto s = db_.prepare(R"sql(
      SELECT id, start, end, process, device, stream, correlation, name, graph_node, 0 AS kind, NULL, NULL,
             grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, static_shared_bytes,
             dynamic_shared_bytes FROM kernels
      UNION ALL
      SELECT id, start, end, process, device, stream, correlation, name, graph_node, 1, bytes, copy_kind,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM copies
      UNION ALL
      SELECT id, start, end, process, device, stream, correlation, name, graph_node, 2, bytes, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM memsets
      ORDER BY id)sql");
    while (s.step()) {
      if (s.int64(0) != static_cast<std::int64_t>(t_.activities.size())) {
        bad(path_, fmt::format("activity ids are not dense at id {}", s.int64(0)));
      }
      activity a;
      a.start = s.int64(1);
      a.end = s.int64(2);
      a.process = process(s.int64(3));
      a.device = static_cast<std::int16_t>(s.int64(4));
      a.stream = static_cast<std::int32_t>(s.int64(5));
      a.correlation = static_cast<std::uint64_t>(s.int64(6));
      a.name = name(s.int64(7));
      a.graph_node = static_cast<std::uint32_t>(s.int64(8));
      a.kind = static_cast<activity_kind>(s.int64(9));
      a.bytes = static_cast<std::uint64_t>(s.int64(10));
      if (a.kind == activity_kind::memcpy) a.copy = parse(path_, "copy_kind", s.text(11), copy_kinds);
      t_.activities.push_back(a);
      if (geometry_) t_.geometry.push_back(geometry_columns(s, 12));
    }
  }

  void read_api_calls() {
    static constexpr api_kind kinds[] = {api_kind::runtime, api_kind::driver};
    auto s = db_.prepare("SELECT start, end, process, thread, correlation, name, kind FROM api_calls ORDER BY id");
    while (s.step()) {
      api_call c;
      c.start = s.int64(0);
      c.end = s.int64(1);
      c.process = process(s.int64(2));
      c.thread = static_cast<std::uint32_t>(s.int64(3));
      c.correlation = static_cast<std::uint64_t>(s.int64(4));
      c.name = name(s.int64(5));
      c.kind = parse(path_, "api call kind", s.text(6), kinds);
      t_.api_calls.push_back(c);
    }
  }

  void read_ranges() {
    static constexpr range_kind kinds[] = {range_kind::cpu_annotation, range_kind::gpu_annotation, range_kind::nvtx,
                                           range_kind::mark};
    auto s = db_.prepare("SELECT start, end, process, thread, device, name, kind FROM ranges ORDER BY id");
    while (s.step()) {
      range r;
      r.start = s.int64(0);
      r.end = s.int64(1);
      r.process = process(s.int64(2));
      r.thread = static_cast<std::uint32_t>(s.int64(3));
      r.device = static_cast<std::int16_t>(s.int64(4));
      r.name = name(s.int64(5));
      r.kind = parse(path_, "range kind", s.text(6), kinds);
      t_.ranges.push_back(r);
    }
  }

  void read_synchronizations() {
    static constexpr sync_kind kinds[] = {sync_kind::event_synchronize, sync_kind::stream_wait_event,
                                          sync_kind::stream_synchronize, sync_kind::context_synchronize,
                                          sync_kind::event_record};
    auto s = db_.prepare(
        "SELECT start, end, process, thread, device, stream, context, event, correlation, kind, record_correlation "
        "FROM synchronizations ORDER BY id");
    while (s.step()) {
      synchronization y;
      y.start = s.int64(0);
      y.end = s.int64(1);
      y.process = process(s.int64(2));
      y.thread = static_cast<std::uint32_t>(s.int64(3));
      y.device = static_cast<std::int16_t>(s.int64(4));
      y.stream = static_cast<std::int32_t>(s.int64(5));
      y.context = static_cast<std::uint32_t>(s.int64(6));
      y.event = s.int64(7);
      y.correlation = static_cast<std::uint64_t>(s.int64(8));
      y.kind = parse(path_, "synchronization kind", s.text(9), kinds);
      y.record_correlation = static_cast<std::uint64_t>(s.int64(10));
      t_.synchronizations.push_back(y);
    }
  }

  void read_warnings() {
    auto s = db_.prepare("SELECT what, count, lost FROM warnings ORDER BY id");
    while (s.step()) {
      t_.warnings.push_back({std::string(s.text(0)), static_cast<std::uint64_t>(s.int64(1)), s.int64(2) != 0});
    }
  }

  sqlite::database& db_;
  const std::filesystem::path& path_;
  trace t_;
  bool geometry_ = false;
};

}  // namespace

trace read_store(const std::filesystem::path& path) {
  store::sqlite_connection db(path, store::connection::access::read_only);
  if (!store::prepare_for_reading(db, trace_store_schema()))
    bad(path, "not a headroom trace store (no headroom_meta table)");
  return store_reader(db.database(), path).read();
}

}  // namespace headroom::trace
