#pragma once
// headroom-sandbox's outer process (docs/eval.md, "Sandbox"): it stays in the host's namespaces,
// starts the sandbox's init process in new pid, mount, network, ipc and uts namespaces (and a user
// namespace when not started by root), relays the program's output to its own stderr (the log) with
// a cap, copies a build folder out when asked, and exits as the program did: with its exit status,
// or killed by its signal. The parent sees the supervisor as it would have seen the program.
#include <string>
#include <vector>

#include "headroom/sandbox/policy.hpp"

namespace headroom::sandbox {

// File descriptors the supervisor is started with: 0-2 (stdin, the log as stdout and stderr), 3-6
// the program's channel to the parent and 7 its announcements (announcements.hpp), passed on as
// they are, 8 and 9 the parent's freeze control (optional: absent, the sandbox cannot be frozen).
int supervise(const policy& p, const std::vector<std::string>& program);

}  // namespace headroom::sandbox
