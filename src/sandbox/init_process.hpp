#pragma once
// Process 1 of a sandbox's pid namespace (docs/eval.md, "Sandbox"). It builds the sandbox's file
// system, starts the program confined, reaps every process of the namespace, freezes and thaws them
// all on the parent's word (SIGSTOP and SIGCONT to every process of the namespace at once: a process
// stopped cannot fork or wake another), and when the program ends it kills whatever is left, tells
// the supervisor how the program ended and waits for its leave to exit. Its exit ends the namespace.
#include <string>
#include <vector>

#include "confine.hpp"
#include "headroom/sandbox/policy.hpp"

namespace headroom::sandbox {

// File descriptors the init process is given.
struct init_channels {
  int status = -1;  // to the supervisor: init_report messages
  int leave = -1;  // from the supervisor: closed when init may exit
  int output = -1;  // the write end of the program's stdout and stderr
  int control = -1;  // from the parent: 'F' freeze, 'T' thaw (-1: none)
  int acknowledge = -1;  // to the parent: 'f', 't'
};

struct init_report {
  enum kind_t : int { program_ended = 1, setup_failed = 2 } kind;
  int wait_status;  // the program's, as waitpid gives it
};

// The file descriptors below `first_private_fd` are the program's (0-2, the channel to the parent
// on 3-6 and its announcements on 7); everything from it up is closed before the program runs.
constexpr int first_private_fd = 8;

[[noreturn]] void run_init(const policy& p, const identity& who, const std::string& staging,
                           const std::vector<std::string>& program, init_channels fds);

}  // namespace headroom::sandbox
