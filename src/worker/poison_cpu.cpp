// Output poisoning on the CPU (docs/eval.md, "Correctness"). PyTorch's CPU allocator takes its
// memory from posix_memalign; the worker executable defines that symbol and exports it
// (poison_cpu.list), so every tensor allocated during a poisoned call starts out as the poison byte
// and an element the candidate never writes is visible as such, and every block handed out during a
// call is logged (the outputs must lie in one).
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "headroom/util/allocation_log.hpp"
#include "worker/poison.hpp"

namespace {
std::atomic<int> cpu_poison{-1};
headroom::util::allocation_log cpu_log;
}  // namespace

namespace headroom::worker {
void set_cpu_poison(int byte) { cpu_poison.store(byte, std::memory_order_relaxed); }
util::allocation_log& cpu_allocations() { return cpu_log; }
}  // namespace headroom::worker

extern "C" int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  using real_fn = int (*)(void**, std::size_t, std::size_t);
  static real_fn real = reinterpret_cast<real_fn>(dlsym(RTLD_NEXT, "posix_memalign"));
  int r = real(out, alignment, size);
  int byte = cpu_poison.load(std::memory_order_relaxed);
  if (r == 0 && byte >= 0 && *out) std::memset(*out, byte, size);
  if (r == 0) cpu_log.record(*out, size);
  return r;
}
