#pragma once
// The `probe` request (docs/eval.md, "Sandbox"): whether the GPU is idle now. The parent asks it of
// a trusted worker (the reference's) once it has ended a candidate's sandbox after a measurement
// found the GPU busy: an idle GPU then says the candidate's processes had left the work, a busy one
// that something else keeps the GPU busy, and the processes holding a context on it say what.
#include <memory>

#include <simdjson.h>

#include "headroom/worker/device.hpp"
#include "headroom/worker/gpu_idle.hpp"

namespace headroom::worker {

class parent_channel;

// The GPU `d` synchronised, then probed by `watch` (gpu_idle.hpp), a busy probe taken again for up
// to `settle_ms`: with this worker's own work done first, the round trips wait only for other
// contexts' (a frozen candidate's children, another process). Before every timed call, and for
// the probe request.
idle_check wait_for_idle(device& d, idle_watch& watch, double settle_ms = busy_settle_ms);

class idle_probe {
 public:
  struct parts {
    const std::unique_ptr<device>& dev;
    parent_channel& channel;
  };
  explicit idle_probe(const parts& p) : p_(p) {}

  // Probes as before a timed call (gpu_idle.hpp), a busy GPU probed again for up to the request's
  // "settle_ms" (default busy_settle_ms): a process that was just killed takes a moment to give its
  // context back.
  void probe(simdjson::dom::element req);

 private:
  parts p_;
};

}  // namespace headroom::worker
