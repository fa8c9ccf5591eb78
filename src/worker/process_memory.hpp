#pragma once
// This process's own account of memory: resident memory now and at its peak (the worker's trace,
// HEADROOM_WORKER_TRACE) and the page faults it has taken (the timing loop's warm-up).
#include <string>

namespace headroom::worker {

// From /proc/self/status: "rss 1.2 GiB (anon 1.1), peak 2.3 GiB".
std::string memory_now();
// Page faults this process has taken so far (minor and major).
long page_faults();

}  // namespace headroom::worker
