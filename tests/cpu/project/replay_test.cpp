// The replay on fabricated traces, one dependency kind at a time: each trace is built so that the
// kernels' start and end follow from its launches, streams and synchronisations, and the expected
// replayed step is worked out by hand in the comments.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "headroom/project/replay_export.hpp"
#include "headroom/project/replay_report.hpp"
#include "project/replay_builder.hpp"

using namespace headroom;
using project::dependency;
using trace::sync_kind;

namespace {

constexpr trace::time_ns us(double v) { return static_cast<trace::time_ns>(v * 1000); }

analyze::analyze_options no_warmup() {
  analyze::analyze_options o;
  o.warmup_steps = 0;
  return o;
}

std::vector<project::speedup_rule> addressable_at(std::string_view s) {
  return {project::parse_addressable_speedup(s)};
}

project::replay_projection run(const trace::trace& t, std::string_view speedup = "2") {
  return project::project_replay(t, test::test_classifier(), no_warmup(), addressable_at(speedup));
}

const project::replay_timeline_report& only_timeline(const project::replay_projection& p) {
  EXPECT_EQ(p.timelines.size(), 1u);
  EXPECT_TRUE(p.timelines.front().replayed) << p.timelines.front().not_replayed;
  return p.timelines.front();
}

// Every step: replayed and typical with nothing shrunk equal the measurement, and the gap between
// Amdahl's saving and the replay's splits into its three causes exactly.
void expect_reproduced(const project::replay_timeline_report& t) {
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    EXPECT_EQ(s.replayed, s.measured) << "step " << i;
    EXPECT_EQ(s.typical, s.measured) << "step " << i;
    EXPECT_EQ(s.amdahl_saving - (s.replayed - s.shrunk), s.hidden_by_overlap + s.launch_bound + s.other_idle)
        << "step " << i;
  }
  EXPECT_EQ(t.error.max, 0.0);
  EXPECT_EQ(t.error_typical.max, 0.0);
}

// One host thread launches 20 Triton kernels every 10 us; each starts 9 us after its launch and
// runs 9 us, so the GPU is 90% busy yet always waiting for the next launch.
trace::trace launch_bound_trace(int steps) {
  test::replay_builder b;
  for (int s = 0; s <= steps; ++s) {
    const auto t0 = us(1000 + 200 * s);
    b.step(s + 1, t0, t0 + us(199));
    for (int k = 0; k < 20; ++k) {
      const auto at = t0 + us(10 * k);
      b.launch(at, at + us(8), test::triton, at + us(9), at + us(18));
    }
  }
  return std::move(b.t);
}

TEST(Replay, ALaunchBoundStepKeepsItsLengthWhereAmdahlPromisesAlmostTwiceAsFast) {
  const auto t = launch_bound_trace(4);
  const auto p = run(t);
  const auto& tl = only_timeline(p);
  ASSERT_EQ(tl.steps.size(), 4u);
  expect_reproduced(tl);
  for (const auto& s : tl.steps) {
    EXPECT_EQ(s.measured, us(200));
    EXPECT_EQ(s.shrunk, us(200));  // the host still launches every 10 us
    EXPECT_EQ(s.amdahl, us(200 - 90));  // 20 kernels x 9 us x (1 - 1/2)
    EXPECT_EQ(s.hidden_by_overlap, 0);
    EXPECT_EQ(s.launch_bound, us(90));  // all of Amdahl's saving becomes GPU idle waiting for launches
    EXPECT_EQ(s.other_idle, 0);
  }
  EXPECT_DOUBLE_EQ(p.speedup_replay, 1.0);
  EXPECT_NEAR(p.speedup_amdahl, 200.0 / 110.0, 1e-9);
}

// Each step launches 20 Triton kernels of 20 us 2 us apart, so they queue (1 us between them), and
// then waits in cudaStreamSynchronize; the host resumes 3 us after the last kernel and 3 us later
// starts the next step.
trace::trace gpu_bound_trace(int steps, bool sync_records) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= steps; ++s) {
    b.step(s + 1, t0, t0 + us(427));
    for (int k = 0; k < 20; ++k) {
      const auto at = t0 + us(2 * k);
      const auto start = t0 + us(5 + 21 * k);
      b.launch(at, at + us(1.5), test::triton, start, start + us(20));
    }
    const auto last_end = t0 + us(5 + 21 * 19 + 20);
    const auto c = b.call("cudaStreamSynchronize", t0 + us(40), last_end + us(3));
    if (sync_records) b.sync(sync_kind::stream_synchronize, c, t0 + us(40), last_end + us(3), 7);
    t0 = last_end + us(6);
  }
  return std::move(b.t);
}

TEST(Replay, AGpuBoundStepShrinksAsAmdahlSays) {
  const auto p = run(gpu_bound_trace(3, true));
  const auto& tl = only_timeline(p);
  ASSERT_EQ(tl.steps.size(), 3u);
  expect_reproduced(tl);
  for (const auto& s : tl.steps) {
    EXPECT_EQ(s.measured, us(430));
    EXPECT_EQ(s.shrunk, us(230));  // 20 x 10 us + 19 us of gaps + the launch, wake-up and host time
    EXPECT_EQ(s.amdahl, us(230));
  }
  EXPECT_EQ(p.support.synchronizations, 4u);
}

TEST(Replay, AStreamSynchronizeWithoutARecordWaitsForTheStreamThatFinishedLast) {
  const auto p = run(gpu_bound_trace(3, false));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(230));
  EXPECT_EQ(p.support.synchronizations, 0u);
  EXPECT_EQ(p.support.synchronizations_inferred, 4u);
}

// A 300 us GEMM on stream 7 while ten 20 us Triton kernels run on stream 13; the step ends in
// cudaDeviceSynchronize, which waits for the GEMM.
trace::trace overlap_trace(int steps) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= steps; ++s) {
    b.step(s + 1, t0, t0 + us(310));
    b.launch(t0, t0 + us(5), test::gemm, t0 + us(6), t0 + us(306), 7);
    for (int k = 0; k < 10; ++k) {
      const auto at = t0 + us(6 + 6 * k);
      const auto start = t0 + us(12 + 21 * k);
      b.launch(at, at + us(5), test::triton, start, start + us(20), 13);
    }
    const auto c = b.call("cudaDeviceSynchronize", t0 + us(66), t0 + us(309));
    b.sync(sync_kind::context_synchronize, c, t0 + us(66), t0 + us(309));
    t0 += us(312);
  }
  return std::move(b.t);
}

TEST(Replay, WorkOverlappedByAnotherStreamHidesTheShrink) {
  const auto p = run(overlap_trace(3));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  for (const auto& s : tl.steps) {
    EXPECT_EQ(s.measured, us(312));
    EXPECT_EQ(s.shrunk, us(312));  // the GEMM sets the step
    EXPECT_EQ(s.amdahl_saving, us(100));
    EXPECT_EQ(s.hidden_by_overlap, us(100));
  }
  EXPECT_NEAR(p.speedup_amdahl, 312.0 / 212.0, 1e-9);
  EXPECT_DOUBLE_EQ(p.speedup_replay, 1.0);
}

// Stream 13's GEMM waits (cudaStreamWaitEvent) for an event recorded after a 100 us Triton kernel
// on stream 7; the host then synchronises the device.
enum class wait_in_trace {
  record,  // the wait and the event record it names (torch.profiler 2.1+, our profiler)
  wait_without_record,  // the wait names its stream, not where the event was recorded (nsys)
  call_only,  // only the cudaStreamWaitEvent call (Kineto before PyTorch 2.1)
  nothing,
};

trace::trace event_wait_trace(int steps, wait_in_trace wait) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= steps; ++s) {
    b.step(s + 1, t0, t0 + us(160));
    b.launch(t0, t0 + us(5), test::triton, t0 + us(6), t0 + us(106), 7);
    const auto rec = wait == wait_in_trace::record ? b.record(5, 7, t0 + us(6), t0 + us(8))
                                                   : b.call("cudaEventRecord", t0 + us(6), t0 + us(8));
    if (wait != wait_in_trace::nothing) {
      const auto w = b.call("cudaStreamWaitEvent", t0 + us(9), t0 + us(11));
      if (wait == wait_in_trace::record) b.sync(sync_kind::stream_wait_event, w, t0 + us(9), t0 + us(11), 13, 5, rec);
      if (wait == wait_in_trace::wait_without_record) {
        b.sync(sync_kind::stream_wait_event, w, t0 + us(9), t0 + us(11), 13, 5);
      }
    }
    b.launch(t0 + us(12), t0 + us(17), test::gemm, t0 + us(108), t0 + us(158), 13);
    const auto c = b.call("cudaDeviceSynchronize", t0 + us(20), t0 + us(161));
    b.sync(sync_kind::context_synchronize, c, t0 + us(20), t0 + us(161));
    t0 += us(164);
  }
  return std::move(b.t);
}

TEST(Replay, AStreamWaitingForAnEventStartsWhenTheRecordedWorkEnds) {
  const auto p = run(event_wait_trace(3, wait_in_trace::record));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.event_waits, 4u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(114));  // the GEMM follows the kernel 50 us sooner
  // The GEMM of the first step starts 2 us after the shrunk Triton kernel ends.
  const auto& g = p.graph;
  const auto& r = p.shrunk_timeline;
  EXPECT_EQ(r.start[g.activity_node[1]], r.end[g.activity_node[0]] + us(2));
  EXPECT_EQ(r.bound_by[g.activity_node[1]], dependency::event_wait);
}

// Kineto before PyTorch 2.1 records the cudaStreamWaitEvent call but not which streams it joins:
// the next work the thread launches waits for the stream it launched onto before.
TEST(Replay, AStreamWaitWithoutARecordIsTiedByTheThreadsLaunches) {
  const auto p = run(event_wait_trace(3, wait_in_trace::call_only));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.event_waits, 0u);
  EXPECT_EQ(p.support.event_waits_inferred, 4u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(114));
}

TEST(Replay, AStreamWaitNamingOnlyItsStreamIsTiedByTheThreadsLaunches) {
  const auto p = run(event_wait_trace(3, wait_in_trace::wait_without_record));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.event_waits_inferred, 4u);
  EXPECT_EQ(p.support.event_waits_unknown, 0u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(114));
}

TEST(Replay, WorkThatNothingSaysWaitedKeepsItsMeasuredDelayAfterItsLaunch) {
  const auto p = run(event_wait_trace(3, wait_in_trace::nothing));
  const auto& tl = only_timeline(p);
  EXPECT_EQ(p.support.event_waits + p.support.event_waits_inferred + p.support.event_waits_unknown, 0u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(164));
  // With typical latencies the GEMM starts a typical launch latency after its launch instead of
  // 96 us: how the typical replay shows a dependency the trace does not hold.
  EXPECT_GT(tl.error_typical.max, 0.0);
}

// The host records an event after a 100 us Triton kernel and waits for it (cudaEventSynchronize).
TEST(Replay, EventSynchronizeBlocksTheHostUntilTheRecordedWorkIsDone) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= 3; ++s) {
    b.step(s + 1, t0, t0 + us(110));
    b.launch(t0, t0 + us(5), test::triton, t0 + us(6), t0 + us(106));
    const auto rec = b.record(3, 7, t0 + us(6), t0 + us(8));
    const auto c = b.call("cudaEventSynchronize", t0 + us(9), t0 + us(109));
    b.sync(sync_kind::event_synchronize, c, t0 + us(9), t0 + us(109), -1, 3, rec);
    t0 += us(114);
  }
  const auto p = run(b.t);
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(64));
}

// `.item()`: a kernel, then a copy of its result into pageable host memory that the call waits
// for, then cudaStreamSynchronize (already done).
TEST(Replay, ABlockingCopyReturnsWhenItsCopyIsDone) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= 3; ++s) {
    b.step(s + 1, t0, t0 + us(120));
    b.launch(t0, t0 + us(5), test::triton, t0 + us(6), t0 + us(106));
    const auto copy = b.call("cudaMemcpyAsync", t0 + us(6), t0 + us(110));
    b.work(copy, "Memcpy DtoH (Device -> Pageable)", t0 + us(107), t0 + us(109), 7, trace::activity_kind::memcpy,
           trace::copy_kind::device_to_host);
    const auto c = b.call("cudaStreamSynchronize", t0 + us(111), t0 + us(112));
    b.sync(sync_kind::stream_synchronize, c, t0 + us(111), t0 + us(112), 7);
    t0 += us(115);
  }
  const auto p = run(b.t);
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.blocking_copies, 4u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(65));
}

// A CUDA graph launch runs three 30 us Triton kernels in a chain; a GEMM launched after it on the
// same stream waits for the whole graph.
TEST(Replay, WorkAfterAGraphLaunchWaitsForTheGraphsLastNode) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= 3; ++s) {
    b.step(s + 1, t0, t0 + us(150));
    const auto g = b.call("cudaGraphLaunch", t0, t0 + us(10));
    b.work(g, "triton_poi_fused_a_0", t0 + us(12), t0 + us(42));
    b.work(g, "triton_poi_fused_b_1", t0 + us(43), t0 + us(73));
    b.work(g, "triton_poi_fused_c_2", t0 + us(74), t0 + us(104));
    b.launch(t0 + us(11), t0 + us(15), test::gemm, t0 + us(105), t0 + us(145));
    const auto c = b.call("cudaDeviceSynchronize", t0 + us(16), t0 + us(148));
    b.sync(sync_kind::context_synchronize, c, t0 + us(16), t0 + us(148));
    t0 += us(151);
  }
  const auto p = run(b.t);
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.graph_launches, 4u);
  for (const auto& s : tl.steps) EXPECT_EQ(s.shrunk, us(151 - 45));
  const auto& g = p.graph;
  const auto& r = p.shrunk_timeline;
  EXPECT_EQ(r.bound_by[g.activity_node[1]], dependency::graph_order);
  EXPECT_EQ(r.start[g.activity_node[3]], r.end[g.activity_node[2]] + us(1));
}

// Two graph nodes that ran side by side stay side by side: neither waits for the other.
TEST(Replay, ParallelBranchesOfAGraphLaunchStayParallel) {
  test::replay_builder b;
  b.step(1, us(1000), us(1200));
  b.step(2, us(1200), us(1400));
  for (int s = 0; s < 2; ++s) {
    const auto t0 = us(1000 + 200 * s);
    const auto g = b.call("cudaGraphLaunch", t0, t0 + us(10));
    b.work(g, "triton_poi_fused_a_0", t0 + us(12), t0 + us(52), 7);
    b.work(g, "triton_poi_fused_b_1", t0 + us(13), t0 + us(93), 8);
    b.work(g, "triton_poi_fused_c_2", t0 + us(94), t0 + us(104), 7);
  }
  const auto p = run(b.t);
  const auto& g = p.graph;
  const auto& r = p.shrunk_timeline;
  EXPECT_NE(r.bound_by[g.activity_node[1]], dependency::graph_order);  // b started while a ran
  // c waited for b (the node that ended last before it began), shrunk to 40 us.
  EXPECT_EQ(r.start[g.activity_node[2]], r.end[g.activity_node[1]] + us(1));
}

// A training step as PyTorch runs it: the loop's thread launches the forward pass and waits in
// backward() while the autograd engine's thread launches the backward pass, then resumes and
// synchronises. Five forward and five backward 20 us kernels queue on one stream.
trace::trace handoff_trace(int steps) {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= steps; ++s) {
    b.step(s + 1, t0, t0 + us(218));
    for (int k = 0; k < 10; ++k) {
      const bool backward = k >= 5;
      const auto at = backward ? t0 + us(29 + 12 * (k - 5)) : t0 + us(4 * k);
      const auto start = t0 + us(5 + 21 * k);
      b.launch(at, at + us(3), test::triton, start, start + us(20), 7, backward ? 2 : 1);
    }
    const auto c = b.call("cudaDeviceSynchronize", t0 + us(90), t0 + us(217));
    b.sync(sync_kind::context_synchronize, c, t0 + us(90), t0 + us(217));
    t0 += us(220);
  }
  return std::move(b.t);
}

TEST(Replay, TheBackwardThreadFollowsTheLoopThatHandedItTheStep) {
  const auto p = run(handoff_trace(3));
  const auto& tl = only_timeline(p);
  expect_reproduced(tl);
  EXPECT_EQ(p.support.thread_handoffs, 8u);  // into and out of the backward pass, each step
  for (const auto& s : tl.steps) {
    EXPECT_EQ(s.measured, us(220));
    EXPECT_EQ(s.shrunk, us(120));  // the GPU sets the step: its 200 us of kernels become 100
    EXPECT_EQ(s.amdahl, us(120));
  }
  // The second step's first backward launch comes 10 us after the loop's last forward launch.
  const auto& g = p.graph;
  const auto& r = p.shrunk_timeline;
  const auto backward = g.api_node[16];  // step 2: 11 calls a step, the sixth is the first backward launch
  const auto forward = g.api_node[15];
  EXPECT_EQ(r.bound_by[backward], dependency::thread_handoff);
  EXPECT_EQ(r.start[backward], r.end[forward] + us(10));
}

TEST(Replay, ACudaOnlyTraceFallsBackToAmdahlAndSaysWhy) {
  test::trace_builder b;
  for (int k = 0; k < 40; ++k) b.kernel(test::triton, us(10 * k), us(10 * k + 8));
  const auto p = run(b.t);
  EXPECT_FALSE(p.support.has_host_activity);
  EXPECT_TRUE(p.timelines.empty());
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes.front().find("no replay"), std::string::npos);
  EXPECT_GT(p.amdahl.speedup, 1.5);  // Amdahl's figure is still there
}

TEST(Replay, ATimelineMostlyWithoutRecordedLaunchesIsNotReplayed) {
  test::replay_builder b;
  for (int s = 0; s <= 3; ++s) {
    const auto t0 = us(1000 + 200 * s);
    b.step(s + 1, t0, t0 + us(199));
    b.launch(t0, t0 + us(3), test::triton, t0 + us(5), t0 + us(15));
    for (int k = 1; k < 5; ++k) b.work(0, test::triton, t0 + us(20 * k), t0 + us(20 * k + 15));  // launch unknown
  }
  const auto p = run(b.t);
  ASSERT_EQ(p.timelines.size(), 1u);
  EXPECT_FALSE(p.timelines[0].replayed);
  EXPECT_NE(p.timelines[0].not_replayed.find("have no recorded launch call"), std::string::npos);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes.back().find("Amdahl's figure stands alone"), std::string::npos);
}

TEST(Replay, ASynchronisationTheTimesRuleOutIsDroppedAndCounted) {
  auto t = gpu_bound_trace(3, true);
  // A second stream whose kernel ends long after the first step's synchronisation returned: a
  // record claiming the call waited for that stream is contradicted by the times.
  test::replay_builder b;
  b.t = std::move(t);
  b.next_correlation = 10000;
  const auto late = b.launch(us(1001), us(1002), test::gemm, us(1100), us(2000), 21, 2);
  (void)late;
  const auto c = b.call("cudaStreamSynchronize", us(1500), us(1501), 2);
  b.sync(sync_kind::stream_synchronize, c, us(1500), us(1501), 21);
  const auto p = run(b.t);
  EXPECT_EQ(p.support.contradicted[static_cast<std::size_t>(dependency::host_wait)], 1u);
  const auto& tl = only_timeline(p);
  for (const auto& s : tl.steps) EXPECT_EQ(s.replayed, s.measured);
}

TEST(Replay, TheReplayedTimelineMovesCallsWithTheirThread) {
  const auto t = gpu_bound_trace(1, true);
  const auto g = project::build_replay_graph(t);
  std::vector<double> speedups(t.activities.size(), 2.0);
  const auto r = project::replay(g, speedups);
  const auto moved = project::replayed_trace(t, g, r);
  ASSERT_EQ(moved.activities.size(), t.activities.size());
  EXPECT_EQ(moved.activities[19].end - moved.activities[19].start, us(10));
  // The second step's first launch (after the synchronisation) is 200 us earlier.
  EXPECT_EQ(moved.api_calls[21].start, t.api_calls[21].start - us(200));
  // Its step marker moves with it.
  EXPECT_EQ(moved.ranges[1].start, t.ranges[1].start - us(200));
}

TEST(Replay, TheChromeExportHoldsTheMeasuredAndTheReplayedTimelines) {
  const auto t = gpu_bound_trace(1, true);
  const auto p = run(t);
  const auto path =
      std::filesystem::temp_directory_path() / ("headroom-replay-" + std::to_string(::getpid()) + ".json");
  project::write_replay_chrome_trace(t, p.graph, p.shrunk_timeline, p.shrink, path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  const auto json = text.str();
  EXPECT_NE(json.find("\"measured: train pid 1000"), std::string::npos);
  EXPECT_NE(json.find("\"replayed: train pid 1000"), std::string::npos);
  EXPECT_NE(json.find("addressable (rest)"), std::string::npos);
}

}  // namespace
