// read_traces: the files of one job into one trace, and what it refuses: a partial file unless
// allowed (then its loss is kept, naming the file), one file given twice, the same bytes twice;
// and pipes read as files.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "headroom/trace/reader.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "kineto_test_util.hpp"

namespace headroom::trace {
namespace {

using testing::gzip;

using ::testing::HasSubstr;

std::string kineto(int kernels, const std::string& name = "k") {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < kernels; ++i) {
    json += fmt::format(R"({}{{"ph": "X", "cat": "kernel", "name": "{}{}", "pid": 0, "tid": 7, "ts": {}, "dur": 5,)"
                        R"( "args": {{"device": 0, "stream": 7, "correlation": {}}}}})",
                        i ? ",\n" : "", name, i, 10 * i + 1, i + 1);
  }
  return json + "]}";
}

class ReadTraces : public testing::scratch_folder {
 protected:
  ReadTraces() : scratch_folder("headroom_inputs") {}

  static std::string error_of(const std::vector<std::filesystem::path>& files, const inputs_options& o = {}) {
    try {
      (void)read_traces(files, o);
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }

  // A FIFO that a thread fills with `bytes` while the reader reads it.
  std::filesystem::path fifo_of(const std::string& name, std::string bytes) {
    const auto p = dir_ / name;
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    writers_.emplace_back([p, bytes = std::move(bytes)] { std::ofstream(p, std::ios::binary) << bytes; });
    return p;
  }
  void TearDownWriters() {
    for (auto& w : writers_) w.join();
  }
  std::vector<std::thread> writers_;
};

TEST_F(ReadTraces, AGzipTraceCutShortIsRefusedNamingTheFileAndWhatWasLost) {
  const std::string gz = gzip(kineto(2000));
  const auto cut = write("rank0.json.gz", gz.substr(0, gz.size() * 2 / 5));
  const std::string e = error_of({cut});
  EXPECT_THAT(e, HasSubstr("rank0.json.gz"));
  EXPECT_THAT(e, HasSubstr("gzip stream ends early"));
  EXPECT_THAT(e, HasSubstr("the rest is lost"));
  EXPECT_THAT(e, HasSubstr("--allow-partial"));
}

TEST_F(ReadTraces, APartialTraceIsReadWhenAllowedAndItsLossNamesTheFile) {
  const std::string json = kineto(100);
  const auto cut = write("cut.json", json.substr(0, json.size() / 2));
  inputs_options o;
  o.allow_partial = true;
  const trace t = read_traces({cut}, o);
  EXPECT_TRUE(t.partial());
  EXPECT_GT(t.activities.size(), 10u);
  EXPECT_LT(t.activities.size(), 100u);
  bool named = false;
  for (const auto& w : t.warnings)
    named = named || (w.lost && w.what.starts_with(cut.string() + ": truncated at byte"));
  EXPECT_TRUE(named);
}

TEST_F(ReadTraces, AStoreOfAPartialImportStaysPartial) {
  const std::string json = kineto(100);
  inputs_options o;
  o.allow_partial = true;
  const auto store = dir_ / "partial.sqlite";
  write_store(read_traces({write("cut.json", json.substr(0, json.size() / 2))}, o), store);
  EXPECT_THAT(error_of({store}), HasSubstr("truncated at byte"));
  EXPECT_TRUE(read_traces({store}, o).partial());
}

TEST_F(ReadTraces, OneFileGivenTwiceIsRefused) {
  const auto a = write("a.json", kineto(3));
  EXPECT_THAT(error_of({a, a}), HasSubstr("are the same file"));
  const auto link = dir_ / "also-a.json";
  std::filesystem::create_hard_link(a, link);
  EXPECT_THAT(error_of({a, link}), HasSubstr("are the same file"));
}

TEST_F(ReadTraces, TwoFilesOfTheSameBytesAreRefusedAndDifferentRanksAreNot) {
  const auto a = write("rank0.json", kineto(3, "a"));
  const auto copy = write("rank1.json", kineto(3, "a"));
  EXPECT_THAT(error_of({a, copy}), HasSubstr("hold the same bytes"));
  const auto other = write("rank2.json", kineto(3, "b"));  // same size, other bytes
  ASSERT_EQ(std::filesystem::file_size(a), std::filesystem::file_size(other));
  EXPECT_EQ(read_traces({a, other}).processes.size(), 2u);
}

TEST_F(ReadTraces, PipesOfJsonGzipAndAStoreReadAsFiles) {
  const auto store = dir_ / "s.sqlite";
  write_store(read_traces({write("k.json", kineto(4, "s"))}), store);
  std::ifstream in(store, std::ios::binary);
  const std::string store_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const auto json = fifo_of("plain", kineto(5, "p"));
  const auto gz = fifo_of("gz", gzip(kineto(6, "g")));
  const auto db = fifo_of("db", store_bytes);
  const trace t = read_traces({json, gz, db});
  TearDownWriters();
  EXPECT_EQ(t.activities.size(), 5u + 6u + 4u);
  EXPECT_FALSE(t.partial());
}

}  // namespace
}  // namespace headroom::trace
