#pragma once
// Poisoning of fresh allocations while a candidate runs: -1 turns it off. CPU tensors are poisoned
// by poison_cpu.cpp; CUDA tensors by the pluggable allocator in poison_alloc.cpp, which the worker
// loads and PyTorch uses.
#include <string>

namespace headroom::worker {

void set_cpu_poison(int byte);

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

 private:
  void (*set_)(int) = nullptr;
  unsigned long long (*failed_)() = nullptr;
};

}  // namespace headroom::worker
