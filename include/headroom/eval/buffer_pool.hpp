#pragma once
// Payload buffers kept for reuse by `headroom eval`'s side of the channel. Reading gigabytes into
// fresh memory costs a page fault per page (3.5 s for 4 GiB on the H200 host, more than the copy);
// a buffer that held an earlier payload has its pages mapped. A problem's reference data (kept
// until its last candidate is judged) and compared outputs come back here, and the next payloads
// are read into them: the smallest kept buffer large enough for each.
#include <cstddef>
#include <mutex>
#include <vector>

namespace headroom::eval {

class buffer_pool {
 public:
  explicit buffer_pool(std::size_t limit_bytes) : limit_(limit_bytes) {}
  // The smallest kept buffer whose capacity holds `bytes` (its size unspecified), or an empty one.
  std::vector<std::byte> take(std::size_t bytes);
  // Keeps `buffer` unless that would hold more than the limit: the smallest buffers go first.
  void give(std::vector<std::byte>&& buffer);
  void set_limit(std::size_t limit_bytes);
  std::size_t limit() const;
  std::size_t kept_bytes() const;
  std::size_t count() const;

 private:
  void trim();  // with the lock held
  mutable std::mutex mutex_;
  std::size_t limit_;
  std::size_t kept_ = 0;
  std::vector<std::vector<std::byte>> buffers_;  // by capacity, the smallest first
};

// The process's pool (4 GiB until the orchestrator sets it from --memory-budget).
buffer_pool& payload_pool();

}  // namespace headroom::eval
