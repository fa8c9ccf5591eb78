// write_store: one transaction of prepared inserts into an in-memory database, written out whole.
// The schema is store_schema.cpp's (docs/trace-store.md documents every table).
#include <ostream>

#include "headroom/store/sqlite.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/output_file.hpp"
#include "store_schema.hpp"

namespace headroom::trace {
namespace sqlite = headroom::store::sqlite;
namespace {

std::int64_t as_int(std::uint64_t v) { return static_cast<std::int64_t>(v); }

void insert_activities(sqlite::database& db, const trace& t) {
  auto kernels = db.prepare(
      "INSERT INTO kernels VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
  auto copies = db.prepare("INSERT INTO copies VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  auto memsets = db.prepare("INSERT INTO memsets VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  const bool geometry = !t.geometry.empty() && t.geometry.size() == t.activities.size();
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    const activity& a = t.activities[i];
    sqlite::statement& s = a.kind == activity_kind::kernel   ? kernels
                           : a.kind == activity_kind::memcpy ? copies
                                                             : memsets;
    s.reset();
    s.bind(1, static_cast<std::int64_t>(i));  // the activity's index: read_store restores the order
    s.bind(2, a.start);
    s.bind(3, a.end);
    s.bind(4, static_cast<std::int64_t>(a.process));
    s.bind(5, static_cast<std::int64_t>(a.device));
    s.bind(6, static_cast<std::int64_t>(a.stream));
    s.bind(7, as_int(a.correlation));
    s.bind(8, static_cast<std::int64_t>(a.name));
    s.bind(9, static_cast<std::int64_t>(a.graph_node));
    if (a.kind == activity_kind::kernel) {
      if (geometry) {
        const launch_geometry& g = t.geometry[i];
        for (int d = 0; d < 3; ++d) {
          s.bind(10 + d, static_cast<std::int64_t>(g.grid[d]));
          s.bind(13 + d, static_cast<std::int64_t>(g.block[d]));
        }
        s.bind(16, static_cast<std::int64_t>(g.registers_per_thread));
        s.bind(17, static_cast<std::int64_t>(g.static_shared_bytes));
        s.bind(18, static_cast<std::int64_t>(g.dynamic_shared_bytes));
      }
    } else {
      s.bind(10, as_int(a.bytes));
      if (a.kind == activity_kind::memcpy) s.bind(11, to_string(a.copy));
    }
    s.step();
  }
}

void insert_rest(sqlite::database& db, const trace& t) {
  auto meta = db.prepare("INSERT INTO headroom_meta VALUES (?1, ?2)");
  const std::pair<std::string_view, std::string> metas[] = {
      {"schema_version", std::to_string(store_schema_version)},
      {"source_format", std::string(to_string(t.format))},
      {"created_by", std::string(store::created_by)},
      {"platform", t.platform},
      {"dropped_records", std::to_string(t.dropped_records)},
      {"launch_geometry", !t.geometry.empty() && t.geometry.size() == t.activities.size() ? "1" : "0"},
  };
  for (const auto& [k, v] : metas) {
    meta.reset();
    meta.bind(1, k);
    meta.bind(2, v);
    meta.step();
  }

  auto strings = db.prepare("INSERT INTO strings VALUES (?1, ?2)");
  for (string_id i = 0; i < t.strings.size(); ++i) {
    strings.reset();
    strings.bind(1, static_cast<std::int64_t>(i));
    strings.bind(2, t.strings[i]);
    strings.step();
  }

  auto processes = db.prepare("INSERT INTO processes VALUES (?1, ?2, ?3, ?4, ?5)");
  for (std::size_t i = 0; i < t.processes.size(); ++i) {
    const auto& p = t.processes[i];
    processes.reset();
    processes.bind(1, static_cast<std::int64_t>(i));
    processes.bind(2, static_cast<std::int64_t>(p.pid));
    processes.bind(3, p.name);
    processes.bind(4, static_cast<std::int64_t>(p.rank));
    processes.bind(5, p.host);
    processes.step();
  }

  auto devices = db.prepare("INSERT INTO devices VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (const auto& d : t.devices) {
    devices.reset();
    devices.bind(1, static_cast<std::int64_t>(d.process));
    devices.bind(2, static_cast<std::int64_t>(d.id));
    devices.bind(3, d.name);
    devices.bind(4, static_cast<std::int64_t>(d.compute_major));
    devices.bind(5, static_cast<std::int64_t>(d.compute_minor));
    devices.bind(6, static_cast<std::int64_t>(d.sm_count));
    devices.bind(7, as_int(d.memory_bytes));
    devices.step();
  }

  auto calls = db.prepare("INSERT INTO api_calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (std::size_t i = 0; i < t.api_calls.size(); ++i) {
    const auto& c = t.api_calls[i];
    calls.reset();
    calls.bind(1, static_cast<std::int64_t>(i));
    calls.bind(2, c.start);
    calls.bind(3, c.end);
    calls.bind(4, static_cast<std::int64_t>(c.process));
    calls.bind(5, static_cast<std::int64_t>(c.thread));
    calls.bind(6, as_int(c.correlation));
    calls.bind(7, static_cast<std::int64_t>(c.name));
    calls.bind(8, c.kind == api_kind::runtime ? std::string_view("runtime") : std::string_view("driver"));
    calls.step();
  }

  auto ranges = db.prepare("INSERT INTO ranges VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (std::size_t i = 0; i < t.ranges.size(); ++i) {
    const auto& r = t.ranges[i];
    ranges.reset();
    ranges.bind(1, static_cast<std::int64_t>(i));
    ranges.bind(2, r.start);
    ranges.bind(3, r.end);
    ranges.bind(4, static_cast<std::int64_t>(r.process));
    ranges.bind(5, static_cast<std::int64_t>(r.thread));
    ranges.bind(6, static_cast<std::int64_t>(r.device));
    ranges.bind(7, static_cast<std::int64_t>(r.name));
    ranges.bind(8, to_string(r.kind));
    ranges.step();
  }

  auto syncs = db.prepare("INSERT INTO synchronizations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  for (std::size_t i = 0; i < t.synchronizations.size(); ++i) {
    const auto& y = t.synchronizations[i];
    syncs.reset();
    syncs.bind(1, static_cast<std::int64_t>(i));
    syncs.bind(2, y.start);
    syncs.bind(3, y.end);
    syncs.bind(4, static_cast<std::int64_t>(y.process));
    syncs.bind(5, static_cast<std::int64_t>(y.thread));
    syncs.bind(6, static_cast<std::int64_t>(y.device));
    syncs.bind(7, static_cast<std::int64_t>(y.stream));
    syncs.bind(8, static_cast<std::int64_t>(y.context));
    syncs.bind(9, y.event);
    syncs.bind(10, as_int(y.correlation));
    syncs.bind(11, to_string(y.kind));
    syncs.bind(12, as_int(y.record_correlation));
    syncs.step();
  }

  auto warnings = db.prepare("INSERT INTO warnings VALUES (?1, ?2, ?3, ?4)");
  for (std::size_t i = 0; i < t.warnings.size(); ++i) {
    warnings.reset();
    warnings.bind(1, static_cast<std::int64_t>(i));
    warnings.bind(2, t.warnings[i].what);
    warnings.bind(3, as_int(t.warnings[i].count));
    warnings.bind(4, std::int64_t{t.warnings[i].lost ? 1 : 0});
    warnings.step();
  }
}

}  // namespace

void write_store(const trace& t, std::ostream& out) {
  // Built in memory and written out whole, so the file is only ever the output's bytes: a store
  // goes through util::output_file like any other output (written beside the target, renamed).
  auto db = sqlite::database::in_memory("trace store");
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 16384;");
  db.exec("BEGIN");
  db.exec(store::meta_table_sql);
  db.exec(trace_store_schema().create_sql);
  insert_rest(db, t);
  insert_activities(db, t);
  db.exec(trace_store_index_sql);
  db.exec("COMMIT");
  db.serialize_to(out);
}

void write_store(const trace& t, const std::filesystem::path& path) {
  util::output_file file(path);
  write_store(t, file.stream());
  file.commit();
}

}  // namespace headroom::trace
