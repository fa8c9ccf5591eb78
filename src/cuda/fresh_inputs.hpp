#pragma once
// The GPU's fresh inputs and output sketches (include/headroom/worker/fresh_inputs.hpp), launched
// on `stream`. `type` is a headroom::dtype.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "headroom/util/dtype.hpp"

namespace headroom::cuda {

cudaError_t launch_perturbed_copy(void* dst, const void* src, dtype type, std::size_t numel, std::uint64_t seed,
                                  std::uint64_t symmetric_n, cudaStream_t stream);
// Adds the sketch of the elements to `sums` (sketch_width doubles in device memory, zeroed by the
// caller).
cudaError_t launch_sketch(const void* data, dtype type, std::size_t numel, std::uint64_t seed, double* sums,
                          cudaStream_t stream);

}  // namespace headroom::cuda
