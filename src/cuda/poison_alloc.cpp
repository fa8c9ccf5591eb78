// The CUDA allocator PyTorch uses inside an evaluation worker (torch.cuda.memory.CUDAPluggableAllocator).
// Stream-ordered allocation (cudaMallocAsync) keeps allocation cheap; while poisoning is on, every
// allocation is filled with the poison byte on its stream before PyTorch hands it out, so an output
// element the candidate never writes keeps the poison (docs/eval.md, "Correctness").
#include <cuda_runtime.h>
#include <sys/types.h>

#include <atomic>

#include "headroom/util/allocation_log.hpp"

namespace {
std::atomic<int> poison{-1};
std::atomic<unsigned long long> failed{0};
headroom::util::allocation_log call_log;  // the blocks handed out during the current call
}  // namespace

extern "C" {

__attribute__((visibility("default"))) void headroom_set_poison(int byte) { poison.store(byte); }

// PyTorch's pluggable allocator does not check the pointer it gets: a failed allocation becomes a
// tensor at address 0 and, later, an illegal address. The worker reads this count around each
// request and reports the request as out of memory when it grew.
__attribute__((visibility("default"))) unsigned long long headroom_failed_allocations() { return failed.load(); }

// The worker logs the blocks of each call (on: 1, off: 0) and asks whether an output lies in one.
__attribute__((visibility("default"))) void headroom_log_allocations(int on) {
  if (on) call_log.begin();
  else call_log.end();
}
__attribute__((visibility("default"))) int headroom_allocated_during_call(const void* p, size_t bytes) {
  return call_log.holds(p, bytes) ? 1 : 0;
}
__attribute__((visibility("default"))) size_t headroom_logged_blocks() { return call_log.blocks(); }

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

__attribute__((visibility("default"))) void* headroom_alloc(ssize_t size, int device, cudaStream_t stream) {
  if (size <= 0) return nullptr;
  cudaSetDevice(device);
  keep_pool(device);
  void* p = nullptr;
  if (cudaMallocAsync(&p, static_cast<size_t>(size), stream) != cudaSuccess) {
    cudaGetLastError();
    failed.fetch_add(1);
    return nullptr;
  }
  int byte = poison.load();
  if (byte >= 0) cudaMemsetAsync(p, byte, static_cast<size_t>(size), stream);
  call_log.record(p, static_cast<size_t>(size));
  return p;
}

__attribute__((visibility("default"))) void headroom_free(void* p, ssize_t, int device, cudaStream_t stream) {
  if (!p) return;
  cudaSetDevice(device);
  cudaFreeAsync(p, stream);
}
}
