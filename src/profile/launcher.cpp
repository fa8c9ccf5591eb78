#include "headroom/profile/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <system_error>

#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/process.hpp"
#include "headroom/util/spawn.hpp"

namespace headroom::profile {
namespace {

constexpr int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t child_group = 0;

extern "C" void forward_signal(int sig) {
  // The child runs in its own process group, so everything it started (torchrun's ranks, dataloader
  // workers) gets the signal, as it would have from the terminal.
  if (child_group > 0) ::kill(-child_group, sig);
}

std::filesystem::path default_output() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "headroom-%Y%m%d-%H%M%S.sqlite", &local);
  return buf;
}

std::filesystem::path make_streams_folder(const std::filesystem::path& output) {
  auto parent = std::filesystem::absolute(output).parent_path();
  std::string pattern = (parent / (output.filename().string() + ".streams.XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw input_error(
        fmt::format("cannot create a streams folder beside {}: {}", output.string(), std::strerror(errno)));
  }
  return pattern;
}

struct signal_guard {  // installs the forwarding handlers; restores the old ones on the way out
  struct sigaction old[3];
  signal_guard() {
    struct sigaction sa {};
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int i = 0; i < 3; ++i) ::sigaction(forwarded_signals[i], &sa, &old[i]);
  }
  ~signal_guard() {
    for (int i = 0; i < 3; ++i) ::sigaction(forwarded_signals[i], &old[i], nullptr);
    child_group = 0;
  }
};

struct child_result {
  bool started = false;
  int status = 127;
};

// The command in a process group of its own with the extra environment (util::spawn); its status
// once it ends, as a shell gives it.
child_result run_child(const std::vector<std::string>& command,
                       const std::vector<std::pair<std::string, std::string>>& env) {
  sigset_t block, previous;
  sigemptyset(&block);
  for (int s : forwarded_signals) sigaddset(&block, s);
  signal_guard guard;
  util::spawn_spec spec;
  spec.argv = command;
  spec.environment = util::environment_with(env);
  spec.grouping = util::process_grouping::own_group;
  spec.default_signals.assign(std::begin(forwarded_signals), std::end(forwarded_signals));
  spec.signal_mask = &previous;
  // Blocked across the start so a signal cannot arrive before the child's group is known.
  ::sigprocmask(SIG_BLOCK, &block, &previous);
  util::spawned child;
  try {
    child = util::spawn(spec);
  } catch (const std::system_error& e) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    throw input_error(e.what());
  }
  child_result r;
  if (child.exec_error != 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    fmt::print(stderr, "headroom: cannot run '{}': {}\n", command[0], std::strerror(child.exec_error));
    return r;
  }
  const pid_t pid = child.pid;
  child_group = pid;
  // A terminal's Ctrl-C goes to its foreground group: make that the child's, as a shell would.
  const bool own_terminal = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
  if (own_terminal) ::tcsetpgrp(STDIN_FILENO, pid);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (own_terminal) {
    // Taking the terminal back from the background raises SIGTTOU unless it is ignored.
    auto old = ::signal(SIGTTOU, SIG_IGN);
    ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
    ::signal(SIGTTOU, old);
  }
  r.started = true;
  r.status = util::shell_status(status);
  return r;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

int run_profile(const profile_options& options) {
  if (options.command.empty()) throw input_error("profile: no command given (headroom profile -- CMD ARGS...)");
  if (!options.kinds.empty()) check_kinds(options.kinds);
  if (!options.api.empty() && options.api != "all" && options.api != "launches")
    throw input_error(fmt::format("profile: --api '{}' is not 'all' or 'launches'", options.api));
  if (!options.capture.empty() && options.capture != "whole" && options.capture != "cudaProfilerApi")
    throw input_error(
        fmt::format("profile: --capture-range '{}' is not 'whole' or 'cudaProfilerApi'", options.capture));
  if (!options.capture_end.empty() && options.capture_end != "repeat" && options.capture_end != "stop")
    throw input_error(fmt::format("profile: --capture-range-end '{}' is not 'repeat' or 'stop'", options.capture_end));
  if (options.capture_end == "stop" && options.capture != "cudaProfilerApi")
    throw input_error(
        "profile: --capture-range-end stop needs --capture-range cudaProfilerApi (a whole-process "
        "recording has no cudaProfilerStop to end it)");
  const auto inject = find_inject_library();
  const auto output = options.output.empty() ? default_output() : options.output;
  const auto streams = make_streams_folder(output);

  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", inject.string()},
      {"HEADROOM_PROFILE_DIR", streams.string()},
  };
  if (!options.kinds.empty()) env.emplace_back("HEADROOM_PROFILE_KINDS", options.kinds);
  if (!options.capture.empty()) env.emplace_back("HEADROOM_PROFILE_CAPTURE", options.capture);
  if (!options.capture_end.empty()) env.emplace_back("HEADROOM_PROFILE_CAPTURE_END", options.capture_end);
  if (!options.api.empty()) env.emplace_back("HEADROOM_PROFILE_API", options.api);
  // NVTX goes through the injection library to the libcupti it is bound to in the program
  // (injection.cpp, InitializeInjectionNvtx2), never to a libcupti file named here.
  if (options.nvtx) env.emplace_back("NVTX_INJECTION64_PATH", inject.string());

  const auto child = run_child(options.command, env);
  std::error_code ec;
  const auto cleanup = [&] {
    if (options.keep_streams) {
      fmt::print(stderr, "headroom: event streams kept in {}\n", streams.string());
    } else {
      std::filesystem::remove_all(streams, ec);
    }
  };
  if (!child.started) {
    cleanup();
    return child.status;
  }

  // The command's status is the launcher's; a failure to write the trace must still not look like success.
  const int failed = child.status != 0 ? child.status : 2;
  try {
    auto merged = merge_streams(streams);
    for (const auto& w : merged.trace.warnings) {
      fmt::print(stderr, "headroom: warning: {}{}\n", w.what, w.count > 1 ? fmt::format(" ({} times)", w.count) : "");
    }
    if (merged.streams == 0) {
      fmt::print(stderr,
                 "headroom: no process wrote an event stream, so no trace was written: the command made no CUDA "
                 "calls, or the injection library {} was not loaded\n",
                 inject.string());
      cleanup();
      return child.status;
    }
    trace::write_store(merged.trace, output);
    std::uint64_t kernels = 0;
    for (const auto& a : merged.trace.activities) kernels += a.kind == trace::activity_kind::kernel;
    fmt::print(stderr, "headroom: {}, {} recorded, {} dropped, {}; wrote {}\n",
               plural(merged.streams, "process", "processes"), plural(kernels, "kernel", "kernels"),
               merged.counters.dropped_records,
               plural(merged.counters.overhead_records, "overhead record", "overhead records"), output.string());
  } catch (const input_error& e) {
    fmt::print(stderr, "headroom: {}\n", e.what());
    cleanup();
    return failed;
  }
  cleanup();
  return child.status;
}

}  // namespace headroom::profile
