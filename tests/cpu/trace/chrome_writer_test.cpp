// write_chrome_trace: the output parses as JSON (simdjson validates strictly, UTF-8 included) and
// carries every event with the layout Perfetto and chrome://tracing show.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "headroom/trace/chrome_writer.hpp"

using namespace headroom::trace;

namespace {

trace sample_trace() {
  trace t;
  t.format = source_format::nsys_sqlite;
  t.platform = "cuda";
  t.processes.push_back({4242, "python3", 0, ""});
  t.processes.push_back({4343, "python3", 1, ""});
  t.devices.push_back({0, 0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 0});
  auto kernel = [&](std::string_view name, time_ns start, time_ns end, std::int32_t stream, std::uint16_t process,
                    std::uint64_t correlation) {
    activity a;
    a.name = t.strings.intern(name);
    a.start = start;
    a.end = end;
    a.stream = stream;
    a.device = 0;
    a.process = process;
    a.correlation = correlation;
    t.activities.push_back(a);
  };
  kernel("ampere_sgemm_128x64_nn", 1712195495505583123, 1712195495505588051, 7, 0, 101);
  kernel("triton_poi_fused_add_0", 1712195495505589000, 1712195495505589500, 7, 0, 102);
  kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, ...)",
         1712195495505590000, 1712195495505591000, 13, 0, 103);
  kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 1712195495505580000,
         1712195495505599000, 20, 1, 104);
  activity copy;
  copy.kind = activity_kind::memcpy;
  copy.copy = copy_kind::host_to_device;
  copy.name = t.strings.intern("Memcpy HtoD");
  copy.start = 1712195495505570000;
  copy.end = 1712195495505571000;
  copy.bytes = 4096;
  copy.stream = 7;
  copy.device = 0;
  t.activities.push_back(copy);
  t.api_calls.push_back({1712195495505543200, 1712195495505584968, 101, t.strings.intern("cudaLaunchKernel"), 4250, 0,
                         api_kind::runtime});
  t.api_calls.push_back(
      {1712195495505543300, 1712195495505543400, 102, t.strings.intern("cuLaunchKernel"), 4250, 0, api_kind::driver});
  t.ranges.push_back({1712195495505500000, 1712195495505600000, t.strings.intern("ProfilerStep#1"), 4250, 0, -1,
                      range_kind::cpu_annotation});
  t.ranges.push_back({1712195495505580000, 1712195495505595000, t.strings.intern("ProfilerStep#1"), 0, 0, 0,
                      range_kind::gpu_annotation});
  t.ranges.push_back(
      {1712195495505510000, 1712195495505520000, t.strings.intern("forward"), 4250, 0, -1, range_kind::nvtx});
  t.ranges.push_back(
      {1712195495505530000, 1712195495505530000, t.strings.intern("loss ready"), 4250, 0, -1, range_kind::mark});
  return t;
}

std::string_view label_of(const trace& t, std::size_t i) {
  const auto name = t.strings[t.activities[i].name];
  if (t.activities[i].kind != activity_kind::kernel) return "runtime";
  if (name.find("sgemm") != std::string_view::npos) return "vendor_library";
  if (name.find("nccl") != std::string_view::npos) return "communication";
  if (name.find("triton") != std::string_view::npos) return "compiler_generated";
  return "framework";
}

TEST(ChromeWriter, OutputParsesAndCarriesEveryEvent) {
  const trace t = sample_trace();
  chrome_options options;
  options.label = [&](std::size_t i) { return label_of(t, i); };
  options.args = [&](std::size_t i) {
    return std::vector<std::pair<std::string_view, std::string_view>>{{"provenance", label_of(t, i)}};
  };
  std::ostringstream out;
  write_chrome_trace(t, out, options);
  const std::string json = out.str();

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json.substr(0, 2000);

  std::map<std::string, int> by_cat;
  std::map<std::string, std::string> cname_of_class;
  std::set<std::string> process_names, thread_names;
  std::map<std::int64_t, std::set<std::int64_t>> kernel_tracks;  // pid -> streams
  for (simdjson::dom::object e : root["traceEvents"].get_array()) {
    const std::string_view ph = e["ph"].get_string();
    if (ph == "M") {
      const std::string_view what = e["name"].get_string();
      const std::string_view name = e["args"]["name"].get_string().value_unsafe();
      if (what == "process_name") process_names.emplace(name);
      if (what == "thread_name") thread_names.emplace(name);
      continue;
    }
    const std::string cat(e["cat"].get_string().value());
    ++by_cat[cat];
    if (cat == "kernel") {
      const std::string cls(e["args"]["class"].get_string().value());
      EXPECT_EQ(e["args"]["provenance"].get_string().value(), cls);
      const std::string cname(e["cname"].get_string().value());
      if (auto [it, fresh] = cname_of_class.emplace(cls, cname); !fresh) {
        EXPECT_EQ(it->second, cname) << "one class, one colour";
      }
      kernel_tracks[e["pid"].get_int64()].insert(e["tid"].get_int64());
      if (e["name"].get_string().value() == "ampere_sgemm_128x64_nn") {
        EXPECT_EQ(e["args"]["correlation"].get_uint64().value(), 101u);
        EXPECT_NEAR(e["ts"].get_double().value(), 1712195495505583.123, 0.5);
        EXPECT_NEAR(e["dur"].get_double().value(), 4.928, 1e-9);
      }
    }
    if (cat == "gpu_memcpy") {
      EXPECT_EQ(e["args"]["bytes"].get_uint64().value(), 4096u);
      EXPECT_EQ(e["args"]["kind"].get_string().value(), "HtoD");
    }
    if (cat == "mark") {
      EXPECT_EQ(ph, "i");
    }
  }
  EXPECT_EQ(by_cat["kernel"], 4);
  EXPECT_EQ(by_cat["gpu_memcpy"], 1);
  EXPECT_EQ(by_cat["cuda_runtime"], 1);
  EXPECT_EQ(by_cat["cuda_driver"], 1);
  EXPECT_EQ(by_cat["user_annotation"], 1);
  EXPECT_EQ(by_cat["gpu_user_annotation"], 1);
  EXPECT_EQ(by_cat["nvtx"], 1);
  EXPECT_EQ(by_cat["mark"], 1);

  std::set<std::string> colours;
  for (const auto& [cls, c] : cname_of_class) colours.insert(c);
  EXPECT_EQ(colours.size(), cname_of_class.size()) << "different classes, different colours";

  // Two (process, device) tracks for kernels; the first has streams 7 and 13.
  ASSERT_EQ(kernel_tracks.size(), 2u);
  EXPECT_EQ(kernel_tracks.begin()->second, (std::set<std::int64_t>{7, 13}));
  EXPECT_TRUE(process_names.contains("python3 pid 4242 rank 0 / GPU 0 (NVIDIA H100 80GB HBM3)"));
  EXPECT_TRUE(process_names.contains("python3 pid 4343 rank 1"));
  EXPECT_TRUE(thread_names.contains("stream 7"));
  EXPECT_TRUE(thread_names.contains("stream 13"));
}

TEST(ChromeWriter, SynchronizationsAreSlicesOnTheHostThreadThatWaited) {
  trace t = sample_trace();
  // cudaStreamSynchronize(7) on thread 4250 of process 0, after the kernels it waits for.
  t.synchronizations.push_back(
      {1712195495505592000, 1712195495505599500, 105, -1, 1, 4250, 7, 0, 0, sync_kind::stream_synchronize});
  t.synchronizations.push_back(
      {1712195495505599600, 1712195495505599900, 106, 3, 1, 4251, 13, 0, 0, sync_kind::stream_wait_event});
  std::ostringstream out;
  write_chrome_trace(t, out, {});
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(out.str()).get(root), simdjson::SUCCESS);
  std::vector<std::string> seen;
  for (simdjson::dom::object e : root["traceEvents"].get_array()) {
    if (e["ph"].get_string().value() == "M" || e["cat"].get_string().value() != "cuda_sync") continue;
    EXPECT_EQ(e["pid"].get_int64().value(), 1);  // process 0's host track
    seen.push_back(std::string(e["name"].get_string().value()) + " tid " +
                   std::to_string(e["tid"].get_int64().value()) + " stream " +
                   std::to_string(e["args"]["stream"].get_int64().value()) + " event " +
                   std::to_string(e["args"]["event"].get_int64().value()));
    if (e["args"]["correlation"].get_uint64().value() == 105) {
      EXPECT_NEAR(e["dur"].get_double().value(), 7.5, 1e-9);
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"Stream Sync tid 4250 stream 7 event -1",
                                            "Stream Wait Event tid 4251 stream 13 event 3"}));
}

TEST(ChromeWriter, TimestampsKeepNanosecondsAtEpochScale) {
  const trace t = sample_trace();
  std::ostringstream out;
  write_chrome_trace(t, out);
  EXPECT_NE(out.str().find("\"ts\":1712195495505583.123"), std::string::npos);
  EXPECT_NE(out.str().find("\"dur\":4.928"), std::string::npos);
  EXPECT_EQ(out.str().find("cname"), std::string::npos) << "no label, no colour";
}

TEST(ChromeWriter, NamesAreEscapedIntoValidJson) {
  trace t;
  t.processes.push_back({1, "weird \"process\"\n", -1, ""});
  const std::string names[] = {
      "quote \" backslash \\ newline \n tab \t",
      std::string("control \x01\x1f byte"),
      "invalid utf-8 \xff\xfe end",
      "truncated \xe2\x82",
      "valid µs ü ✓ 🚀",
  };
  for (const auto& n : names) {
    activity a;
    a.name = t.strings.intern(n);
    a.device = 0;
    a.stream = 1;
    t.activities.push_back(a);
  }
  std::ostringstream out;
  write_chrome_trace(t, out);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(out.str()).get(root), simdjson::SUCCESS) << out.str();
  std::vector<std::string> got;
  for (simdjson::dom::object e : root["traceEvents"].get_array()) {
    if (e["ph"].get_string().value() == "X") got.emplace_back(e["name"].get_string().value());
  }
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], names[0]);
  EXPECT_EQ(got[1], names[1]);
  EXPECT_EQ(got[2], "invalid utf-8 \xef\xbf\xbd\xef\xbf\xbd end");
  EXPECT_EQ(got[3], "truncated \xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(got[4], names[4]);
  EXPECT_EQ(json_quote("a\"b"), "\"a\\\"b\"");
}

}  // namespace
