#include "headroom/util/spawn.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "headroom/util/process.hpp"

namespace fs = std::filesystem;
using headroom::util::environment_with;
using headroom::util::process_grouping;
using headroom::util::spawn;
using headroom::util::spawn_spec;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("headroom_spawn_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return headroom::util::shell_status(status);
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `script` under /bin/sh with its output in a file; returns (status, output).
std::pair<int, std::string> run_shell(const std::string& script, spawn_spec spec = {}) {
  const fs::path out = scratch("out-" + std::to_string(std::rand()));
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  spec.argv = {"sh", "-c", script};
  if (spec.environment.empty()) spec.environment = environment_with({});
  spec.descriptors.insert(spec.descriptors.begin(), {fd, 1});
  const auto child = spawn(spec);
  ::close(fd);
  EXPECT_EQ(child.exec_error, 0);
  const int status = child.pid > 0 ? wait_status(child.pid) : -1;
  return {status, text_of(out)};
}

}  // namespace

TEST(Spawn, RunsAProgramFoundOnPathWithItsStatusAndOutput) {
  const auto [status, output] = run_shell("echo hello; exit 3");
  EXPECT_EQ(status, 3);
  EXPECT_EQ(output, "hello\n");
}

TEST(Spawn, AProgramThatCannotBeRunIsAnExecErrorNotAStatus) {
  spawn_spec spec;
  spec.argv = {"headroom-no-such-program-anywhere"};
  spec.environment = environment_with({});
  const auto missing = spawn(spec);
  EXPECT_EQ(missing.pid, -1);
  EXPECT_EQ(missing.exec_error, ENOENT);

  const fs::path not_executable = scratch("plain-file");
  std::ofstream(not_executable) << "#!/bin/sh\nexit 0\n";
  fs::permissions(not_executable, fs::perms::owner_read | fs::perms::owner_write);
  spec.argv = {not_executable.string()};
  const auto denied = spawn(spec);
  EXPECT_EQ(denied.pid, -1);
  EXPECT_EQ(denied.exec_error, EACCES);
}

TEST(Spawn, TheEnvironmentIsTheOneGivenAndAnAddedNameReplacesTheInheritedValue) {
  ::setenv("HEADROOM_SPAWN_TEST_INHERITED", "parent", 1);
  spawn_spec spec;
  spec.environment = environment_with(
      {{"HEADROOM_SPAWN_TEST_INHERITED", "child"}, {"HEADROOM_SPAWN_TEST_NEW", "a"}, {"HEADROOM_SPAWN_TEST_NEW", "b"}});
  auto [status, output] = run_shell("echo $HEADROOM_SPAWN_TEST_INHERITED $HEADROOM_SPAWN_TEST_NEW", spec);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(output, "child b\n");

  spec.environment = {"PATH=/usr/bin:/bin", "ONLY=this"};
  std::tie(status, output) = run_shell("echo ${HEADROOM_SPAWN_TEST_INHERITED:-unset} $ONLY", spec);
  EXPECT_EQ(output, "unset this\n");
}

TEST(Spawn, DescriptorsArriveAtTheirNumbersEvenWhenTheNumbersAreTaken) {
  // A pipe whose write end the child gets at 5; whatever sits on 5 here is no obstacle.
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  const int squatter = ::fcntl(p[0], F_DUPFD_CLOEXEC, 0);  // some descriptor, possibly on 5 itself
  spawn_spec spec;
  spec.descriptors = {{p[1], 5}};
  // The copies made on the way sit at 10 and up, close-on-exec: none may reach the program. A
  // number this process passes on itself (no close-on-exec) is left out of the check.
  std::string script = "echo through-five >&5; [ -e /proc/$$/fd/5 ] && echo has-five";
  for (int fd = 10; fd < 14; ++fd) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC) != 0)
      script += "; [ -e /proc/$$/fd/" + std::to_string(fd) + " ] && echo leaked";
  }
  const auto [status, output] = run_shell(script + "; true", spec);
  ::close(p[1]);
  char buffer[64] = {};
  const auto n = ::read(p[0], buffer, sizeof buffer - 1);
  ::close(p[0]);
  ::close(squatter);
  EXPECT_EQ(status, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(n)), "through-five\n");
  EXPECT_EQ(output, "has-five\n");
}

TEST(Spawn, AChildLeadsItsOwnGroupOrSessionWhenAsked) {
  spawn_spec spec;
  spec.grouping = process_grouping::own_group;
  auto [status, output] = run_shell("awk '{print ($1 == $5) ? \"leader\" : \"member\"}' /proc/$$/stat", spec);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(output, "leader\n");

  spec.grouping = process_grouping::own_session;
  std::tie(status, output) = run_shell("awk '{print ($1 == $6) ? \"leader\" : \"member\"}' /proc/$$/stat", spec);
  EXPECT_EQ(output, "leader\n");

  spec.grouping = process_grouping::inherit;
  std::tie(status, output) = run_shell("awk '{print $5}' /proc/$$/stat", spec);
  EXPECT_EQ(output, std::to_string(::getpgrp()) + "\n");
}

TEST(Spawn, SignalDispositionsAndMaskAreTheOnesAsked) {
  // An ignored SIGTERM here is inherited unless reset.
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGTERM, &ignore, &old);
  spawn_spec spec;
  auto [status, output] = run_shell("kill -TERM $$; echo survived", spec);
  EXPECT_EQ(output, "survived\n");

  spec.default_signals = {SIGTERM};
  std::tie(status, output) = run_shell("kill -TERM $$; echo survived", spec);
  EXPECT_EQ(status, 128 + SIGTERM);
  EXPECT_EQ(output, "");
  ::sigaction(SIGTERM, &old, nullptr);

  // Blocked here, blocked in the child unless a mask is given.
  sigset_t term, previous, none;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigemptyset(&none);
  ::sigprocmask(SIG_BLOCK, &term, &previous);
  spawn_spec masked;
  std::tie(status, output) = run_shell("kill -TERM $$; echo survived", masked);
  EXPECT_EQ(output, "survived\n");
  masked.signal_mask = &none;
  std::tie(status, output) = run_shell("kill -TERM $$; echo survived", masked);
  EXPECT_EQ(status, 128 + SIGTERM);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
}
