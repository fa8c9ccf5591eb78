#pragma once
// The speed-of-light floor's measurements (docs/eval.md, "The speed-of-light floor"): the problem's
// FLOPs, counted by PyTorch's FLOP counter on the first kept timing set (flops: the informative
// roofline); which inputs its outputs depend on, and a problem's declared floor in bytes
// (dependence); the device's copy bandwidth and dense matmul rate (ceilings); and on the CPU, how
// fast this host reads and writes the problem's bytes in a timed call's conditions (transfers).
#include <memory>

#include <simdjson.h>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

class call_outputs;
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
    const call_outputs& outputs;
    const timing_sets& sets;
    const loaded_problem& problem;
  };
  explicit ceilings(const parts& p) : p_(p) {}

  void flops();
  void measure();
  // The reference's outputs on the first kept set, sketched, and again with each input tensor in
  // turn given other values (driver.replaced_input): the parent counts an input the outputs depend
  // on as bytes every correct kernel reads. With a "formula", the problem's declared floor too.
  void dependence(simdjson::dom::element req);
  void transfers(simdjson::dom::element req);

 private:
  parts p_;
};

}  // namespace headroom::worker
