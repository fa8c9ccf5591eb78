#pragma once
// The memory blocks an allocator handed out while one call ran (docs/eval.md, "Integrity inside the
// worker"). Every output of a candidate's call must lie in one of them: a tensor over memory the
// candidate mapped itself, a view of an earlier call's output or of an input, or a block from any
// other allocator is not an output the call computed. Lock-free: PyTorch allocates from several
// threads at once. A ring of `capacity` blocks: a call that allocates more keeps its latest ones.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace headroom::util {

class allocation_log {
 public:
  static constexpr std::size_t capacity = std::size_t{1} << 20;

  // Starts a call's log (the previous one is forgotten).
  void begin() {
    if (!entries_) entries_ = std::make_unique<entry[]>(capacity);
    count_.store(0, std::memory_order_relaxed);
    recording_.store(true, std::memory_order_release);
  }
  void end() { recording_.store(false, std::memory_order_release); }
  bool recording() const { return recording_.load(std::memory_order_relaxed); }

  void record(const void* p, std::size_t size) {
    if (!recording_.load(std::memory_order_acquire) || !p) return;
    std::size_t i = count_.fetch_add(1, std::memory_order_relaxed);
    entry& e = entries_[i % capacity];
    auto at = reinterpret_cast<std::uintptr_t>(p);
    e.end.store(0, std::memory_order_relaxed);  // never seen half written as a larger block
    e.begin.store(at, std::memory_order_relaxed);
    e.end.store(at + size, std::memory_order_release);
  }

  // Whether [p, p + bytes) lies inside one block of the last call's log.
  bool holds(const void* p, std::size_t bytes) const {
    if (!entries_) return false;
    auto lo = reinterpret_cast<std::uintptr_t>(p);
    std::size_t n = std::min(count_.load(std::memory_order_acquire), capacity);
    for (std::size_t i = 0; i < n; ++i) {
      std::uintptr_t end = entries_[i].end.load(std::memory_order_acquire);
      std::uintptr_t begin = entries_[i].begin.load(std::memory_order_relaxed);
      if (begin <= lo && lo + bytes <= end) return true;
    }
    return false;
  }
  std::size_t blocks() const { return std::min(count_.load(std::memory_order_acquire), capacity); }

 private:
  struct entry {
    std::atomic<std::uintptr_t> begin{0}, end{0};
  };
  std::unique_ptr<entry[]> entries_;
  std::atomic<std::size_t> count_{0};
  std::atomic<bool> recording_{false};
};

}  // namespace headroom::util
