#pragma once
// Starting a child process: the one fork and exec of headroom. `headroom profile`'s launcher, a
// study's runs and the evaluation's workers (sandboxed or not) all start their children here, and
// differ only in what they ask for: which descriptors the child gets at which numbers, its
// environment, whether it leads a process group or a session of its own, and which signal
// dispositions it starts with.
//
// Everything the child needs is prepared before fork, so that between fork and exec the child makes
// only async-signal-safe calls (the parent may have threads). An exec that fails comes back as its
// errno through a close-on-exec pipe, so a program that cannot be run is told apart from one that
// exits 127 itself.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace headroom::util {

enum class process_grouping {
  inherit,  // the parent's process group
  own_group,  // a process group of its own (setpgid in the child and in the parent)
  own_session,  // a session, and so a process group, of its own (setsid)
};

struct spawn_spec {
  // argv[0] is a path when it holds a '/', else a name looked up on PATH as execvp does (a file
  // found but not executable is EACCES, none found ENOENT).
  std::vector<std::string> argv;
  // The child's whole environment, "NAME=VALUE" entries (environment_with builds one from this
  // process's).
  std::vector<std::string> environment;
  // (descriptor open here, its number in the child). Descriptors 0, 1 and 2 not named here are
  // inherited as they are; every other descriptor of the parent that is close-on-exec stays closed.
  std::vector<std::pair<int, int>> descriptors;
  process_grouping grouping = process_grouping::inherit;
  bool die_with_parent = false;  // SIGKILL when the parent thread that started it exits
  std::vector<int> default_signals;  // dispositions reset to SIG_DFL in the child
  const sigset_t* signal_mask = nullptr;  // the child's signal mask (nullptr: the parent's)
};

struct spawned {
  pid_t pid = -1;  // the running child; -1 when exec failed (the child is already reaped)
  int exec_error = 0;  // errno of a failed exec, 0 when the program runs
};

// Forks and execs. Throws std::system_error when the pipe or fork fails; a program that cannot be
// executed is spawned.exec_error, not an exception. Returns once the child has executed or failed to.
spawned spawn(const spawn_spec& spec);

// This process's environment with `additions` set (an added name replaces the inherited value).
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& additions);

}  // namespace headroom::util
