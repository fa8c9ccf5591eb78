#include "child_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

#include "headroom/util/error.hpp"
#include "headroom/util/process.hpp"
#include "headroom/util/spawn.hpp"

namespace headroom::study {
namespace {

constexpr int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t received_signal = 0;
struct sigaction previous_actions[3];
int guards = 0;

extern "C" void note_signal(int sig) { received_signal = sig; }

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Waits for pid until `deadline`; true when it was reaped (status in *status).
bool wait_until(pid_t pid, int* status, clock_type::time_point deadline) {
  while (true) {
    const pid_t r = ::waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // not our child any more: nothing to wait for
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Children of this process other than the ones it started itself: a run's descendants whose parent
// died, reparented here by PR_SET_CHILD_SUBREAPER.
std::vector<pid_t> adopted_children() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos || close + 4 >= text.size()) continue;
    // After ") " come the state and the parent's pid.
    const long parent = std::strtol(text.c_str() + close + 4, nullptr, 10);
    if (parent == self) out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return out;
}

// Ends what a run left behind: SIGTERM, then SIGKILL to what is still there after `grace_s`.
void end_adopted(int grace_s) {
  auto left = adopted_children();
  if (left.empty()) return;
  for (pid_t p : left) ::kill(p, SIGTERM);
  const auto deadline = clock_type::now() + std::chrono::seconds(grace_s);
  for (pid_t p : left) {
    int status = 0;
    if (!wait_until(p, &status, deadline)) {
      ::kill(p, SIGKILL);
      while (::waitpid(p, &status, 0) < 0 && errno == EINTR) {}
    }
  }
}

}  // namespace

interrupt_guard::interrupt_guard() {
  if (guards++ > 0) return;
  received_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = note_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) ::sigaction(handled_signals[i], &sa, &previous_actions[i]);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

interrupt_guard::~interrupt_guard() {
  if (--guards > 0) return;
  for (int i = 0; i < 3; ++i) ::sigaction(handled_signals[i], &previous_actions[i], nullptr);
}

int interrupt_guard::signal() { return received_signal; }

child_outcome run_logged(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, const std::filesystem::path& log,
                         int timeout_s, int grace_s) {
  child_outcome out;
  {
    std::ofstream header(log, std::ios::trunc);
    if (!header) throw input_error(fmt::format("cannot write {}", log.string()));
    header << "$ " << shell_line(argv) << "\n";
  }
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (in < 0 || fd < 0) {
    const int e = errno;
    if (in >= 0) ::close(in);
    if (fd >= 0) ::close(fd);
    throw input_error(fmt::format("cannot open {}: {}", in < 0 ? "/dev/null" : log.string(), std::strerror(e)));
  }
  util::spawn_spec spec;
  spec.argv = argv;
  spec.environment = util::environment_with(env);
  spec.descriptors = {{in, STDIN_FILENO}, {fd, STDOUT_FILENO}, {fd, STDERR_FILENO}};
  spec.grouping = util::process_grouping::own_group;
  spec.default_signals.assign(std::begin(handled_signals), std::end(handled_signals));
  const auto t0 = clock_type::now();
  util::spawned child;
  try {
    child = util::spawn(spec);
  } catch (const std::system_error& e) {
    ::close(in);
    ::close(fd);
    throw input_error(e.what());
  }
  ::close(in);
  ::close(fd);
  if (child.exec_error != 0) {
    out.seconds = seconds_since(t0);
    out.error = fmt::format("cannot run '{}': {}", argv[0], std::strerror(child.exec_error));
    out.status = 127;
    return out;
  }
  const pid_t pid = child.pid;

  int status = 0;
  const auto deadline = t0 + std::chrono::seconds(timeout_s);
  bool reaped = false;
  while (!reaped) {
    reaped = wait_until(pid, &status, std::min(deadline, clock_type::now() + std::chrono::milliseconds(200)));
    if (reaped) break;
    out.interrupted = received_signal != 0;
    out.timed_out = !out.interrupted && clock_type::now() >= deadline;
    if (out.interrupted || out.timed_out) {
      // headroom profile passes SIGTERM on to the program's own group and still writes what it
      // recorded; the grace period leaves it the time to.
      ::kill(-pid, SIGTERM);
      if (!wait_until(pid, &status, clock_type::now() + std::chrono::seconds(grace_s))) {
        ::kill(-pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      }
      reaped = true;
    }
  }
  ::kill(-pid, SIGKILL);  // anything of the group still there (the leader is gone: no effect otherwise)
  end_adopted(grace_s);
  out.seconds = seconds_since(t0);
  out.started = true;
  out.status = util::shell_status(status);
  return out;
}

std::string last_line(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(in.tellg());
  const std::streamoff take = std::min<std::streamoff>(size, 4096);
  in.seekg(size - take);
  std::string text(static_cast<std::size_t>(take), '\0');
  in.read(text.data(), take);
  const auto end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  const auto newline = text.rfind('\n', end);
  const auto start = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(start, end - start + 1);
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+%@") ==
                          std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace headroom::study
