// The placement experiment's pads (worker/placement.hpp): off, nothing moves; on, every allocation
// starts at a 64 KiB multiple under 4 MiB past its memory, and freeing finds the memory's start.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "worker/placement.hpp"

namespace headroom::eval {
namespace {

TEST(PlacementPad, OffHandsOutTheMemoryItself) {
  placement_pad pads(false);
  char buffer[16];
  EXPECT_EQ(pads.pad(), 0u);
  EXPECT_EQ(pads.hand_out(buffer, 0), buffer);
  EXPECT_EQ(pads.take_back(buffer), buffer);
}

TEST(PlacementPad, OnMovesEachAllocationAndFreesItsStart) {
  placement_pad pads(true);
  std::set<std::size_t> seen;
  for (int i = 0; i < 2000; ++i) {
    std::size_t pad = pads.pad();
    EXPECT_EQ(pad % placement_pad::step, 0u);
    EXPECT_LT(pad, placement_pad::step * placement_pad::steps);
    seen.insert(pad);
  }
  EXPECT_GT(seen.size(), placement_pad::steps / 2);  // spread over the range, not one place

  // Two allocations at once: each pointer frees its own memory's start, once.
  std::vector<char> a(8 << 20), b(8 << 20);
  void* pa = pads.hand_out(a.data(), 3 * placement_pad::step);
  void* pb = pads.hand_out(b.data(), 5 * placement_pad::step);
  EXPECT_EQ(static_cast<char*>(pa) - a.data(), static_cast<std::ptrdiff_t>(3 * placement_pad::step));
  EXPECT_EQ(pads.take_back(pb), b.data());
  EXPECT_EQ(pads.take_back(pa), a.data());
  EXPECT_EQ(pads.take_back(pa), pa);  // forgotten: not freed twice through a stale entry
  EXPECT_EQ(pads.hand_out(nullptr, 4 * placement_pad::step), nullptr);  // a failed allocation stays null
}

}  // namespace
}  // namespace headroom::eval
