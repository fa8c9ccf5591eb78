// A byte_source read ahead on a thread of its own: the thread reads (and for gzip, inflates) blocks
// into a small ring while the caller parses the previous ones, so a .json.gz costs the parser's
// time rather than the parser's plus the inflater's. Memory: at most `blocks` blocks of
// `block_bytes` beside the caller's buffer.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "byte_source.hpp"

namespace headroom::trace::detail {
namespace {

constexpr std::size_t block_bytes = std::size_t{4} << 20;
constexpr std::size_t blocks = 4;

class read_ahead_source final : public byte_source {
 public:
  explicit read_ahead_source(std::unique_ptr<byte_source> inner)
      : inner_(std::move(inner)), total_(inner_->total()), compressed_(inner_->compressed()) {
    for (std::size_t i = 0; i < blocks; ++i) free_.emplace_back(block_bytes);
    thread_ = std::thread([this] { produce(); });
  }

  ~read_ahead_source() override {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  std::size_t read(char* dst, std::size_t n) override {
    std::size_t done = 0;
    while (done < n) {
      if (at_ == current_.size) {
        if (!next_block()) break;
        continue;
      }
      const std::size_t k = std::min(n - done, current_.size - at_);
      std::memcpy(dst + done, current_.bytes.data() + at_, k);
      at_ += k;
      done += k;
    }
    return done;
  }

  std::uint64_t consumed() const override { return current_.consumed; }
  std::uint64_t total() const override { return total_; }
  bool compressed() const override { return compressed_; }

 private:
  struct block {
    explicit block(std::size_t capacity = 0) : bytes(capacity) {}
    std::vector<char> bytes;
    std::size_t size = 0;
    std::uint64_t consumed = 0;  // the inner source's consumed() once this block was read
  };

  // The caller's side: hands the spent block back and takes the next; false at the end.
  bool next_block() {
    if (ended_) return false;
    std::unique_lock lock(mutex_);
    if (!current_.bytes.empty()) free_.push_back(std::move(current_));
    changed_.notify_all();
    changed_.wait(lock, [this] { return !ready_.empty(); });
    current_ = std::move(ready_.front());
    ready_.pop_front();
    at_ = 0;
    if (current_.size != 0) return true;
    // The end: the thread has stopped, so what it left is safe to read.
    ended_ = true;
    damage_ = inner_->damage();
    if (failure_) std::rethrow_exception(failure_);
    return false;
  }

  // The thread's side: fills free blocks until the input ends (an empty block says so).
  void produce() {
    for (;;) {
      block b;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || !free_.empty(); });
        if (stop_) return;
        b = std::move(free_.front());
        free_.pop_front();
      }
      try {
        b.size = inner_->read(b.bytes.data(), b.bytes.size());
      } catch (...) {
        failure_ = std::current_exception();
        b.size = 0;
      }
      b.consumed = inner_->consumed();
      const bool last = b.size == 0;
      {
        const std::lock_guard lock(mutex_);
        ready_.push_back(std::move(b));
      }
      changed_.notify_all();
      if (last) return;
    }
  }

  std::unique_ptr<byte_source> inner_;
  const std::uint64_t total_;
  const bool compressed_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<block> free_;
  std::deque<block> ready_;
  bool stop_ = false;
  std::exception_ptr failure_;  // written by the thread before its last block

  block current_;  // the caller's
  std::size_t at_ = 0;
  bool ended_ = false;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace

std::unique_ptr<byte_source> make_read_ahead_source(std::unique_ptr<byte_source> inner) {
  return std::make_unique<read_ahead_source>(std::move(inner));
}

}  // namespace headroom::trace::detail
