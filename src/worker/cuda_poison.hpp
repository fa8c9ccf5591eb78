#pragma once
// Poisoning of fresh device allocations while a candidate runs, through one of two CUDA allocation
// hooks (src/cuda/allocation_hooks.hpp): the tracker on PyTorch's own caching allocator
// (src/cuda/alloc_tracker.cpp), loaded once torch is imported and attached once CUDA is initialised,
// or the pluggable allocator (src/cuda/poison_alloc.cpp), loaded before and installed by
// driver.setup. Either logs the blocks handed out during a call and since the model's load; the
// pluggable one also counts the allocations it could not serve. Host allocations are poisoned by
// poison_cpu.hpp.
#include <cstddef>
#include <string>

namespace headroom::worker {

class cuda_poison {
 public:
  // Loads the hook library at `path`; empty path or a failed load leaves it unavailable.
  explicit cuda_poison(const std::string& path);
  // The tracker is available once attached; the pluggable allocator once loaded.
  bool available() const { return set_ != nullptr && (!attach_ || attached_); }
  bool loaded() const { return set_ != nullptr; }
  bool is_tracker() const { return attach_ != nullptr; }
  // The tracker attached to PyTorch's caching allocator (CUDA initialised first); false when it is
  // not PyTorch's native allocator.
  bool attach() {
    attached_ = attach_ && attach_() == 1;
    return attached_;
  }
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
  // Every block handed out from begin_lifetime_log() on (at load): whether an output the candidate
  // keeps lies in one.
  void begin_lifetime_log() const {
    if (begin_lifetime_) begin_lifetime_();
  }
  bool handed_out(const void* p, std::size_t bytes) const { return since_begin_ && since_begin_(p, bytes) != 0; }

 private:
  void (*set_)(int) = nullptr;
  unsigned long long (*failed_)() = nullptr;
  void (*log_)(int) = nullptr;
  int (*holds_)(const void*, std::size_t) = nullptr;
  std::size_t (*blocks_)() = nullptr;
  void (*begin_lifetime_)() = nullptr;
  int (*since_begin_)(const void*, std::size_t) = nullptr;
  int (*attach_)() = nullptr;  // the tracker's only
  bool attached_ = false;
};

}  // namespace headroom::worker
