// The parent's pool of payload buffers: the smallest buffer that fits is handed out, and the pool
// never keeps more than its limit (the smallest buffers go first).
#include "headroom/eval/buffer_pool.hpp"

#include <gtest/gtest.h>

using headroom::eval::buffer_pool;

namespace {
std::vector<std::byte> of_capacity(std::size_t n) {
  std::vector<std::byte> b;
  b.reserve(n);
  return b;
}
}  // namespace

TEST(BufferPool, HandsOutTheSmallestBufferThatFits) {
  buffer_pool pool(1000);
  pool.give(of_capacity(100));
  pool.give(of_capacity(400));
  pool.give(of_capacity(200));
  EXPECT_EQ(pool.take(150).capacity(), 200u);
  EXPECT_EQ(pool.take(150).capacity(), 400u);
  EXPECT_EQ(pool.take(150).capacity(), 0u);  // only 100 is left: nothing fits
  EXPECT_EQ(pool.count(), 1u);
  EXPECT_EQ(pool.take(0).capacity(), 100u);
}

TEST(BufferPool, KeepsNoMoreThanItsLimitDroppingTheSmallestFirst) {
  buffer_pool pool(1000);
  pool.give(of_capacity(300));
  pool.give(of_capacity(500));
  pool.give(of_capacity(400));  // 1200 kept: the 300 goes
  EXPECT_EQ(pool.kept_bytes(), 900u);
  EXPECT_EQ(pool.take(301).capacity(), 400u);
  pool.give(of_capacity(2000));  // larger than the limit on its own: not kept
  EXPECT_EQ(pool.kept_bytes(), 500u);
  pool.set_limit(100);
  EXPECT_EQ(pool.kept_bytes(), 0u);
  pool.give(std::vector<std::byte>());  // nothing to keep
  EXPECT_EQ(pool.count(), 0u);
}
