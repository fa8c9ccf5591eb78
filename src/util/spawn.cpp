#include "headroom/util/spawn.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <system_error>

extern char** environ;

namespace headroom::util {
namespace {

// The files exec should try for argv[0], in order: argv[0] itself when it names a path, else each
// PATH folder's entry (PATH unset: the C library's default, as execvp).
std::vector<std::string> exec_candidates(const std::string& program) {
  if (program.find('/') != std::string::npos) return {program};
  const char* path = std::getenv("PATH");
  const std::string folders = path != nullptr ? path : "/bin:/usr/bin";
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= folders.size()) {
    const auto end = std::min(folders.find(':', start), folders.size());
    const std::string folder = folders.substr(start, end - start);
    out.push_back((folder.empty() ? std::string(".") : folder) + "/" + program);
    start = end + 1;
  }
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The child's side, from fork to exec: async-signal-safe calls only. Never returns.
[[noreturn]] void become(const spawn_spec& spec, std::vector<std::string>& candidates, char* const* argv,
                         char* const* envp, int report, int lowest_free, pid_t parent) {
  if (spec.grouping == process_grouping::own_group) ::setpgid(0, 0);
  if (spec.grouping == process_grouping::own_session) ::setsid();
  if (spec.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A parent that died between fork and prctl sent nothing: the child would outlive it.
    if (::getppid() != parent) ::_exit(127);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int s : spec.default_signals) ::sigaction(s, &dfl, nullptr);
  if (spec.signal_mask != nullptr) ::sigprocmask(SIG_SETMASK, spec.signal_mask, nullptr);
  // Every descriptor to pass moves above the numbers it is to take first (any may already sit on
  // one of them), close-on-exec; dup2 onto its number then clears that flag for the copy the child
  // keeps. The report pipe moves too, so no target number overwrites it.
  report = ::fcntl(report, F_DUPFD_CLOEXEC, lowest_free);
  int copies[64];
  const std::size_t n = std::min<std::size_t>(spec.descriptors.size(), 64);
  for (std::size_t i = 0; i < n; ++i) copies[i] = ::fcntl(spec.descriptors[i].first, F_DUPFD_CLOEXEC, lowest_free);
  for (std::size_t i = 0; i < n; ++i) ::dup2(copies[i], spec.descriptors[i].second);
  int error = ENOENT;
  for (auto& file : candidates) {
    ::execve(file.c_str(), argv, envp);
    // As execvp: a file that exists but cannot be run is reported over one that is not there.
    if (errno != ENOENT && errno != ENOTDIR) error = errno;
    if (errno != ENOENT && errno != ENOTDIR && errno != EACCES) break;
  }
  [[maybe_unused]] auto written = ::write(report, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

spawned spawn(const spawn_spec& spec) {
  if (spec.argv.empty()) throw std::system_error(EINVAL, std::generic_category(), "spawn: no program");
  if (spec.descriptors.size() > 64)
    throw std::system_error(E2BIG, std::generic_category(), "spawn: too many descriptors");
  // Prepared before fork: nothing after it allocates.
  std::vector<std::string> args = spec.argv, env = spec.environment;
  std::vector<std::string> candidates = exec_candidates(spec.argv.front());
  const std::vector<char*> argv = pointers(args), envp = pointers(env);
  int lowest_free = 10;
  for (const auto& [from, to] : spec.descriptors) lowest_free = std::max(lowest_free, to + 1);

  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(report[0]);
    ::close(report[1]);
    throw std::system_error(e, std::generic_category(), "fork");
  }
  if (pid == 0) become(spec, candidates, argv.data(), envp.data(), report[1], lowest_free, parent);
  // As well as in the child, whichever runs first. A session leader sets its own: a process group
  // leader could not start a session.
  if (spec.grouping == process_grouping::own_group) ::setpgid(pid, pid);
  ::close(report[1]);
  int exec_error = 0;
  ssize_t got;
  do got = ::read(report[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got != static_cast<ssize_t>(sizeof exec_error)) return {pid, 0};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return {-1, exec_error};
}

std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& additions) {
  std::set<std::string> replaced;
  for (const auto& [name, value] : additions) replaced.insert(name);
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos && replaced.count(entry.substr(0, eq)) != 0) continue;
    out.push_back(entry);
  }
  // A name added twice takes its last value, as setenv called in order would.
  for (std::size_t i = 0; i < additions.size(); ++i) {
    const bool later = std::any_of(additions.begin() + static_cast<std::ptrdiff_t>(i) + 1, additions.end(),
                                   [&](const auto& a) { return a.first == additions[i].first; });
    if (!later) out.push_back(additions[i].first + "=" + additions[i].second);
  }
  return out;
}

}  // namespace headroom::util
