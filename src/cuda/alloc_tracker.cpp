// The worker's CUDA allocation hook on PyTorch's own caching allocator (docs/eval.md, "CUDA graphs"):
// a trace tracker (CUDACachingAllocator::attachAllocatorTraceTracker) that sees every block the
// allocator hands out (an ALLOC entry, on the stream it is handed out on), poisons it there while a
// call is poisoned, and logs it (src/cuda/allocation_hooks.hpp). The allocator stays
// PyTorch's own, with everything the pluggable allocator lacks: CUDA graphs' private pools and their
// checkpoints (torch.compile's CUDA graph trees), cacheInfo (cuDNN's benchmark mode), the memory
// statistics. Built against the C++ headers of the PyTorch the worker's Python imports, as the
// operator record is (src/worker/CMakeLists.txt); loaded once torch is imported, attached once CUDA
// is initialised.
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <exception>
#include <string>

#include "allocation_hooks.hpp"

namespace hooks = headroom::cuda::allocation_hooks;

namespace {

// A trace entry's stream, whichever of these types this PyTorch keeps it as.
[[maybe_unused]] cudaStream_t raw_stream(cudaStream_t s) { return s; }
// PyTorch 2.11 keeps it as an untyped pointer (the trace entry moved to c10/core's device-generic
// allocator): the CUDA stream it points to.
[[maybe_unused]] cudaStream_t raw_stream(void* s) { return static_cast<cudaStream_t>(s); }
[[maybe_unused]] cudaStream_t raw_stream(const c10::cuda::CUDAStream& s) { return s.stream(); }
[[maybe_unused]] cudaStream_t raw_stream(const c10::Stream& s) {
  return c10::cuda::CUDAStream(c10::cuda::CUDAStream::UNCHECKED, s).stream();
}

// Called under the allocator's lock: no PyTorch call here, only CUDA's and the logs'.
template <class Entry>
void on_trace(const Entry& e) {
  if (e.action_ != Entry::Action::ALLOC || e.size_ == 0) return;
  hooks::handed_out(reinterpret_cast<void*>(static_cast<std::uintptr_t>(e.addr_)), static_cast<std::size_t>(e.size_),
                    raw_stream(e.stream_));
}

}  // namespace

// 1 once the tracker is attached to every device's caching allocator; 0 when the current allocator
// is not PyTorch's native one (another backend was chosen, or a pluggable allocator installed) or
// refused the tracker.
extern "C" HEADROOM_ALLOCATION_HOOK_API int headroom_attach_tracker() {
  namespace cca = c10::cuda::CUDACachingAllocator;
  try {
    if (cca::get() == nullptr || cca::get()->name() != "native") return 0;
    cca::attachAllocatorTraceTracker([](const auto& e) { on_trace(e); });
    return 1;
  } catch (const std::exception&) {
    return 0;
  }
}
