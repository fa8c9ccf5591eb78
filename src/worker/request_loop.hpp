#pragma once
// headroom-worker's request server (docs/eval.md, "Processes"): it reads each request from the
// parent, hands it to the component that serves it and writes the answer, with what happens to
// the worker's memory around every answer. It composes the worker's components and holds the
// device hello makes, which they share.
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "headroom/sandbox/channel.hpp"
#include "headroom/worker/device.hpp"
#include "worker/allocation_watch.hpp"
#include "worker/call_outputs.hpp"
#include "worker/ceilings.hpp"
#include "worker/dlpack_bridge.hpp"
#include "worker/error_replies.hpp"
#include "worker/idle_probe.hpp"
#include "worker/kept_outputs.hpp"
#include "worker/loaded_problem.hpp"
#include "worker/parent_channel.hpp"
#include "worker/problem_setup.hpp"
#include "worker/python_driver.hpp"
#include "worker/python_tensors.hpp"
#include "worker/request_memory.hpp"
#include "worker/timing_loop.hpp"
#include "worker/timing_sets.hpp"
#include "worker/trial_calls.hpp"

namespace headroom::worker {

class request_loop {
 public:
  request_loop(int in_fd, int out_fd, int announce_fd, sandbox::shared_region in_region,
               sandbox::shared_region out_region);
  request_loop(const request_loop&) = delete;
  request_loop& operator=(const request_loop&) = delete;

  // Serves requests until bye or the parent closes the channel (0), or the channel fails (3).
  int serve();

 private:
  void handle(std::string_view op, simdjson::dom::element req, std::vector<std::byte>& payload);
  // Writes the pending answer, the heap's free pages given back first (docs/eval.md, "Memory").
  void send_reply();

  bool trace_;  // HEADROOM_WORKER_TRACE: each request and its duration to stderr
  std::unique_ptr<device> dev_;
  parent_channel channel_;
  request_memory memory_;
  python_driver python_;
  python_tensors tensors_;
  allocation_watch allocations_;
  loaded_problem problem_;
  error_replies errors_;
  tensor_bridge bridge_;
  call_outputs outputs_;
  kept_outputs kept_;
  timing_sets sets_;
  problem_setup setup_;
  trial_calls trials_;
  timing_loop timing_;
  ceilings ceilings_;
  idle_probe probe_;
};

}  // namespace headroom::worker
