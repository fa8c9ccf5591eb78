// The launcher -> injection library contract (HEADROOM_PROFILE_* variables), parsed without a GPU.
#include "profile_settings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

namespace headroom::cupti {
namespace {

profile_settings from(const std::map<std::string, std::string>& vars) {
  return settings_from_env([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

bool enables(const std::vector<CUpti_ActivityKind>& kinds, CUpti_ActivityKind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

TEST(profile_settings, without_profile_dir_nothing_is_profiled) {
  EXPECT_TRUE(from({}).dir.empty());
  EXPECT_TRUE(from({{"HEADROOM_PROFILE_DIR", ""}}).dir.empty());
  EXPECT_EQ(from({{"HEADROOM_PROFILE_DIR", "/tmp/run"}}).dir, "/tmp/run");
}

TEST(profile_settings, defaults_record_every_kind_with_concurrent_kernels_never_serialising_ones) {
  const auto s = from({{"HEADROOM_PROFILE_DIR", "/tmp/run"}});
  EXPECT_TRUE(s.problems.empty());
  const auto kinds = activity_kinds(s.kinds);
  for (auto k :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MARKER,
        CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_DEVICE}) {
    EXPECT_TRUE(enables(kinds, k)) << "kind " << k;
  }
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_KERNEL));
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_GRAPH_TRACE));  // would hide graph nodes
}

TEST(profile_settings, kinds_list_selects_only_the_named_groups_plus_device_properties) {
  const auto s = from({{"HEADROOM_PROFILE_KINDS", " Kernel , runtime"}});
  EXPECT_TRUE(s.problems.empty());
  const auto kinds = activity_kinds(s.kinds);
  EXPECT_TRUE(enables(kinds, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_TRUE(enables(kinds, CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_TRUE(enables(kinds, CUPTI_ACTIVITY_KIND_DEVICE));
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_MEMCPY));
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_MARKER));
  EXPECT_EQ(kinds.size(), 3u);
}

TEST(profile_settings, a_capture_range_repeats_unless_its_end_is_asked_to_stop_the_recording) {
  const std::pair<const char*, const char*> range{"HEADROOM_PROFILE_CAPTURE", "cudaProfilerApi"};
  EXPECT_EQ(from({range}).end, capture_end::repeat);
  EXPECT_EQ(from({range, {"HEADROOM_PROFILE_CAPTURE_END", "Stop"}}).end, capture_end::stop);
  const auto bad = from({range, {"HEADROOM_PROFILE_CAPTURE_END", "shutdown"}});
  EXPECT_EQ(bad.end, capture_end::repeat);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("HEADROOM_PROFILE_CAPTURE_END='shutdown'"), std::string::npos);
  // Without a capture range there is no stop to end anything: the whole process is recorded.
  const auto whole = from({{"HEADROOM_PROFILE_CAPTURE_END", "stop"}});
  EXPECT_EQ(whole.end, capture_end::repeat);
  EXPECT_EQ(whole.capture, capture_range::whole);
  ASSERT_EQ(whole.problems.size(), 1u);
  EXPECT_NE(whole.problems[0].find("needs HEADROOM_PROFILE_CAPTURE=cudaProfilerApi"), std::string::npos);
}

TEST(profile_settings, capture_range_is_the_whole_process_unless_the_profiler_api_is_named) {
  EXPECT_EQ(from({}).capture, capture_range::whole);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_CAPTURE", "whole"}}).capture, capture_range::whole);
  const auto api = from({{"HEADROOM_PROFILE_CAPTURE", " cudaProfilerAPI "}});
  EXPECT_EQ(api.capture, capture_range::profiler_api);
  EXPECT_TRUE(api.problems.empty());
  const auto bad = from({{"HEADROOM_PROFILE_CAPTURE", "nvtx"}});
  EXPECT_EQ(bad.capture, capture_range::whole);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("nvtx"), std::string::npos);
}

TEST(profile_settings, api_calls_leave_out_queries_unless_all_are_asked_for) {
  EXPECT_EQ(from({}).api, api_calls::launches);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_API", "Launches"}}).api, api_calls::launches);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_API", " ALL"}}).api, api_calls::all);
  const auto bad = from({{"HEADROOM_PROFILE_API", "some"}});
  EXPECT_EQ(bad.api, api_calls::launches);
  EXPECT_EQ(bad.problems.size(), 1u);
}

TEST(profile_settings, launches_only_leaves_out_queries_and_keeps_every_call_that_puts_work_on_a_device) {
  for (const char* query : {"cudaGetDevice_v3020",
                            "cudaGetDeviceCount",
                            "cudaGetLastError_v3020",
                            "cudaPeekAtLastError",
                            "cudaStreamIsCapturing_v10000",
                            "cudaStreamGetCaptureInfo_v2_v11030",
                            "cudaSetDevice",
                            "cudaDeviceGetAttribute",
                            "cudaPointerGetAttributes",
                            "cuCtxGetCurrent",
                            "cuCtxSetCurrent",
                            "cuDeviceGetAttribute",
                            "cuGetProcAddress_v2",
                            "cuPointerGetAttributes",
                            "cuStreamGetCaptureInfo_v3",
                            "cuKernelGetFunction",
                            "cuLibraryGetKernel",
                            "cuKernelGetName",
                            "cuKernelGetAttribute",
                            "cuFuncGetName",
                            "cudaFuncGetName",
                            "cuModuleGetFunction"}) {
    EXPECT_TRUE(is_query_api(query)) << query;
  }
  for (const char* work : {"cudaLaunchKernel_v7000", "cudaLaunchKernelExC_v11060",
                           "cudaMemcpyAsync_v3020",  "cudaMemsetAsync",
                           "cudaMalloc_v3020",       "cudaFree",
                           "cudaEventRecord",        "cudaEventSynchronize",
                           "cudaStreamSynchronize",  "cudaStreamWaitEvent",
                           "cudaDeviceSynchronize",  "cudaGraphLaunch",
                           "cudaStreamQuery",        "cudaEventQuery",
                           "cudaMallocAsync",        "cudaProfilerStart",
                           "cuLaunchKernel",         "cuLaunchKernelEx",
                           "cuMemcpyHtoDAsync_v2",   "cuStreamSynchronize",
                           "cuGraphLaunch",          "cuMemAlloc_v2",
                           "cuModuleLoadData",       "cuLibraryLoadData",
                           "cuEventRecord"}) {
    EXPECT_FALSE(is_query_api(work)) << work;
  }
}

TEST(profile_settings, sync_records_cuda_synchronisation_and_can_be_left_out) {
  auto kinds = activity_kinds(from({{"HEADROOM_PROFILE_KINDS", "sync"}}).kinds);
  EXPECT_TRUE(enables(kinds, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
  EXPECT_TRUE(enables(kinds, CUPTI_ACTIVITY_KIND_CUDA_EVENT));
  EXPECT_EQ(kinds.size(), 3u);  // with DEVICE
  kinds = activity_kinds(from({{"HEADROOM_PROFILE_KINDS", "kernel,memcpy,memset,runtime,driver,nvtx,overhead"}}).kinds);
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
  EXPECT_FALSE(enables(kinds, CUPTI_ACTIVITY_KIND_CUDA_EVENT));
}

TEST(profile_settings, unknown_kind_is_reported_and_the_rest_kept) {
  const auto s = from({{"HEADROOM_PROFILE_KINDS", "nvtx,kernels"}});
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].find("'kernels'"), std::string::npos);
  EXPECT_EQ(s.kinds, static_cast<std::uint32_t>(profile_kind::nvtx));
}

TEST(profile_settings, kinds_naming_nothing_known_fall_back_to_all) {
  std::vector<std::string> problems;
  EXPECT_EQ(parse_profile_kinds("gpu,cpu", problems), all_profile_kinds);
  EXPECT_EQ(problems.size(), 3u);  // two unknown names, then the fallback
  problems.clear();
  EXPECT_EQ(parse_profile_kinds("", problems), all_profile_kinds);
  EXPECT_EQ(parse_profile_kinds("all", problems), all_profile_kinds);
  EXPECT_TRUE(problems.empty());
}

TEST(profile_settings, flush_period_is_read_clamped_or_defaulted_with_a_problem) {
  EXPECT_EQ(from({}).flush_period.count(), 500);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_FLUSH_MS", "250"}}).flush_period.count(), 250);
  const auto tiny = from({{"HEADROOM_PROFILE_FLUSH_MS", "1"}});
  EXPECT_EQ(tiny.flush_period.count(), 10);
  EXPECT_EQ(tiny.problems.size(), 1u);
  for (const char* bad : {"abc", "-5", "0", "12ms", ""}) {
    const auto s = from({{"HEADROOM_PROFILE_FLUSH_MS", bad}});
    EXPECT_EQ(s.flush_period.count(), 500) << bad;
    EXPECT_EQ(s.problems.size(), 1u) << bad;
  }
}

TEST(profile_settings, buffer_pool_is_split_into_cupti_buffers) {
  const auto standard = from({});
  EXPECT_EQ(standard.buffer_pool_bytes, std::size_t{64} << 20);
  EXPECT_EQ(standard.buffer_count(), 8u);
  const auto small = from({{"HEADROOM_PROFILE_BUFFER_MB", "2"}});
  EXPECT_EQ(small.buffer_bytes, std::size_t{2} << 20);  // one smaller buffer, never none
  EXPECT_EQ(small.buffer_count(), 1u);
  const auto bad = from({{"HEADROOM_PROFILE_BUFFER_MB", "lots"}});
  EXPECT_EQ(bad.buffer_pool_bytes, std::size_t{64} << 20);
  EXPECT_EQ(bad.problems.size(), 1u);
}

TEST(profile_settings, the_pool_clears_buffers_unless_cupti_is_asked_to) {
  EXPECT_EQ(from({}).zeroing, buffer_zeroing::pool);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_ZEROING", " CUPTI "}}).zeroing, buffer_zeroing::cupti);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_ZEROING", "pool"}}).zeroing, buffer_zeroing::pool);
  const auto bad = from({{"HEADROOM_PROFILE_ZEROING", "never"}});
  EXPECT_EQ(bad.zeroing, buffer_zeroing::pool);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("'never'"), std::string::npos);
}

TEST(profile_settings, timestamps_go_to_device_memory_unless_pinned_host_memory_is_asked_for) {
  EXPECT_EQ(from({}).timestamps, timestamp_memory::device);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_TIMESTAMPS", "Pinned"}}).timestamps, timestamp_memory::pinned);
  const auto bad = from({{"HEADROOM_PROFILE_TIMESTAMPS", "host"}});
  EXPECT_EQ(bad.timestamps, timestamp_memory::device);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("HEADROOM_PROFILE_TIMESTAMPS='host'"), std::string::npos);
}

TEST(profile_settings, records_carry_os_thread_ids_unless_pthread_handles_are_asked_for) {
  EXPECT_EQ(from({}).threads, thread_ids::system);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_THREAD_IDS", "pthread"}}).threads, thread_ids::pthread);
  const auto bad = from({{"HEADROOM_PROFILE_THREAD_IDS", "tid"}});
  EXPECT_EQ(bad.threads, thread_ids::system);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("HEADROOM_PROFILE_THREAD_IDS='tid'"), std::string::npos);
}

TEST(profile_settings, api_calls_are_cuptis_activity_records_unless_our_callbacks_are_asked_for) {
  EXPECT_EQ(from({}).api_records, api_recorder::activity);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_API_RECORDS", "callback"}}).api_records, api_recorder::callback);
  const auto bad = from({{"HEADROOM_PROFILE_API_RECORDS", "both"}});
  EXPECT_EQ(bad.api_records, api_recorder::activity);
  EXPECT_EQ(bad.problems.size(), 1u);
}

TEST(profile_settings, api_records_are_enabled_by_kind_unless_call_by_call_is_asked_for) {
  EXPECT_EQ(from({}).api_enable, api_enabling::kind);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_API_ENABLE", " Calls "}}).api_enable, api_enabling::calls);
  const auto bad = from({{"HEADROOM_PROFILE_API_ENABLE", "each"}});
  EXPECT_EQ(bad.api_enable, api_enabling::kind);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("HEADROOM_PROFILE_API_ENABLE='each'"), std::string::npos);
}

TEST(profile_settings, call_by_call_api_records_are_refused_inside_a_capture_range) {
  // Inside a capture range they came out empty on the H200; the whole kinds are used instead.
  const auto s = from({{"HEADROOM_PROFILE_API_ENABLE", "calls"}, {"HEADROOM_PROFILE_CAPTURE", "cudaProfilerApi"}});
  EXPECT_EQ(s.api_enable, api_enabling::kind);
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].find("capture range"), std::string::npos);
  EXPECT_EQ(from({{"HEADROOM_PROFILE_API_ENABLE", "calls"}, {"HEADROOM_PROFILE_CAPTURE", "whole"}}).api_enable,
            api_enabling::calls);
}

TEST(profile_settings, rank_comes_from_rank_then_local_rank) {
  EXPECT_EQ(from({}).rank, -1);
  EXPECT_EQ(from({{"RANK", "3"}, {"LOCAL_RANK", "1"}}).rank, 3);
  EXPECT_EQ(from({{"LOCAL_RANK", "1"}}).rank, 1);
  EXPECT_EQ(from({{"RANK", "x"}, {"LOCAL_RANK", "2"}}).rank, 2);
  EXPECT_EQ(from({{"RANK", "-1"}}).rank, -1);
}

TEST(profile_settings, process_name_is_this_command_line) {
  EXPECT_NE(process_command_line().find("profile_settings_test"), std::string::npos);
  EXPECT_LE(process_command_line(8).size(), 8u);
}

}  // namespace
}  // namespace headroom::cupti
