// make_device in a build without CUDA (the CUDA build takes src/cuda/device_factory.cpp instead).
#include <stdexcept>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

std::unique_ptr<device> make_device(const std::string& name) {
  if (name == "cpu") return make_host_device();
  if (name.rfind("cuda", 0) == 0)
    throw std::runtime_error("this headroom-worker was built without CUDA; use --device cpu");
  throw std::runtime_error("unknown device " + name);
}

}  // namespace headroom::worker
