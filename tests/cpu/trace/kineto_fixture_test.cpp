// The Kineto reader on real traces (HolisticTraceAnalysis test data in shared/fixtures).
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "headroom/trace/kineto.hpp"
#include "headroom/util/error.hpp"
#include "kineto_test_util.hpp"

namespace headroom::trace {
namespace {

using testing::fixture_dir;
using testing::fixture_json;

#define REQUIRE_FIXTURES() \
  if (!std::filesystem::is_directory(fixture_dir())) GTEST_SKIP() << "no fixtures at " << fixture_dir()

struct counts {
  std::size_t kernels = 0, memcpys = 0, memsets = 0;
  time_ns kernel_ns = 0;
};

counts count(const trace& t) {
  counts c;
  for (const auto& a : t.activities) {
    if (a.kind == activity_kind::kernel) ++c.kernels, c.kernel_ns += a.duration();
    if (a.kind == activity_kind::memcpy) ++c.memcpys;
    if (a.kind == activity_kind::memset) ++c.memsets;
  }
  return c;
}

struct expected_counts {
  const char* file;
  std::size_t kernels, memcpys, memsets, api_calls;
  time_ns kernel_ns;
  const char* platform;
};

// Computed once, independently, with Python:
//   d = json.loads(gzip.open(f).read(), parse_float=Decimal)
//   over events with ph == "X": kernels = cat in ("kernel", "Kernel"); memcpy = "gpu_memcpy";
//   memset = "gpu_memset"; api calls = cat in ("cuda_runtime", "cuda_driver", "Runtime");
//   kernel_ns = sum(int((Decimal(dur) * 1000).to_integral_value(ROUND_HALF_UP))).
// (None of these files has a ts 0 / dur 0 kernel.)
const expected_counts kFixtures[] = {
    {"ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 4350, 1600, 145, 15329, 468153602, "cuda"},
    {"nccl_parser_config_nccl_data.json.gz", 2700, 960, 114, 8740, 162532340, "cuda"},
    {"df_index_resolver_df_index_resolver.json.gz", 19370, 2040, 880, 42373, 977859000, "cuda"},
    {"amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 2, 0, 21, 110881, "rocm"},
    {"trace_file_list_inference_rank_1.json.gz", 4, 0, 0, 8, 30000, "cuda"},
    {"triton_example_triton_example.json.gz", 1, 0, 0, 2, 1760, "cuda"},
};

TEST(KinetoFixtures, CountsAndKernelTimeMatchAnIndependentCount) {
  REQUIRE_FIXTURES();
  for (const auto& e : kFixtures) {
    SCOPED_TRACE(e.file);
    const trace t = read_kineto_json(fixture_dir() / e.file);
    const counts c = count(t);
    EXPECT_EQ(c.kernels, e.kernels);
    EXPECT_EQ(c.memcpys, e.memcpys);
    EXPECT_EQ(c.memsets, e.memsets);
    EXPECT_EQ(t.api_calls.size(), e.api_calls);
    EXPECT_EQ(c.kernel_ns, e.kernel_ns);
    EXPECT_EQ(t.platform, e.platform);
    EXPECT_EQ(t.format, source_format::kineto_json);
    ASSERT_EQ(t.processes.size(), 1u);
    EXPECT_EQ(t.processes[0].name, e.file);
  }
}

TEST(KinetoFixtures, EveryKinetoFixtureReadsAndTheExecutionTraceIsRejected) {
  REQUIRE_FIXTURES();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture_dir())) {
    const auto name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++files;
    if (name.find("_et.json") != std::string::npos) {
      // A PyTorch execution trace (nodes, not traceEvents): a clear error, not an empty result.
      try {
        (void)read_kineto_json(entry.path());
        ADD_FAILURE() << "an execution trace was accepted as a Kineto trace";
      } catch (const input_error& err) {
        EXPECT_NE(std::string(err.what()).find("traceEvents"), std::string::npos) << err.what();
      }
      continue;
    }
    const trace t = read_kineto_json(entry.path());
    for (const auto& a : t.activities) ASSERT_GE(a.end, a.start);
    for (const auto& w : t.warnings) EXPECT_EQ(w.what.find("truncated"), std::string::npos) << w.what;
  }
  EXPECT_GE(files, 30u);
}

TEST(KinetoFixtures, PlatformComesFromTheTrace) {
  REQUIRE_FIXTURES();
  EXPECT_EQ(read_kineto_json(fixture_dir() / "mtia_inference_trace_mtia_inference_rank_0.json.gz").platform, "mtia");
  EXPECT_EQ(read_kineto_json(fixture_dir() / "cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz").platform, "");
  const trace amd = read_kineto_json(fixture_dir() / "amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  ASSERT_FALSE(amd.devices.empty());
  EXPECT_EQ(amd.devices[0].name, "AMD Radeon Graphics");
  EXPECT_EQ(amd.devices[0].sm_count, 104);
}

TEST(KinetoFixtures, MtiaDeviceJobsAreKernelsAndDmaRequestsAreCopies) {
  REQUIRE_FIXTURES();
  // Python: of the 1313 mtia_ccp_events, 877 are dma_request, 291 event_record, 48 event_wait.
  const trace t = read_kineto_json(fixture_dir() / "mtia_inference_trace_mtia_inference_rank_0.json.gz");
  const counts c = count(t);
  EXPECT_EQ(c.kernels, 1313u - 877u - 291u - 48u);
  EXPECT_EQ(c.memcpys, 877u);
}

TEST(KinetoFixtures, ProfilerStepsRankDevicesAndPidAreRead) {
  REQUIRE_FIXTURES();
  const trace t = read_kineto_json(fixture_dir() / "nccl_parser_config_nccl_data.json.gz");
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.devices.size(), 8u);
  const auto steps = std::count_if(t.ranges.begin(), t.ranges.end(), [&](const range& r) {
    return r.kind == range_kind::cpu_annotation && t.strings[r.name].starts_with("ProfilerStep#");
  });
  EXPECT_GT(steps, 0);
  EXPECT_NE(t.processes[0].pid, 0u);
}

TEST(KinetoFixtures, LaunchGeometryOnlyWhenAsked) {
  REQUIRE_FIXTURES();
  const auto path = fixture_dir() / "triton_example_triton_example.json.gz";
  EXPECT_TRUE(read_kineto_json(path).geometry.empty());
  read_options o;
  o.launch_geometry = true;
  const trace t = read_kineto_json(path, o);
  ASSERT_EQ(t.geometry.size(), t.activities.size());
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.strings[t.activities[0].name], "triton_poi_fused_add_cos_sin_0");
  EXPECT_EQ(t.geometry[0].block[0], 128u);
  EXPECT_EQ(t.geometry[0].grid[0], 1u);
  EXPECT_EQ(t.geometry[0].registers_per_thread, 16u);
  EXPECT_EQ(t.activities[0].correlation, 35u);
  EXPECT_EQ(t.activities[0].stream, 7);
  // ts 2413669097444.592 us plus baseTimeNanoseconds 1727743122000000000.
  EXPECT_EQ(t.activities[0].start, 1727743122000000000 + 2413669097444592);
}

TEST(KinetoFixtures, WithoutApiCallsTheActivitiesAreTheSame) {
  REQUIRE_FIXTURES();
  const auto path = fixture_dir() / "ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  read_options lean;
  lean.api_calls = false;
  const trace a = read_kineto_json(path);
  const trace b = read_kineto_json(path, lean);
  EXPECT_TRUE(b.api_calls.empty());
  ASSERT_EQ(a.activities.size(), b.activities.size());
  for (std::size_t i = 0; i < a.activities.size(); ++i) ASSERT_EQ(a.activities[i].start, b.activities[i].start);
}

TEST(KinetoFixtures, TinyChunksGiveTheSameTraceAsOneChunk) {
  REQUIRE_FIXTURES();
  const std::string json = fixture_json("trace_compare_test_test.json.gz");
  const trace whole = read_kineto_json_buffer(json, "whole");
  ASSERT_FALSE(whole.activities.empty());
  for (std::size_t chunk : {64u, 101u, 777u, 4096u}) {
    SCOPED_TRACE(chunk);
    kineto_tuning tuning;
    tuning.chunk_bytes = chunk;
    tuning.batch_bytes = chunk / 3;
    const trace t = read_kineto_json_buffer(json, "chunked", {}, tuning);
    ASSERT_EQ(t.activities.size(), whole.activities.size());
    for (std::size_t i = 0; i < t.activities.size(); ++i) {
      EXPECT_EQ(t.activities[i].start, whole.activities[i].start);
      EXPECT_EQ(t.activities[i].end, whole.activities[i].end);
      EXPECT_EQ(t.strings[t.activities[i].name], whole.strings[whole.activities[i].name]);
    }
    EXPECT_EQ(t.api_calls.size(), whole.api_calls.size());
    EXPECT_EQ(t.ranges.size(), whole.ranges.size());
    EXPECT_TRUE(t.warnings.empty());
  }
}

TEST(KinetoFixtures, ATruncatedTraceKeepsEveryCompleteEvent) {
  REQUIRE_FIXTURES();
  const std::string json = fixture_json("ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  // Cut inside the 1000th kernel event: the 999 before it are complete.
  const std::string marker = "\"cat\": \"kernel\"";
  std::size_t at = 0;
  for (int i = 0; i < 1000; ++i) at = json.find(marker, at + 1);
  ASSERT_NE(at, std::string::npos);
  const std::string cut = json.substr(0, at + 40);
  const trace t = read_kineto_json_buffer(cut, "cut.json");
  EXPECT_EQ(count(t).kernels, 999u);
  const auto truncated = std::find_if(t.warnings.begin(), t.warnings.end(),
                                      [](const reader_warning& w) { return w.what.starts_with("truncated at byte"); });
  ASSERT_NE(truncated, t.warnings.end());
  EXPECT_NE(truncated->what.find(std::to_string(cut.size())), std::string::npos) << truncated->what;
}

// The cut-off part held baseTimeNanoseconds, so compare names and durations, not start times.
void expect_prefix(const trace& part, const trace& whole) {
  ASSERT_LE(part.activities.size(), whole.activities.size());
  for (std::size_t i = 0; i < part.activities.size(); ++i) {
    ASSERT_EQ(part.activities[i].duration(), whole.activities[i].duration()) << i;
    ASSERT_EQ(part.strings[part.activities[i].name], whole.strings[whole.activities[i].name]) << i;
  }
}

TEST(KinetoFixtures, ACutGzipKeepsWhatDecoded) {
  REQUIRE_FIXTURES();
  const auto path = fixture_dir() / "nccl_parser_config_nccl_data.json.gz";
  const std::string gz = testing::read_bytes(path);
  const trace whole = read_kineto_json(path);
  const std::string half = gz.substr(0, gz.size() / 2);
  const trace t = read_kineto_json_buffer(half, "half.json.gz");
  EXPECT_GT(t.activities.size(), 0u);
  EXPECT_LT(t.activities.size(), whole.activities.size());
  expect_prefix(t, whole);
  const bool warned = std::any_of(t.warnings.begin(), t.warnings.end(),
                                  [](const reader_warning& w) { return w.what.starts_with("gzip stream ends early"); });
  EXPECT_TRUE(warned);
}

TEST(KinetoFixtures, CorruptGzipKeepsWhatDecodedAndWarns) {
  REQUIRE_FIXTURES();
  const auto path = fixture_dir() / "nccl_parser_config_nccl_data.json.gz";
  std::string gz = testing::read_bytes(path);
  const trace whole = read_kineto_json(path);
  for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = static_cast<char>(~gz[i]);
  const trace t = read_kineto_json_buffer(gz, "corrupt.json.gz");
  EXPECT_LT(t.activities.size(), whole.activities.size());
  expect_prefix(t, whole);
  const bool warned = std::any_of(t.warnings.begin(), t.warnings.end(),
                                  [](const reader_warning& w) { return w.what.starts_with("corrupt gzip data"); });
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace headroom::trace
