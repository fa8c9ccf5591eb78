// detect_format and read_trace look at a file's bytes, never at its name.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "headroom/trace/reader.hpp"
#include "headroom/util/error.hpp"
#include "kineto_test_util.hpp"

namespace headroom::trace {
namespace {

class DetectFormat : public testing::scratch_folder {
 protected:
  DetectFormat() : scratch_folder("headroom_detect") {}

  std::filesystem::path sqlite_with(const std::string& name, const std::string& table) {
    const auto p = dir_ / name;
    sqlite3* db = nullptr;
    sqlite3_open(p.c_str(), &db);
    sqlite3_exec(db, fmt::format("CREATE TABLE {}(x INTEGER)", table).c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return p;
  }
};

TEST_F(DetectFormat, JsonIsKnownByItsFirstByteWhateverTheName) {
  EXPECT_EQ(detect_format(write("trace.txt", "\n  {\"traceEvents\": []}")), file_format::kineto_json);
  EXPECT_EQ(detect_format(write("trace.sqlite", "[{}]")), file_format::kineto_json);
  EXPECT_EQ(detect_format(write("notes.json", "hello")), file_format::unknown);
  EXPECT_EQ(detect_format(write("empty.json", "")), file_format::unknown);
}

TEST_F(DetectFormat, GzipIsKnownByItsMagic) {
  const auto fixture = testing::fixture_dir() / "triton_example_triton_example.json.gz";
  if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "no fixtures";
  const auto renamed = write("trace.bin", testing::read_bytes(fixture));
  EXPECT_EQ(detect_format(renamed), file_format::kineto_json_gz);
  const trace t = read_trace(renamed);
  EXPECT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.format, source_format::kineto_json);
}

TEST_F(DetectFormat, SqliteFilesAreToldApartByTheirTables) {
  EXPECT_EQ(detect_format(sqlite_with("a.db", "CUPTI_ACTIVITY_KIND_KERNEL")), file_format::sqlite_nsys);
  EXPECT_EQ(detect_format(sqlite_with("b.db", "StringIds")), file_format::sqlite_nsys);
  EXPECT_EQ(detect_format(sqlite_with("c.db", "headroom_meta")), file_format::sqlite_headroom);
  EXPECT_EQ(detect_format(sqlite_with("d.db", "something_else")), file_format::unknown);
}

TEST_F(DetectFormat, UnreadablePathsAndUnknownFormatsAreInputErrors) {
  EXPECT_THROW((void)detect_format(dir_ / "missing.json"), input_error);
  EXPECT_THROW((void)detect_format(dir_), input_error);
  EXPECT_THROW((void)read_trace(write("x.json", "not a trace")), input_error);
  EXPECT_THROW((void)read_trace(sqlite_with("e.db", "something_else")), input_error);
}

}  // namespace
}  // namespace headroom::trace
