#pragma once
// The worker's view of the device it evaluates on: memory it owns, copies, synchronisation, the L2
// flush and the clocks. On the CPU everything is host memory and the host clock.
#include <cstddef>
#include <cstdint>
#include <string>

namespace headroom::eval::worker {

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

  // The stream PyTorch launches on (from torch.cuda.current_stream); 0 is the legacy default stream.
  void set_stream(std::uintptr_t stream) { stream_ = stream; }
  void synchronize();
  // Evicts the caches before a sample: persisting L2 lines reset (an access-policy window set by a
  // candidate would otherwise survive), then twice the L2 written on the timed stream.
  void flush_caches();

  // A timed region on the stream: start(), the call, stop() returns {event ms, wall ms}, where the
  // wall clock runs from before start to after a device-wide synchronisation.
  void start_timer();
  struct times {
    double event_ms;
    double wall_ms;
  };
  times stop_timer();

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
  std::size_t flush_bytes_ = 0;
  void* start_event_ = nullptr;
  void* stop_event_ = nullptr;
  double wall_start_ = 0;
  struct nvml;
  nvml* nvml_ = nullptr;  // loaded on first use, never unloaded
  nvml* open_nvml();
};

double host_ms();

}  // namespace headroom::eval::worker
