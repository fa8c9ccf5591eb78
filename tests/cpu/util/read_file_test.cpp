#include "headroom/util/read_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using headroom::util::read_file;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("headroom_read_file_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST(ReadFile, ReturnsEveryByteUnchanged) {
  const fs::path p = scratch("bytes");
  const std::string bytes("a\r\nb\0c\xff", 7);
  std::ofstream(p, std::ios::binary) << bytes;
  ASSERT_TRUE(read_file(p).has_value());
  EXPECT_EQ(*read_file(p), bytes);
}

TEST(ReadFile, AnEmptyFileIsAnEmptyStringNotAnError) {
  const fs::path p = scratch("empty");
  std::ofstream(p, std::ios::binary).flush();
  ASSERT_TRUE(read_file(p).has_value());
  EXPECT_EQ(*read_file(p), "");
}

TEST(ReadFile, AMissingFileOrAFolderIsNoValue) {
  EXPECT_FALSE(read_file(scratch("absent")).has_value());
  // A folder opens as a stream on Linux and would read as an empty file.
  EXPECT_FALSE(read_file(scratch("").parent_path()).has_value());
}

TEST(ReadFile, APipeReadsToItsEnd) {
  const fs::path p = scratch("fifo");
  fs::remove(p);
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(p, std::ios::binary) << std::string(100000, 'x'); });
  const auto text = read_file(p);
  writer.join();
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->size(), 100000u);
}
