// The pool of CUPTI's activity buffers (src/cupti/activity_buffers.hpp): what CUPTI is handed is
// zeroed when the session told CUPTI so, the bound holds, and refusals are counted.
#include "activity_buffers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace headroom::cupti {
namespace {

constexpr std::size_t bytes = 64 << 10;

bool all_zero(const std::uint8_t* b, std::size_t n) {
  return std::all_of(b, b + n, [](std::uint8_t v) { return v == 0; });
}

TEST(activity_buffer_pool, a_buffer_comes_back_zeroed_after_cupti_wrote_past_its_valid_bytes) {
  activity_buffer_pool pool(bytes, 1);
  auto* b = pool.take();
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(all_zero(b, bytes));
  std::memset(b, 0xab, bytes);  // records, and the tail of one a forced flush cut short
  pool.give_back(b);
  auto* again = pool.take();
  EXPECT_EQ(again, b);  // reused, not a new allocation
  EXPECT_TRUE(all_zero(again, bytes));
  EXPECT_EQ(pool.made(), 1u);
}

TEST(activity_buffer_pool, left_to_cupti_a_buffer_is_reused_as_it_came_back) {
  activity_buffer_pool pool(bytes, 1, /*zero_on_return=*/false);
  auto* b = pool.take();
  ASSERT_NE(b, nullptr);
  std::memset(b, 0xab, bytes);
  pool.give_back(b);
  auto* again = pool.take();
  ASSERT_EQ(again, b);
  EXPECT_EQ(again[bytes - 1], 0xab);  // CUPTI clears it itself (its default)
}

TEST(activity_buffer_pool, beyond_its_bound_it_refuses_and_counts_until_a_buffer_returns) {
  activity_buffer_pool pool(bytes, 2);
  auto* a = pool.take();
  auto* b = pool.take();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.take(), nullptr);
  EXPECT_EQ(pool.take(), nullptr);
  EXPECT_EQ(pool.refusals(), 2u);
  pool.give_back(a);
  EXPECT_EQ(pool.take(), a);
  EXPECT_EQ(pool.made(), 2u);
  pool.give_back(nullptr);  // ignored
  EXPECT_EQ(pool.free_count(), 0u);
}

TEST(activity_buffer_pool, prepared_buffers_are_ready_zeroed_and_within_the_bound) {
  activity_buffer_pool pool(bytes, 3);
  pool.prepare(2);
  EXPECT_EQ(pool.made(), 2u);
  EXPECT_EQ(pool.free_count(), 2u);
  pool.prepare(5);  // only one more fits
  EXPECT_EQ(pool.made(), 3u);
  std::set<std::uint8_t*> taken;
  for (int i = 0; i < 3; ++i) {
    auto* b = pool.take();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(all_zero(b, bytes));
    taken.insert(b);
  }
  EXPECT_EQ(taken.size(), 3u);
  EXPECT_EQ(pool.take(), nullptr);
  EXPECT_EQ(pool.made(), 3u);
}

TEST(activity_buffer_pool, threads_taking_and_returning_at_once_never_share_a_buffer_or_pass_the_bound) {
  // CUPTI asks from the program's threads and completes on its own while the flush thread prepares.
  constexpr std::size_t bound = 4;
  activity_buffer_pool pool(4096, bound);
  std::vector<std::thread> threads;
  std::atomic<int> shared{0};
  std::atomic<std::uint64_t> refused{0};
  threads.emplace_back([&] { pool.prepare(bound); });
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto* b = pool.take();
        if (b == nullptr) {
          ++refused;
          continue;
        }
        // A buffer held by two threads at once would see the other's mark.
        if (b[0] != 0) ++shared;
        b[0] = static_cast<std::uint8_t>(t + 1);
        b[4095] = 1;
        pool.give_back(b);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(shared.load(), 0);
  EXPECT_LE(pool.made(), bound);
  EXPECT_EQ(pool.refusals(), refused.load());
  EXPECT_EQ(pool.free_count(), pool.made());
}

}  // namespace
}  // namespace headroom::cupti
