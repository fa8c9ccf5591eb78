#pragma once
// The word a held stream waits on, and the watchdog that opens it when a call outlives its hold
// (device.cpp's gate; no CUDA here, so it is tested on the CPU). The word is 0 while closed, 1 once
// the worker opened it after the call, 2 when the watchdog opened it at the deadline (the call
// waited for its own stream). Each close starts a new hold: an earlier hold's deadline never opens
// a later one.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace headroom::cuda {

class hold_watchdog {
 public:
  // `word` must outlive the watchdog's thread, which runs as long as the process: the watchdog is
  // made once and never destroyed (a stream may still wait on the word).
  explicit hold_watchdog(std::atomic<std::uint32_t>& word) : word_(word) {
    std::thread([this] { watch(); }).detach();
  }
  hold_watchdog(const hold_watchdog&) = delete;
  hold_watchdog& operator=(const hold_watchdog&) = delete;

  // Closes the word and arms the watchdog for `timeout`.
  void close(std::chrono::microseconds timeout) {
    word_.store(0);
    std::lock_guard lock(m_);
    armed_ = true;
    ++generation_;
    deadline_ = std::chrono::steady_clock::now() + timeout;
    cv_.notify_all();
  }
  // Opens the word; false when the watchdog had opened it already.
  bool open() {
    std::uint32_t closed = 0;
    bool opened = word_.compare_exchange_strong(closed, 1);
    {
      std::lock_guard lock(m_);
      armed_ = false;
    }
    cv_.notify_all();
    return opened;
  }

 private:
  void watch() {
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return armed_; });
      const std::uint64_t hold = generation_;
      const auto until = deadline_;
      if (!cv_.wait_until(lock, until, [&] { return !armed_ || generation_ != hold; })) {
        std::uint32_t closed = 0;
        word_.compare_exchange_strong(closed, 2);
        armed_ = false;
      }
    }
  }

  std::atomic<std::uint32_t>& word_;
  std::mutex m_;
  std::condition_variable cv_;
  bool armed_ = false;
  std::uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace headroom::cuda
