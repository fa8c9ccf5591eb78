#pragma once
// The CPU's speed-of-light floor (docs/eval.md, "The speed-of-light floor"): how fast this host reads
// and writes a problem's bytes in the conditions a timed call meets (timing_loop.cpp). Before each
// timed call the host device writes 64 MiB and evicts the call's fresh inputs from every cache;
// after it, the outputs. So the bytes a call must read come from memory, and its outputs go to
// lines that were evicted: a problem of a few MiB is not read from a cache it would sit in between
// calls, and a DRAM figure measured on gigabytes is not what a small output's writes cost. The
// measurement does the same steps on buffers of the problem's sizes, allocated the way a call's
// inputs are, and keeps the least time.
#include <cstddef>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

struct transfer_times {
  double read_ms = 0;  // the least time to read `read_bytes`
  double write_ms = 0;  // the least time to write `write_bytes`
  int repetitions = 0;
  unsigned threads = 0;  // the most threads a pass used
};

// Reads `read_bytes` and writes `write_bytes`, each pass on one thread (up to 256 MiB in all) and on
// the worker's copy threads, the caches flushed (dev.flush_caches) and the buffer evicted (dev.evict) before each as
// a timed call's inputs and outputs are; read_evicted false reads a buffer read just before instead
// (bytes that may stay in a cache between calls, a module's parameters: the most favourable case).
// At least `min_repetitions`, then until `seconds` have passed (at most max_repetitions).
transfer_times measure_transfers(device& dev, std::size_t read_bytes, bool read_evicted, std::size_t write_bytes,
                                 int min_repetitions = 5, double seconds = 0.25, int max_repetitions = 50);

}  // namespace headroom::worker
