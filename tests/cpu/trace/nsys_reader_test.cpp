// read_nsys_sqlite on nsys-shaped SQLite files built here, in two schema generations: an older
// export (no mangledName, graphNodeId, textId, domainId, compute capability, PROCESSES, memcpy
// enum) and a newer one (all of them, plus TARGET_INFO_CUDA_DEVICE and the driver table).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "headroom/trace/reader.hpp"
#include "headroom/util/error.hpp"

namespace fs = std::filesystem;
using headroom::input_error;
using namespace headroom::trace;

namespace {

fs::path temp_file(const std::string& stem) {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  auto dir = fs::temp_directory_path() / ("headroom-nsys-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / (std::string(info->name()) + "-" + stem);
}

fs::path make_db(const std::string& stem, const std::string& sql) {
  const auto path = temp_file(stem);
  fs::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const std::string script = "BEGIN;" + sql + ";COMMIT;";  // one fsync, not one per statement
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return path;
}

// globalPid/globalTid as nsys serialises them: hardware id, vm id, pid, tid.
constexpr long long global_id(long long pid, long long tid = 0) { return (1LL << 56) | (pid << 24) | tid; }

std::string newer_schema() {
  const auto p1 = std::to_string(global_id(4242));
  const auto p2 = std::to_string(global_id(4343));
  const auto t1 = std::to_string(global_id(4242, 4250));
  const auto t2 = std::to_string(global_id(4343, 4343));
  return R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,
  computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, uuid TEXT,
  numMultiprocessors INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);

INSERT INTO StringIds VALUES
  (10, 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)'),
  (11, 'vectorized_elementwise_kernel'),
  (12, '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_'),
  (13, 'ampere_sgemm_128x64_nn'),
  (20, 'cudaLaunchKernel'), (21, 'cudaMemcpyAsync'), (22, 'cuLaunchKernel'),
  (30, 'ProfilerStep#3'), (31, 'python3 main thread');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0, 'CUDA_MEMCPY_OPER_UNKNOWN', 'Unknown'),
  (1, 'CUDA_MEMCPY_OPER_HTOD', 'Host-to-Device'), (2, 'CUDA_MEMCPY_OPER_DTOH', 'Device-to-Host'),
  (8, 'CUDA_MEMCPY_OPER_DTOD', 'Device-to-Device'), (10, 'CUDA_MEMCPY_OPER_PTOP', 'Peer-to-Peer'),
  (11, 'CUDA_MEMCPY_OPER_HTOH', 'Host-to-Host');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (33, 'NvtxCategory', 'NVTX Category'), (34, 'NvtxMark', 'NVTX Mark'),
  (39, 'NvtxThread', 'NVTX Thread'), (59, 'NvtxPushPopRange', 'NVTX PushPop Range'),
  (60, 'NvtxStartEndRange', 'NVTX StartEnd Range'), (75, 'NvtxDomainCreate', 'NVTX Domain Create');

INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000, 1800, 0, 1, NULL, 7, 101, )sql" +
         p1 + R"sql(, 10, 11, 12, 1, 0, 16, 1024, 1, 1, 128, 1, 1, 0, 0, 0, 0, 5, 0, NULL, 0),
  (1200, 5200, 0, 1, NULL, 13, 101, )sql" +
         p2 + R"sql(, 13, 13, 13, 1, 0, 128, 8, 16, 1, 256, 1, 1, 12544, 1024, 0, 0, 6, 0, 77, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (900, 950, 0, 1, NULL, 7, 102, )sql" +
         p1 + R"sql(, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0),
  (960, 970, 0, 1, NULL, 7, 103, )sql" +
         p1 + R"sql(, 64, 11, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1100, 1110, 0, 1, NULL, 13, 104, )sql" +
         p2 + R"sql(, 0, 512, NULL, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (980, 995, 0, )sql" +
         t1 + R"sql(, 101, 20, 0, NULL),
  (880, 898, 0, )sql" +
         t1 + R"sql(, 102, 21, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (1150, 1190, 0, )sql" +
         t2 + R"sql(, 101, 22, 0, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) VALUES
  (10, NULL, 75, 'NCCL', )sql" +
         t1 + R"sql(, NULL, 1),
  (20, NULL, 39, 'main', )sql" +
         t1 + R"sql(, NULL, 0),
  (100, 6000, 59, NULL, )sql" +
         t1 + R"sql(, 30, 0),
  (200, 3000, 60, 'forward', )sql" +
         t1 + R"sql(, NULL, 0),
  (2500, NULL, 34, 'checkpoint', )sql" +
         t1 + R"sql(, NULL, 0),
  (2600, NULL, 59, 'never popped', )sql" +
         t1 + R"sql(, NULL, 0);
INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, cuDevice, computeMajor, computeMinor) VALUES
  (0, 0, 'NVIDIA H100 80GB HBM3', 85520809984, 132, 0, 9, 0),
  (0, 1, 'NVIDIA A100-SXM4-80GB', 85899345920, 108, 1, 8, 0);
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, 4242, 'GPU-0', 132), (1, 0, 4343, 'GPU-1', 108);
INSERT INTO PROCESSES VALUES ()sql" +
         p1 + R"sql(, 4242, 'python3'), ()sql" + p2 + R"sql(, 4343, 'python3 worker');
INSERT INTO ThreadNames VALUES (31, 0, )sql" +
         t1 + R"sql();
)sql";
}

std::string older_schema() {
  const auto p = std::to_string(global_id(777));
  const auto t = std::to_string(global_id(777, 778));
  return R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, globalPid INT NOT NULL,
  demangledName INT NOT NULL, shortName INT NOT NULL, launchType INT NOT NULL, cacheConfig INT NOT NULL,
  registersPerThread INT NOT NULL, gridX INT NOT NULL, gridY INT NOT NULL, gridZ INT NOT NULL, blockX INT NOT NULL,
  blockY INT NOT NULL, blockZ INT NOT NULL, staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL,
  localMemoryPerThread INT NOT NULL, localMemoryTotal INT NOT NULL, gridId INT NOT NULL,
  sharedMemoryExecuted INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, globalPid INT NOT NULL,
  bytes INT NOT NULL, copyKind INT NOT NULL, deprecatedSrcId INT NOT NULL, srcKind INT NOT NULL,
  dstKind INT NOT NULL, srcDeviceId INT NOT NULL, srcContextId INT NOT NULL, dstDeviceId INT NOT NULL,
  dstContextId INT NOT NULL, migrationCause INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL, eventClass INT NOT NULL,
  globalTid INT NOT NULL, correlationId INT NOT NULL, nameId INT NOT NULL, returnValue INT NOT NULL);
CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT NOT NULL, rangeId INT, category INT,
  color INT, text TEXT, globalTid INT, endGlobalTid INT);
CREATE TABLE TARGET_INFO_GPU (id INT NOT NULL, name TEXT NOT NULL, busLocation TEXT NOT NULL,
  isDiscrete INT NOT NULL, l2CacheSize INT NOT NULL, totalMemory INT NOT NULL, memoryBandwidth INT NOT NULL,
  clockRate INT NOT NULL, smCount INT NOT NULL, pwGpuId INT NOT NULL, uuid TEXT NOT NULL, luid INT NOT NULL,
  chipName TEXT NOT NULL);

INSERT INTO StringIds VALUES (1, 'volta_sgemm_128x64_nn'), (2, 'volta_sgemm'), (3, 'elementwise_kernel'),
  (4, 'cudaLaunchKernel');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (5000, 9000, 0, 1, 7, 11, )sql" +
         p + R"sql(, 1, 2, 0, 0, 122, 64, 2, 1, 256, 1, 1, 8192, 0, 0, 0, 1, 0),
  (9500, 9600, 0, 1, 7, 12, )sql" +
         p + R"sql(, 99, 3, 0, 0, 32, 80, 1, 1, 512, 1, 1, 0, 0, 0, 0, 2, 0),
  (9700, 9650, 0, 1, 7, 13, )sql" +
         p + R"sql(, 3, 3, 0, 0, 32, 80, 1, 1, 512, 1, 1, 0, 0, 0, 0, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (100, 200, 0, 1, 7, 14, )sql" +
         p + R"sql(, 1024, 2, 0, 0, 0, 0, 0, 0, 0, 0),
  (300, 400, 0, 1, 7, 15, )sql" +
         p + R"sql(, 2048, 8, 0, 0, 0, 0, 0, 0, 0, 0),
  (500, 600, 0, 1, 7, 16, )sql" +
         p + R"sql(, 4096, 10, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (4900, 4990, 0, )sql" +
         t + R"sql(, 11, 4, 0);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES
  (4000, 9900, 59, 'iteration 1', )sql" +
         t + R"sql(),
  (4500, NULL, 34, 'loss ready', )sql" +
         t + R"sql();
INSERT INTO TARGET_INFO_GPU VALUES (0, 'Tesla V100-SXM2-16GB', '0000:06:00.0', 1, 6291456, 16945512448,
  898048000000, 1530000000, 80, 0, 'GPU-v100', 0, 'GV100');
)sql";
}

const activity* find_kernel(const trace& t, std::string_view name) {
  for (const auto& a : t.activities) {
    if (a.kind == activity_kind::kernel && t.strings[a.name] == name) return &a;
  }
  return nullptr;
}

read_options with_geometry() {
  read_options o;
  o.launch_geometry = true;
  return o;
}

TEST(NsysReader, NewerSchemaMapsEveryKernelField) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()), with_geometry());
  EXPECT_EQ(t.format, source_format::nsys_sqlite);
  EXPECT_EQ(t.platform, "cuda");
  ASSERT_EQ(t.geometry.size(), t.activities.size());

  const auto* fill = find_kernel(
      t,
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
      ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
  ASSERT_NE(fill, nullptr) << "the demangled name is preferred over shortName and mangledName";
  EXPECT_EQ(fill->start, 1000);
  EXPECT_EQ(fill->end, 1800);
  EXPECT_EQ(fill->device, 0);
  EXPECT_EQ(fill->stream, 7);
  EXPECT_EQ(fill->correlation, 101u);
  EXPECT_EQ(fill->graph_node, 0u);
  EXPECT_EQ(t.processes[fill->process].pid, 4242u);
  const auto& g1 = t.geometry[static_cast<std::size_t>(fill - t.activities.data())];
  EXPECT_EQ(g1.grid[0], 1024u);
  EXPECT_EQ(g1.block[0], 128u);
  EXPECT_EQ(g1.registers_per_thread, 16u);

  const auto* gemm = find_kernel(t, "ampere_sgemm_128x64_nn");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->stream, 13);
  EXPECT_EQ(gemm->graph_node, graph_node_tag(77));
  EXPECT_EQ(t.processes[gemm->process].pid, 4343u);
  const auto& g2 = t.geometry[static_cast<std::size_t>(gemm - t.activities.data())];
  EXPECT_EQ(g2.grid[0], 8u);
  EXPECT_EQ(g2.grid[1], 16u);
  EXPECT_EQ(g2.grid[2], 1u);
  EXPECT_EQ(g2.block[0], 256u);
  EXPECT_EQ(g2.registers_per_thread, 128u);
  EXPECT_EQ(g2.static_shared_bytes, 12544u);
  EXPECT_EQ(g2.dynamic_shared_bytes, 1024u);
}

TEST(NsysReader, DistinctGlobalPidsBecomeDistinctProcesses) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()));
  ASSERT_EQ(t.processes.size(), 2u);
  EXPECT_EQ(t.processes[0].pid, 4242u);
  EXPECT_EQ(t.processes[0].name, "python3");
  EXPECT_EQ(t.processes[1].pid, 4343u);
  EXPECT_EQ(t.processes[1].name, "python3 worker");
  // Both processes used correlation id 101: the process index is what tells them apart.
  const auto* fill = find_kernel(t, "ampere_sgemm_128x64_nn");
  ASSERT_NE(fill, nullptr);
  for (const auto& c : t.api_calls) {
    if (c.correlation != 101) continue;
    if (c.kind == api_kind::driver) {
      EXPECT_EQ(c.process, fill->process);
    } else {
      EXPECT_NE(c.process, fill->process);
    }
  }
}

TEST(NsysReader, CopiesAndMemsetsKeepBytesKindAndStream) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()));
  std::vector<const activity*> copies, memsets;
  for (const auto& a : t.activities) {
    if (a.kind == activity_kind::memcpy) copies.push_back(&a);
    if (a.kind == activity_kind::memset) memsets.push_back(&a);
  }
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0]->copy, copy_kind::host_to_device);
  EXPECT_EQ(copies[0]->bytes, 4096u);
  EXPECT_EQ(copies[0]->correlation, 102u);
  EXPECT_EQ(t.strings[copies[0]->name], "Memcpy HtoD");
  // Id 11 means nothing in CUPTI's numbering; the file's ENUM_CUDA_MEMCPY_OPER says host to host.
  EXPECT_EQ(copies[1]->copy, copy_kind::host_to_host);
  EXPECT_EQ(copies[1]->graph_node, graph_node_tag(5));
  ASSERT_EQ(memsets.size(), 1u);
  EXPECT_EQ(memsets[0]->bytes, 512u);
  EXPECT_EQ(memsets[0]->stream, 13);
  EXPECT_EQ(memsets[0]->copy, copy_kind::none);
  EXPECT_EQ(memsets[0]->graph_node, 0u);  // graphNodeId NULL: not from a graph
}

TEST(NsysReader, ApiCallsCarryNameThreadAndKind) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()));
  ASSERT_EQ(t.api_calls.size(), 3u);
  const auto& launch = t.api_calls[0];
  EXPECT_EQ(t.strings[launch.name], "cudaLaunchKernel");
  EXPECT_EQ(launch.kind, api_kind::runtime);
  EXPECT_EQ(launch.thread, 4250u);
  EXPECT_EQ(t.processes[launch.process].pid, 4242u);
  EXPECT_EQ(launch.start, 980);
  EXPECT_EQ(launch.end, 995);
  const auto& driver = t.api_calls[2];
  EXPECT_EQ(t.strings[driver.name], "cuLaunchKernel");
  EXPECT_EQ(driver.kind, api_kind::driver);
  EXPECT_EQ(driver.thread, 4343u);
}

TEST(NsysReader, SynchronisationsKeepKindStreamEventAndTheirCallsThread) {
  const std::string p1 = std::to_string((1ll << 24) * 4242);
  const std::string t1 = std::to_string((1ll << 24) * 4242 + 4250);
  const auto sql = std::string(R"sql(
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL, eventClass INT NOT NULL,
  globalTid INT NOT NULL, correlationId INT NOT NULL, nameId INT NOT NULL, returnValue INT NOT NULL);
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INT, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, globalPid INT NOT NULL,
  syncType INT NOT NULL, eventId INT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaStreamSynchronize'), (2, 'cudaStreamWaitEvent'), (3, 'cudaDeviceSynchronize');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),
  (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
  (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait event'),
  (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),
  (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1900, 0, )sql" +
                               t1 + R"sql(, 201, 1, 0),
  (2000, 2010, 0, )sql" + t1 + R"sql(, 202, 2, 0), (3000, 3500, 0, )sql" +
                               t1 + R"sql(, 203, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
  (1001, 1899, 0, 1, 7, 201, )sql" +
                               p1 + R"sql(, 3, 4294967295),
  (2001, 2009, 0, 1, 13, 202, )sql" +
                               p1 + R"sql(, 2, 12),
  (3001, 3499, 0, 1, 4294967295, 203, )sql" +
                               p1 + R"sql(, 4, 4294967295),
  (3600, 3700, 0, 1, 7, 204, )sql" +
                               p1 + R"sql(, 0, 4294967295))sql");
  const auto t = read_nsys_sqlite(make_db("sync.sqlite", sql));
  ASSERT_EQ(t.synchronizations.size(), 3u);
  const auto& stream = t.synchronizations[0];
  EXPECT_EQ(stream.kind, sync_kind::stream_synchronize);
  EXPECT_EQ(stream.stream, 7);
  EXPECT_EQ(stream.event, -1);  // CUPTI_SYNCHRONIZATION_INVALID_VALUE
  EXPECT_EQ(stream.correlation, 201u);
  EXPECT_EQ(stream.thread, 4250u);  // from its call
  EXPECT_EQ(stream.device, 0);
  const auto& wait = t.synchronizations[1];
  EXPECT_EQ(wait.kind, sync_kind::stream_wait_event);
  EXPECT_EQ(wait.stream, 13);
  EXPECT_EQ(wait.event, 12);
  EXPECT_EQ(t.synchronizations[2].kind, sync_kind::context_synchronize);
  EXPECT_EQ(t.synchronizations[2].stream, -1);
  ASSERT_FALSE(t.warnings.empty());
  EXPECT_EQ(t.warnings.back().what, "synchronisation records of an unknown syncType skipped");
}

TEST(NsysReader, NvtxRangesAndMarksByEventType) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()));
  ASSERT_EQ(t.ranges.size(), 3u) << "domain creation, thread names and an unterminated range are not ranges";
  EXPECT_EQ(t.strings[t.ranges[0].name], "ProfilerStep#3") << "text resolved through textId";
  EXPECT_EQ(t.ranges[0].kind, range_kind::nvtx);
  EXPECT_EQ(t.ranges[0].start, 100);
  EXPECT_EQ(t.ranges[0].end, 6000);
  EXPECT_EQ(t.ranges[0].thread, 4250u);
  EXPECT_EQ(t.processes[t.ranges[0].process].pid, 4242u);
  EXPECT_EQ(t.strings[t.ranges[1].name], "forward");
  EXPECT_EQ(t.ranges[1].kind, range_kind::nvtx);
  EXPECT_EQ(t.strings[t.ranges[2].name], "checkpoint");
  EXPECT_EQ(t.ranges[2].kind, range_kind::mark);
  EXPECT_EQ(t.ranges[2].start, t.ranges[2].end);
  bool warned = false;
  for (const auto& w : t.warnings) warned = warned || w.what.find("no end") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(NsysReader, DevicesNameTheGpuEachProcessSaw) {
  const auto t = read_nsys_sqlite(make_db("new.sqlite", newer_schema()));
  ASSERT_EQ(t.devices.size(), 2u);
  for (const auto& d : t.devices) {
    EXPECT_EQ(d.id, 0);
    if (t.processes[d.process].pid == 4242) {
      EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
      EXPECT_EQ(d.sm_count, 132);
      EXPECT_EQ(d.compute_major, 9);
      EXPECT_EQ(d.memory_bytes, 85520809984u);
    } else {
      // CUDA device 0 of pid 4343 is physical GPU 1 (CUDA_VISIBLE_DEVICES=1).
      EXPECT_EQ(d.name, "NVIDIA A100-SXM4-80GB");
      EXPECT_EQ(d.sm_count, 108);
      EXPECT_EQ(d.compute_major, 8);
      EXPECT_EQ(d.compute_minor, 0);
    }
  }
}

TEST(NsysReader, OlderSchemaReadsWhatItHas) {
  const auto path = make_db("old.sqlite", older_schema());
  const auto t = read_nsys_sqlite(path, with_geometry());
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 777u);
  EXPECT_EQ(t.processes[0].name, path.filename().string()) << "no PROCESSES table: named after the file";

  const auto* gemm = find_kernel(t, "volta_sgemm_128x64_nn");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->correlation, 11u);
  EXPECT_EQ(gemm->graph_node, 0u);
  const auto& g = t.geometry[static_cast<std::size_t>(gemm - t.activities.data())];
  EXPECT_EQ(g.grid[0], 64u);
  EXPECT_EQ(g.grid[1], 2u);
  EXPECT_EQ(g.static_shared_bytes, 8192u);
  EXPECT_EQ(g.registers_per_thread, 122u);
  // demangledName 99 is not in StringIds: the short name stands in.
  const auto* fallback = find_kernel(t, "elementwise_kernel");
  ASSERT_NE(fallback, nullptr);
  EXPECT_EQ(fallback->correlation, 12u);

  std::vector<copy_kind> kinds;
  for (const auto& a : t.activities) {
    if (a.kind == activity_kind::memcpy) kinds.push_back(a.copy);
  }
  EXPECT_EQ(kinds,
            (std::vector<copy_kind>{copy_kind::device_to_host, copy_kind::device_to_device, copy_kind::peer_to_peer}))
      << "without ENUM_CUDA_MEMCPY_OPER, copyKind is CUPTI's numbering";

  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.strings[t.ranges[0].name], "iteration 1");
  EXPECT_EQ(t.ranges[1].kind, range_kind::mark);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(t.devices[0].sm_count, 80);
  EXPECT_EQ(t.devices[0].memory_bytes, 16945512448u);
  EXPECT_EQ(t.devices[0].compute_major, 0) << "this export does not say";
}

TEST(NsysReader, KernelEndingBeforeItStartsIsClampedWithAWarning) {
  const auto t = read_nsys_sqlite(make_db("old.sqlite", older_schema()));
  const activity* bad = nullptr;
  for (const auto& a : t.activities) {
    if (a.correlation == 13) bad = &a;
  }
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->start, 9700);
  EXPECT_EQ(bad->end, 9700);
  ASSERT_FALSE(t.warnings.empty());
}

TEST(NsysReader, OptionsLeaveOutApiCallsRangesAndGeometry) {
  read_options o;
  o.api_calls = false;
  o.ranges = false;
  std::uint64_t last_done = 0, last_total = 0;
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    last_done = done;
    last_total = total;
  };
  const auto path = make_db("new.sqlite", newer_schema());
  const auto t = read_nsys_sqlite(path, o);
  EXPECT_TRUE(t.api_calls.empty());
  EXPECT_TRUE(t.ranges.empty());
  EXPECT_TRUE(t.geometry.empty());
  EXPECT_EQ(t.activities.size(), 5u);
  EXPECT_EQ(last_total, fs::file_size(path));
  EXPECT_EQ(last_done, last_total);
}

TEST(NsysReader, FileWithoutCudaActivityAsksAboutTraceCuda) {
  const auto path = make_db("osrt.sqlite",
                            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                            "CREATE TABLE OSRT_API (start INT, end INT, nameId INT, globalTid INT);");
  try {
    read_nsys_sqlite(path);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("--trace=cuda"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(NsysReader, NonSqliteAndMissingFilesAreInputErrors) {
  const auto json = temp_file("trace.json");
  std::ofstream(json) << R"({"traceEvents": []})";
  EXPECT_THROW(read_nsys_sqlite(json), input_error);
  EXPECT_THROW(read_nsys_sqlite(temp_file("missing.sqlite")), input_error);
  const auto truncated = temp_file("truncated.sqlite");
  std::ofstream(truncated, std::ios::binary) << std::string("SQLite format 3\0", 16) << std::string(100, 'x');
  EXPECT_THROW(read_nsys_sqlite(truncated), input_error);
}

TEST(NsysReader, KernelTableWithoutTimesIsAnInputError) {
  const auto path = make_db("broken.sqlite",
                            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (deviceId INT, streamId INT);"
                            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 7);");
  try {
    read_nsys_sqlite(path);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("start"), std::string::npos) << e.what();
  }
}

}  // namespace
