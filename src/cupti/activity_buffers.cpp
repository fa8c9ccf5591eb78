#include "activity_buffers.hpp"

#include <cstdlib>
#include <cstring>

namespace headroom::cupti {

activity_buffer_pool::activity_buffer_pool(std::size_t buffer_bytes, std::size_t max_buffers, bool zero_on_return)
    : buffer_bytes_(buffer_bytes), max_buffers_(max_buffers), zero_on_return_(zero_on_return) {
  all_.reserve(max_buffers);
  free_.reserve(max_buffers);
}

activity_buffer_pool::~activity_buffer_pool() {
  for (auto* b : all_) std::free(b);
}

std::uint8_t* activity_buffer_pool::make() const {
  // calloc's alignment (16) covers the 8 bytes CUPTI requires. Its memory reads as zero but its
  // pages may not exist yet: writing them here makes them, so CUPTI's first records do not.
  auto* b = static_cast<std::uint8_t*>(std::calloc(1, buffer_bytes_));
  if (b != nullptr) std::memset(b, 0, buffer_bytes_);
  return b;
}

std::uint8_t* activity_buffer_pool::take() {
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      auto* b = free_.back();
      free_.pop_back();
      return b;
    }
    if (reserved_ >= max_buffers_) {
      ++refusals_;
      return nullptr;
    }
    ++reserved_;
  }
  // Made on the asking thread: only when prepare() made too few, or the program outran the
  // buffers coming back.
  auto* b = make();
  std::lock_guard lock(mutex_);
  if (b == nullptr) {
    --reserved_;
    ++refusals_;
    return nullptr;
  }
  all_.push_back(b);
  return b;
}

void activity_buffer_pool::give_back(std::uint8_t* buffer) {
  if (buffer == nullptr) return;
  // All of it: a forced flush can leave a record cut short past the bytes CUPTI reported valid.
  if (zero_on_return_) std::memset(buffer, 0, buffer_bytes_);
  std::lock_guard lock(mutex_);
  free_.push_back(buffer);
}

void activity_buffer_pool::prepare(std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    {
      std::lock_guard lock(mutex_);
      if (reserved_ >= max_buffers_) return;
      ++reserved_;
    }
    auto* b = make();
    std::lock_guard lock(mutex_);
    if (b == nullptr) {
      --reserved_;
      return;
    }
    all_.push_back(b);
    free_.push_back(b);
  }
}

std::size_t activity_buffer_pool::made() const {
  std::lock_guard lock(mutex_);
  return all_.size();
}

std::size_t activity_buffer_pool::free_count() const {
  std::lock_guard lock(mutex_);
  return free_.size();
}

std::uint64_t activity_buffer_pool::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

}  // namespace headroom::cupti
