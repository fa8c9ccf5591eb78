#pragma once
// An experiment, off unless HEADROOM_EVAL_VARY_PLACEMENT=1 is in the worker's environment: every
// device allocation of the worker (its input copies, device.cpp) and of PyTorch inside it (the
// poisoning allocator, poison_alloc.cpp) starts a random multiple of 64 KiB, under 4 MiB, past
// the memory obtained for it. A timing loop then sees each sample's tensors somewhere else.
//
// Why: KernelBench's 12_ (64 MiB in and out, 0.06 ms) timed against itself in five processes on an
// H200 gave speedups 0.97-1.25 while each process's samples agreed to 0.2-0.4% (session 7). If the
// time depends on where the tensors sit, a process that keeps one placement for all its samples
// measures that placement; varying it per sample makes each median cover many.
// (bench/placement_probe.py asks whether placement matters; this switch is the remedy to A/B.)
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <unordered_map>

namespace headroom::eval {

class placement_pad {
 public:
  static constexpr std::size_t step = 64 << 10;
  static constexpr std::size_t steps = 64;  // pads 0 .. 4 MiB - 64 KiB

  explicit placement_pad(bool enabled) : enabled_(enabled), rng_(std::random_device{}()) {}
  // From the environment: HEADROOM_EVAL_VARY_PLACEMENT=1.
  static bool enabled_by_environment() {
    const char* v = std::getenv("HEADROOM_EVAL_VARY_PLACEMENT");
    return v && std::strcmp(v, "1") == 0;
  }

  bool enabled() const { return enabled_; }

  // Bytes to obtain for `bytes` and the pad to skip in them (0 when off).
  std::size_t pad() {
    if (!enabled_) return 0;
    std::lock_guard l(m_);
    return step * std::uniform_int_distribution<std::size_t>(0, steps - 1)(rng_);
  }
  // `base` obtained, `base + pad` handed out: remembers which base to free.
  void* hand_out(void* base, std::size_t pad) {
    if (!enabled_ || !base) return base;
    void* p = static_cast<char*>(base) + pad;
    std::lock_guard l(m_);
    bases_[p] = base;
    return p;
  }
  // The base to free for a pointer handed out (the pointer itself when off or unknown).
  void* take_back(void* p) {
    if (!enabled_ || !p) return p;
    std::lock_guard l(m_);
    auto it = bases_.find(p);
    if (it == bases_.end()) return p;
    void* base = it->second;
    bases_.erase(it);
    return base;
  }

 private:
  bool enabled_;
  std::mutex m_;
  std::minstd_rand rng_;
  std::unordered_map<void*, void*> bases_;
};

}  // namespace headroom::eval
