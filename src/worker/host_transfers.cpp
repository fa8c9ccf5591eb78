#include "worker/host_transfers.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>

#include "headroom/util/parallel.hpp"

namespace headroom::worker {
namespace {

// Eight independent sums over 64-byte lines: the loop issues a line's loads per iteration, so the
// memory system, not the adds, sets its pace.
std::uint64_t sum_words(const std::byte* p, std::size_t bytes) {
  const auto* w = reinterpret_cast<const std::uint64_t*>(p);
  const std::size_t words = bytes / 8;
  std::uint64_t a[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= words; i += 8)
    for (int k = 0; k < 8; ++k) a[k] += w[i + k];
  for (; i < words; ++i) a[0] += w[i];
  for (std::size_t b = words * 8; b < bytes; ++b) a[1] += static_cast<std::uint64_t>(p[b]);
  return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

// Pieces of at least 64 KiB, about four per thread, so that the threads share the pass evenly.
std::size_t piece_of(std::size_t bytes, unsigned threads) {
  const std::size_t quarter = (bytes / (4 * std::max(threads, 1u)) + 63) / 64 * 64;
  return std::max<std::size_t>(quarter, 64u << 10);
}

std::atomic<std::uint64_t> sink{0};

constexpr std::size_t serial_up_to = std::size_t{256}
                                     << 20;  // the reads' sums go somewhere, so that no read is left out

double timed_read(const std::byte* p, std::size_t bytes, unsigned threads) {
  const double began = host_ms();
  std::atomic<std::uint64_t> total{0};
  util::for_each_piece(bytes, piece_of(bytes, threads), threads,
                       [&](std::size_t at, std::size_t n) { total += sum_words(p + at, n); });
  const double ms = host_ms() - began;
  sink += total;
  return ms;
}

double timed_write(std::byte* p, std::size_t bytes, unsigned threads, int value) {
  const double began = host_ms();
  util::for_each_piece(bytes, piece_of(bytes, threads), threads,
                       [&](std::size_t at, std::size_t n) { std::memset(p + at, value, n); });
  return host_ms() - began;
}

}  // namespace

transfer_times measure_transfers(device& dev, std::size_t read_bytes, bool read_evicted, std::size_t write_bytes,
                                 int min_repetitions, double seconds, int max_repetitions) {
  transfer_times t;
  const unsigned pool =
      util::chunk_pool::installed() ? util::chunk_pool::installed()->threads() : util::default_threads();
  t.threads = pool;
  // Allocated as a timed call's fresh inputs are (device::allocate: mappings of their own with huge
  // pages from 16 MiB), and written once, so that their pages are mapped, as a call's inputs are
  // when it runs and its outputs' are after the warm-up calls.
  auto* src = read_bytes ? static_cast<std::byte*>(dev.allocate(read_bytes)) : nullptr;
  auto* dst = write_bytes ? static_cast<std::byte*>(dev.allocate(write_bytes)) : nullptr;
  if (src) std::memset(src, 1, read_bytes);
  if (dst) std::memset(dst, 0, write_bytes);
  double best_read = read_bytes ? std::numeric_limits<double>::infinity() : 0;
  double best_write = write_bytes ? std::numeric_limits<double>::infinity() : 0;
  // One thread, then the copy threads: a small transfer is fastest on one, where handing pieces to
  // other threads would cost more than it saves; past a few hundred MiB one thread only adds
  // seconds (6 GiB at a few GB/s, five times).
  const bool serial = read_bytes + write_bytes <= serial_up_to;
  const double began = host_ms();
  for (int rep = 0; rep < max_repetitions; ++rep) {
    for (unsigned threads : {1u, pool}) {
      if (threads == 1 && !serial && pool > 1) continue;
      if (src) {
        if (read_evicted) {
          dev.flush_caches();
          dev.evict(src, read_bytes);
        } else {
          timed_read(src, read_bytes, threads);
        }
        best_read = std::min(best_read, timed_read(src, read_bytes, threads));
      }
      if (dst) {
        dev.flush_caches();
        dev.evict(dst, write_bytes);
        best_write = std::min(best_write, timed_write(dst, write_bytes, threads, rep & 0xff));
      }
      if (pool <= 1) break;
    }
    t.repetitions = rep + 1;
    if (t.repetitions >= min_repetitions && (host_ms() - began) / 1e3 >= seconds) break;
  }
  if (src) dev.release(src);
  if (dst) dev.release(dst);
  t.read_ms = best_read;
  t.write_ms = best_write;
  return t;
}

}  // namespace headroom::worker
