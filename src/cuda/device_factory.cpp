// make_device in a build with CUDA (a build without it takes src/worker/device_factory.cpp).
#include <stdexcept>

#include "headroom/cuda/cuda_device.hpp"
#include "headroom/worker/device.hpp"

namespace headroom::worker {

std::unique_ptr<device> make_device(const std::string& name) {
  if (name == "cpu") return make_host_device();
  if (name.rfind("cuda", 0) == 0) return cuda::make_cuda_device(name);
  throw std::runtime_error("unknown device " + name);
}

}  // namespace headroom::worker
