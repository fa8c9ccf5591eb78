// .json.gz through each inflater (ISA-L, zlib) with and without the read-ahead thread: the same
// events as the plain JSON, concatenated members as one stream, padding ignored, a cut or a
// corrupt stream keeping what decoded and saying what was lost.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "headroom/trace/kineto.hpp"
#include "kineto_test_util.hpp"

namespace headroom::trace {
namespace {

using testing::gzip;

std::string events(int from, int to) {
  std::string json;
  for (int i = from; i < to; ++i) {
    json +=
        fmt::format(R"({}{{"ph": "X", "cat": "kernel", "name": "kernel_{}", "pid": 0, "tid": 7, "ts": {}, "dur": 3,)"
                    R"( "args": {{"device": 0, "stream": 7, "correlation": {}}}}})",
                    i == from ? "" : ",\n", i % 97, 10 * i + 1, i + 1);
  }
  return json;
}

bool warned(const trace& t, std::string_view prefix) {
  for (const auto& w : t.warnings) {
    if (w.what.starts_with(prefix)) return true;
  }
  return false;
}

class GzipSource : public ::testing::TestWithParam<std::tuple<gzip_inflater, bool>> {
 protected:
  const std::string json_ = R"({"traceEvents": [)" + events(0, 30000) + "]}";
  std::filesystem::path path_ =
      std::filesystem::temp_directory_path() / fmt::format("headroom_gzip_{}.json.gz", ::getpid());
  void TearDown() override { std::filesystem::remove(path_); }

  trace read(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary) << bytes;
    kineto_tuning tuning;
    tuning.inflater = std::get<0>(GetParam());
    tuning.read_ahead = std::get<1>(GetParam());
    tuning.chunk_bytes = std::size_t{1} << 18;  // several chunks and read-ahead blocks per file
    return read_kineto_json(path_, {}, tuning);
  }
};

TEST_P(GzipSource, ReadsTheSameEventsAsThePlainJson) {
  const trace t = read(gzip(json_));
  EXPECT_EQ(t.activities.size(), 30000u);
  EXPECT_TRUE(t.warnings.empty());
  EXPECT_EQ(t.strings[t.activities.back().name], "kernel_" + std::to_string(29999 % 97));
}

TEST_P(GzipSource, ConcatenatedMembersAreOneStreamAndPaddingIsIgnored) {
  const std::string a = R"({"traceEvents": [)" + events(0, 12000);
  const std::string b = ",\n" + events(12000, 30000) + "]}";
  const trace t = read(gzip(a) + gzip(b) + std::string(512, '\0'));
  EXPECT_EQ(t.activities.size(), 30000u);
  EXPECT_FALSE(t.partial());
}

TEST_P(GzipSource, ACutStreamKeepsWhatDecodedAndSaysWhatWasLost) {
  const std::string gz = gzip(json_);
  const trace t = read(gz.substr(0, gz.size() / 2));
  EXPECT_GT(t.activities.size(), 1000u);
  EXPECT_LT(t.activities.size(), 30000u);
  EXPECT_TRUE(t.partial());
  EXPECT_TRUE(warned(t, "gzip stream ends early"));
}

TEST_P(GzipSource, ACorruptStreamKeepsWhatDecodedAndSaysWhatWasLost) {
  std::string gz = gzip(json_);
  for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = static_cast<char>(~gz[i]);
  const trace t = read(gz);
  EXPECT_LT(t.activities.size(), 30000u);
  EXPECT_TRUE(t.partial());
  EXPECT_TRUE(warned(t, "corrupt gzip data"));
}

INSTANTIATE_TEST_SUITE_P(EveryInflater, GzipSource,
                         ::testing::Combine(::testing::Values(gzip_inflater::isal, gzip_inflater::zlib),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == gzip_inflater::isal ? "isal" : "zlib") +
                                  (std::get<1>(info.param) ? "_read_ahead" : "_direct");
                         });

}  // namespace
}  // namespace headroom::trace
