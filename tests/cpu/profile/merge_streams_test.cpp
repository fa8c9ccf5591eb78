// merge_streams: the event streams of several profiled processes become one trace.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "headroom/profile/launcher.hpp"

namespace headroom::profile {
namespace {

using namespace headroom::trace;

struct temp_folder {
  std::filesystem::path path;
  temp_folder() {
    std::string p = (std::filesystem::temp_directory_path() / "headroom-merge-XXXXXX").string();
    path = ::mkdtemp(p.data());
  }
  ~temp_folder() { std::filesystem::remove_all(path); }
};

// Writes a stream as the injection library would for process `pid`; returns the size after the
// first `flushed` kernels were flushed (for tearing).
std::uintmax_t write_stream(const std::filesystem::path& dir, std::uint32_t pid, std::int32_t rank, int kernels,
                            int flushed = -1) {
  const auto path = dir / (std::to_string(pid) + ".hrs");
  std::uintmax_t at = 0;
  event_stream_header h{.pid = pid, .rank = rank, .start = 0, .process_name = "train.py", .host = "node"};
  event_stream_writer w(path, h);
  device_info d;
  d.id = static_cast<std::int16_t>(rank < 0 ? 0 : rank);
  d.name = "Fake GPU";
  w.add(d);
  const auto name = w.intern("gemm_rank" + std::to_string(rank));
  for (int i = 0; i < kernels; ++i) {
    activity a{.start = 1000 * i,
               .end = 1000 * i + 500,
               .correlation = std::uint64_t(i + 1),
               .name = name,
               .stream = 3,
               .device = d.id};
    w.add(a);
    if (i + 1 == flushed) {
      w.flush();
      at = std::filesystem::file_size(path);
    }
  }
  w.add_counter(event_counter::dropped_records, 4);
  w.add_counter(event_counter::overhead_records, 2);
  w.close();
  return at;
}

std::size_t kernels_of(const trace::trace& t, std::uint16_t process) {
  std::size_t n = 0;
  for (const auto& a : t.activities) n += a.process == process && a.kind == activity_kind::kernel;
  return n;
}

TEST(MergeStreams, KeepsEachProcessWithItsRankDeviceAndNames) {
  temp_folder dir;
  write_stream(dir.path, 2001, 1, 3);  // sorts first by name; rank 0 must still come first
  write_stream(dir.path, 3000, 0, 5);
  const auto m = merge_streams(dir.path);
  ASSERT_EQ(m.streams, 2u);
  ASSERT_EQ(m.trace.processes.size(), 2u);
  EXPECT_EQ(m.trace.processes[0].rank, 0);
  EXPECT_EQ(m.trace.processes[0].pid, 3000u);
  EXPECT_EQ(m.trace.processes[1].rank, 1);
  EXPECT_EQ(m.trace.processes[1].host, "node");
  EXPECT_EQ(kernels_of(m.trace, 0), 5u);
  EXPECT_EQ(kernels_of(m.trace, 1), 3u);
  for (const auto& a : m.trace.activities) {
    EXPECT_EQ(a.device, static_cast<std::int16_t>(m.trace.processes[a.process].rank));
    EXPECT_EQ(m.trace.strings[a.name], "gemm_rank" + std::to_string(m.trace.processes[a.process].rank));
  }
  ASSERT_EQ(m.trace.devices.size(), 2u);
  EXPECT_EQ(m.trace.devices[1].process, 1);
  EXPECT_EQ(m.trace.dropped_records, 8u);
  EXPECT_EQ(m.counters.dropped_records, 8u);
  EXPECT_EQ(m.counters.overhead_records, 4u);
  EXPECT_EQ(m.trace.format, source_format::headroom_store);
}

TEST(MergeStreams, TornStreamKeepsWhatWasFlushedAndWarns) {
  temp_folder dir;
  const auto first_frame = write_stream(dir.path, 10, 0, 8, 3);
  const auto path = dir.path / "10.hrs";
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, first_frame + (size - first_frame) / 2);
  write_stream(dir.path, 11, 1, 2);
  const auto m = merge_streams(dir.path);
  EXPECT_EQ(m.streams, 2u);
  EXPECT_EQ(kernels_of(m.trace, 0), 3u);
  EXPECT_EQ(kernels_of(m.trace, 1), 2u);
  EXPECT_FALSE(m.trace.warnings.empty());
}

TEST(MergeStreams, UnreadableStreamBecomesAWarningNamingIt) {
  temp_folder dir;
  std::ofstream(dir.path / "77.hrs").close();  // killed before its header was written
  std::ofstream(dir.path / "notes.txt") << "not a stream";
  write_stream(dir.path, 78, -1, 4);
  const auto m = merge_streams(dir.path);
  EXPECT_EQ(m.streams, 1u);
  EXPECT_EQ(kernels_of(m.trace, 0), 4u);
  ASSERT_EQ(m.trace.warnings.size(), 1u);
  EXPECT_NE(m.trace.warnings[0].what.find("77.hrs"), std::string::npos) << m.trace.warnings[0].what;
}

TEST(MergeStreams, EmptyFolderGivesNoProcesses) {
  temp_folder dir;
  const auto m = merge_streams(dir.path);
  EXPECT_EQ(m.streams, 0u);
  EXPECT_TRUE(m.trace.processes.empty());
}

}  // namespace
}  // namespace headroom::profile
