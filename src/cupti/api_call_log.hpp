#pragma once
// Runtime and driver API calls recorded by our own CUPTI callbacks (HEADROOM_PROFILE_API_RECORDS=
// callback) instead of CUPTI's RUNTIME and DRIVER activity kinds: each calling thread appends its
// calls to a ring of its own, with no lock and no allocation after the thread's first call, and the
// flush thread drains every ring into the converter. One producer (the thread) and one consumer
// (whoever drains, under the session's convert mutex) per ring.
//
// A ring that fills between two drains drops the calls that do not fit and counts them; nothing
// blocks the program. Rings are never freed while the log lives (a thread that ends leaves its
// ring to be drained), and the session's log lives as long as the process.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "cupti_convert.hpp"

namespace headroom::cupti {

class api_call_log {
 public:
  // `ring_records` (rounded up to a power of two) calls a thread may make between two drains.
  explicit api_call_log(std::size_t ring_records);
  ~api_call_log();
  api_call_log(const api_call_log&) = delete;
  api_call_log& operator=(const api_call_log&) = delete;

  // On the calling thread. The first call of a thread allocates its ring; if that fails, the call
  // is dropped and counted.
  void append(const api_record& record) noexcept;

  // Hands every staged call to `sink`, each thread's in the order it made them; returns how many.
  // One drainer at a time (the caller serialises).
  std::size_t drain(const std::function<void(const api_record&)>& sink);

  // Calls dropped because a ring was full (or could not be made), since the log began.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  std::size_t ring_records() const noexcept { return capacity_; }
  std::size_t threads() const;

 private:
  struct ring;
  ring* ring_for_this_thread() noexcept;

  std::size_t capacity_;
  std::uint64_t id_;  // tells apart logs that reuse an address, for the thread-local lookup
  mutable std::mutex rings_mutex_;
  std::vector<std::unique_ptr<ring>> rings_;
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace headroom::cupti
