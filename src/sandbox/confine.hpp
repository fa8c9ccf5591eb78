#pragma once
// The last steps before the sandboxed program runs, in the process that becomes it: limits, an
// unprivileged user, no capabilities, no new privileges, the system-call filter, the environment
// (docs/eval.md, "Sandbox").
#include <string>
#include <sys/types.h>
#include <vector>

#include "headroom/sandbox/policy.hpp"

namespace headroom::sandbox {

// Who the program runs as. Started by root: a uid of its own (sandbox_uid_base + the supervisor's
// pid). Started by a user: that user, seen inside a nested user namespace as uid 1000 with no
// capabilities there or anywhere.
struct identity {
  bool host_root = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Does not return: execs `program` or writes what failed to stderr and exits with status 125.
[[noreturn]] void confine_and_exec(const policy& p, const identity& who, const std::vector<std::string>& program);

}  // namespace headroom::sandbox
