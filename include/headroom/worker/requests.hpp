#pragma once
// The requests a worker answers, named by the "op" the parent sends, each with its use of the
// device: the one list both sides read. The worker refuses an op not listed here
// (src/worker/request_loop.cpp dispatches each listed one to its component); the parent's device
// gate (src/eval/device_gate.cpp) lets several evaluations share a device for `shared` requests and
// gives `exclusive` ones the device alone, with every other sandbox frozen. A new request is a line
// here, its line in request_loop::handle, and its component.
#include <array>
#include <string_view>

namespace headroom::worker {

enum class device_use {
  none,  // touches no device (ends the worker)
  shared,  // puts work on the device or reads it back, alongside other evaluations' requests
  exclusive,  // measures: the device alone, every other candidate's sandbox frozen
};

struct request_kind {
  std::string_view op;
  device_use use;
};

inline constexpr std::array<request_kind, 15> requests{{
    {"hello", device_use::shared},  // starts the runtime, checks the nonce
    {"load", device_use::shared},  // imports a module and constructs its Model
    {"inputs", device_use::shared},  // draws a trial's inputs
    {"run", device_use::shared},  // one forward call on the drawn or sent inputs
    {"set", device_use::shared},  // keeps a timing set sent by the parent
    {"get_set", device_use::shared},  // sends a kept timing set back
    {"compile_baseline", device_use::shared},  // wraps the Model in torch.compile
    {"replay", device_use::shared},  // runs timed calls again for their outputs
    {"flops", device_use::shared},  // counts the forward's operations
    {"dependence", device_use::shared},  // which inputs the outputs depend on
    {"time", device_use::exclusive},  // timed calls
    {"ceilings", device_use::exclusive},  // the device's peak rates
    {"transfers", device_use::exclusive},  // copy times of a problem's bytes
    {"probe", device_use::exclusive},  // whether the GPU is idle now (gpu_idle.hpp)
    {"bye", device_use::none},  // ends the request loop
}};

// The request named by op, or nullptr.
constexpr const request_kind* find_request(std::string_view op) {
  for (const request_kind& r : requests)
    if (r.op == op) return &r;
  return nullptr;
}

}  // namespace headroom::worker
