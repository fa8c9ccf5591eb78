#pragma once
// The speed-of-light floor's measurements (docs/eval.md, "Timing"): the problem's FLOPs, counted by
// PyTorch's FLOP counter on the first kept timing set (flops), and the device's copy bandwidth and
// dense matmul rate (ceilings).
#include <memory>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

class parent_channel;
class python_driver;
class tensor_bridge;
class timing_sets;
struct loaded_problem;

class ceilings {
 public:
  struct parts {
    const std::unique_ptr<device>& dev;
    parent_channel& channel;
    python_driver& python;
    const tensor_bridge& bridge;
    const timing_sets& sets;
    const loaded_problem& problem;
  };
  explicit ceilings(const parts& p) : p_(p) {}

  void flops();
  void measure();

 private:
  parts p_;
};

}  // namespace headroom::worker
