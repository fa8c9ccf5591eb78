// CUPTI activity records -> our events, on records filled in by hand (no GPU, no libcupti): every
// field the analysis relies on lands where it should, and odd records are counted, never fatal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cupti_convert.hpp"
#include "headroom/trace/event_stream.hpp"
#include "kernel_name_cache.hpp"

namespace fs = std::filesystem;
using namespace headroom;
using namespace headroom::cupti;
using testing::HasSubstr;

namespace {

// A converter writing to a fresh stream; read() closes it and reads it back as the launcher will.
class converted : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("headroom-cupti-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    trace::event_stream_header h;
    h.pid = 77;
    writer_.emplace(dir_ / "events.hrs", h);
    converter_.emplace(*writer_, [this](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) -> std::string_view {
      ++lookups_;
      const auto it = callback_names_.find({domain, cbid});
      return it == callback_names_.end() ? std::string_view() : std::string_view(it->second);
    });
  }
  void TearDown() override { fs::remove_all(dir_); }

  template <typename Record>
  void convert(const Record& r) {
    converter_->convert(reinterpret_cast<const CUpti_Activity&>(r));
  }

  trace::trace read() {
    converter_->finish();
    EXPECT_TRUE(writer_->close()) << writer_->error();
    trace::read_options o;
    o.launch_geometry = true;
    return trace::read_event_stream(dir_ / "events.hrs", o, &counters_);
  }

  static bool mentions(const trace::trace& t, std::string_view what) {
    for (const auto& w : t.warnings) {
      if (w.what.find(what) != std::string::npos) return true;
    }
    return false;
  }

  fs::path dir_;
  std::optional<trace::event_stream_writer> writer_;
  std::optional<activity_converter> converter_;
  std::map<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>, std::string> callback_names_;
  int lookups_ = 0;
  trace::event_stream_counters counters_;
};

kernel_record a_kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t correlation) {
  kernel_record k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = end;
  k.correlationId = correlation;
  return k;
}

marker_record a_marker(std::uint32_t id, CUpti_ActivityFlag flag, std::uint64_t at, const char* name,
                       std::uint32_t thread) {
  marker_record m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = flag;
  m.id = id;
  m.timestamp = at;
  m.name = name;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = 77;
  m.objectId.pt.threadId = thread;
  return m;
}

}  // namespace

TEST_F(converted, a_concurrent_kernel_record_keeps_its_timing_placement_launch_and_mangled_name) {
  const char* name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_";
  auto k = a_kernel(name, 1'700'000'000'000'001'000ULL, 1'700'000'000'000'051'000ULL, 424242);
  k.deviceId = 3;
  k.streamId = 7;
  k.gridX = 120;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 4;
  k.blockZ = 2;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 49152;
  k.graphNodeId = 0x1'0000'0005ULL;
  k.graphId = 9;
  convert(k);

  const auto t = read();
  ASSERT_EQ(t.activities.size(), 1u);
  const auto& a = t.activities[0];
  EXPECT_EQ(a.kind, trace::activity_kind::kernel);
  EXPECT_EQ(t.strings[a.name], name);  // demangling is the classifier's job
  EXPECT_EQ(a.start, 1'700'000'000'000'001'000LL);
  EXPECT_EQ(a.end, 1'700'000'000'000'051'000LL);
  EXPECT_EQ(a.duration(), 50'000);
  EXPECT_EQ(a.correlation, 424242u);
  EXPECT_EQ(a.device, 3);
  EXPECT_EQ(a.stream, 7);
  EXPECT_EQ(a.graph_node, 6u);  // node id's low 32 bits + 1: node 0 of a graph must not read as 'no graph'
  EXPECT_EQ(a.copy, trace::copy_kind::none);
  ASSERT_EQ(t.geometry.size(), 1u);
  const auto& g = t.geometry[0];
  EXPECT_EQ(g.grid[0], 120u);
  EXPECT_EQ(g.grid[1], 2u);
  EXPECT_EQ(g.grid[2], 1u);
  EXPECT_EQ(g.block[0], 128u);
  EXPECT_EQ(g.block[1], 4u);
  EXPECT_EQ(g.block[2], 2u);
  EXPECT_EQ(g.registers_per_thread, 40u);
  EXPECT_EQ(g.static_shared_bytes, 1024u);
  EXPECT_EQ(g.dynamic_shared_bytes, 49152u);
  EXPECT_EQ(converter_->counts().kernels, 1u);
}

TEST_F(converted, graph_node_zero_is_told_apart_from_a_kernel_launched_on_a_stream) {
  // Seen on the H200: the first node of a graph has id 0.
  auto in_graph = a_kernel("graph_kernel", 1000, 2000, 1);
  in_graph.graphId = 1;
  in_graph.graphNodeId = 0;
  auto on_stream = a_kernel("stream_kernel", 3000, 4000, 2);
  convert(in_graph);
  convert(on_stream);
  const auto t = read();
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.activities[0].graph_node, 1u);
  EXPECT_EQ(t.activities[1].graph_node, 0u);
}

TEST_F(converted, a_kernel_cupti_could_not_time_is_skipped_and_counted) {
  convert(a_kernel("timed", 100, 200, 1));
  convert(a_kernel("untimed", 0, 0, 2));
  convert(a_kernel("cut short by a forced flush", 300, 0, 3));
  const auto t = read();
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.strings[t.activities[0].name], "timed");
  EXPECT_EQ(counters_.untimed_records, 2u);
  EXPECT_TRUE(mentions(t, "without timestamps"));
}

TEST_F(converted, a_kernel_name_is_one_string_whether_its_text_arrives_at_one_address_or_several) {
  // CUPTI gives every launch of a kernel the same pointer; a kernel registered by two modules has
  // the same text at two addresses.
  const std::string gemm = "_ZN7cutlass6KernelINS_4gemm6kernel4GemmILi128ELi256ELi64EEEEvNT_6ParamsE";
  const std::string gemm_elsewhere = gemm;
  const std::string softmax = "_ZN2at6native43_GLOBAL__N__softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib";
  const char* order[] = {gemm.c_str(),    softmax.c_str(),        gemm.c_str(), gemm_elsewhere.c_str(),
                         softmax.c_str(), gemm_elsewhere.c_str(), gemm.c_str()};
  std::uint64_t at = 1000;
  for (const char* name : order) {
    convert(a_kernel(name, at, at + 10, static_cast<std::uint32_t>(at)));
    at += 100;
  }

  const auto t = read();
  ASSERT_EQ(t.activities.size(), std::size(order));
  for (std::size_t i = 0; i < std::size(order); ++i) {
    EXPECT_EQ(t.strings[t.activities[i].name], order[i]) << "record " << i;
  }
  EXPECT_EQ(t.activities[0].name, t.activities[2].name);
  EXPECT_EQ(t.activities[0].name, t.activities[3].name);
  EXPECT_EQ(t.activities[0].name, t.activities[6].name);
  EXPECT_EQ(t.activities[1].name, t.activities[4].name);
  EXPECT_NE(t.activities[0].name, t.activities[1].name);
}

TEST_F(converted, an_address_reused_for_another_kernel_name_after_a_module_unload_gets_the_new_name) {
  // The second text has the first's length and its first and last 16 bytes: only the middle
  // differs, as between two tile shapes of one CUTLASS template.
  const std::string first = "_ZN7cutlass6KernelINS_4gemm6kernel4GemmILi128ELi256ELi64EEEEvNT_6ParamsE";
  const std::string same_shape = "_ZN7cutlass6KernelINS_4gemm6kernel4GemmILi256ELi128ELi32EEEEvNT_6ParamsE";
  const std::string shorter = "_Z13triton_poi_0PfS_i";
  ASSERT_EQ(first.size(), same_shape.size());
  char module_text[128] = {};
  std::uint32_t correlation = 0;
  const auto launch_at_the_reused_address = [&](const std::string& text) {
    std::memcpy(module_text, text.c_str(), text.size() + 1);
    convert(a_kernel(module_text, 1000 + correlation * 100, 1010 + correlation * 100, correlation));
    ++correlation;
  };
  launch_at_the_reused_address(first);
  launch_at_the_reused_address(first);
  launch_at_the_reused_address(same_shape);
  launch_at_the_reused_address(same_shape);
  launch_at_the_reused_address(shorter);
  launch_at_the_reused_address(first);

  const auto t = read();
  ASSERT_EQ(t.activities.size(), 6u);
  const std::string expected[] = {first, first, same_shape, same_shape, shorter, first};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(t.strings[t.activities[i].name], expected[i]) << "record " << i;
}

TEST_F(converted, every_kernel_keeps_its_own_name_when_thousands_of_kernels_interleave) {
  // More kernels than the name cache starts with room for, launched round-robin twice over.
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back("triton_red_fused_" + std::to_string(i) + "_kernel");
  std::uint32_t correlation = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& n : names) {
      convert(a_kernel(n.c_str(), 1000 + correlation * 10, 1005 + correlation * 10, correlation));
      ++correlation;
    }
  }
  const auto t = read();
  ASSERT_EQ(t.activities.size(), 2 * names.size());
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    ASSERT_EQ(t.strings[t.activities[i].name], names[i % names.size()]) << "record " << i;
  }
}

TEST(kernel_name_cache, stops_growing_at_its_bound_and_still_answers_for_what_it_holds) {
  kernel_name_cache cache;
  std::vector<std::string> names;
  for (std::size_t i = 0; i <= kernel_name_cache::max_names; ++i) names.push_back("k" + std::to_string(i));
  for (std::size_t i = 0; i < names.size(); ++i) {
    cache.remember(names[i].c_str(), names[i], static_cast<trace::string_id>(i + 1));
  }
  EXPECT_EQ(cache.size(), kernel_name_cache::max_names);
  EXPECT_FALSE(cache.find(names.back().c_str()).has_value());
  for (std::size_t i = 0; i < kernel_name_cache::max_names; i += 997) {
    EXPECT_EQ(cache.find(names[i].c_str()), std::optional<trace::string_id>(i + 1)) << names[i];
  }
  // An address it holds, reused for other text, is told apart and can be updated once it is full.
  const char* held = names[0].c_str();
  names[0][1] = 'X';
  EXPECT_FALSE(cache.find(held).has_value());
  cache.remember(held, names[0], 7);
  EXPECT_EQ(cache.find(held), std::optional<trace::string_id>(7));
  EXPECT_EQ(cache.size(), kernel_name_cache::max_names);
}

TEST_F(converted, a_kernel_record_without_a_name_is_kept_under_a_placeholder) {
  convert(a_kernel(nullptr, 100, 200, 1));
  convert(a_kernel("named", 300, 400, 2));
  const auto t = read();
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.strings[t.activities[0].name], "<unknown kernel>");
  EXPECT_EQ(t.strings[t.activities[1].name], "named");
}

TEST(copy_kinds, every_cupti_copy_kind_maps_to_its_direction) {
  using trace::copy_kind;
  const std::map<int, copy_kind> expected = {
      {CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, copy_kind::other},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, copy_kind::host_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, copy_kind::device_to_host},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, copy_kind::host_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, copy_kind::device_to_host},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, copy_kind::device_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, copy_kind::device_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, copy_kind::device_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, copy_kind::device_to_device},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, copy_kind::host_to_host},
      {CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, copy_kind::peer_to_peer},
      {11, copy_kind::other},  // a kind added after this build
      {255, copy_kind::other},
  };
  for (const auto& [cupti_kind, ours] : expected) {
    EXPECT_EQ(to_copy_kind(static_cast<std::uint8_t>(cupti_kind)), ours) << "CUPTI copy kind " << cupti_kind;
  }
}

TEST(copy_kinds, copies_and_memsets_are_named_as_torch_profiler_names_them) {
  EXPECT_EQ(copy_name(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                      CUPTI_ACTIVITY_MEMORY_KIND_DEVICE),
            "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(
      copy_name(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE),
      "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(copy_name(200, 200, CUPTI_ACTIVITY_MEMORY_KIND_PINNED), "Memcpy Unknown (Unknown -> Pinned)");
  EXPECT_EQ(memset_name(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), "Memset (Device)");
}

TEST_F(converted, copies_and_memsets_keep_direction_bytes_and_placement) {
  memcpy_record c;
  std::memset(&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  c.bytes = 64ULL << 20;
  c.start = 5000;
  c.end = 9000;
  c.deviceId = 1;
  c.streamId = 21;
  c.correlationId = 31;
  convert(c);

  peer_copy_record p;
  std::memset(&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 4096;
  p.start = 10000;
  p.end = 10400;
  p.deviceId = 2;
  p.srcDeviceId = 2;
  p.dstDeviceId = 3;
  p.streamId = 22;
  p.correlationId = 32;
  convert(p);

  memset_record s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  s.value = 0;
  s.bytes = 1 << 16;
  s.start = 11000;
  s.end = 11250;
  s.deviceId = 1;
  s.streamId = 23;
  s.correlationId = 33;
  s.graphNodeId = 17;
  s.graphId = 4;
  convert(s);

  const auto t = read();
  ASSERT_EQ(t.activities.size(), 3u);
  const auto& copy = t.activities[0];
  EXPECT_EQ(copy.kind, trace::activity_kind::memcpy);
  EXPECT_EQ(copy.copy, trace::copy_kind::device_to_host);
  EXPECT_EQ(copy.bytes, 64ULL << 20);
  EXPECT_EQ(copy.start, 5000);
  EXPECT_EQ(copy.end, 9000);
  EXPECT_EQ(copy.device, 1);
  EXPECT_EQ(copy.stream, 21);
  EXPECT_EQ(copy.correlation, 31u);
  EXPECT_EQ(t.strings[copy.name], "Memcpy DtoH (Device -> Pinned)");
  const auto& peer = t.activities[1];
  EXPECT_EQ(peer.kind, trace::activity_kind::memcpy);
  EXPECT_EQ(peer.copy, trace::copy_kind::peer_to_peer);
  EXPECT_EQ(peer.bytes, 4096u);
  EXPECT_EQ(peer.device, 2);
  EXPECT_EQ(peer.stream, 22);
  EXPECT_EQ(peer.correlation, 32u);
  const auto& set = t.activities[2];
  EXPECT_EQ(set.kind, trace::activity_kind::memset);
  EXPECT_EQ(set.copy, trace::copy_kind::none);
  EXPECT_EQ(set.bytes, 1u << 16);
  EXPECT_EQ(set.duration(), 250);
  EXPECT_EQ(set.stream, 23);
  EXPECT_EQ(set.correlation, 33u);
  EXPECT_EQ(set.graph_node, 18u);
  EXPECT_EQ(t.strings[set.name], "Memset (Device)");
  EXPECT_EQ(converter_->counts().copies, 2u);
  EXPECT_EQ(converter_->counts().memsets, 1u);
}

TEST_F(converted, api_records_are_named_through_the_lookup_once_per_callback) {
  const CUpti_CallbackId launch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  const CUpti_CallbackId driver_copy = CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
  callback_names_[{CUPTI_CB_DOMAIN_RUNTIME_API, launch}] = "cudaLaunchKernel_v7000";
  callback_names_[{CUPTI_CB_DOMAIN_DRIVER_API, driver_copy}] = "cuMemcpyHtoD_v2";

  api_record r;
  std::memset(&r, 0, sizeof r);
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = launch;
  r.start = 1000;
  r.end = 1400;
  r.processId = 77;
  r.threadId = 9001;
  r.correlationId = 55;
  convert(r);
  r.start = 2000;
  r.end = 2300;
  r.correlationId = 56;
  convert(r);

  api_record d = r;
  d.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  d.cbid = driver_copy;
  d.correlationId = 57;
  convert(d);

  api_record unknown = r;
  unknown.cbid = 999'999;  // a callback the lookup does not know
  unknown.correlationId = 58;
  convert(unknown);

  const auto t = read();
  ASSERT_EQ(t.api_calls.size(), 4u);
  EXPECT_EQ(t.strings[t.api_calls[0].name], "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].kind, trace::api_kind::runtime);
  EXPECT_EQ(t.api_calls[0].start, 1000);
  EXPECT_EQ(t.api_calls[0].end, 1400);
  EXPECT_EQ(t.api_calls[0].correlation, 55u);
  EXPECT_EQ(t.api_calls[0].thread, 9001u);
  EXPECT_EQ(t.api_calls[1].correlation, 56u);
  EXPECT_EQ(t.api_calls[1].name, t.api_calls[0].name);
  EXPECT_EQ(t.strings[t.api_calls[2].name], "cuMemcpyHtoD_v2");  // a real driver symbol keeps its suffix
  EXPECT_EQ(t.api_calls[2].kind, trace::api_kind::driver);
  EXPECT_EQ(t.strings[t.api_calls[3].name], "<runtime API 999999>");
  EXPECT_EQ(lookups_, 3);  // the second cudaLaunchKernel came from the cache
}

TEST(api_names, only_cuda_version_suffixes_are_removed) {
  EXPECT_EQ(without_version_suffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(without_version_suffix("cudaStreamSynchronize_v3020"), "cudaStreamSynchronize");
  EXPECT_EQ(without_version_suffix("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
  EXPECT_EQ(without_version_suffix("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
  EXPECT_EQ(without_version_suffix("cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");
  EXPECT_EQ(without_version_suffix("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(without_version_suffix("cudaFoo_vabcd"), "cudaFoo_vabcd");
  EXPECT_EQ(without_version_suffix(""), "");
}

TEST_F(converted, nvtx_starts_and_ends_pair_by_id_even_when_ranges_interleave) {
  // push/pop "forward" on thread 1; start/end ranges "A" and "B" overlap without nesting.
  convert(a_marker(1, CUPTI_ACTIVITY_FLAG_MARKER_START, 100, "forward", 1));
  convert(a_marker(2, CUPTI_ACTIVITY_FLAG_MARKER_START, 150, "A", 1));
  convert(a_marker(3, CUPTI_ACTIVITY_FLAG_MARKER_START, 170, "B", 2));
  convert(a_marker(2, CUPTI_ACTIVITY_FLAG_MARKER_END, 200, nullptr, 2));  // ended from another thread
  convert(a_marker(1, CUPTI_ACTIVITY_FLAG_MARKER_END, 250, nullptr, 1));
  convert(a_marker(3, CUPTI_ACTIVITY_FLAG_MARKER_END, 300, nullptr, 2));
  convert(a_marker(4, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 260, "checkpoint saved", 1));

  const auto t = read();
  ASSERT_EQ(t.ranges.size(), 4u);
  std::map<std::string, trace::range> by_name;
  for (const auto& r : t.ranges) by_name[std::string(t.strings[r.name])] = r;
  ASSERT_EQ(by_name.count("A") + by_name.count("B") + by_name.count("forward") + by_name.count("checkpoint saved"), 4u);
  EXPECT_EQ(by_name["A"].start, 150);
  EXPECT_EQ(by_name["A"].end, 200);
  EXPECT_EQ(by_name["A"].thread, 1u);
  EXPECT_EQ(by_name["A"].kind, trace::range_kind::nvtx);
  EXPECT_EQ(by_name["B"].start, 170);
  EXPECT_EQ(by_name["B"].end, 300);
  EXPECT_EQ(by_name["B"].thread, 2u);
  EXPECT_EQ(by_name["forward"].start, 100);
  EXPECT_EQ(by_name["forward"].end, 250);
  EXPECT_EQ(by_name["checkpoint saved"].kind, trace::range_kind::mark);
  EXPECT_EQ(by_name["checkpoint saved"].start, 260);
  EXPECT_EQ(by_name["checkpoint saved"].end, 260);
  EXPECT_TRUE(t.warnings.empty());
}

TEST_F(converted, an_nvtx_end_without_its_start_and_a_range_left_open_are_warned_about_not_invented) {
  convert(a_marker(99, CUPTI_ACTIVITY_FLAG_MARKER_END, 500, nullptr, 1));
  convert(a_marker(5, CUPTI_ACTIVITY_FLAG_MARKER_START, 600, "never ends", 1));
  convert(a_marker(6, CUPTI_ACTIVITY_FLAG_MARKER_START, 610, "ends", 1));
  convert(a_marker(6, CUPTI_ACTIVITY_FLAG_MARKER_END, 700, nullptr, 1));

  const auto t = read();
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.strings[t.ranges[0].name], "ends");
  EXPECT_EQ(converter_->counts().unpaired_marker_ends, 1u);
  EXPECT_TRUE(mentions(t, "end arrived without its start"));
  EXPECT_TRUE(mentions(t, "1 NVTX range(s) still open"));
}

TEST_F(converted, a_record_of_an_unknown_kind_is_counted_and_conversion_goes_on) {
  CUpti_Activity future;
  future.kind = static_cast<CUpti_ActivityKind>(9999);
  convert(future);
  convert(future);
  CUpti_ActivityPcie pcie;
  std::memset(&pcie, 0, sizeof pcie);
  pcie.kind = CUPTI_ACTIVITY_KIND_PCIE;
  convert(pcie);
  convert(a_kernel("after", 100, 200, 1));

  const auto t = read();
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.strings[t.activities[0].name], "after");
  EXPECT_EQ(converter_->counts().unconverted, 3u);
  EXPECT_EQ(counters_.unconverted_records, 3u);
  int about_9999 = 0;
  for (const auto& w : t.warnings) about_9999 += w.what.find("kind 9999") != std::string::npos ? 1 : 0;
  EXPECT_EQ(about_9999, 1);  // said once per kind, not once per record
  EXPECT_TRUE(mentions(t, "3 profiler records of kinds headroom does not convert"));
}

TEST_F(converted, overhead_records_and_dropped_counts_reach_the_trace) {
  overhead_record o;
  std::memset(&o, 0, sizeof o);
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION;
  o.start = 1000;
  o.end = 1750;
  convert(o);
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.start = 2000;
  o.end = 2250;
  convert(o);
  converter_->add_dropped(0);
  converter_->add_dropped(40);
  converter_->add_dropped(2);

  const auto t = read();
  EXPECT_EQ(counters_.overhead_records, 2u);
  EXPECT_EQ(counters_.overhead_ns, 1000u);
  EXPECT_EQ(t.dropped_records, 42u);
  EXPECT_EQ(counters_.dropped_records, 42u);
  EXPECT_TRUE(t.activities.empty());
}

sync_record a_sync(CUpti_ActivitySynchronizationType type, std::uint64_t start, std::uint64_t end,
                   std::uint32_t correlation, std::uint32_t context) {
  sync_record y;
  std::memset(&y, 0, sizeof y);
  y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  y.type = type;
  y.start = start;
  y.end = end;
  y.correlationId = correlation;
  y.contextId = context;
  y.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  y.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  return y;
}

TEST_F(converted, synchronisation_records_keep_kind_timing_stream_event_and_the_device_of_their_context) {
  auto k = a_kernel("void at::native::vectorized_elementwise_kernel<4>(...)", 1000, 2000, 40);
  k.contextId = 1;
  k.deviceId = 2;
  k.streamId = 7;
  convert(k);

  auto wait = a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 2100, 2150, 41, 1);
  wait.streamId = 13;  // stream 13 waits for event 3, recorded on stream 7
  wait.cudaEventId = 3;
  wait.cudaEventSyncId = 900;
  convert(wait);
  auto event = a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 2200, 2900, 42, 1);
  event.cudaEventId = 3;
  convert(event);
  auto stream = a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 3000, 3500, 43, 1);
  stream.streamId = 7;
  convert(stream);
  convert(a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 4000, 6000, 44, 1));

  api_record call;  // cudaDeviceSynchronize, the runtime call behind the last record
  std::memset(&call, 0, sizeof call);
  call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
  call.start = 3990;
  call.end = 6010;
  call.threadId = 9001;
  call.correlationId = 44;
  callback_names_[{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020}] =
      "cudaDeviceSynchronize_v3020";
  convert(call);

  const auto t = read();
  EXPECT_EQ(converter_->counts().synchronizations, 4u);
  ASSERT_EQ(t.synchronizations.size(), 4u);
  const auto& w = t.synchronizations[0];
  EXPECT_EQ(w.kind, trace::sync_kind::stream_wait_event);
  EXPECT_EQ(w.start, 2100);
  EXPECT_EQ(w.end, 2150);
  EXPECT_EQ(w.correlation, 41u);
  EXPECT_EQ(w.stream, 13);
  EXPECT_EQ(w.event, 3);
  EXPECT_EQ(w.context, 1u);
  EXPECT_EQ(w.device, 2);  // learnt from the kernel on context 1
  const auto& e = t.synchronizations[1];
  EXPECT_EQ(e.kind, trace::sync_kind::event_synchronize);
  EXPECT_EQ(e.event, 3);
  EXPECT_EQ(e.stream, -1);  // CUPTI_SYNCHRONIZATION_INVALID_VALUE: not a field of this type
  const auto& s = t.synchronizations[2];
  EXPECT_EQ(s.kind, trace::sync_kind::stream_synchronize);
  EXPECT_EQ(s.stream, 7);
  EXPECT_EQ(s.event, -1);
  const auto& d = t.synchronizations[3];
  EXPECT_EQ(d.kind, trace::sync_kind::context_synchronize);
  EXPECT_EQ(d.end - d.start, 2000);
  EXPECT_EQ(d.stream, -1);
  EXPECT_EQ(d.event, -1);
  EXPECT_EQ(d.device, 2);
  EXPECT_EQ(d.thread, 9001u);  // CUPTI's record names no thread; its runtime call does
}

TEST_F(converted, an_event_record_says_where_the_event_was_recorded_and_ties_the_wait_to_its_call) {
  cuda_event_record e;
  std::memset(&e, 0, sizeof e);
  e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  e.correlationId = 40;  // the cudaEventRecord call
  e.contextId = 1;
  e.streamId = 7;
  e.eventId = 3;
  e.deviceId = 2;
  e.cudaEventSyncId = 900;
  convert(e);
  auto wait = a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 2100, 2150, 41, 1);
  wait.streamId = 13;
  wait.cudaEventId = 3;
  wait.cudaEventSyncId = 900;
  convert(wait);
  api_record call;  // cudaEventRecord: dates the record
  std::memset(&call, 0, sizeof call);
  call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
  call.start = 2000;
  call.end = 2040;
  call.threadId = 9001;
  call.correlationId = 40;
  callback_names_[{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020}] =
      "cudaEventRecord_v3020";
  convert(call);
  auto k = a_kernel("void at::native::vectorized_elementwise_kernel<4>(...)", 1000, 2000, 39);
  k.contextId = 1;
  k.deviceId = 2;
  convert(k);

  const auto t = read();
  ASSERT_EQ(t.synchronizations.size(), 2u);
  const auto& r = t.synchronizations[0];
  EXPECT_EQ(r.kind, trace::sync_kind::event_record);
  EXPECT_EQ(r.correlation, 40u);
  EXPECT_EQ(r.stream, 7);
  EXPECT_EQ(r.event, 3);
  EXPECT_EQ(r.device, 2);
  EXPECT_EQ(r.start, 2000);  // from its call
  EXPECT_EQ(r.end, 2040);
  EXPECT_EQ(r.thread, 9001u);
  const auto& w = t.synchronizations[1];
  EXPECT_EQ(w.kind, trace::sync_kind::stream_wait_event);
  EXPECT_EQ(w.record_correlation, 40u);
}

TEST_F(converted, a_synchronisation_seen_before_any_work_on_its_context_waits_for_the_device) {
  // cudaDeviceSynchronize right after start-up: its record can complete before any kernel's.
  convert(a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 100, 200, 1, 5));
  convert(a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 300, 400, 2, 9));  // nothing ever runs on 9
  EXPECT_EQ(converter_->counts().synchronizations, 0u);
  memcpy_record c;
  std::memset(&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  c.start = 500;
  c.end = 600;
  c.contextId = 5;
  c.deviceId = 3;
  convert(c);
  EXPECT_EQ(converter_->counts().synchronizations, 1u);

  const auto t = read();  // finish() writes what still waits, on an unknown device
  ASSERT_EQ(t.synchronizations.size(), 2u);
  EXPECT_EQ(t.synchronizations[0].context, 5u);
  EXPECT_EQ(t.synchronizations[0].device, 3);
  EXPECT_EQ(t.synchronizations[1].context, 9u);
  EXPECT_EQ(t.synchronizations[1].device, -1);
}

TEST_F(converted, untimed_and_unknown_type_synchronisations_are_counted_not_recorded) {
  convert(a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 0, 0, 1, 1));
  convert(a_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN, 100, 200, 2, 1));
  const auto t = read();
  EXPECT_TRUE(t.synchronizations.empty());
  EXPECT_EQ(counters_.untimed_records, 1u);
  EXPECT_EQ(counters_.unconverted_records, 1u);
  EXPECT_TRUE(mentions(t, "unknown type"));
}

TEST_F(converted, a_device_record_describes_the_gpu) {
  device_record d;
  std::memset(&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 2;
  d.name = "NVIDIA H200";
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  d.globalMemorySize = 150'110'011'392ULL;
  convert(d);

  const auto t = read();
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 2);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t.devices[0].compute_major, 9);
  EXPECT_EQ(t.devices[0].compute_minor, 0);
  EXPECT_EQ(t.devices[0].sm_count, 132);
  EXPECT_EQ(t.devices[0].memory_bytes, 150'110'011'392ULL);
}
