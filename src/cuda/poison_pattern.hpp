#pragma once
// The GPU's fill and count of the pattern written over outputs a candidate keeps
// (include/headroom/worker/poison_pattern.hpp), launched on `stream`.
#include <cstddef>

#include <cuda_runtime.h>

#include "headroom/worker/poison_pattern.hpp"

namespace headroom::cuda {

cudaError_t launch_fill_pattern(void* p, std::size_t bytes, const worker::poison_pattern& pattern, cudaStream_t stream);
// Adds to `*count` (device memory, zeroed by the caller) the elements of `element_bytes` at `p` that
// hold the pattern throughout.
cudaError_t launch_count_pattern(const void* p, std::size_t bytes, std::size_t element_bytes,
                                 const worker::poison_pattern& pattern, unsigned long long* count, cudaStream_t stream);

}  // namespace headroom::cuda
