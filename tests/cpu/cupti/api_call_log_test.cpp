// The rings of API calls our CUPTI callbacks record (src/cupti/api_call_log.hpp): every call a
// thread appends comes out of a drain once, in the thread's order; a full ring drops and counts
// instead of blocking; a thread that ended leaves its calls to be drained.
#include "api_call_log.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

namespace headroom::cupti {
namespace {

api_record call(std::uint32_t thread, std::uint32_t correlation) {
  api_record r{};
  r.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  r.threadId = thread;
  r.correlationId = correlation;
  r.start = correlation * 10;
  r.end = correlation * 10 + 5;
  return r;
}

std::vector<std::uint32_t> drain_ids(api_call_log& log) {
  std::vector<std::uint32_t> ids;
  log.drain([&](const api_record& r) { ids.push_back(r.correlationId); });
  return ids;
}

TEST(api_call_log, a_drain_hands_over_each_call_once_in_order) {
  api_call_log log(8);
  for (std::uint32_t i = 1; i <= 5; ++i) log.append(call(1, i));
  EXPECT_EQ(drain_ids(log), (std::vector<std::uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(drain_ids(log).empty());
  log.append(call(1, 6));
  EXPECT_EQ(drain_ids(log), (std::vector<std::uint32_t>{6}));
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(api_call_log, a_full_ring_drops_and_counts_and_takes_calls_again_after_a_drain) {
  api_call_log log(4);  // a power of two already
  ASSERT_EQ(log.ring_records(), 4u);
  for (std::uint32_t i = 1; i <= 7; ++i) log.append(call(1, i));
  EXPECT_EQ(log.dropped(), 3u);
  EXPECT_EQ(drain_ids(log), (std::vector<std::uint32_t>{1, 2, 3, 4}));
  // Wrapping past the end of the slots keeps the order.
  for (std::uint32_t i = 8; i <= 11; ++i) log.append(call(1, i));
  EXPECT_EQ(drain_ids(log), (std::vector<std::uint32_t>{8, 9, 10, 11}));
  EXPECT_EQ(log.dropped(), 3u);
}

TEST(api_call_log, the_ring_size_rounds_up_to_a_power_of_two) {
  EXPECT_EQ(api_call_log(1000).ring_records(), 1024u);
  EXPECT_EQ(api_call_log(0).ring_records(), 2u);
}

TEST(api_call_log, threads_append_at_once_while_another_drains_and_nothing_is_lost) {
  constexpr std::uint32_t threads = 4, per_thread = 20000;
  api_call_log log(1 << 16);
  std::map<std::uint32_t, std::vector<std::uint32_t>> seen;  // by thread: correlation ids in order
  std::atomic<int> running{threads};
  std::vector<std::thread> pool;
  for (std::uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::uint32_t i = 0; i < per_thread; ++i) log.append(call(t, i));
      running.fetch_sub(1);
    });
  }
  const auto sink = [&](const api_record& r) { seen[r.threadId].push_back(r.correlationId); };
  while (running.load() > 0) log.drain(sink);
  for (auto& th : pool) th.join();
  log.drain(sink);  // what the threads left after they ended
  EXPECT_EQ(log.dropped(), 0u);
  EXPECT_EQ(log.threads(), threads);
  ASSERT_EQ(seen.size(), threads);
  for (const auto& [thread, ids] : seen) {
    ASSERT_EQ(ids.size(), per_thread) << "thread " << thread;
    for (std::uint32_t i = 0; i < per_thread; ++i) ASSERT_EQ(ids[i], i) << "thread " << thread;
  }
}

TEST(api_call_log, two_logs_on_one_thread_keep_their_own_rings) {
  api_call_log a(8), b(8);
  a.append(call(1, 1));
  b.append(call(1, 2));
  a.append(call(1, 3));
  EXPECT_EQ(drain_ids(a), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(drain_ids(b), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(a.threads(), 1u);  // one ring for this thread, not one for each switch between logs
  EXPECT_EQ(b.threads(), 1u);
}

}  // namespace
}  // namespace headroom::cupti
