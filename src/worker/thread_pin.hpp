#pragma once
// Pins the calling thread to one CPU for a scope and gives it back its earlier CPUs after. Paired
// timing (docs/eval.md, "Paired rounds") runs the candidate's and the reference's timed calls on
// the same CPU, one worker after the other: on the H200 machine (a virtual machine) a CPU's speed
// changes from one second to the next, so two workers on two CPUs may see different hosts.
// No CUDA here: tested on the CPU (tests/cpu/eval/thread_pin_test.cpp).
#include <sched.h>

namespace headroom::worker {

class thread_pin {
 public:
  // cpu < 0, or a CPU this thread may not run on: nothing changes and pinned() is false.
  explicit thread_pin(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof before_, &before_) != 0) return;
    if (!CPU_ISSET(cpu, &before_)) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~thread_pin() {
    if (pinned_) sched_setaffinity(0, sizeof before_, &before_);
  }
  thread_pin(const thread_pin&) = delete;
  thread_pin& operator=(const thread_pin&) = delete;

  bool pinned() const { return pinned_; }

 private:
  cpu_set_t before_{};
  bool pinned_ = false;
};

}  // namespace headroom::worker
