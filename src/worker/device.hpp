#pragma once
// The worker's view of the device it evaluates on: memory it owns, copies, synchronisation, the L2
// flush and the clocks. On the CPU everything is host memory and the host clock.
#include <cstddef>
#include <cstdint>
#include <string>

namespace headroom::worker {

class device {
 public:
  // "cpu" or "cuda:N".
  explicit device(const std::string& name);
  bool is_cuda() const { return cuda_; }
  int index() const { return index_; }

  // Memory the worker owns (inputs it hands to PyTorch through DLPack). Freed with release().
  void* allocate(std::size_t bytes);
  void release(void* p);
  void copy_to_device(void* dst, const void* host_src, std::size_t bytes);
  void copy_to_host(void* host_dst, const void* src, std::size_t bytes);
  void copy_on_device(void* dst, const void* src, std::size_t bytes);
  // Whether memory the worker owns holds the same bytes as `host` (inputs unmodified by a call). On
  // CUDA it comes over in slices through two reused pinned buffers, a slice compared while the next
  // one copies: no host buffer as large as the tensor, whose fresh pages would cost more than the copy.
  bool equals_host(const void* src, const void* host, std::size_t bytes);

  // The stream PyTorch launches on (from torch.cuda.current_stream); 0 is the legacy default stream.
  void set_stream(std::uintptr_t stream) { stream_ = stream; }
  void synchronize();
  // Evicts the caches before a sample: persisting L2 lines reset (an access-policy window set by a
  // candidate would otherwise survive), then twice the L2 written on the timed stream.
  void flush_caches();

  // A timed region on the stream: start_timer(), the call, call_returned(), stop_timer(). The wall
  // clock runs from before the call to after a device-wide synchronisation; the tail from the timed
  // stream's end to the device's.
  //
  // hold (CUDA): the stream is held at a gate (the device waits on a word of host memory,
  // device.cpp) from before the start event until the call has returned, as nvbench's blocking
  // kernel does, so the call's launches queue up and the events measure device time only, not the
  // host's dispatch of `forward`. A call that waits for its own stream (a synchronisation, .item())
  // would wait for the gate: after `hold_timeout_ms` a watchdog opens it and the sample says so.
  void start_timer(bool hold = false);
  void call_returned();
  struct times {
    double event_ms;   // on the timed stream (the host clock on the CPU)
    double wall_ms;    // start of the call to the device-wide synchronisation after it
    double host_ms;    // the call itself on the host
    double tail_ms;    // from the timed stream's end to the device's (work left on other streams)
    bool held;         // the launches were held (event_ms is device time only)
    bool hold_timed_out;
  };
  times stop_timer();
  static constexpr double hold_timeout_ms = 500;
  struct gate;  // defined in device.cpp
  // How launches are held: "stream wait", "host function" (the fallback), "" before the first hold.
  std::string hold_mechanism() const;

  // Measured copy bandwidth (bytes read + written per second); 0 on the CPU.
  double copy_bandwidth();
  std::string driver_version();
  std::string runtime_version();
  std::string clocks();
  // The SM clock now and its maximum, in MHz, through NVML; 0 when unknown (the CPU, no NVML).
  unsigned sm_clock_mhz();
  unsigned sm_clock_max_mhz();

 private:
  bool cuda_ = false;
  int index_ = 0;
  std::uintptr_t stream_ = 0;
  void* flush_buffer_ = nullptr;
  // Copies of gigabytes between pageable host memory and the device, and the input check, go
  // through two pinned buffers (a slice's DMA overlapping the host side of the other) with the
  // host side on the worker's copy threads.
  void make_staging();
  void staged_copy(void* dst, const void* src, std::size_t bytes, bool to_device);
  void* staging_[2] = {nullptr, nullptr};  // pinned, staging_bytes each, made on first use
  void* staging_stream_ = nullptr;
  void* staging_done_[2] = {nullptr, nullptr};
  static constexpr std::size_t staging_bytes = std::size_t{64} << 20;
  std::size_t flush_bytes_ = 0;
  void* start_event_ = nullptr;
  void* stop_event_ = nullptr;
  double wall_start_ = 0;
  double host_call_ms_ = 0;
  gate* gate_ = nullptr;  // created on first hold, never freed (a host function may still point at it)
  bool holding_ = false;
  struct nvml;
  nvml* nvml_ = nullptr;  // loaded on first use, never unloaded
  nvml* open_nvml();
};

double host_ms();

}  // namespace headroom::worker
