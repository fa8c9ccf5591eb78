#pragma once
// The sandbox's file system (docs/eval.md, "Sandbox"): a fresh root holding only the policy's
// read-only binds, its size-capped scratch folders, a private /dev with the null devices and the
// policy's device nodes, and a /proc of the sandbox's own pid namespace. Built by the sandbox's
// init process, inside its new mount and pid namespaces; the old root is detached afterwards.
#include <string>

#include "headroom/sandbox/policy.hpp"

namespace headroom::sandbox {

// Returns an empty string, or what failed. `staging`: an empty host folder the new root is built on.
std::string build_root(const policy& p, const std::string& staging);

}  // namespace headroom::sandbox
