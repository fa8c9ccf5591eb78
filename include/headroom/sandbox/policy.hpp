#pragma once
// What a sandboxed process may see and do (docs/eval.md, "Sandbox"). The parent fills one in for
// each worker it starts; `headroom-sandbox` reads it from its command line (to_arguments /
// parse_arguments) and builds the process's world from it: nothing of the host is visible that is
// not named here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::sandbox {

// A host path shown inside at `inside` (the same path when empty), read-only unless `writable`.
struct bind_mount {
  std::string host;
  std::string inside;
  bool writable = false;
};

// A private, size-capped, writable file system (a tmpfs) at `inside`.
struct scratch_mount {
  std::string inside;
  std::uint64_t bytes = 0;
};

struct resource_limits {
  std::uint64_t processes = 1024;  // RLIMIT_NPROC: processes and threads of the sandbox's user
  std::uint64_t file_bytes = 2ull << 30;  // RLIMIT_FSIZE: the largest file it may write
  std::uint64_t open_files = 4096;  // RLIMIT_NOFILE
  std::uint64_t output_bytes = 8ull << 20;  // stdout and stderr together kept in the log; the excess is
      // dropped and counted (its last 64 KiB kept)
};

struct policy {
  std::vector<bind_mount> binds;
  std::vector<std::string> devices;  // device nodes bound into the private /dev (e.g. /dev/nvidia0)
  std::vector<scratch_mount> scratch;  // /tmp, /dev/shm, a build folder...
  std::vector<std::string> environment;  // KEY=VALUE: the whole environment of the program
  std::string workdir = "/";
  // A scratch folder copied out to a host folder once the program has ended (a candidate's build,
  // made in a size-capped tmpfs): regular files and folders only, into a fresh folder renamed into
  // place, so a partial copy is never seen.
  std::string copy_out_inside, copy_out_host;
  resource_limits limits;
};

// headroom-sandbox's options for `p` (everything before the program's own "--").
std::vector<std::string> to_arguments(const policy& p);
// The inverse; throws std::invalid_argument naming the option that is wrong. `consumed` receives the
// index of the first argument after "--" (the program).
policy parse_arguments(const std::vector<std::string>& args, std::size_t& consumed);

// The uid a sandbox runs its program as when started by root: one per sandbox (from the pid of its
// supervisor, unique among live processes), so that sandboxes cannot signal each other and the
// process limit is counted per sandbox. Not listed in /etc/passwd.
constexpr std::uint32_t sandbox_uid_base = 1'000'000;

}  // namespace headroom::sandbox
