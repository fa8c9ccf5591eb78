#pragma once
// The empty kernel of the idle probe's round trip (include/headroom/worker/gpu_idle.hpp), launched
// on `stream`.
#include <cuda_runtime.h>

namespace headroom::cuda {

cudaError_t launch_idle_probe(cudaStream_t stream);

}  // namespace headroom::cuda
