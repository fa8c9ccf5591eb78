#pragma once
// Poisoning of fresh allocations while a candidate runs: -1 turns it off. CPU tensors are poisoned
// by poison_cpu.cpp; CUDA tensors by the pluggable allocator in poison_alloc.cpp, which the worker
// loads and PyTorch uses.
#include <cstddef>
#include <string>

#include "headroom/util/allocation_log.hpp"

namespace headroom::worker {

void set_cpu_poison(int byte);
// Host blocks PyTorch's CPU allocator handed out during the current call.
util::allocation_log& cpu_allocations();

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
