// The CPU's speed-of-light floor measures this host's least time to read and to write a problem's
// bytes in a timed call's conditions (src/worker/host_transfers.hpp).
#include "worker/host_transfers.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "headroom/worker/device.hpp"

namespace headroom::worker {
namespace {

TEST(HostTransfers, NothingToMoveTakesNoTime) {
  auto dev = make_host_device();
  transfer_times t = measure_transfers(*dev, 0, true, 0, 2, 0.0, 2);
  EXPECT_EQ(t.read_ms, 0);
  EXPECT_EQ(t.write_ms, 0);
  EXPECT_EQ(t.repetitions, 2);
}

TEST(HostTransfers, TimesArePositiveAndRepeatedAtLeastTheAskedCount) {
  auto dev = make_host_device();
  transfer_times t = measure_transfers(*dev, 1u << 20, true, 1u << 20, 3, 0.0, 5);
  EXPECT_GT(t.read_ms, 0);
  EXPECT_GT(t.write_ms, 0);
  EXPECT_TRUE(std::isfinite(t.read_ms) && std::isfinite(t.write_ms));
  EXPECT_GE(t.repetitions, 3);
  EXPECT_LE(t.repetitions, 5);
  EXPECT_GE(t.threads, 1u);
}

// 64 MiB evicted is read from memory and 64 KiB read warm from a cache: the bigger transfer takes
// longer (by a factor the machine sets; here only the order is asserted, with room to spare: a
// thousand times the bytes).
TEST(HostTransfers, MoreBytesTakeLonger) {
  auto dev = make_host_device();
  transfer_times small = measure_transfers(*dev, 64u << 10, false, 64u << 10, 5, 0.0, 5);
  transfer_times large = measure_transfers(*dev, 64u << 20, true, 64u << 20, 3, 0.0, 3);
  EXPECT_GT(large.read_ms, small.read_ms);
  EXPECT_GT(large.write_ms, small.write_ms);
}

}  // namespace
}  // namespace headroom::worker
