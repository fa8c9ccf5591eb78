#pragma once
// Poisoning of fresh device allocations while a candidate runs: the pluggable CUDA allocator
// (src/cuda/poison_alloc.cpp), which the worker loads and PyTorch uses; it also logs the blocks it
// hands out during a call and counts the allocations it could not serve. Host allocations are
// poisoned by poison_cpu.hpp.
#include <cstddef>
#include <string>

namespace headroom::worker {

class cuda_poison {
 public:
  // Loads the allocator library at `path`; empty path or a failed load leaves it unavailable.
  explicit cuda_poison(const std::string& path);
  bool available() const { return set_ != nullptr; }
  void set(int byte) const {
    if (set_) set_(byte);
  }
  // Allocations the allocator could not serve since it was loaded (each became a null tensor).
  unsigned long long failed_allocations() const { return failed_ ? failed_() : 0; }
  // The device blocks handed out during a call: begin_log() before it, end_log() after, then
  // holds() asks whether an output lies in one.
  void begin_log() const {
    if (log_) log_(1);
  }
  void end_log() const {
    if (log_) log_(0);
  }
  bool holds(const void* p, std::size_t bytes) const { return holds_ && holds_(p, bytes) != 0; }
  std::size_t logged_blocks() const { return blocks_ ? blocks_() : 0; }

 private:
  void (*set_)(int) = nullptr;
  unsigned long long (*failed_)() = nullptr;
  void (*log_)(int) = nullptr;
  int (*holds_)(const void*, std::size_t) = nullptr;
  std::size_t (*blocks_)() = nullptr;
};

}  // namespace headroom::worker
