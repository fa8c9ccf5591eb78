#pragma once
// Passes over multi-gigabyte tensors in the parent (the comparison, the unwritten count, the
// audit's fakes) split into fixed chunks of elements that threads take in turn. The chunks do not
// depend on the thread count and callers combine per-chunk results in chunk order, so a result (a
// compensated sum, a count, the first mismatches) is the same with one thread or sixteen.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace headroom::eval::detail {

// Elements per chunk: a multiple of the checker's summation block, small enough that sixteen
// threads share a 100 MB output evenly, large enough that a chunk's bookkeeping is noise.
inline constexpr std::size_t chunk_elements = std::size_t{1} << 18;

inline std::size_t chunk_count(std::size_t elements) { return (elements + chunk_elements - 1) / chunk_elements; }

// The machine's cores, at most 16: these loops are bound by memory bandwidth, which a few threads
// saturate, and several devices' evaluations may be comparing at once.
inline unsigned default_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 16u); }

// Calls f(chunk) for every chunk in [0, chunks) from up to `threads` threads (0: default_threads()),
// the calling thread among them. An exception from f stops the remaining chunks and is rethrown.
template <class F> void for_each_chunk(std::size_t chunks, unsigned threads, F&& f) {
  if (threads == 0) threads = default_threads();
  const std::size_t workers = std::min<std::size_t>(threads, chunks);
  if (workers <= 1) {
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
template <class F> void for_each_range(std::size_t n, unsigned threads, F&& f) {
  for_each_chunk(chunk_count(n), threads, [&](std::size_t c) {
    const std::size_t begin = c * chunk_elements;
    f(begin, std::min(n, begin + chunk_elements), c);
  });
}

}  // namespace headroom::eval::detail
