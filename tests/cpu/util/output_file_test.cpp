// util::output_file: an output is the whole new file or the old one, never a half; links, folders
// and inputs are refused; every write error is reported.
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::util {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / fmt::format("headroom_output_{}", ::getpid());
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  static std::string error_of(const fs::path& target, const std::vector<fs::path>& inputs = {}) {
    try {
      output_file f(target, inputs);
      f.stream() << "new";
      f.commit();
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(OutputFile, ReplacesTheTargetWholeAtCommitAndKeepsItsPermissions) {
  const auto target = write("out.json", "old");
  ::chmod(target.c_str(), 0640);
  output_file f(target);
  f.stream() << "new content";
  EXPECT_EQ(read(target), "old");  // nothing shows before commit
  f.commit();
  EXPECT_EQ(read(target), "new content");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(OutputFile, WhileWritingTheFolderHoldsNoNewNameSoAKillLeavesNothingBehind) {
  const auto target = dir_ / "store.sqlite";
  {
    output_file f(target);
    f.stream() << std::string(1 << 20, 'x');
    f.stream().flush();
    EXPECT_EQ(entries(), 0u);
  }  // abandoned, as when an exception ends the command
  EXPECT_EQ(entries(), 0u);
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(OutputFile, AnAbandonedWriteLeavesTheOldFile) {
  const auto target = write("out.json", "old");
  {
    output_file f(target);
    f.stream() << "half";
  }
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, RefusesASymbolicLinkAndLeavesWhatItPointsTo) {
  const auto real = write("real.json", "keep");
  fs::create_symlink(real, dir_ / "link.json");
  EXPECT_THAT(error_of(dir_ / "link.json"), HasSubstr("symbolic link"));
  EXPECT_EQ(read(real), "keep");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
}

TEST_F(OutputFile, RefusesToOverwriteAnInputEvenByAnotherName) {
  const auto input = write("trace.json", "input");
  EXPECT_THAT(error_of(input, {input}), HasSubstr("is also an input"));
  fs::create_hard_link(input, dir_ / "other-name.json");
  EXPECT_THAT(error_of(dir_ / "other-name.json", {input}), HasSubstr("is also an input"));
  EXPECT_EQ(read(input), "input");
}

TEST_F(OutputFile, RefusesAFolderAndAMissingFolder) {
  EXPECT_THAT(error_of(dir_), HasSubstr("is a folder"));
  EXPECT_THAT(error_of(dir_ / "missing" / "out.json"), HasSubstr("does not exist"));
}

TEST_F(OutputFile, WritesAPipeOrDeviceInPlace) {
  EXPECT_EQ(error_of("/dev/null"), "");
  EXPECT_EQ(error_of("/dev/stdout").find("symbolic link"), std::string::npos);
}

TEST_F(OutputFile, AFullDeviceIsAnErrorNamingTheTarget) {
  const std::string e = error_of("/dev/full");
  EXPECT_THAT(e, HasSubstr("/dev/full"));
  EXPECT_THAT(e, HasSubstr("No space left on device"));
}

TEST_F(OutputFile, AWriteOverTheFileSizeLimitIsAnErrorAndTheOldFileStays) {
  const auto target = write("big.json", "old");
  struct rlimit old {};
  ::getrlimit(RLIMIT_FSIZE, &old);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string e;
  try {
    output_file f(target);
    f.stream() << std::string(1 << 20, 'x');
    f.commit();
  } catch (const input_error& x) {
    e = x.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_THAT(e, HasSubstr("big.json"));
  EXPECT_THAT(e, HasSubstr("File too large"));
  EXPECT_EQ(read(target), "old");
}

TEST_F(OutputFile, AFullFilesystemIsAnErrorAndTheOldFileStays) {
  const auto mnt = dir_ / "small";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a small tmpfs here";
  std::ofstream(mnt / "out.csv") << "old";
  std::string e;
  try {
    output_file f(mnt / "out.csv");
    f.stream() << std::string(1 << 20, 'x');
    f.commit();
  } catch (const input_error& x) {
    e = x.what();
  }
  const std::string kept = read(mnt / "out.csv");
  const auto left = std::distance(fs::directory_iterator(mnt), {});
  ::umount(mnt.c_str());
  EXPECT_THAT(e, HasSubstr("No space left on device"));
  EXPECT_EQ(kept, "old");
  EXPECT_EQ(left, 1);
}

}  // namespace
}  // namespace headroom::util
