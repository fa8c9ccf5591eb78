#pragma once
// What a CUDA allocation hook of the evaluation worker keeps and how the worker reaches it
// (docs/eval.md, "Correctness" and "CUDA graphs"): the poison byte fresh blocks get, the log of the
// blocks handed out during a call, the log of every block since the model's load, and the C
// functions src/worker/cuda_poison.hpp looks up by name. Two hooks exist, each a shared library that
// includes this header in exactly one file (it defines those functions):
// - src/cuda/poison_alloc.cpp, the allocator itself, installed as PyTorch's CUDAPluggableAllocator;
// - src/cuda/alloc_tracker.cpp, a trace tracker attached to PyTorch's own caching allocator, which
//   keeps what the pluggable one lacks (graph pools and their checkpoints, cacheInfo).
// Both call allocation_hooks::handed_out for every block handed to PyTorch. The tracker is built by
// src/worker/CMakeLists.txt, which knows the worker's PyTorch (its headers and libraries).
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>

#include "headroom/util/allocation_log.hpp"

namespace headroom::cuda::allocation_hooks {

inline std::atomic<int> poison{-1};
inline std::atomic<unsigned long long> failed{0};
inline util::allocation_log call_log;  // the blocks handed out during the current call
inline util::allocation_log lifetime_log;  // every block since the worker began it (at load)

// A block handed to PyTorch on `stream`: poisoned (unless the stream is being captured into a CUDA
// graph: a memset then would be captured too and run at every replay, inside the candidate's time;
// the graph's memory is the graph's business, and once the candidate returns it the worker fills it
// before every later call) and logged. A stream whose capture status cannot be had (the legacy
// stream while another stream captures) is not written to: a memset there could end that capture.
inline void handed_out(void* p, std::size_t size, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const bool known = cudaStreamIsCapturing(stream, &capture) == cudaSuccess;
  if (!known) cudaGetLastError();
  const int byte = poison.load();
  if (byte >= 0 && known && capture == cudaStreamCaptureStatusNone) cudaMemsetAsync(p, byte, size, stream);
  call_log.record(p, size);
  lifetime_log.record(p, size);
}

}  // namespace headroom::cuda::allocation_hooks

#define HEADROOM_ALLOCATION_HOOK_API __attribute__((visibility("default")))

extern "C" {

HEADROOM_ALLOCATION_HOOK_API void headroom_set_poison(int byte) {
  headroom::cuda::allocation_hooks::poison.store(byte);
}

// Allocations that failed and were handed to PyTorch as a null pointer (the pluggable allocator's
// way): the worker reads this count around each request and reports the request as out of memory
// when it grew. PyTorch's own allocator raises instead, and never counts here.
HEADROOM_ALLOCATION_HOOK_API unsigned long long headroom_failed_allocations() {
  return headroom::cuda::allocation_hooks::failed.load();
}

// The worker logs the blocks of each call (on: 1, off: 0) and asks whether an output lies in one.
HEADROOM_ALLOCATION_HOOK_API void headroom_log_allocations(int on) {
  if (on) headroom::cuda::allocation_hooks::call_log.begin();
  else headroom::cuda::allocation_hooks::call_log.end();
}
HEADROOM_ALLOCATION_HOOK_API int headroom_allocated_during_call(const void* p, size_t bytes) {
  return headroom::cuda::allocation_hooks::call_log.holds(p, bytes) ? 1 : 0;
}
HEADROOM_ALLOCATION_HOOK_API size_t headroom_logged_blocks() {
  return headroom::cuda::allocation_hooks::call_log.blocks();
}

// Output memory a candidate keeps from one call to the next must be memory PyTorch's allocator
// handed out (docs/eval.md, "Outputs the candidate keeps"): the worker begins this log when it loads
// the model and asks whether such an output lies in a block of it.
HEADROOM_ALLOCATION_HOOK_API void headroom_begin_lifetime_log() {
  headroom::cuda::allocation_hooks::lifetime_log.begin();
}
HEADROOM_ALLOCATION_HOOK_API int headroom_allocated_since_begin(const void* p, size_t bytes) {
  return headroom::cuda::allocation_hooks::lifetime_log.holds(p, bytes) ? 1 : 0;
}
}
