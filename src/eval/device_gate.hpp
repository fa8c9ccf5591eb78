#pragma once
// Several evaluations in flight on one GPU (--lanes): their workers' start-up, data transfer and
// checks overlap, but a measurement runs alone. Each request to a worker takes its device's gate:
// shared for requests that put work on the device, exclusive for those that measure it. Internal
// to src/eval (session.cpp takes it; orchestrator.cpp starts the lanes).
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "headroom/worker/requests.hpp"

namespace headroom::eval {

using gate_use = worker::device_use;

// The use of a request, from its fields ("op":"time",...), as include/headroom/worker/requests.hpp
// lists it; an op not listed there is taken as shared (the worker refuses it), no op at all as none.
gate_use gate_use_of(std::string_view fields);

// A readers-writer lock that lets a waiting writer in before readers that arrive after it: a
// measurement waits for the requests in flight, never for a stream of new ones. Meets the
// SharedMutex requirements std::shared_lock and std::unique_lock need (lock, unlock, lock_shared,
// unlock_shared).
class device_gate {
 public:
  void lock_shared();
  void unlock_shared();
  void lock();
  void unlock();
  int waiting_writers();  // for tests

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int readers_ = 0;
  int waiting_writers_ = 0;
  bool writer_ = false;
};

// The gate of a device ("cuda:0"), one per device for the life of the process.
device_gate& gate_for(const std::string& device);

// The host's gate, taken like a device's by every request (host first, then device), and shared by
// the parent's own heavy host work (comparisons, the audit): a measurement on one GPU runs while no
// other lane, on any GPU, copies, compares or starts a worker. A call that waits for its own stream
// is timed with its dispatch, so the host's load is inside its time (two of KernelBench's transposed
// 2-D convolutions, whose calls wait, ran 7-8% slow beside a second GPU's lane on the H200).
device_gate& host_gate();
// Shared use of the host gate for the scope of the returned lock.
std::shared_lock<device_gate> host_work();

// The gates a worker request passes (session::ask), held for the life of this object: by the
// request's use (gate_use_of), the host's and then the device's, shared or exclusive.
struct gate_pass {
  std::shared_lock<device_gate> host_shared, device_shared;
  std::unique_lock<device_gate> host_exclusive, device_exclusive;  // released first, device before host
};
gate_pass pass_gates(std::string_view fields, const std::string& device);

}  // namespace headroom::eval
