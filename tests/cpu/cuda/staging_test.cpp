// The staged copies of the evaluation worker (src/eval/worker/staging.hpp), driven by fake
// transfers that run late: a transfer only happens when a wait or finish makes it, as a DMA on a
// stream would at the latest. A staging buffer reused before the transfer that reads or fills it
// is done would then copy the wrong bytes, so the tests see every ordering mistake as wrong data.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "headroom/cuda/staging.hpp"

namespace {

using namespace headroom::cuda;

struct late_transfers {
  explicit late_transfers(std::size_t slice) : buffers{std::vector<std::byte>(slice), std::vector<std::byte>(slice)} {}
  std::vector<std::byte> buffers[2];
  struct transfer {
    int buffer;
    std::function<void()> run;
  };
  std::deque<transfer> queue;  // in stream order
  int started = 0, host_copies = 0;

  std::byte* buffer(int b) { return buffers[b].data(); }
  // Runs the stream up to and including the last transfer on buffer b (events complete in order).
  void wait(int b) {
    std::size_t last = queue.size();
    for (std::size_t i = 0; i < queue.size(); ++i)
      if (queue[i].buffer == b) last = i;
    if (last == queue.size()) return;
    for (std::size_t i = 0; i <= last; ++i) {
      queue.front().run();
      queue.pop_front();
    }
  }
  void to_device(std::byte* dst, const std::byte* buf, std::size_t n, int b) {
    // The bytes are read when the transfer runs, not now: a buffer overwritten before then shows.
    queue.push_back({b, [=] { std::memcpy(dst, buf, n); }});
    ++started;
  }
  void to_host(std::byte* buf, const std::byte* src, std::size_t n, int b) {
    queue.push_back({b, [=] { std::memcpy(buf, src, n); }});
    ++started;
  }
  void finish() {
    while (!queue.empty()) {
      queue.front().run();
      queue.pop_front();
    }
  }
  void host_copy(std::byte* to, const std::byte* from, std::size_t n) {
    std::memcpy(to, from, n);
    ++host_copies;
  }
  bool host_equal(const std::byte* a, const std::byte* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }
};

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::byte((i * 131 + seed * 7 + i / 251) & 0xff);
  return v;
}

constexpr std::size_t slice = 64;
const std::size_t sizes[] = {1, slice - 1, slice, slice + 1, 2 * slice, 3 * slice + 5, 17 * slice + 63};

// One staged copy (to the device or to the host) of every size: every byte arrives, no transfer is
// left running, one transfer and one host copy per slice.
template <class Copy>
void expect_exact_copies(Copy copy, unsigned seed) {
  for (std::size_t n : sizes) {
    late_transfers ops(slice);
    auto src = pattern(n, seed);
    std::vector<std::byte> dst(n, std::byte{0xEE});
    copy(dst.data(), src.data(), n, slice, ops);
    EXPECT_EQ(dst, src) << n << " bytes";
    EXPECT_TRUE(ops.queue.empty()) << "transfers left running after the copy returned";
    EXPECT_EQ(ops.started, static_cast<int>((n + slice - 1) / slice));
    EXPECT_EQ(ops.host_copies, static_cast<int>((n + slice - 1) / slice));
  }
}

TEST(Staging, ToDeviceCopiesEveryByteWithLateTransfers) { expect_exact_copies(staged_to_device<late_transfers>, 1); }

TEST(Staging, ToHostCopiesEveryByteWithLateTransfers) { expect_exact_copies(staged_to_host<late_transfers>, 2); }

TEST(Staging, EqualFindsADifferenceInAnySlice) {
  for (std::size_t n : sizes) {
    auto device = pattern(n, 3);
    {
      late_transfers ops(slice);
      EXPECT_TRUE(staged_equal(device.data(), device.data(), n, slice, ops)) << n;
      EXPECT_TRUE(ops.queue.empty());
    }
    for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
      auto host = device;
      host[at] ^= std::byte{1};
      late_transfers ops(slice);
      EXPECT_FALSE(staged_equal(device.data(), host.data(), n, slice, ops)) << n << " bytes, byte " << at;
      EXPECT_TRUE(ops.queue.empty()) << "a transfer into a staging buffer still running after the answer";
    }
  }
}

TEST(Staging, NothingToCopy) {
  late_transfers ops(slice);
  std::byte b{};
  staged_to_device(&b, &b, 0, slice, ops);
  staged_to_host(&b, &b, 0, slice, ops);
  EXPECT_TRUE(staged_equal(&b, &b, 0, slice, ops));
  EXPECT_EQ(ops.started, 0);
}

}  // namespace
