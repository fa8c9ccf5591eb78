// The Kineto reader on hand-made input: layout variations and every kind of bad input.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "headroom/trace/kineto.hpp"
#include "headroom/util/error.hpp"

namespace headroom::trace {
namespace {

std::string kernel(std::string_view ts, std::string_view dur, int correlation = 1) {
  return fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "k{}", "pid": 0, "tid": 7, "ts": {}, "dur": {},
  "args": {{"device": 0, "stream": 7, "correlation": {}}}}})",
                     correlation, ts, dur, correlation);
}

std::uint64_t warning_count(const trace& t, std::string_view prefix) {
  for (const auto& w : t.warnings) {
    if (w.what.starts_with(prefix)) return w.count;
  }
  return 0;
}

std::string error_of(std::string_view bytes, std::string_view origin = "bad.json") {
  try {
    (void)read_kineto_json_buffer(bytes, origin);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(KinetoInput, TopLevelKeysAreReadBeforeOrAfterTraceEvents) {
  const std::string events = "[" + kernel("10", "2") + "]";
  const std::string props = R"([{"id": 3, "name": "NVIDIA H200", "computeMajor": 9, "computeMinor": 0,
      "numSms": 132, "totalGlobalMem": 150000000000, "warpSize": 32}])";
  for (const bool after : {false, true}) {
    SCOPED_TRACE(after);
    const std::string json = after ? R"({"schemaVersion": 1, "traceEvents": )" + events + R"(, "deviceProperties": )" +
                                         props + R"(, "distributedInfo": {"rank": 5}, "traceName": "x"})"
                                   : R"({"deviceProperties": )" + props +
                                         R"(, "distributedInfo": {"rank": 5}, "traceEvents": )" + events + "}";
    const trace t = read_kineto_json_buffer(json, "t.json");
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].id, 3);
    EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(t.devices[0].compute_major, 9);
    EXPECT_EQ(t.devices[0].sm_count, 132);
    EXPECT_EQ(t.devices[0].memory_bytes, 150000000000u);
    EXPECT_EQ(t.processes.at(0).rank, 5);
    EXPECT_EQ(t.platform, "cuda");
    ASSERT_EQ(t.activities.size(), 1u);
    EXPECT_EQ(t.activities[0].start, 10000);
    EXPECT_EQ(t.activities[0].end, 12000);
    EXPECT_TRUE(t.warnings.empty());
  }
}

TEST(KinetoInput, BaseTimeIsAddedWhereverItAppears) {
  const std::string json = R"({"traceEvents": [)" + kernel("1.5", "1") + R"(], "baseTimeNanoseconds": 1000})";
  const trace t = read_kineto_json_buffer(json, "t.json");
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.activities[0].start, 2500);
}

TEST(KinetoInput, CopiesMemsetsAnnotationsAndMarksAreMapped) {
  const std::string json = R"j({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
     "args": {"device": 0, "stream": 7, "correlation": 9, "bytes": 4096}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 1, "tid": 8, "ts": 3, "dur": 1,
     "args": {"device": 1, "stream": 8, "bytes": 64}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 77, "tid": 78, "ts": 0.5, "dur": 10},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": 1, "dur": 3, "args": {"device": 0}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 77, "tid": 78, "ts": 1, "dur": 3, "args": {"Input Dims": [[2, 2]]}},
    {"ph": "s", "id": 9, "pid": 77, "tid": 78, "ts": 1, "cat": "ac2g", "name": "ac2g"},
    {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": 0.25},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 77, "tid": 78, "ts": 0.9, "dur": 0.2,
     "args": {"correlation": 9}},
    {"ph": "X", "cat": "some_future_category", "name": "x", "pid": 77, "tid": 78, "ts": 1, "dur": 1}
  ]})j";
  const trace t = read_kineto_json_buffer(json, "t.json");
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.activities[0].kind, activity_kind::memcpy);
  EXPECT_EQ(t.activities[0].copy, copy_kind::host_to_device);
  EXPECT_EQ(t.activities[0].bytes, 4096u);
  EXPECT_EQ(t.activities[0].correlation, 9u);
  EXPECT_EQ(t.activities[1].kind, activity_kind::memset);
  EXPECT_EQ(t.activities[1].device, 1);
  EXPECT_EQ(t.activities[1].bytes, 64u);
  ASSERT_EQ(t.ranges.size(), 3u);
  EXPECT_EQ(t.strings[t.ranges[0].name], "ProfilerStep#4");
  EXPECT_EQ(t.ranges[0].kind, range_kind::cpu_annotation);
  EXPECT_EQ(t.ranges[0].start, 500);
  EXPECT_EQ(t.ranges[1].kind, range_kind::gpu_annotation);
  EXPECT_EQ(t.ranges[1].device, 0);
  EXPECT_EQ(t.ranges[2].kind, range_kind::mark);
  EXPECT_EQ(t.ranges[2].start, 250);
  ASSERT_EQ(t.api_calls.size(), 1u);
  EXPECT_EQ(t.api_calls[0].correlation, 9u);
  EXPECT_EQ(t.api_calls[0].thread, 78u);
  EXPECT_EQ(t.processes.at(0).pid, 77u);
  EXPECT_EQ(t.processes.at(0).name, "t.json");
}

// torch.profiler 2.1+ writes CUPTI's synchronisation records as cuda_sync events: a wait names the
// cudaEventRecord call it waits for and the stream that call recorded on.
TEST(KinetoInput, CudaSyncEventsBecomeSynchronisationsAndTheRecordsTheyName) {
  const std::string json = R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 10, "tid": 11, "ts": 100, "dur": 2,
   "args": {"correlation": 32}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 24, "ts": 110, "dur": 2,
   "args": {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32,
            "wait_on_cuda_event_id": 9, "stream": 24, "correlation": 40, "device": 0, "context": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 10, "tid": 11, "ts": 109, "dur": 4,
   "args": {"correlation": 40}},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 120, "dur": 30,
   "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32,
            "wait_on_cuda_event_id": 9, "stream": -1, "correlation": 41, "device": 0, "context": 1}},
  {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": -1, "ts": 200, "dur": 9,
   "args": {"cuda_sync_kind": "Context Sync", "stream": 4294967295, "correlation": 42, "device": 0, "context": 1}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 300, "dur": 9,
   "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 43, "device": 0, "context": 1}},
  {"ph": "X", "cat": "cuda_sync", "name": "Future Sync", "pid": 0, "tid": 7, "ts": 400, "dur": 1, "args": {}}
]})";
  const auto t = read_kineto_json_buffer(json, "sync.json");
  ASSERT_EQ(t.synchronizations.size(), 5u);
  const auto& wait = t.synchronizations[0];
  EXPECT_EQ(wait.kind, sync_kind::stream_wait_event);
  EXPECT_EQ(wait.stream, 24);
  EXPECT_EQ(wait.event, 9);
  EXPECT_EQ(wait.record_correlation, 32u);
  EXPECT_EQ(wait.correlation, 40u);
  EXPECT_EQ(wait.thread, 11u);  // from its call
  EXPECT_EQ(wait.start, 110000);
  const auto& event = t.synchronizations[1];
  EXPECT_EQ(event.kind, sync_kind::event_synchronize);
  EXPECT_EQ(event.stream, -1);
  EXPECT_EQ(event.record_correlation, 32u);
  EXPECT_EQ(t.synchronizations[2].kind, sync_kind::context_synchronize);
  EXPECT_EQ(t.synchronizations[2].stream, -1);  // 0xFFFFFFFF: none
  EXPECT_EQ(t.synchronizations[3].kind, sync_kind::stream_synchronize);
  EXPECT_EQ(t.synchronizations[3].stream, 7);
  // One record row for the recording call both waits name, dated by that call.
  const auto& record = t.synchronizations[4];
  EXPECT_EQ(record.kind, sync_kind::event_record);
  EXPECT_EQ(record.correlation, 32u);
  EXPECT_EQ(record.stream, 20);
  EXPECT_EQ(record.event, 9);
  EXPECT_EQ(record.start, 100000);
  EXPECT_EQ(record.end, 102000);
  EXPECT_EQ(record.thread, 11u);
  EXPECT_EQ(warning_count(t, "cuda_sync events of a kind"), 1u);
}

TEST(KinetoInput, TheChromeArrayFormatIsAccepted) {
  const std::string json = "[" + kernel("1", "1") + ",\n" + kernel("3", "1", 2);  // ']' is optional there
  const trace t = read_kineto_json_buffer(json, "a.json");
  EXPECT_EQ(t.activities.size(), 2u);
  EXPECT_TRUE(t.warnings.empty());
}

TEST(KinetoInput, ZeroTimeKernelsAreDroppedAndCounted) {
  const std::string json =
      R"({"traceEvents": [)" + kernel("0", "0") + "," + kernel("5", "1") + "," + kernel("0.0", "0", 3) + "]}";
  const trace t = read_kineto_json_buffer(json, "t.json");
  EXPECT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(warning_count(t, "kernels with ts 0 and dur 0"), 2u);
}

TEST(KinetoInput, NegativeDurationsAreClampedAndCounted) {
  const std::string json = R"({"traceEvents": [)" + kernel("5", "-1") + "]}";
  const trace t = read_kineto_json_buffer(json, "t.json");
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.activities[0].end, t.activities[0].start);
  EXPECT_EQ(warning_count(t, "negative durations"), 1u);
}

TEST(KinetoInput, EventsMissingTimesAreSkippedAndCountedOnce) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a", "ts": 1},
    {"ph": "X", "cat": "kernel", "name": "b", "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "c", "ts": "soon", "dur": 1},
    1, "two", null,
    {"ph": "X", "cat": "kernel", "name": "d", "ts": 2, "dur": 1}]})";
  const trace t = read_kineto_json_buffer(json, "t.json");
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.strings[t.activities[0].name], "d");
  EXPECT_EQ(warning_count(t, "events without a usable ts or dur"), 3u);
  EXPECT_EQ(warning_count(t, "entries of traceEvents that are not objects"), 3u);
}

TEST(KinetoInput, InvalidJsonInTheMiddleNamesTheFileAndByte) {
  const std::string head = R"({"traceEvents": [)" + kernel("1", "1") + ",\n";
  const std::string json = head + R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": })" + ",\n" + kernel("2", "1") + "]}";
  const std::string e = error_of(json, "mid.json");
  EXPECT_NE(e.find("mid.json"), std::string::npos) << e;
  EXPECT_NE(e.find(fmt::format("byte {}", head.size())), std::string::npos) << e;
}

TEST(KinetoInput, BrokenStructureBetweenEventsIsAnError) {
  const std::string json = R"({"traceEvents": [)" + kernel("1", "1") + " x " + kernel("2", "1") + "]}";
  const std::string e = error_of(json);
  EXPECT_NE(e.find("byte"), std::string::npos) << e;
}

TEST(KinetoInput, TruncatedDocumentsKeepCompleteEventsAndSayWhatWasLost) {
  const std::string full = R"({"traceEvents": [)" + kernel("1", "1") + "," + kernel("2", "1", 2) + "]}";
  for (std::size_t cut = full.find("k2"); cut < full.size(); cut += 7) {
    const std::string part = full.substr(0, cut);
    const trace t = read_kineto_json_buffer(part, "cut.json");
    const std::size_t expected = cut >= full.size() - 2 ? 2 : 1;
    EXPECT_EQ(t.activities.size(), expected) << "cut at " << cut;
    EXPECT_EQ(warning_count(t, fmt::format("truncated at byte {};", cut)), 1u) << "cut at " << cut;
    EXPECT_TRUE(t.partial()) << "cut at " << cut;
  }
  EXPECT_FALSE(read_kineto_json_buffer(full, "whole.json").partial());
}

TEST(KinetoInput, NotATraceIsAnInputError) {
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(error_of(" \n\t ").find("only whitespace"), std::string::npos);
  EXPECT_NE(error_of("hello world").find("not a JSON trace"), std::string::npos);
  EXPECT_NE(error_of(R"({"schemaVersion": 1, "nodes": []})").find("no traceEvents"), std::string::npos);
  EXPECT_NE(error_of(R"({"traceEvents": 3})").find("no traceEvents"), std::string::npos);
  EXPECT_NE(error_of(R"({"schemaVersion": 1, "devicePro)").find("truncated"), std::string::npos);
  EXPECT_NE(error_of("\x1f\x8b\x08\x00garbage").find("bad.json"), std::string::npos);
}

TEST(KinetoInput, MissingFilesAndDirectoriesAreInputErrors) {
  EXPECT_THROW((void)read_kineto_json("/nonexistent/trace.json"), input_error);
  EXPECT_THROW((void)read_kineto_json(std::filesystem::temp_directory_path()), input_error);
}

TEST(KinetoInput, ProgressReachesTheFileSize) {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("headroom_progress_{}.json", ::getpid());
  const std::string json = R"({"traceEvents": [)" + kernel("1", "1") + "]}";
  std::ofstream(path) << json;
  read_options o;
  std::uint64_t last_done = 0, last_total = 0;
  o.progress = [&](std::uint64_t done, std::uint64_t total) { last_done = done, last_total = total; };
  (void)read_kineto_json(path, o);
  std::filesystem::remove(path);
  EXPECT_EQ(last_done, json.size());
  EXPECT_EQ(last_total, json.size());
}

TEST(KinetoInput, TheChunkBufferDoesNotGrowWithTheFile) {
  // About 200 MB of events; the buffer must stay at one chunk plus padding.
  const std::string one = kernel("1712195495505583.123", "4.928") + ",\n";
  std::string json = R"({"traceEvents": [)";
  const std::size_t n = (std::size_t{200} << 20) / one.size();
  json.reserve(n * one.size() + 64);
  for (std::size_t i = 0; i < n; ++i) json += one;
  json += kernel("1", "1") + "]}";
  kineto_read_stats stats;
  kineto_tuning tuning;
  tuning.stats = &stats;
  read_options o;
  o.ranges = false;
  const trace t = read_kineto_json_buffer(json, "big.json", o, tuning);
  EXPECT_EQ(t.activities.size(), n + 1);
  EXPECT_EQ(stats.json_bytes, json.size());
  EXPECT_LE(stats.max_buffer_bytes, tuning.chunk_bytes + 4096);
}

TEST(KinetoInput, AnEventLargerThanAChunkStillReads) {
  const std::string big_name(100000, 'n');
  const std::string json = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": ")" + big_name +
                           R"(", "ts": 1, "dur": 1}, )" + kernel("3", "1") + "]}";
  kineto_tuning tuning;
  tuning.chunk_bytes = 4096;
  const trace t = read_kineto_json_buffer(json, "t.json", {}, tuning);
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.strings[t.activities[0].name].size(), big_name.size());
}

TEST(KinetoInput, LaunchPairsKeepWhatStepMappingNeedsWithoutWholeApiCalls) {
  // analyze reads Kineto JSON with api_calls off and launch_calls on: every runtime call with a
  // correlation id must survive as a launch pair with the same start, correlation and name.
  const std::string json = R"j({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 77, "tid": 78, "ts": 1.5, "dur": 0.2,
     "args": {"correlation": 11}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 77, "tid": 79, "ts": 2, "dur": 0.1,
     "args": {"correlation": 12}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 77, "tid": 78, "ts": 3, "dur": 1,
     "args": {}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2.5, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 11}}
  ]})j";
  read_options whole;
  const trace with_calls = read_kineto_json_buffer(json, "t.json", whole);
  read_options pairs;
  pairs.api_calls = false;
  pairs.launch_calls = true;
  const trace with_pairs = read_kineto_json_buffer(json, "t.json", pairs);
  EXPECT_TRUE(with_pairs.api_calls.empty());
  ASSERT_EQ(with_pairs.launches.size(), 2u);  // the call without a correlation id is not needed
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& call = with_calls.api_calls[i];
    const auto& pair = with_pairs.launches[i];
    EXPECT_EQ(pair.start, call.start);
    EXPECT_EQ(pair.correlation, call.correlation);
    EXPECT_EQ(with_pairs.strings[pair.name], with_calls.strings[call.name]);
    EXPECT_EQ(pair.process, call.process);
  }
  EXPECT_EQ(with_pairs.activities.size(), with_calls.activities.size());
}

TEST(KinetoInput, GraphNodeZeroIsToldApartFromAStreamLaunch) {
  // CUDA numbers graph nodes from 0; the model stores them as id + 1 so 0 keeps meaning "no graph".
  const std::string json = R"j({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "g", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 1, "graph node id": 0}},
    {"ph": "X", "cat": "kernel", "name": "s", "pid": 0, "tid": 7, "ts": 3, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 2}}
  ]})j";
  const trace t = read_kineto_json_buffer(json, "t.json");
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.activities[0].graph_node, graph_node_tag(0));
  EXPECT_EQ(t.activities[1].graph_node, 0u);
}

}  // namespace
}  // namespace headroom::trace
