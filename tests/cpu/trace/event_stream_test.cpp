// The per-process event stream: what the injection library writes is what the launcher reads back,
// and a process killed mid-write loses only its unfinished frame.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "headroom/trace/event_stream.hpp"
#include "headroom/util/error.hpp"

namespace fs = std::filesystem;
using headroom::input_error;
using namespace headroom::trace;
using testing::HasSubstr;

namespace {

fs::path temp_dir() {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  auto dir = fs::temp_directory_path() /
             ("headroom-stream-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spill(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

event_stream_header header() {
  event_stream_header h;
  h.pid = 4242;
  h.rank = 3;
  h.start = 1'700'000'000'000'000'000;
  h.process_name = "python train.py --steps 10";
  h.host = "node-07";
  return h;
}

bool mentions(const trace& t, std::string_view what) {
  for (const auto& w : t.warnings) {
    if (w.what.find(what) != std::string::npos) return true;
  }
  return false;
}

read_options everything() {
  read_options o;
  o.launch_geometry = true;
  return o;
}

// One kernel named `name` per call, so each frame's content is recognisable after a read.
void add_kernel(event_stream_writer& w, std::string_view name, time_ns start, std::uint64_t correlation) {
  activity a;
  a.start = start;
  a.end = start + 100;
  a.correlation = correlation;
  a.name = w.intern(name);
  a.stream = 7;
  a.device = 0;
  w.add(a);
}

std::vector<std::string> kernel_names(const trace& t) {
  std::vector<std::string> names;
  for (const auto& a : t.activities) names.emplace_back(t.strings[a.name]);
  return names;
}

// Three frames: {k1, k2}, {k3, k4}, {k5}; returns the byte offsets where frames 2 and 3 start.
std::pair<std::size_t, std::size_t> three_frames(const fs::path& path) {
  event_stream_writer w(path, header());
  add_kernel(w, "k1", 1000, 1);
  add_kernel(w, "k2", 2000, 2);
  w.flush();
  const auto second = w.bytes_written();
  add_kernel(w, "k3", 3000, 3);
  add_kernel(w, "k4", 4000, 4);
  w.flush();
  const auto third = w.bytes_written();
  add_kernel(w, "k5", 5000, 5);
  w.close();
  return {second, third};
}

}  // namespace

TEST(event_stream, every_record_kind_reads_back_as_written) {
  const auto path = temp_dir() / "events.hrs";
  {
    event_stream_writer w(path, header());
    ASSERT_TRUE(w.ok()) << w.error();

    device_info d;
    d.id = 1;
    d.name = "NVIDIA H200";
    d.compute_major = 9;
    d.compute_minor = 0;
    d.sm_count = 132;
    d.memory_bytes = 150'000'000'000ULL;
    EXPECT_TRUE(w.add(d));

    activity k;
    k.start = 1'000'000'123;
    k.end = 1'000'004'567;
    k.correlation = 0x1'0000'0001ULL;
    k.name = w.intern("_Z21vectorized_elementwiseILi4EEvv");
    k.stream = 13;
    k.device = 1;
    k.graph_node = 77;
    launch_geometry g;
    g.grid[0] = 1024;
    g.grid[1] = 2;
    g.grid[2] = 3;
    g.block[0] = 256;
    g.block[1] = 4;
    g.block[2] = 1;
    g.registers_per_thread = 32;
    g.static_shared_bytes = 4096;
    g.dynamic_shared_bytes = 49152;
    EXPECT_TRUE(w.add(k, g));

    activity copy;
    copy.kind = activity_kind::memcpy;
    copy.copy = copy_kind::device_to_host;
    copy.start = 1'000'005'000;
    copy.end = 1'000'009'000;
    copy.bytes = 1 << 20;
    copy.correlation = 12;
    copy.name = w.intern("Memcpy DtoH (Device -> Pinned)");
    copy.stream = 14;
    copy.device = 1;
    EXPECT_TRUE(w.add(copy));

    activity set;
    set.kind = activity_kind::memset;
    set.start = 1'000'010'000;
    set.end = 1'000'010'500;
    set.bytes = 4096;
    set.correlation = 13;
    set.name = w.intern("Memset (Device)");
    set.stream = 14;
    set.device = 1;
    EXPECT_TRUE(w.add(set));

    api_call launch;
    launch.start = 999'999'000;
    launch.end = 1'000'000'050;
    launch.correlation = 0x1'0000'0001ULL;
    launch.name = w.intern("cudaLaunchKernel");
    launch.thread = 31337;
    launch.kind = api_kind::runtime;
    EXPECT_TRUE(w.add(launch));
    api_call driver;
    driver.start = 999'999'100;
    driver.end = 999'999'900;
    driver.correlation = 0x1'0000'0001ULL;
    driver.name = w.intern("cuLaunchKernel");
    driver.thread = 31337;
    driver.kind = api_kind::driver;
    EXPECT_TRUE(w.add(driver));

    range step;
    step.kind = range_kind::nvtx;
    step.start = 990'000'000;
    step.end = 1'100'000'000;
    step.name = w.intern("step 3");
    step.thread = 31337;
    EXPECT_TRUE(w.add(step));
    range mark;
    mark.kind = range_kind::mark;
    mark.start = mark.end = 1'050'000'000;
    mark.name = w.intern("checkpoint");
    mark.thread = 31338;
    EXPECT_TRUE(w.add(mark));

    EXPECT_TRUE(w.add_warning("CUPTI buffer pool exhausted", 2));
    EXPECT_TRUE(w.add_counter(event_counter::dropped_records, 5));
    EXPECT_TRUE(w.add_counter(event_counter::dropped_records, 6));
    EXPECT_TRUE(w.add_counter(event_counter::overhead_records, 3));
    EXPECT_TRUE(w.add_counter(event_counter::overhead_ns, 4500));
    EXPECT_TRUE(w.add_counter(event_counter::unconverted_records, 2));
    EXPECT_TRUE(w.add_counter(event_counter::untimed_records, 1));
    EXPECT_TRUE(w.close()) << w.error();
    EXPECT_EQ(w.lost_records(), 0u);
  }

  event_stream_counters counters;
  const trace t = read_event_stream(path, everything(), &counters);

  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 4242u);
  EXPECT_EQ(t.processes[0].rank, 3);
  EXPECT_EQ(t.processes[0].name, "python train.py --steps 10");
  EXPECT_EQ(t.processes[0].host, "node-07");
  EXPECT_EQ(t.platform, "cuda");

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 1);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t.devices[0].compute_major, 9);
  EXPECT_EQ(t.devices[0].compute_minor, 0);
  EXPECT_EQ(t.devices[0].sm_count, 132);
  EXPECT_EQ(t.devices[0].memory_bytes, 150'000'000'000ULL);

  ASSERT_EQ(t.activities.size(), 3u);
  const auto& k = t.activities[0];
  EXPECT_EQ(k.kind, activity_kind::kernel);
  EXPECT_EQ(t.strings[k.name], "_Z21vectorized_elementwiseILi4EEvv");
  EXPECT_EQ(k.start, 1'000'000'123);
  EXPECT_EQ(k.end, 1'000'004'567);
  EXPECT_EQ(k.correlation, 0x1'0000'0001ULL);
  EXPECT_EQ(k.stream, 13);
  EXPECT_EQ(k.device, 1);
  EXPECT_EQ(k.graph_node, 77u);
  EXPECT_EQ(k.copy, copy_kind::none);
  const auto& c = t.activities[1];
  EXPECT_EQ(c.kind, activity_kind::memcpy);
  EXPECT_EQ(c.copy, copy_kind::device_to_host);
  EXPECT_EQ(c.bytes, 1u << 20);
  EXPECT_EQ(t.strings[c.name], "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(c.stream, 14);
  const auto& s = t.activities[2];
  EXPECT_EQ(s.kind, activity_kind::memset);
  EXPECT_EQ(s.bytes, 4096u);
  EXPECT_EQ(s.duration(), 500);
  EXPECT_EQ(s.correlation, 13u);

  ASSERT_EQ(t.geometry.size(), 3u);  // parallel to activities; zeros where there was none
  EXPECT_EQ(t.geometry[0].grid[0], 1024u);
  EXPECT_EQ(t.geometry[0].grid[1], 2u);
  EXPECT_EQ(t.geometry[0].grid[2], 3u);
  EXPECT_EQ(t.geometry[0].block[0], 256u);
  EXPECT_EQ(t.geometry[0].block[1], 4u);
  EXPECT_EQ(t.geometry[0].block[2], 1u);
  EXPECT_EQ(t.geometry[0].registers_per_thread, 32u);
  EXPECT_EQ(t.geometry[0].static_shared_bytes, 4096u);
  EXPECT_EQ(t.geometry[0].dynamic_shared_bytes, 49152u);
  EXPECT_EQ(t.geometry[1].grid[0], 0u);
  EXPECT_EQ(t.geometry[2].registers_per_thread, 0u);

  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.strings[t.api_calls[0].name], "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].kind, api_kind::runtime);
  EXPECT_EQ(t.api_calls[0].start, 999'999'000);
  EXPECT_EQ(t.api_calls[0].end, 1'000'000'050);
  EXPECT_EQ(t.api_calls[0].correlation, 0x1'0000'0001ULL);
  EXPECT_EQ(t.api_calls[0].thread, 31337u);
  EXPECT_EQ(t.strings[t.api_calls[1].name], "cuLaunchKernel");
  EXPECT_EQ(t.api_calls[1].kind, api_kind::driver);

  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.ranges[0].kind, range_kind::nvtx);
  EXPECT_EQ(t.strings[t.ranges[0].name], "step 3");
  EXPECT_EQ(t.ranges[0].start, 990'000'000);
  EXPECT_EQ(t.ranges[0].end, 1'100'000'000);
  EXPECT_EQ(t.ranges[0].thread, 31337u);
  EXPECT_EQ(t.ranges[1].kind, range_kind::mark);
  EXPECT_EQ(t.ranges[1].start, t.ranges[1].end);
  EXPECT_EQ(t.ranges[1].thread, 31338u);

  EXPECT_EQ(t.dropped_records, 11u);
  EXPECT_EQ(counters.dropped_records, 11u);
  EXPECT_EQ(counters.overhead_records, 3u);
  EXPECT_EQ(counters.overhead_ns, 4500u);
  EXPECT_EQ(counters.unconverted_records, 2u);
  EXPECT_EQ(counters.untimed_records, 1u);
  ASSERT_FALSE(t.warnings.empty());
  EXPECT_EQ(t.warnings[0].what, "CUPTI buffer pool exhausted");
  EXPECT_EQ(t.warnings[0].count, 2u);
  EXPECT_TRUE(mentions(t, "without timestamps"));
  EXPECT_TRUE(mentions(t, "does not convert"));
}

TEST(event_stream, synchronizations_read_back_with_the_thread_of_the_call_that_waited) {
  const auto path = temp_dir() / "events.hrs";
  {
    event_stream_writer w(path, header());
    // cudaStreamWaitEvent(stream 14, event 5), then cudaEventSynchronize(5), cudaStreamSynchronize(13)
    // and cudaDeviceSynchronize, as CUPTI reports them: no thread, the call's correlation id.
    synchronization wait;
    wait.kind = sync_kind::stream_wait_event;
    wait.start = 2'000'000'000;
    wait.end = 2'000'000'800;
    wait.correlation = 0x1'0000'0040ULL;
    wait.event = 5;
    wait.context = 1;
    wait.stream = 14;
    wait.device = 1;
    wait.record_correlation = 0x3f;
    EXPECT_TRUE(w.add(wait));
    synchronization event = wait;
    event.kind = sync_kind::event_synchronize;
    event.correlation = 0x41;
    event.stream = -1;
    EXPECT_TRUE(w.add(event));
    synchronization stream;
    stream.kind = sync_kind::stream_synchronize;
    stream.start = 2'000'001'000;
    stream.end = 2'000'090'000;
    stream.correlation = 0x42;
    stream.stream = 13;
    stream.thread = 777;  // a writer that knows the thread keeps it
    EXPECT_TRUE(w.add(stream));
    synchronization device;
    device.start = 2'000'100'000;
    device.end = 2'000'200'000;
    device.correlation = 0x99;  // no API call recorded with it
    EXPECT_TRUE(w.add(device));
    // CUPTI's CUDA_EVENT record of the cudaEventRecord the wait names: no time, dated by its call.
    synchronization record;
    record.kind = sync_kind::event_record;
    record.correlation = 0x3f;
    record.event = 5;
    record.stream = 13;
    record.device = 1;
    EXPECT_TRUE(w.add(record));
    api_call recording;
    recording.start = 1'999'000'000;
    recording.end = 1'999'000'700;
    recording.correlation = 0x3f;
    recording.thread = 31337;
    recording.name = w.intern("cudaEventRecord");
    w.add(recording);

    for (std::uint64_t correlation : {0x1'0000'0040ULL, 0x41ULL, 0x42ULL}) {
      api_call c;
      c.start = 1'999'999'000;
      c.end = 2'000'300'000;
      c.correlation = correlation;
      c.thread = 31337;
      c.name = w.intern("cudaStreamSynchronize");
      w.add(c);
    }
  }
  const trace t = read_event_stream(path);
  ASSERT_EQ(t.synchronizations.size(), 5u);
  const auto& wait = t.synchronizations[0];
  EXPECT_EQ(wait.record_correlation, 0x3fu);
  const auto& record = t.synchronizations[4];
  EXPECT_EQ(record.kind, sync_kind::event_record);
  EXPECT_EQ(record.stream, 13);
  EXPECT_EQ(record.start, 1'999'000'000);
  EXPECT_EQ(record.end, 1'999'000'700);
  EXPECT_EQ(record.thread, 31337u);
  EXPECT_EQ(wait.kind, sync_kind::stream_wait_event);
  EXPECT_EQ(wait.start, 2'000'000'000);
  EXPECT_EQ(wait.end, 2'000'000'800);
  EXPECT_EQ(wait.correlation, 0x1'0000'0040ULL);
  EXPECT_EQ(wait.event, 5);
  EXPECT_EQ(wait.context, 1u);
  EXPECT_EQ(wait.stream, 14);
  EXPECT_EQ(wait.device, 1);
  EXPECT_EQ(wait.process, 0);
  EXPECT_EQ(wait.thread, 31337u);  // from the API call with the same correlation id
  EXPECT_EQ(t.synchronizations[1].kind, sync_kind::event_synchronize);
  EXPECT_EQ(t.synchronizations[1].stream, -1);
  EXPECT_EQ(t.synchronizations[1].thread, 31337u);
  EXPECT_EQ(t.synchronizations[2].kind, sync_kind::stream_synchronize);
  EXPECT_EQ(t.synchronizations[2].event, -1);
  EXPECT_EQ(t.synchronizations[2].thread, 777u);
  const auto& device = t.synchronizations[3];
  EXPECT_EQ(device.kind, sync_kind::context_synchronize);
  EXPECT_EQ(device.end - device.start, 100'000);
  EXPECT_EQ(device.thread, 0u);  // unknown, not guessed
  EXPECT_EQ(device.device, -1);
  EXPECT_TRUE(t.warnings.empty());
}

// A frame of hand-made records appended to a stream, as a newer (or damaged) writer might leave it.
void append_frame(const fs::path& path, const std::string& payload) {
  auto le32 = [](std::uint32_t v) {
    std::string b(4, '\0');
    for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return b;
  };
  const std::string length = le32(static_cast<std::uint32_t>(payload.size()));
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(length.data()), 4);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  std::ofstream(path, std::ios::binary | std::ios::app)
      << "HRF1" << length << le32(static_cast<std::uint32_t>(crc)) << payload;
}

std::string record(std::uint8_t kind, const std::string& body) {
  const std::uint32_t tag = kind | static_cast<std::uint32_t>(body.size() << 8);
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((tag >> (8 * i)) & 0xff);
  return out + body;
}

TEST(event_stream, unknown_record_kinds_are_skipped_and_longer_synchronization_bodies_read_to_their_layout) {
  const auto path = temp_dir() / "events.hrs";
  {
    event_stream_writer w(path, header());
    add_kernel(w, "before", 1000, 1);
  }
  // The synchronisation record as a later writer might extend it: 56 bytes of layout, 8 bytes more;
  // and as an older writer wrote it, 48 bytes without the record correlation.
  std::string sync(64, '\0');
  sync[0] = 0x10;  // start 16
  sync[8] = 0x20;  // end 32
  sync[16] = 0x07;  // correlation 7
  sync.replace(24, 8, std::string(8, '\xff'));  // event -1
  sync[40] = 0x03;  // stream 3
  sync[44] = 0x00;  // device 0
  sync[46] = 2;  // stream synchronize
  sync[48] = 0x21;  // record correlation 0x21
  sync[58] = 0x5a;  // a field this build does not know
  append_frame(path, record(200, "future") + record(201, "") + record(9, sync) + record(9, sync.substr(0, 40)) +
                         record(9, sync.substr(0, 48)));
  const trace t = read_event_stream(path);
  EXPECT_EQ(kernel_names(t), std::vector<std::string>{"before"});
  ASSERT_EQ(t.synchronizations.size(), 2u);
  EXPECT_EQ(t.synchronizations[0].record_correlation, 0x21u);
  EXPECT_EQ(t.synchronizations[1].record_correlation, 0u);  // the older layout has none
  EXPECT_EQ(t.synchronizations[0].kind, sync_kind::stream_synchronize);
  EXPECT_EQ(t.synchronizations[0].start, 16);
  EXPECT_EQ(t.synchronizations[0].end, 32);
  EXPECT_EQ(t.synchronizations[0].correlation, 7u);
  EXPECT_EQ(t.synchronizations[0].event, -1);
  EXPECT_EQ(t.synchronizations[0].stream, 3);
  EXPECT_TRUE(mentions(t, "a synchronization record is shorter than its layout"));
  EXPECT_TRUE(mentions(t, "2 records of kinds this build does not know"));
}

TEST(event_stream, read_options_leave_out_what_analysis_does_not_need) {
  const auto path = temp_dir() / "events.hrs";
  {
    event_stream_writer w(path, header());
    add_kernel(w, "k", 1000, 9);
    api_call launch;  // launched k
    launch.start = 900;
    launch.end = 950;
    launch.correlation = 9;
    launch.name = w.intern("cudaLaunchKernel");
    w.add(launch);
    api_call query;  // CUPTI gives every call a correlation id; this one launched nothing
    query.start = 960;
    query.end = 970;
    query.correlation = 10;
    query.name = w.intern("cudaGetDevice");
    w.add(query);
    range r;
    r.kind = range_kind::nvtx;
    r.name = w.intern("forward");
    w.add(r);
  }
  read_options o;
  o.api_calls = false;
  o.launch_calls = true;
  o.ranges = false;
  const trace t = read_event_stream(path, o);
  EXPECT_TRUE(t.api_calls.empty());
  EXPECT_TRUE(t.ranges.empty());
  EXPECT_TRUE(t.geometry.empty());
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].correlation, 9u);
  EXPECT_EQ(t.launches[0].start, 900);
  EXPECT_EQ(t.strings[t.launches[0].name], "cudaLaunchKernel");
}

TEST(event_stream, a_file_cut_anywhere_in_its_last_frame_keeps_every_earlier_frame_and_warns) {
  const auto dir = temp_dir();
  const auto whole = dir / "whole.hrs";
  const auto [second, third] = three_frames(whole);
  const std::string bytes = slurp(whole);
  ASSERT_GT(bytes.size(), third);
  ASSERT_EQ(read_event_stream(whole).activities.size(), 5u);

  const auto cut = dir / "cut.hrs";
  for (std::size_t at = third; at < bytes.size(); ++at) {
    spill(cut, std::string_view(bytes).substr(0, at));
    const trace t = read_event_stream(cut);
    EXPECT_THAT(kernel_names(t), testing::ElementsAre("k1", "k2", "k3", "k4")) << "cut at byte " << at;
    // A cut on the frame boundary is a clean file: the process stopped between two flushes.
    EXPECT_EQ(mentions(t, "incomplete or damaged frame"), at > third) << "cut at byte " << at;
  }
}

TEST(event_stream, a_damaged_byte_in_a_middle_frame_loses_that_frame_only) {
  const auto dir = temp_dir();
  const auto whole = dir / "whole.hrs";
  const auto [second, third] = three_frames(whole);
  const std::string bytes = slurp(whole);

  const auto damaged = dir / "damaged.hrs";
  for (std::size_t at = second; at < third; ++at) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x20);
    spill(damaged, copy);
    const trace t = read_event_stream(damaged);
    EXPECT_THAT(kernel_names(t), testing::ElementsAre("k1", "k2", "k5")) << "byte " << at << " flipped";
    EXPECT_TRUE(mentions(t, "damaged")) << "byte " << at << " flipped";
  }
}

TEST(event_stream, a_file_that_is_not_an_event_stream_is_an_input_error_naming_it) {
  const auto dir = temp_dir();
  const auto path = dir / "trace.json";
  spill(path, R"({"traceEvents": []})");
  try {
    read_event_stream(path);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("trace.json"));
    EXPECT_THAT(e.what(), HasSubstr("magic"));
  }
}

TEST(event_stream, a_stream_from_a_newer_format_version_is_refused) {
  const auto dir = temp_dir();
  const auto path = dir / "events.hrs";
  three_frames(path);
  std::string bytes = slurp(path);
  bytes[8] = static_cast<char>(event_stream_version + 1);  // u16 version, little-endian, at byte 8
  spill(path, bytes);
  try {
    read_event_stream(path);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("events.hrs"));
    EXPECT_THAT(e.what(), HasSubstr("newer"));
  }
}

TEST(event_stream, an_empty_file_is_an_input_error) {
  const auto path = temp_dir() / "events.hrs";
  spill(path, "");
  EXPECT_THROW(read_event_stream(path), input_error);
}

TEST(event_stream, a_stream_with_only_its_header_reads_as_an_empty_trace) {
  const auto path = temp_dir() / "events.hrs";
  { event_stream_writer w(path, header()); }
  const trace t = read_event_stream(path);
  EXPECT_TRUE(t.activities.empty());
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 4242u);
}

TEST(event_stream, full_buffers_reach_the_file_before_any_explicit_flush) {
  const auto path = temp_dir() / "events.hrs";
  event_stream_writer w(path, header(), 4096);
  for (int i = 0; i < 1000; ++i) add_kernel(w, "k" + std::to_string(i % 10), 1000 * i, i + 1);
  // Still open and never flushed by hand: what a process killed now would leave behind.
  const trace t = read_event_stream(path);
  EXPECT_GT(t.activities.size(), 500u);
  EXPECT_LT(t.activities.size(), 1000u);
  EXPECT_TRUE(t.warnings.empty());
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    ASSERT_EQ(t.strings[t.activities[i].name], "k" + std::to_string(i % 10));
  }
  EXPECT_TRUE(w.close());
  EXPECT_EQ(read_event_stream(path).activities.size(), 1000u);
}

TEST(event_stream, a_writer_that_cannot_open_its_file_reports_it_and_counts_what_it_lost) {
  const auto path = temp_dir() / "no-such-folder" / "events.hrs";
  event_stream_writer w(path, header());
  EXPECT_FALSE(w.ok());
  EXPECT_THAT(w.error(), HasSubstr("no-such-folder"));
  add_kernel(w, "k", 1000, 1);
  EXPECT_FALSE(w.add_counter(event_counter::dropped_records, 1));
  EXPECT_FALSE(w.flush());
  EXPECT_EQ(w.lost_records(), 2u);
}
