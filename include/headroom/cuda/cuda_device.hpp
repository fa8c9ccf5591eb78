#pragma once
// The worker's device on a CUDA GPU (include/headroom/worker/device.hpp).
#include <memory>
#include <string>

#include "headroom/worker/device.hpp"

namespace headroom::cuda {

// "cuda:N" (or "cuda": device 0). Makes N the current device.
std::unique_ptr<worker::device> make_cuda_device(const std::string& name);

}  // namespace headroom::cuda
