#pragma once
// The host buffers CUPTI writes activity records into: a bounded pool that hands them out zeroed.
//
// Why zeroed: unless told otherwise (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), CUPTI zeroes
// every buffer it is given before filling it, on the thread that asked for it, which is the
// program's own thread whenever a launch finds the current buffer full or flushed away. The flush
// thread hands the current buffer back every flush period (500 ms), so a launch-bound program paid
// for clearing 8 MiB twice a second on its critical path. The pool clears a buffer when it comes
// back instead (on the thread that completes it: CUPTI's or the flush thread), and `prepare`
// makes the first buffers ahead, so their pages are touched off the program's threads too.
//
// No CUPTI here: the pool is plain memory, tested on the CPU (tests/cpu/cupti/activity_buffers_test.cpp).
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace headroom::cupti {

class activity_buffer_pool {
 public:
  // At most `max_buffers` buffers of `buffer_bytes` each, made on first need. `zero_on_return`:
  // buffers are zeroed when they come back (the session then tells CUPTI it need not clear them);
  // false leaves the clearing to CUPTI, as before the pool did it.
  activity_buffer_pool(std::size_t buffer_bytes, std::size_t max_buffers, bool zero_on_return = true);
  ~activity_buffer_pool();
  activity_buffer_pool(const activity_buffer_pool&) = delete;
  activity_buffer_pool& operator=(const activity_buffer_pool&) = delete;

  // A buffer of buffer_bytes() (all zero when zero_on_return), or nullptr when all are in use:
  // CUPTI then drops records and counts them; refusals() counts these answers.
  std::uint8_t* take();
  // A buffer take() gave, back for reuse (zeroed first when zero_on_return). Nothing else may be
  // given back; nullptr is ignored.
  void give_back(std::uint8_t* buffer);
  // Makes up to `count` more buffers now, on the calling thread, with every page touched, so that
  // take() finds them ready. Never beyond the bound.
  void prepare(std::size_t count);

  std::size_t buffer_bytes() const { return buffer_bytes_; }
  std::size_t made() const;
  std::size_t free_count() const;
  std::uint64_t refusals() const;

 private:
  std::uint8_t* make() const;  // zeroed, pages touched; nullptr when out of memory

  const std::size_t buffer_bytes_;
  const std::size_t max_buffers_;
  const bool zero_on_return_;
  mutable std::mutex mutex_;
  std::vector<std::uint8_t*> free_;
  std::vector<std::uint8_t*> all_;  // every buffer made, freed with the pool
  std::size_t reserved_ = 0;  // made, or being made by prepare()
  std::uint64_t refusals_ = 0;
};

}  // namespace headroom::cupti
