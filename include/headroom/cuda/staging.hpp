#pragma once
// Copies between pageable host memory and the device through two staging buffers (pinned, on the
// GPU): the asynchronous transfer of one slice overlaps the host side of the other. The order of
// waits is the whole of the correctness, so it lives here, apart from CUDA, where a test drives it
// with transfers that run late (tests/cpu/cuda/staging_test.cpp).
//
// Ops: std::byte* buffer(int b)   the staging buffer b (0 or 1), `slice` bytes
//      void wait(int b)            the transfer last started on buffer b is done
//      void to_device(std::byte* dst, const std::byte* buffer, std::size_t n, int b)   start one
//      void to_host(std::byte* buffer, const std::byte* src, std::size_t n, int b)     start one
//      void finish()               every transfer started is done
//      void host_copy(std::byte* to, const std::byte* from, std::size_t n)
//      bool host_equal(const std::byte* a, const std::byte* b, std::size_t n)
#include <algorithm>
#include <cstddef>

namespace headroom::cuda {

template <class Ops>
void staged_to_device(std::byte* dst, const std::byte* src, std::size_t bytes, std::size_t slice, Ops& ops) {
  for (std::size_t at = 0, k = 0; at < bytes; at += slice, ++k) {
    const int b = static_cast<int>(k % 2);
    const std::size_t n = std::min(slice, bytes - at);
    ops.wait(b);  // the transfer that last read this buffer is over
    ops.host_copy(ops.buffer(b), src + at, n);
    ops.to_device(dst + at, ops.buffer(b), n, b);
  }
  ops.finish();
}

template <class Ops>
void staged_to_host(std::byte* dst, const std::byte* src, std::size_t bytes, std::size_t slice, Ops& ops) {
  if (bytes == 0) return;
  ops.to_host(ops.buffer(0), src, std::min(slice, bytes), 0);
  for (std::size_t at = 0, k = 0; at < bytes; at += slice, ++k) {
    const int b = static_cast<int>(k % 2);
    ops.wait(b);
    // The next slice into the other buffer, while this one is copied out (its own last reader, the
    // host copy of the slice before, has returned).
    if (at + slice < bytes)
      ops.to_host(ops.buffer(1 - b), src + at + slice, std::min(slice, bytes - at - slice), 1 - b);
    ops.host_copy(dst + at, ops.buffer(b), std::min(slice, bytes - at));
  }
  ops.finish();
}

// Whether the device's `bytes` at src equal the host's at `host`.
template <class Ops>
bool staged_equal(const std::byte* src, const std::byte* host, std::size_t bytes, std::size_t slice, Ops& ops) {
  if (bytes == 0) return true;
  ops.to_host(ops.buffer(0), src, std::min(slice, bytes), 0);
  for (std::size_t at = 0, k = 0; at < bytes; at += slice, ++k) {
    const int b = static_cast<int>(k % 2);
    ops.wait(b);
    if (at + slice < bytes)
      ops.to_host(ops.buffer(1 - b), src + at + slice, std::min(slice, bytes - at - slice), 1 - b);
    if (!ops.host_equal(ops.buffer(b), host + at, std::min(slice, bytes - at))) {
      ops.finish();  // the next slice's transfer lands before the buffer is used again
      return false;
    }
  }
  ops.finish();
  return true;
}

}  // namespace headroom::cuda
