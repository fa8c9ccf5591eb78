// run_profile and `headroom profile`: exit statuses, signals, environment, and the store written
// from the streams of fake profiled processes (tests/cpu/profile/fake_process.cpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/profile/launcher.hpp"

namespace headroom::profile {
namespace {

class Launcher : public ::testing::Test {
 protected:
  std::filesystem::path dir;
  void SetUp() override {
    std::string p = (std::filesystem::temp_directory_path() / "headroom-launch-XXXXXX").string();
    dir = ::mkdtemp(p.data());
    // Any existing file will do: without a GPU nothing loads it.
    ::setenv("HEADROOM_INJECT_LIB", HEADROOM_FAKE_PROCESS, 1);
  }
  void TearDown() override {
    std::filesystem::remove_all(dir);
    ::unsetenv("HEADROOM_INJECT_LIB");
  }
  int profile(std::vector<std::string> command, bool keep = false, std::string kinds = {}, bool nvtx = true) {
    profile_options o;
    o.command = std::move(command);
    o.output = dir / "t.sqlite";
    o.keep_streams = keep;
    o.kinds = std::move(kinds);
    o.nvtx = nvtx;
    return run_profile(o);
  }
  std::size_t streams_folders() const {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      n += e.path().filename().string().find(".streams.") != std::string::npos;
    }
    return n;
  }
};

TEST_F(Launcher, ExitStatusIsTheCommands) {
  EXPECT_EQ(profile({"sh", "-c", "exit 3"}), 3);
  EXPECT_EQ(profile({"true"}), 0);
  EXPECT_EQ(streams_folders(), 0u);
}

TEST_F(Launcher, DeathBySignalGives128PlusTheSignal) {
  EXPECT_EQ(profile({"sh", "-c", "kill -TERM $$"}), 128 + SIGTERM);
  EXPECT_EQ(profile({"sh", "-c", "kill -KILL $$"}), 128 + SIGKILL);
}

TEST_F(Launcher, CommandThatCannotBeRunGives127AndNoStore) {
  EXPECT_EQ(profile({"headroom-no-such-command-here"}), 127);
  EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite"));
  EXPECT_EQ(streams_folders(), 0u);
  // A command that exits 127 by itself is not mistaken for one that could not start.
  EXPECT_EQ(profile({"sh", "-c", "exit 127"}), 127);
}

TEST_F(Launcher, CommandSeesTheProfilerEnvironment) {
  const std::string check =
      std::string("test \"$CUDA_INJECTION64_PATH\" = '") + HEADROOM_FAKE_PROCESS +
      "' && test -d \"$HEADROOM_PROFILE_DIR\" && test \"$HEADROOM_PROFILE_KINDS\" = kernel,runtime";
  EXPECT_EQ(profile({"sh", "-c", check}, false, "kernel,runtime"), 0);
  EXPECT_EQ(profile({"sh", "-c", "test -z \"$NVTX_INJECTION64_PATH\""}, false, {}, false), 0);
}

TEST_F(Launcher, CaptureRangeEndReachesTheCommandAndNeedsACaptureRange) {
  profile_options o;
  o.command = {"sh", "-c",
               "test \"$HEADROOM_PROFILE_CAPTURE_END\" = stop && test \"$HEADROOM_PROFILE_CAPTURE\" = cudaProfilerApi"};
  o.output = dir / "t.sqlite";
  o.capture = "cudaProfilerApi";
  o.capture_end = "stop";
  EXPECT_EQ(run_profile(o), 0);
  o.capture_end = "shutdown";
  EXPECT_THROW(run_profile(o), input_error);
  o.capture_end = "stop";
  o.capture.clear();  // the whole process: no cudaProfilerStop to end the recording
  try {
    run_profile(o);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs --capture-range cudaProfilerApi"), std::string::npos) << e.what();
  }
}

TEST_F(Launcher, UnknownKindIsRefused) { EXPECT_THROW(profile({"true"}, false, "kernel,bogus"), input_error); }

TEST_F(Launcher, WithoutTheInjectionLibraryProfileRefusesToRun) {
  ::unsetenv("HEADROOM_INJECT_LIB");  // and no ../lib/libheadroom_inject.so beside the test binary
  try {
    profile({"true"});
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("injection library"), std::string::npos) << e.what();
  }
}

TEST_F(Launcher, StreamsOfTwoProcessesBecomeOneStore) {
  const std::string fake = HEADROOM_FAKE_PROCESS;
  EXPECT_EQ(profile({"sh", "-c", "'" + fake + "' 1 2 & '" + fake + "' 0 3; wait"}), 0);
  const auto t = trace::read_store(dir / "t.sqlite");
  ASSERT_EQ(t.processes.size(), 2u);
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.processes[1].rank, 1);
  EXPECT_NE(t.processes[0].pid, t.processes[1].pid);
  EXPECT_EQ(t.activities.size(), 5u);
  EXPECT_EQ(t.api_calls.size(), 5u);
  ASSERT_EQ(t.synchronizations.size(), 2u);  // one cudaStreamSynchronize each, kept with its process
  for (const auto& y : t.synchronizations) {
    EXPECT_EQ(y.kind, trace::sync_kind::stream_synchronize);
    EXPECT_EQ(y.device, t.processes[y.process].rank);
  }
  EXPECT_EQ(t.dropped_records, 2u);
  EXPECT_EQ(streams_folders(), 0u);
}

TEST_F(Launcher, TornStreamStillContributesAndKeepStreamsKeepsIt) {
  const std::string fake = HEADROOM_FAKE_PROCESS;
  EXPECT_EQ(profile({fake, "0", "10", "torn"}, true), 0);
  const auto t = trace::read_store(dir / "t.sqlite");
  EXPECT_EQ(t.activities.size(), 5u);
  EXPECT_FALSE(t.warnings.empty());
  EXPECT_EQ(streams_folders(), 1u);
}

// The executable: a signal sent to headroom reaches the command, whose death is the exit status.
TEST(ProfileCommand, SignalToHeadroomIsForwardedToTheCommand) {
  const auto dir = std::filesystem::temp_directory_path() / ("headroom-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto out = (dir / "t.sqlite").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("HEADROOM_INJECT_LIB", HEADROOM_FAKE_PROCESS, 1);
    ::execl(HEADROOM_CLI, HEADROOM_CLI, "profile", "-o", out.c_str(), "--", "sleep", "30", nullptr);
    ::_exit(99);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  std::filesystem::remove_all(dir);
}

TEST(ProfileCommand, NoCommandIsAUsageError) {
  const std::string cmd = std::string(HEADROOM_CLI) + " profile -o /dev/null 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace headroom::profile
