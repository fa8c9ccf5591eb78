// The CUDA allocator PyTorch uses inside an evaluation worker (torch.cuda.memory.CUDAPluggableAllocator)
// where the worker's caching-allocator tracker is not available (src/cuda/alloc_tracker.cpp).
// Stream-ordered allocation (cudaMallocAsync) keeps allocation cheap; while poisoning is on, every
// allocation is filled with the poison byte on its stream before PyTorch hands it out, so an output
// element the candidate never writes keeps the poison (docs/eval.md, "Correctness"). What it keeps
// and the functions the worker calls are src/cuda/allocation_hooks.hpp.
//
// PyTorch's pluggable allocator refuses what its caching allocator alone can do: cacheInfo (asked by
// cuDNN's benchmark mode, torch.backends.cudnn.benchmark), the graph pools' checkpoints (asked by
// torch.compile's CUDA graph trees, mode="reduce-overhead"), the memory statistics. A plain
// torch.cuda.CUDAGraph or make_graphed_callables capture allocates through cudaMallocAsync on the
// capturing stream, which CUDA turns into the graph's own allocation nodes.
#include <cuda_runtime.h>
#include <sys/types.h>

#include <atomic>

#include "allocation_hooks.hpp"

namespace hooks = headroom::cuda::allocation_hooks;

namespace {

// The default pool returns its memory to the driver at every synchronisation (release threshold 0),
// so every timed call after the worker's device-wide synchronisation would map fresh pages: ~0.05 ms
// and much noise per allocation of a KernelBench-sized output. Keep it, as PyTorch's own caching
// allocator does.
void keep_pool(int device) {
  static std::atomic<unsigned long long> done{0};
  if (device < 0 || device >= 64 || (done.load() >> device) & 1ull) return;
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    unsigned long long keep = ~0ull;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  done.fetch_or(1ull << device);
}

}  // namespace

extern "C" {

HEADROOM_ALLOCATION_HOOK_API void* headroom_alloc(ssize_t size, int device, cudaStream_t stream) {
  if (size <= 0) return nullptr;
  cudaSetDevice(device);
  keep_pool(device);
  void* p = nullptr;
  if (cudaMallocAsync(&p, static_cast<size_t>(size), stream) != cudaSuccess) {
    // PyTorch's pluggable allocator does not check the pointer it gets: a failed allocation becomes
    // a tensor at address 0 and, later, an illegal address; the worker counts these.
    cudaGetLastError();
    hooks::failed.fetch_add(1);
    return nullptr;
  }
  hooks::handed_out(p, static_cast<size_t>(size), stream);
  return p;
}

HEADROOM_ALLOCATION_HOOK_API void headroom_free(void* p, ssize_t, int device, cudaStream_t stream) {
  if (!p) return;
  cudaSetDevice(device);
  cudaFreeAsync(p, stream);
}
}
