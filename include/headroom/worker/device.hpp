#pragma once
// The worker's view of the device it evaluates on: memory it owns, copies, synchronisation, the L2
// flush and the clocks. Two implementations: the host's (src/worker/host_device.cpp: everything is
// host memory and the host clock) and a CUDA GPU's (src/cuda/cuda_device.cpp, built when the CUDA
// toolkit is found). make_device picks one by name.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "headroom/util/dtype.hpp"
#include "headroom/worker/fresh_inputs.hpp"
#include "headroom/worker/poison_pattern.hpp"

namespace headroom::worker {

class device {
 public:
  virtual ~device() = default;
  virtual bool is_cuda() const = 0;
  virtual int index() const = 0;

  // Memory the worker owns (inputs it hands to PyTorch through DLPack). Freed with release().
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* p) = 0;
  // Gives back to the system what release() kept for reuse (between requests).
  virtual void release_cached() {}
  virtual void copy_to_device(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copy_to_host(void* host_dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_on_device(void* dst, const void* src, std::size_t bytes) = 0;
  // Whether memory the worker owns holds the same bytes as `host` (inputs unmodified by a call).
  virtual bool equals_host(const void* src, const void* host, std::size_t bytes) = 0;

  // A fresh input: `numel` elements of `type` from `src` (the device's memory) to `dst`, each
  // floating element multiplied by its factor under `seed` (fresh_inputs.hpp).
  virtual void perturbed_copy(void* dst, const void* src, dtype type, std::size_t numel, std::uint64_t seed,
                              std::uint64_t symmetric_n) = 0;
  // The sketch of `numel` contiguous elements of `type` (fresh_inputs.hpp), summed in double.
  virtual std::array<double, sketch_width> sketch(const void* data, dtype type, std::size_t numel,
                                                  std::uint64_t seed) = 0;

  // Output memory a candidate keeps, filled with the pattern before a call (on the device's stream,
  // ordered before the call's work), and how many of its elements of `element_bytes` still hold
  // it after the call (poison_pattern.hpp).
  virtual void fill_pattern(void* p, std::size_t bytes, const poison_pattern& pattern) = 0;
  virtual std::size_t count_pattern(const void* p, std::size_t bytes, std::size_t element_bytes,
                                    const poison_pattern& pattern) = 0;

  // The stream PyTorch launches on (from torch.cuda.current_stream); 0 is the legacy default stream.
  virtual void set_stream(std::uintptr_t stream) = 0;
  virtual void synchronize() = 0;
  // Evicts the caches before a sample.
  virtual void flush_caches() = 0;
  // Evicts `bytes` of memory at `p` from every cache of every core (a device whose flush_caches
  // evicts everything needs nothing more: the default does nothing).
  virtual void evict(const void* p, std::size_t bytes) {
    (void)p;
    (void)bytes;
  }

  // A timed region: start_timer(), the call, call_returned(), stop_timer(). The wall clock runs from
  // before the call to after a device-wide synchronisation; the tail from the timed stream's end to
  // the device's.
  //
  // hold (CUDA): the stream is held at a gate from before the start event until the call has
  // returned, as nvbench's blocking kernel does, so the call's launches queue up and the events
  // measure device time only, not the host's dispatch of `forward`. A call that waits for its own
  // stream (a synchronisation, .item()) would wait for the gate: after `hold_timeout_ms` a watchdog
  // opens it and the sample says so.
  virtual void start_timer(bool hold = false) = 0;
  virtual void call_returned() = 0;
  struct times {
    double event_ms;  // on the timed stream (the host clock on the CPU)
    double wall_ms;  // start of the call to the device-wide synchronisation after it
    double host_ms;  // the call itself on the host
    double tail_ms;  // from the timed stream's end to the device's (work left on other streams)
    bool held;  // the launches were held (event_ms is device time only)
    bool hold_timed_out;
  };
  virtual times stop_timer() = 0;
  static constexpr double hold_timeout_ms = 500;
  // How launches are held: "stream wait", "host function" (the fallback), "" before the first hold.
  virtual std::string hold_mechanism() const = 0;

  // One empty round trip through the device, for the idle probe before a measurement
  // (gpu_idle.hpp): the host's milliseconds to launch an empty kernel on the timed stream and wait
  // for it, the device synchronised before. Another process's work on a GPU makes it wait for a
  // time slice. 0 on the CPU, where no other process's work is left running: a frozen sandbox
  // stops using the CPU.
  virtual double round_trip_ms() { return 0; }
  // The processes that hold a compute context on the device, as the driver lists them (NVML): who
  // keeps a GPU busy. Empty where unknown.
  virtual std::vector<std::uint64_t> context_pids() { return {}; }

  // Measured copy bandwidth (bytes read + written per second); 0 on the CPU.
  virtual double copy_bandwidth() = 0;
  virtual std::string driver_version() = 0;
  virtual std::string runtime_version() = 0;
  virtual std::string clocks() = 0;
  // The SM clock now and its maximum, in MHz; 0 when unknown (the CPU, no NVML).
  virtual unsigned sm_clock_mhz() = 0;
  virtual unsigned sm_clock_max_mhz() = 0;
};

// "cpu" or "cuda:N". A CUDA name in a build without CUDA throws std::runtime_error saying so.
std::unique_ptr<device> make_device(const std::string& name);
std::unique_ptr<device> make_host_device();

double host_ms();

}  // namespace headroom::worker
