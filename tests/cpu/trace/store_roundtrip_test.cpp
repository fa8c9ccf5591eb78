// write_store -> read_store gives back the same trace, field for field; versions are checked.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "headroom/trace/reader.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"

namespace fs = std::filesystem;
using headroom::input_error;
using namespace headroom::trace;

namespace {

fs::path temp_dir() {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  auto dir = fs::temp_directory_path() /
             ("headroom-store-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void exec(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

// A trace with every kind of record and every field set to something other than its default.
trace full_trace() {
  trace t;
  t.format = source_format::kineto_json;
  t.platform = "cuda";
  t.dropped_records = 17;
  t.processes.push_back({3100453, "rank0.pt.trace.json.gz", 0, "node-a"});
  t.processes.push_back({3100454, "rank1.pt.trace.json.gz", 1, "node-b"});
  t.devices.push_back({0, 0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85520809984});
  t.devices.push_back({1, 1, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85520809984});

  auto push = [&](activity a, launch_geometry g = {}) {
    t.activities.push_back(a);
    t.geometry.push_back(g);
  };
  activity k;
  k.kind = activity_kind::kernel;
  k.start = 1712195495505583123;
  k.end = 1712195495505588051;
  k.correlation = 135071;
  k.name = t.strings.intern(
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<int, unsigned int, 1, 128, 1>(...)");
  k.stream = 7;
  k.device = 0;
  k.process = 0;
  k.graph_node = 4242;
  launch_geometry g;
  g.grid[0] = 4;
  g.grid[1] = 106;
  g.grid[2] = 1;
  g.block[0] = 128;
  g.block[1] = 1;
  g.block[2] = 1;
  g.registers_per_thread = 30;
  g.static_shared_bytes = 1024;
  g.dynamic_shared_bytes = 49152;
  push(k, g);

  activity copy;
  copy.kind = activity_kind::memcpy;
  copy.copy = copy_kind::device_to_host;
  copy.start = 1712195495505590000;
  copy.end = 1712195495505591000;
  copy.bytes = 1u << 20;
  copy.correlation = 135072;
  copy.name = t.strings.intern("Memcpy DtoH (Device -> Pinned)");
  copy.stream = 7;
  copy.device = 0;
  push(copy);

  activity set;
  set.kind = activity_kind::memset;
  set.start = 1712195495505592000;
  set.end = 1712195495505592004;
  set.bytes = 20736;
  set.correlation = 1473;
  set.name = t.strings.intern("Memset (Device)");
  set.stream = 20;
  set.device = 1;
  set.process = 1;
  push(set);

  activity nccl = k;
  nccl.name = t.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)");
  nccl.process = 1;
  nccl.device = 1;
  nccl.stream = -1;
  nccl.graph_node = 0;
  g.grid[0] = 24;
  push(nccl, g);

  for (auto kind : {copy_kind::host_to_device, copy_kind::device_to_device, copy_kind::peer_to_peer,
                    copy_kind::host_to_host, copy_kind::other}) {
    copy.copy = kind;
    copy.start += 5000;
    copy.end += 5000;
    push(copy);
  }

  t.api_calls.push_back({1712195495505543200, 1712195495505584968, 135071, t.strings.intern("cudaLaunchKernel"), 1102,
                         0, api_kind::runtime});
  t.api_calls.push_back({1712195495505543300, 1712195495505543400, 135073, t.strings.intern("cuLaunchKernel"), 1103, 1,
                         api_kind::driver});

  t.ranges.push_back({2413669096090100, 2413682432405905, t.strings.intern("ProfilerStep#1"), 3100453, 0, -1,
                      range_kind::cpu_annotation});
  t.ranges.push_back(
      {2413669096190000, 2413669096290000, t.strings.intern("ProfilerStep#1"), 7, 0, 0, range_kind::gpu_annotation});
  t.ranges.push_back({100, 900, t.strings.intern("forward"), 4250, 1, -1, range_kind::nvtx});
  t.ranges.push_back({500, 500, t.strings.intern("loss ready \"quoted\" ünïcode"), 4250, 1, -1, range_kind::mark});

  // One of each kind, as a training step synchronises: the main stream records an event, a side
  // stream waits for it, the host waits for the event, for a stream, then for the whole device.
  t.synchronizations.push_back(
      {1712195495505599000, 1712195495505599400, 135079, 12, 1, 1102, 7, 0, 0, sync_kind::event_record});
  t.synchronizations.push_back(
      {1712195495505600000, 1712195495505600900, 135080, 12, 1, 1102, 13, 0, 0, sync_kind::stream_wait_event, 135079});
  t.synchronizations.push_back(
      {1712195495505601000, 1712195495505650000, 135081, 12, 1, 1102, -1, 0, 0, sync_kind::event_synchronize, 135079});
  t.synchronizations.push_back(
      {1712195495505651000, 1712195495505700000, 135082, -1, 1, 1102, 7, 0, 0, sync_kind::stream_synchronize});
  t.synchronizations.push_back(
      {1712195495505701000, 1712195495505800000, 1474, -1, 2, 1103, -1, 1, 1, sync_kind::context_synchronize});

  t.warn("an activity ends before it starts; its end was set to its start");
  t.warn("an activity ends before it starts; its end was set to its start");
  t.warn("unknown event category \"foo\"");
  return t;
}

void expect_same(const trace& a, const trace& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.platform, b.platform);
  EXPECT_EQ(a.dropped_records, b.dropped_records);
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (string_id i = 0; i < a.strings.size(); ++i) EXPECT_EQ(a.strings[i], b.strings[i]) << "string " << i;

  ASSERT_EQ(a.activities.size(), b.activities.size());
  for (std::size_t i = 0; i < a.activities.size(); ++i) {
    const auto &x = a.activities[i], &y = b.activities[i];
    EXPECT_EQ(x.start, y.start) << i;
    EXPECT_EQ(x.end, y.end) << i;
    EXPECT_EQ(x.correlation, y.correlation) << i;
    EXPECT_EQ(x.bytes, y.bytes) << i;
    EXPECT_EQ(x.name, y.name) << i;
    EXPECT_EQ(x.stream, y.stream) << i;
    EXPECT_EQ(x.device, y.device) << i;
    EXPECT_EQ(x.process, y.process) << i;
    EXPECT_EQ(x.kind, y.kind) << i;
    EXPECT_EQ(x.copy, y.copy) << i;
    EXPECT_EQ(x.graph_node, y.graph_node) << i;
  }
  ASSERT_EQ(a.geometry.size(), b.geometry.size());
  for (std::size_t i = 0; i < a.geometry.size(); ++i) {
    if (a.activities[i].kind != activity_kind::kernel) continue;  // geometry of a copy means nothing
    const auto &x = a.geometry[i], &y = b.geometry[i];
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(x.grid[d], y.grid[d]) << i;
      EXPECT_EQ(x.block[d], y.block[d]) << i;
    }
    EXPECT_EQ(x.registers_per_thread, y.registers_per_thread) << i;
    EXPECT_EQ(x.static_shared_bytes, y.static_shared_bytes) << i;
    EXPECT_EQ(x.dynamic_shared_bytes, y.dynamic_shared_bytes) << i;
  }
  ASSERT_EQ(a.api_calls.size(), b.api_calls.size());
  for (std::size_t i = 0; i < a.api_calls.size(); ++i) {
    const auto &x = a.api_calls[i], &y = b.api_calls[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.correlation, y.correlation);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.kind, y.kind);
  }
  ASSERT_EQ(a.ranges.size(), b.ranges.size());
  for (std::size_t i = 0; i < a.ranges.size(); ++i) {
    const auto &x = a.ranges[i], &y = b.ranges[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.kind, y.kind);
  }
  ASSERT_EQ(a.synchronizations.size(), b.synchronizations.size());
  for (std::size_t i = 0; i < a.synchronizations.size(); ++i) {
    const auto &x = a.synchronizations[i], &y = b.synchronizations[i];
    EXPECT_EQ(x.start, y.start) << i;
    EXPECT_EQ(x.end, y.end) << i;
    EXPECT_EQ(x.correlation, y.correlation) << i;
    EXPECT_EQ(x.event, y.event) << i;
    EXPECT_EQ(x.context, y.context) << i;
    EXPECT_EQ(x.thread, y.thread) << i;
    EXPECT_EQ(x.stream, y.stream) << i;
    EXPECT_EQ(x.device, y.device) << i;
    EXPECT_EQ(x.process, y.process) << i;
    EXPECT_EQ(x.kind, y.kind) << i;
    EXPECT_EQ(x.record_correlation, y.record_correlation) << i;
  }
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (std::size_t i = 0; i < a.devices.size(); ++i) {
    const auto &x = a.devices[i], &y = b.devices[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.compute_major, y.compute_major);
    EXPECT_EQ(x.compute_minor, y.compute_minor);
    EXPECT_EQ(x.sm_count, y.sm_count);
    EXPECT_EQ(x.memory_bytes, y.memory_bytes);
  }
  ASSERT_EQ(a.processes.size(), b.processes.size());
  for (std::size_t i = 0; i < a.processes.size(); ++i) {
    const auto &x = a.processes[i], &y = b.processes[i];
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.host, y.host);
  }
  ASSERT_EQ(a.warnings.size(), b.warnings.size());
  for (std::size_t i = 0; i < a.warnings.size(); ++i) {
    EXPECT_EQ(a.warnings[i].what, b.warnings[i].what);
    EXPECT_EQ(a.warnings[i].count, b.warnings[i].count);
    EXPECT_EQ(a.warnings[i].lost, b.warnings[i].lost);
  }
}

TEST(TraceStore, RoundTripReproducesEveryField) {
  const auto path = temp_dir() / "trace.sqlite";
  const trace t = full_trace();
  write_store(t, path);
  const trace back = read_store(path);
  expect_same(t, back);
}

TEST(TraceStore, RoundTripWithoutGeometryKeepsItAbsent) {
  const auto path = temp_dir() / "trace.sqlite";
  trace t = full_trace();
  t.geometry.clear();
  write_store(t, path);
  const trace back = read_store(path);
  EXPECT_TRUE(back.geometry.empty());
  expect_same(t, back);
}

TEST(TraceStore, EmptyTraceRoundTrips) {
  const auto path = temp_dir() / "empty.sqlite";
  write_store(trace{}, path);
  const trace back = read_store(path);
  EXPECT_TRUE(back.activities.empty());
  EXPECT_EQ(back.strings.size(), 1u);
  EXPECT_EQ(back.format, source_format::synthetic);
}

TEST(TraceStore, ReplacesAnExistingFileAndLeavesNoTemporary) {
  const auto dir = temp_dir();
  const auto path = dir / "trace.sqlite";
  std::ofstream(path) << "an older file under the same name";
  write_store(full_trace(), path);
  EXPECT_EQ(read_store(path).activities.size(), full_trace().activities.size());
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(TraceStore, SynchronizationsAreRowsAQueryCanReadWithoutALookupTable) {
  const auto path = temp_dir() / "trace.sqlite";
  write_store(full_trace(), path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT kind, end - start, stream, event, record_correlation FROM synchronizations "
                               "ORDER BY id",
                               -1, &s, nullptr),
            SQLITE_OK);
  std::string rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    rows += std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) + " " +
            std::to_string(sqlite3_column_int64(s, 1)) + " " + std::to_string(sqlite3_column_int64(s, 2)) + " " +
            std::to_string(sqlite3_column_int64(s, 3)) + " " + std::to_string(sqlite3_column_int64(s, 4)) + "\n";
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  EXPECT_EQ(rows,
            "event_record 400 7 12 0\n"
            "stream_wait_event 900 13 12 135079\n"
            "event_synchronize 49000 -1 12 135079\n"
            "stream_synchronize 49000 7 -1 0\n"
            "context_synchronize 99000 -1 -1 0\n");
}

// tests/data/trace_store_v1.sql is a store headroom 0.1.0 wrote (schema v1, no synchronizations).
fs::path version1_store(const fs::path& dir) {
  std::ifstream in(HEADROOM_TEST_DATA_DIR "/trace_store_v1.sql");
  std::string sql((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(sql.empty());
  const auto path = dir / "v1.sqlite";
  exec(path, sql);
  return path;
}

TEST(TraceStore, AVersion1StoreIsMigratedOnReadAndTheFileIsLeftAsItWas) {
  const auto path = version1_store(temp_dir());
  const trace back = read_store(path);
  EXPECT_EQ(back.activities.size(), 4u);
  EXPECT_EQ(back.api_calls.size(), 15u);
  EXPECT_EQ(back.ranges.size(), 10u);
  EXPECT_EQ(back.devices.size(), 8u);
  EXPECT_TRUE(back.synchronizations.empty());  // v1 had no way to hold them

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT (SELECT value FROM headroom_meta WHERE key = 'schema_version'), "
                               "(SELECT count(*) FROM sqlite_master WHERE name = 'synchronizations')",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "1");
  EXPECT_EQ(sqlite3_column_int(s, 1), 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(TraceStore, AVersion1StoreReadsAsItsSourceTraceDoesToday) {
  const fs::path source = HEADROOM_FIXTURES_DIR "/kineto-hta/execution_trace_benchmark_simple_add_trace.json.gz";
  if (!fs::exists(source)) GTEST_SKIP() << "fixture not present: " << source;
  const auto dir = temp_dir();
  const trace migrated = read_store(version1_store(dir));
  read_options o;
  o.launch_geometry = true;
  expect_same(read_trace(source, o), migrated);
  // Rewritten, it is a current store and reads back the same.
  write_store(migrated, dir / "v2.sqlite");
  expect_same(migrated, read_store(dir / "v2.sqlite"));
}

// A version-2 store: today's tables without synchronizations.record_correlation.
TEST(TraceStore, AVersion2StoreReadsWithItsSynchronizationsAndNoRecordCorrelation) {
  const auto dir = temp_dir();
  const auto path = dir / "v2.sqlite";
  trace t = full_trace();
  std::erase_if(t.synchronizations, [](const synchronization& y) { return y.kind == sync_kind::event_record; });
  write_store(t, path);
  exec(path,
       "ALTER TABLE synchronizations DROP COLUMN record_correlation;"
       "ALTER TABLE warnings DROP COLUMN lost;"
       "UPDATE headroom_meta SET value = '2' WHERE key = 'schema_version';");
  const trace back = read_store(path);
  for (auto& y : t.synchronizations) y.record_correlation = 0;  // what a version-2 store could not hold
  expect_same(t, back);
}

TEST(TraceStore, AVersion3StoreReadsWithItsWarningsAsNothingLost) {
  const auto path = temp_dir() / "v3.sqlite";
  trace t = full_trace();
  t.lose("truncated at byte 100; 3 events read, the rest is lost");
  write_store(t, path);
  EXPECT_TRUE(read_store(path).partial());
  exec(path,
       "ALTER TABLE warnings DROP COLUMN lost;"
       "UPDATE headroom_meta SET value = '3' WHERE key = 'schema_version';");
  const trace back = read_store(path);
  EXPECT_FALSE(back.partial());  // a version-3 store could not say
  ASSERT_EQ(back.warnings.size(), t.warnings.size());
  EXPECT_EQ(back.warnings.back().what, t.warnings.back().what);
}

TEST(TraceStore, WritingIntoAMissingFolderIsAnInputError) {
  EXPECT_THROW(write_store(full_trace(), temp_dir() / "no" / "such" / "trace.sqlite"), input_error);
}

TEST(TraceStore, NewerSchemaAsksTheUserToUpgrade) {
  const auto path = temp_dir() / "future.sqlite";
  write_store(full_trace(), path);
  exec(path, "UPDATE headroom_meta SET value = '" + std::to_string(store_schema_version + 1) +
                 "' WHERE key = 'schema_version'");
  try {
    read_store(path);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("upgrade"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(TraceStore, ImpossibleSchemaVersionsAreRefused) {
  const auto path = temp_dir() / "bad.sqlite";
  for (const char* v : {"0", "-3", "one", ""}) {
    write_store(full_trace(), path);
    exec(path, std::string("UPDATE headroom_meta SET value = '") + v + "' WHERE key = 'schema_version'");
    EXPECT_THROW(read_store(path), input_error) << v;
  }
}

TEST(TraceStore, FilesThatAreNotStoresAreInputErrors) {
  const auto dir = temp_dir();
  const auto other = dir / "other.sqlite";
  exec(other, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT);");
  EXPECT_THROW(read_store(other), input_error);
  const auto text = dir / "text.sqlite";
  std::ofstream(text) << "not a database at all, but long enough to look like a header ............";
  EXPECT_THROW(read_store(text), input_error);
  EXPECT_THROW(read_store(dir / "missing.sqlite"), input_error);
}

TEST(TraceStore, CorruptRowsAreInputErrors) {
  const auto path = temp_dir() / "corrupt.sqlite";
  write_store(full_trace(), path);
  exec(path, "UPDATE kernels SET name = 100000 WHERE id = 0");
  EXPECT_THROW(read_store(path), input_error);
  write_store(full_trace(), path);
  exec(path, "UPDATE copies SET copy_kind = 'sideways' WHERE id = 1");
  EXPECT_THROW(read_store(path), input_error);
}

// The store must take a million-kernel trace in seconds (docs/trace-store.md records the figure).
TEST(TraceStore, MillionActivitiesRoundTrip) {
  trace t;
  t.processes.push_back({1, "synthetic", -1, ""});
  const string_id names[] = {t.strings.intern("ampere_sgemm_128x64_nn"), t.strings.intern("triton_poi_fused_add_0"),
                             t.strings.intern("void at::native::vectorized_elementwise_kernel<4>(...)")};
  constexpr std::size_t n = 1'000'000;
  t.activities.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    activity a;
    a.start = static_cast<time_ns>(i) * 1000;
    a.end = a.start + 700;
    a.correlation = i + 1;
    a.name = names[i % 3];
    a.stream = static_cast<std::int32_t>(7 + i % 4);
    a.device = 0;
    t.activities.push_back(a);
  }
  const auto path = temp_dir() / "big.sqlite";
  const auto t0 = std::chrono::steady_clock::now();
  write_store(t, path);
  const auto t1 = std::chrono::steady_clock::now();
  const trace back = read_store(path);
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_EQ(back.activities.size(), n);
  EXPECT_EQ(back.activities[n - 1].correlation, n);
  EXPECT_EQ(back.activities[n - 1].stream, t.activities[n - 1].stream);
  std::printf("1M kernels: write %.2f s, read %.2f s, %.1f MB\n", std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count(), static_cast<double>(fs::file_size(path)) / 1e6);
  fs::remove(path);
}

}  // namespace
