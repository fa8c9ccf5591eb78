#include <dlfcn.h>

#include "worker/cuda_poison.hpp"

namespace headroom::worker {

cuda_poison::cuda_poison(const std::string& path) {
  if (path.empty()) return;
  // RTLD_GLOBAL and the same path: PyTorch's dlopen of the pluggable allocator gets this very
  // instance, so the poison byte set here is the one its allocations see.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) return;
  set_ = reinterpret_cast<void (*)(int)>(dlsym(h, "headroom_set_poison"));
  failed_ = reinterpret_cast<unsigned long long (*)()>(dlsym(h, "headroom_failed_allocations"));
  log_ = reinterpret_cast<void (*)(int)>(dlsym(h, "headroom_log_allocations"));
  holds_ = reinterpret_cast<int (*)(const void*, std::size_t)>(dlsym(h, "headroom_allocated_during_call"));
  blocks_ = reinterpret_cast<std::size_t (*)()>(dlsym(h, "headroom_logged_blocks"));
  begin_lifetime_ = reinterpret_cast<void (*)()>(dlsym(h, "headroom_begin_lifetime_log"));
  since_begin_ = reinterpret_cast<int (*)(const void*, std::size_t)>(dlsym(h, "headroom_allocated_since_begin"));
  attach_ = reinterpret_cast<int (*)()>(dlsym(h, "headroom_attach_tracker"));
}

}  // namespace headroom::worker
