#include "worker/process_memory.hpp"

#include <sys/resource.h>

#include <cstdio>

#include <fmt/format.h>

namespace headroom::worker {

std::string memory_now() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return "";
  char line[256];
  double rss = 0, anon = 0, peak = 0;
  while (std::fgets(line, sizeof line, f)) {
    double kib = 0;
    if (std::sscanf(line, "VmRSS: %lf", &kib) == 1) rss = kib;
    else if (std::sscanf(line, "RssAnon: %lf", &kib) == 1) anon = kib;
    else if (std::sscanf(line, "VmHWM: %lf", &kib) == 1) peak = kib;
  }
  std::fclose(f);
  constexpr double gib = 1024.0 * 1024.0;
  return fmt::format("rss {:.2f} GiB (anon {:.2f}), peak {:.2f} GiB", rss / gib, anon / gib, peak / gib);
}

long page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

}  // namespace headroom::worker
