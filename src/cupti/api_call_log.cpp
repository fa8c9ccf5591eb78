#include "api_call_log.hpp"

#include <bit>
#include <thread>

namespace headroom::cupti {

struct api_call_log::ring {
  explicit ring(std::size_t capacity) : owner(std::this_thread::get_id()), slots(capacity) {}
  std::thread::id owner;
  std::vector<api_record> slots;
  // head: written by the thread (next free slot); tail: written by the drainer (next unread).
  // Both only grow; a slot is head % size.
  alignas(64) std::atomic<std::uint64_t> head{0};
  alignas(64) std::atomic<std::uint64_t> tail{0};
};

namespace {
std::atomic<std::uint64_t> next_log_id{1};

struct thread_ring {
  std::uint64_t log_id = 0;
  void* ring = nullptr;
};
thread_local thread_ring this_thread_ring;
}  // namespace

api_call_log::api_call_log(std::size_t ring_records)
    : capacity_(std::bit_ceil(ring_records < 2 ? std::size_t{2} : ring_records)), id_(next_log_id.fetch_add(1)) {}

api_call_log::~api_call_log() = default;

api_call_log::ring* api_call_log::ring_for_this_thread() noexcept {
  auto& mine = this_thread_ring;
  if (mine.log_id == id_) return static_cast<ring*>(mine.ring);
  try {
    std::lock_guard lock(rings_mutex_);
    // This thread may have a ring already, if it last appended to another log.
    for (const auto& r : rings_) {
      if (r->owner == std::this_thread::get_id()) {
        mine = {id_, r.get()};
        return r.get();
      }
    }
    rings_.push_back(std::make_unique<ring>(capacity_));
    mine = {id_, rings_.back().get()};
    return rings_.back().get();
  } catch (...) {
    return nullptr;
  }
}

void api_call_log::append(const api_record& record) noexcept {
  ring* r = ring_for_this_thread();
  if (r == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const auto head = r->head.load(std::memory_order_relaxed);
  if (head - r->tail.load(std::memory_order_acquire) >= capacity_) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  r->slots[head & (capacity_ - 1)] = record;
  r->head.store(head + 1, std::memory_order_release);
}

std::size_t api_call_log::drain(const std::function<void(const api_record&)>& sink) {
  std::vector<ring*> rings;
  {
    std::lock_guard lock(rings_mutex_);
    rings.reserve(rings_.size());
    for (const auto& r : rings_) rings.push_back(r.get());
  }
  std::size_t drained = 0;
  for (ring* r : rings) {
    const auto head = r->head.load(std::memory_order_acquire);
    auto tail = r->tail.load(std::memory_order_relaxed);
    for (; tail != head; ++tail, ++drained) sink(r->slots[tail & (capacity_ - 1)]);
    r->tail.store(tail, std::memory_order_release);
  }
  return drained;
}

std::size_t api_call_log::threads() const {
  std::lock_guard lock(rings_mutex_);
  return rings_.size();
}

}  // namespace headroom::cupti
