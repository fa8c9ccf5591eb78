#include "headroom/eval/buffer_pool.hpp"

#include <algorithm>

namespace headroom::eval {

std::vector<std::byte> buffer_pool::take(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  auto it = std::lower_bound(buffers_.begin(), buffers_.end(), bytes,
                             [](const std::vector<std::byte>& b, std::size_t n) { return b.capacity() < n; });
  if (it == buffers_.end()) return {};
  std::vector<std::byte> out = std::move(*it);
  buffers_.erase(it);
  kept_ -= out.capacity();
  return out;
}

void buffer_pool::give(std::vector<std::byte>&& buffer) {
  if (buffer.capacity() == 0) return;
  std::vector<std::byte> b = std::move(buffer);
  std::lock_guard lock(mutex_);
  if (b.capacity() > limit_) return;  // freed here
  auto it = std::upper_bound(buffers_.begin(), buffers_.end(), b.capacity(),
                             [](std::size_t n, const std::vector<std::byte>& x) { return n < x.capacity(); });
  kept_ += b.capacity();
  buffers_.insert(it, std::move(b));
  trim();
}

void buffer_pool::set_limit(std::size_t limit_bytes) {
  std::lock_guard lock(mutex_);
  limit_ = limit_bytes;
  trim();
}

void buffer_pool::trim() {
  while (kept_ > limit_ && !buffers_.empty()) {
    kept_ -= buffers_.front().capacity();
    buffers_.erase(buffers_.begin());
  }
}

std::size_t buffer_pool::limit() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

std::size_t buffer_pool::kept_bytes() const {
  std::lock_guard lock(mutex_);
  return kept_;
}

std::size_t buffer_pool::count() const {
  std::lock_guard lock(mutex_);
  return buffers_.size();
}

buffer_pool& payload_pool() {
  static buffer_pool pool(std::size_t{4} << 30);
  return pool;
}

}  // namespace headroom::eval
