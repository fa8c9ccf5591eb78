#pragma once
// The system calls a sandboxed program may not make (docs/eval.md, "Sandbox"), through libseccomp.
// Denied calls fail with EPERM (ENOSYS for clone3, so that the C library falls back to clone, whose
// flags the filter can see): a library that probes for a feature gets an error, not a kill.
#include <string>

namespace headroom::sandbox {

// Installs the filter on the calling thread (and everything it starts); no_new_privs must be set.
// Returns an empty string, or what failed.
std::string install_seccomp_filter();

}  // namespace headroom::sandbox
