// The host as the device: on the CPU path memory is host memory and time is the host clock.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

double host_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

namespace {

class host_device final : public device {
 public:
  bool is_cuda() const override { return false; }
  int index() const override { return 0; }
  void* allocate(std::size_t bytes) override {
    std::size_t n = bytes == 0 ? 1 : bytes;
    void* p = std::aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void release(void* p) override { std::free(p); }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  bool equals_host(const void* src, const void* host, std::size_t bytes) override {
    return bytes == 0 || std::memcmp(src, host, bytes) == 0;
  }
  void set_stream(std::uintptr_t) override {}
  void synchronize() override {}
  void flush_caches() override {
    // Write 64 MiB, more than the last-level caches of the machines we run on.
    static std::vector<unsigned char> buffer(64u << 20);
    static unsigned char v = 0;
    std::memset(buffer.data(), ++v, buffer.size());
  }
  void start_timer(bool) override {
    wall_start_ = host_ms();
    host_call_ms_ = -1;
  }
  void call_returned() override { host_call_ms_ = host_ms() - wall_start_; }
  times stop_timer() override {
    if (host_call_ms_ < 0) call_returned();
    double wall = host_ms() - wall_start_;
    return {wall, wall, host_call_ms_, 0, false, false};
  }
  std::string hold_mechanism() const override { return ""; }
  double copy_bandwidth() override { return 0; }
  std::string driver_version() override { return ""; }
  std::string runtime_version() override { return ""; }
  std::string clocks() override { return ""; }
  unsigned sm_clock_mhz() override { return 0; }
  unsigned sm_clock_max_mhz() override { return 0; }

 private:
  double wall_start_ = 0;
  double host_call_ms_ = 0;
};

}  // namespace

std::unique_ptr<device> make_host_device() { return std::make_unique<host_device>(); }

}  // namespace headroom::worker
