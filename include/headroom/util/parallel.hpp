#pragma once
// Passes over multi-gigabyte tensors in the parent (the comparison, the unwritten count, the
// audit's fakes) split into fixed chunks of elements that threads take in turn. The chunks do not
// depend on the thread count and callers combine per-chunk results in chunk order, so a result (a
// compensated sum, a count, the first mismatches) is the same with one thread or sixteen.
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace headroom::util {

// Elements per chunk: a multiple of the checker's summation block, small enough that sixteen
// threads share a 100 MB output evenly, large enough that a chunk's bookkeeping is noise.
inline constexpr std::size_t chunk_elements = std::size_t{1} << 18;

inline std::size_t chunk_count(std::size_t elements) { return (elements + chunk_elements - 1) / chunk_elements; }

// The machine's cores, at most 16: these loops are bound by memory bandwidth, which a few threads
// saturate, and several devices' evaluations may be comparing at once.
inline unsigned default_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 16u); }

// The threads of this process now, as /proc/self/task lists them (0 where there is no /proc).
inline int count_threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// Threads started once and kept for the life of a process that must not start or end threads
// while it works. The evaluation worker counts its threads around a candidate's call to find one
// the candidate left running; a copy thread of its own, even one just joined, can still be listed
// in /proc/self/task for a moment and hide it. With a pool installed, every for_each_chunk of the
// process (other than the serial ones, threads == 1) runs on the pool's threads.
class chunk_pool {
 public:
  // `threads` in all, the calling thread of each run among them.
  explicit chunk_pool(unsigned threads) {
    for (unsigned t = 1; t < std::max(threads, 1u); ++t) helpers_.emplace_back([this] { serve(); });
  }
  chunk_pool(const chunk_pool&) = delete;
  chunk_pool& operator=(const chunk_pool&) = delete;
  ~chunk_pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
  }
  unsigned threads() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // f(chunk) for every chunk in [0, chunks); returns when all are done. An exception from f stops
  // the remaining chunks and is rethrown. One run at a time (a second caller waits).
  void run(std::size_t chunks, const std::function<void(std::size_t)>& f) {
    std::lock_guard one_run(run_mutex_);
    {
      std::lock_guard lock(mutex_);
      job_ = &f;
      chunks_ = chunks;
      next_ = 0;
      error_ = nullptr;
      busy_ = helpers_.size();
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  static chunk_pool*& installed() {
    static chunk_pool* pool = nullptr;
    return pool;
  }
  // True on a pool's own thread while it runs a chunk: a loop nested in a chunk runs serially.
  static bool& inside() {
    thread_local bool in = false;
    return in;
  }

 private:
  void serve() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      work();
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
  void work() {
    inside() = true;
    try {
      for (std::size_t c; (c = next_++) < chunks_;) (*job_)(c);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_ = chunks_;
    }
    inside() = false;
  }

  std::vector<std::thread> helpers_;
  std::mutex run_mutex_, mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t chunks_ = 0;
  std::atomic<std::size_t> next_{0};
  std::size_t busy_ = 0;
  std::uint64_t generation_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
};

// Calls f(chunk) for every chunk in [0, chunks) from up to `threads` threads (0: default_threads()),
// the calling thread among them; on the installed chunk_pool's threads when there is one. An
// exception from f stops the remaining chunks and is rethrown.
template <class F>
void for_each_chunk(std::size_t chunks, unsigned threads, F&& f) {
  if (threads == 0) threads = default_threads();
  if (threads > 1 && chunks > 1 && chunk_pool::installed() && !chunk_pool::inside()) {
    chunk_pool::installed()->run(chunks, std::function<void(std::size_t)>(std::ref(f)));
    return;
  }
  const std::size_t workers = std::min<std::size_t>(threads, chunks);
  if (workers <= 1 || chunk_pool::inside()) {
    for (std::size_t c = 0; c < chunks; ++c) f(c);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      for (std::size_t c; (c = next++) < chunks;) f(c);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = chunks;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// The same over the elements [0, n): f(begin, end, chunk) for each chunk's range.
template <class F>
void for_each_range(std::size_t n, unsigned threads, F&& f) {
  for_each_chunk(chunk_count(n), threads, [&](std::size_t c) {
    const std::size_t begin = c * chunk_elements;
    f(begin, std::min(n, begin + chunk_elements), c);
  });
}

// The same over bytes: f(offset, length) for each piece of `piece` bytes of [0, bytes).
template <class F>
void for_each_piece(std::size_t bytes, std::size_t piece, unsigned threads, F&& f) {
  for_each_chunk((bytes + piece - 1) / piece, threads, [&](std::size_t c) {
    const std::size_t at = c * piece;
    f(at, std::min(piece, bytes - at));
  });
}

// memcpy of gigabytes in pieces shared among threads: page faults and copies both scale.
inline void copy_in_pieces(std::byte* to, const std::byte* from, std::size_t bytes, std::size_t piece,
                           unsigned threads) {
  for_each_piece(bytes, piece, threads, [&](std::size_t at, std::size_t n) { std::memcpy(to + at, from + at, n); });
}

}  // namespace headroom::util
