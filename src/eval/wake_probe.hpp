#pragma once
// How late threads wake while a timing request runs: a thread that sleeps 2 ms at a time and notes
// by how much each sleep overran, on the CPU the worker's timing thread is pinned to when it is
// (paired rounds), where the worker's own wakes wait for that CPU. On a machine busy with other work every wake of the
// parent (reading a worker's announcement) and of the worker (reading the parent's reply) is late by
// about as much, which the parent's clock check allows for (timed_calls.hpp, unconfirmed_times). A
// candidate cannot shrink it, and growing it would need threads burning the CPU between calls, which
// the worker's thread count catches (background_thread). Internal to src/eval.
#include <atomic>
#include <thread>
#include <vector>

namespace headroom::eval {

class wake_probe {
 public:
  explicit wake_probe(int cpu = -1);  // starts sleeping (on `cpu` alone when >= 0)
  ~wake_probe();
  wake_probe(const wake_probe&) = delete;
  wake_probe& operator=(const wake_probe&) = delete;
  // Stops the thread and returns the median overrun of its sleeps, in ms (0 with none measured).
  double stop();

 private:
  std::atomic<bool> running_{true};
  std::vector<double> overruns_ms_;
  std::thread thread_;
};

// The median of `overruns_ms` (0 for none): the probe's figure, apart for tests.
double median_overrun_ms(std::vector<double> overruns_ms);

}  // namespace headroom::eval
