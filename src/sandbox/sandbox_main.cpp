// headroom-sandbox: runs one program isolated as docs/eval.md ("Sandbox") describes. `headroom eval`
// starts every candidate process through it; it can also be run by hand:
//   headroom-sandbox [OPTIONS] -- PROGRAM ARGS...
//   headroom-sandbox --check     whether this machine can isolate a program, and what is missing
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "headroom/sandbox/policy.hpp"
#include "self_test.hpp"
#include "supervisor.hpp"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: headroom-sandbox [OPTIONS] -- PROGRAM [ARGS...]\n"
               "       headroom-sandbox --check\n"
               "Runs PROGRAM in new pid, mount, network, ipc and uts namespaces as an unprivileged user with no\n"
               "capabilities, a system-call filter and resource limits, seeing only what the options name.\n"
               "  --ro HOST INSIDE         bind HOST read-only at INSIDE\n"
               "  --rw HOST INSIDE         bind HOST writable at INSIDE\n"
               "  --dev NODE               bind a device node (e.g. /dev/nvidia0)\n"
               "  --tmpfs INSIDE BYTES     a private writable file system of at most BYTES\n"
               "  --setenv KEY=VALUE       the program's environment (nothing else is passed)\n"
               "  --chdir DIR              the program's working folder (default /)\n"
               "  --copy-out INSIDE HOST   copy the folder INSIDE to HOST when the program exits 0\n"
               "  --max-processes N, --max-file-bytes N, --max-open-files N, --max-output-bytes N\n"
               "File descriptors 3-7 are passed to the program; 8 and 9, when open, let the caller freeze\n"
               "('F') and thaw ('T') every process of the sandbox, acknowledged with 'f' and 't'.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    usage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--check") return headroom::sandbox::check_isolation();
  if (args[0] == "--self-test") return headroom::sandbox::self_test();
  try {
    std::size_t first = 0;
    headroom::sandbox::policy p = headroom::sandbox::parse_arguments(args, first);
    std::vector<std::string> program(args.begin() + static_cast<long>(first), args.end());
    if (program.empty()) throw std::invalid_argument("no program after \"--\"");
    if (program.front().empty() || program.front().front() != '/')
      throw std::invalid_argument("the program must be an absolute path inside the sandbox: " + program.front());
    return headroom::sandbox::supervise(p, program);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "headroom-sandbox: %s\n", e.what());
    usage();
    return 2;
  }
}
