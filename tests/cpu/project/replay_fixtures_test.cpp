// The replay on real Kineto traces (HolisticTraceAnalysis test data): every trace with host activity
// must come back step for step with nothing shrunk. Skipped without the fixtures.
#include <gtest/gtest.h>

#include <filesystem>

#include "analyze/trace_builder.hpp"
#include "headroom/analyze/inputs.hpp"
#include "headroom/project/replay_report.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;

namespace {

std::filesystem::path fixture(const char* name) {
  return std::filesystem::path(HEADROOM_FIXTURES_DIR) / "kineto-hta" / name;
}

#define REQUIRE_FIXTURE(p) \
  if (!std::filesystem::exists(p)) GTEST_SKIP() << "fixture absent: " << (p)

project::replay_projection replay_of(const std::filesystem::path& path) {
  const auto t = analyze::read_traces({path}, analyze::host_calls::whole);
  return project::project_replay(t, test::test_classifier(), {}, {project::parse_addressable_speedup("2")});
}

TEST(ReplayFixtures, EveryTraceWithHostActivityIsReproducedStepForStep) {
  const auto dir = std::filesystem::path(HEADROOM_FIXTURES_DIR) / "kineto-hta";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  std::size_t replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    trace::trace t;
    try {
      t = analyze::read_traces({entry.path()}, analyze::host_calls::whole);
    } catch (const input_error&) {
      continue;  // not a trace (the execution-trace file)
    }
    const auto p = project::project_replay(t, test::test_classifier(), {}, {project::parse_addressable_speedup("2")});
    if (!p.support.has_host_activity) continue;
    for (const auto& tl : p.timelines) {
      if (!tl.replayed) continue;
      ++replayed;
      SCOPED_TRACE(name + " " + tl.label);
      EXPECT_LT(tl.error.mean, 0.01);
      EXPECT_LT(tl.error.max, 0.02);
      EXPECT_EQ(p.support.cycles_broken, 0u);
      for (const auto& s : tl.steps) {
        EXPECT_EQ(s.amdahl_saving - (s.replayed - s.shrunk), s.hidden_by_overlap + s.launch_bound + s.other_idle);
      }
    }
  }
  EXPECT_GE(replayed, 15u);
}

TEST(ReplayFixtures, KinetoSynchronisationEventsBecomeHostWaitsAndEventWaits) {
  const auto path = fixture("critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
  REQUIRE_FIXTURE(path);
  const auto p = replay_of(path);
  EXPECT_EQ(p.support.synchronizations, 21u);  // 16 stream and 5 context synchronisations
  EXPECT_EQ(p.support.synchronizations_inferred, 0u);
  EXPECT_EQ(p.support.event_waits, 20u);
  EXPECT_EQ(p.support.event_waits_unknown, 0u);
  std::size_t contradicted = 0;
  for (auto c : p.support.contradicted) contradicted += c;
  EXPECT_EQ(contradicted, 0u);
}

TEST(ReplayFixtures, AnEventQueryDoesNotBlockTheHost) {
  // CUPTI reports cudaEventQuery as an event synchronisation; the trace has three, none blocking.
  const auto path = fixture("critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz");
  REQUIRE_FIXTURE(path);
  const auto p = replay_of(path);
  EXPECT_EQ(p.support.synchronizations, 1u);  // the cudaDeviceSynchronize
  EXPECT_EQ(p.support.event_waits, 1u);
}

TEST(ReplayFixtures, CudaGraphLaunchesAreGroupedAndTheirKernelsReplayed) {
  const auto path = fixture("negative_queue_length_values_check_rank0.json.gz");
  REQUIRE_FIXTURE(path);
  const auto p = replay_of(path);
  // 70 cudaGraphLaunch calls; 25 launched a single kernel (a plain launch to the replay), the other
  // 45 two to twenty.
  EXPECT_EQ(p.support.graph_launches, 45u);
  EXPECT_GT(p.support.activities_without_launch, 0u);  // queued before the profiler started
  ASSERT_FALSE(p.timelines.empty());
  EXPECT_TRUE(p.timelines.front().replayed);
}

}  // namespace
