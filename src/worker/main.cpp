// headroom-worker: the untrusted half of an evaluation (docs/eval.md, "Processes"). It embeds the
// Python interpreter of the environment given with --python, runs one problem or one candidate,
// and answers the parent's requests over a pipe pair (request_loop.hpp). Copies, poisoning, input checks
// and timing are here in C++; driver.py does what needs Python objects.
#include <fcntl.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>

#include "headroom/util/parallel.hpp"
#include "worker/python.hpp"
#include "worker/request_loop.hpp"

namespace {

// The channel moves to high, close-on-exec descriptors and stdout becomes stderr: whatever the
// candidate prints cannot land in the channel by accident.
int hide_fd(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
  if (high < 0) return fd;
  close(fd);
  return high;
}

}  // namespace

int main(int argc, char** argv) {
  std::string python = "python3";
  int in_fd = -1, out_fd = -1, announce_fd = -1;
  headroom::sandbox::shared_region in_region, out_region;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--python") python = argv[i + 1];
    else if (a == "--in") in_fd = std::atoi(argv[i + 1]);
    else if (a == "--out") out_fd = std::atoi(argv[i + 1]);
    else if (a == "--announce") announce_fd = std::atoi(argv[i + 1]);
    else if (a == "--payload-in") in_region.fd = std::atoi(argv[i + 1]);
    else if (a == "--payload-out") out_region.fd = std::atoi(argv[i + 1]);
  }
  if (in_fd < 0 || out_fd < 0 || announce_fd < 0) {
    std::fprintf(
        stderr,
        "headroom-worker is started by `headroom eval` and speaks its protocol over two pipes and\n"
        "announces timed calls on a datagram socket;\n"
        "usage: headroom-worker --python EXE --in FD --out FD --announce FD [--payload-in FD --payload-out FD]\n");
    return 2;
  }
  using namespace headroom::worker;
  // Inputs and outputs of gigabytes come and go every call: freed memory stays in the heap for the
  // next call of the request instead of being returned to the kernel and faulted in again
  // (send_reply gives it back between requests).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  // When the machine runs out of memory, the kernel ends a worker, never the harness: a worker's
  // death is a verdict (a crash, a reference_error) and the run goes on (docs/eval.md, "Memory").
  if (FILE* f = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("1000", f);
    std::fclose(f);
  }
  in_fd = hide_fd(in_fd);
  out_fd = hide_fd(out_fd);
  announce_fd = hide_fd(announce_fd);
  if (in_region.fd >= 0) in_region.fd = hide_fd(in_region.fd);
  if (out_region.fd >= 0) out_region.fd = hide_fd(out_region.fd);
  // Another process of this user cannot open this one's descriptors or memory through /proc (the
  // regions, the reference's outputs); execve made it dumpable again.
  prctl(PR_SET_DUMPABLE, 0);
  dup2(2, 1);
  // Copies and page mapping of gigabyte payloads on every core (one thread moved 6 GiB through the
  // shared region at 2-4 GB/s on the H200 host), on threads that live as long as the process: the
  // thread count around a candidate's call must see only the candidate's own (parallel.hpp).
  headroom::util::chunk_pool copy_pool(headroom::util::default_threads());
  headroom::util::chunk_pool::installed() = &copy_pool;
  try {
    start_python(python);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 5;
  }
  int rc = request_loop(in_fd, out_fd, announce_fd, in_region, out_region).serve();
  std::fflush(nullptr);
  // Skip interpreter finalisation: candidate threads or extensions must not hang or crash the exit.
  std::_Exit(rc);
}
