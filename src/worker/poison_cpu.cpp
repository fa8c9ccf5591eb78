// Output poisoning on the CPU (docs/eval.md, "Correctness"). PyTorch's CPU allocator takes its
// memory from posix_memalign; the worker executable defines that symbol and exports it
// (poison_cpu.list), so every tensor allocated during a poisoned call starts out as the poison byte
// and an element the candidate never writes is visible as such, and every block handed out during a
// call is logged (the outputs must lie in one, or in memory the candidate keeps: output_memory.hpp);
// so is every block since the model began loading (memory the candidate keeps must come from here).
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "headroom/util/allocation_log.hpp"
#include "worker/poison_cpu.hpp"

namespace {
std::atomic<int> cpu_poison{-1};
headroom::util::allocation_log cpu_log;
headroom::util::allocation_log cpu_lifetime_log;  // every block since the model began loading
}  // namespace

namespace headroom::worker {
void set_cpu_poison(int byte) { cpu_poison.store(byte, std::memory_order_relaxed); }
util::allocation_log& cpu_allocations() { return cpu_log; }
util::allocation_log& cpu_lifetime_allocations() { return cpu_lifetime_log; }
}  // namespace headroom::worker

namespace {
// A block of at least this many bytes starts on a page boundary. Where an output lies against the
// input it is computed from sets a call's speed: elu on 16 x 262144 float32 (one thread, the 2-core
// machine) took 5.6-6.7 ms with the output at some distances from its input and 3.5-3.9 ms at
// others, the input kept in place. From the heap, an output's offset within its page is whatever the
// process's history left, so the same Model in two workers could differ for a whole evaluation
// (31_elu judged as itself: 0.77, 1.43 and 0.95 in three evaluations, the rounds of each within 9%).
// On a page boundary the offset is the same in every worker (the inputs start on one:
// host_device.cpp maps them); the distance in whole pages still varies, and with it some of the
// speed (the same three evaluations after this: 0.99, 0.92, 1.09).
constexpr std::size_t page_aligned_from = 64 << 10;
}  // namespace

extern "C" int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  using real_fn = int (*)(void**, std::size_t, std::size_t);
  static real_fn real = reinterpret_cast<real_fn>(dlsym(RTLD_NEXT, "posix_memalign"));
  if (size >= page_aligned_from && alignment < 4096) alignment = 4096;
  int r = real(out, alignment, size);
  int byte = cpu_poison.load(std::memory_order_relaxed);
  if (r == 0 && byte >= 0 && *out) std::memset(*out, byte, size);
  if (r == 0) {
    cpu_log.record(*out, size);
    cpu_lifetime_log.record(*out, size);
  }
  return r;
}
