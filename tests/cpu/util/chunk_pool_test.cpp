// The worker's persistent copy threads (src/eval/parallel.hpp, chunk_pool): every chunk runs
// exactly once, an exception comes back to the caller, a loop nested in a chunk runs serially,
// and the process's thread count does not move while loops run on the pool, which is why it
// exists (the worker counts threads around a candidate's call to find one left running).
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "headroom/util/parallel.hpp"

namespace {

using headroom::util::chunk_pool;
using headroom::util::for_each_chunk;

// Installs a pool for one test and removes it after, whatever the test's outcome.
struct installed_pool {
  chunk_pool pool;
  explicit installed_pool(unsigned threads) : pool(threads) { chunk_pool::installed() = &pool; }
  ~installed_pool() { chunk_pool::installed() = nullptr; }
};

TEST(ChunkPool, RunsEveryChunkOnceAcrossManyRuns) {
  installed_pool p(4);
  for (int round = 0; round < 200; ++round) {
    const std::size_t chunks = 1 + round % 37;
    std::vector<std::atomic<int>> hits(chunks);
    for_each_chunk(chunks, 0, [&](std::size_t c) { hits[c]++; });
    for (std::size_t c = 0; c < chunks; ++c) ASSERT_EQ(hits[c].load(), 1) << "round " << round << " chunk " << c;
  }
}

TEST(ChunkPool, UsesItsHelperThreads) {
  installed_pool p(4);
  std::atomic<int> concurrent{0}, most{0};
  for_each_chunk(64, 0, [&](std::size_t) {
    int now = ++concurrent;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {}
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --concurrent;
  });
  EXPECT_GT(most.load(), 1);
}

TEST(ChunkPool, RethrowsTheFirstErrorAndStaysUsable) {
  installed_pool p(3);
  EXPECT_THROW(for_each_chunk(50, 0,
                              [&](std::size_t c) {
                                if (c == 7) throw std::runtime_error("chunk 7");
                              }),
               std::runtime_error);
  std::atomic<std::size_t> sum{0};
  for_each_chunk(10, 0, [&](std::size_t c) { sum += c; });
  EXPECT_EQ(sum.load(), 45u);
}

TEST(ChunkPool, NestedLoopsRunSeriallyInsideAChunk) {
  installed_pool p(4);
  std::atomic<int> inner{0};
  for_each_chunk(8, 0, [&](std::size_t) { for_each_chunk(5, 0, [&](std::size_t) { inner++; }); });
  EXPECT_EQ(inner.load(), 40);
}

TEST(ChunkPool, ThreadCountStaysPutWhileLoopsRun) {
  installed_pool p(6);
  const int before = headroom::util::count_threads();
  for (int round = 0; round < 100; ++round) {
    for_each_chunk(32, 0, [](std::size_t) {});
    ASSERT_EQ(headroom::util::count_threads(), before) << "round " << round;
  }
}

TEST(ChunkPool, SerialRequestsStayOnTheCallingThread) {
  installed_pool p(4);
  const auto caller = std::this_thread::get_id();
  for_each_chunk(16, 1, [&](std::size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
}

}  // namespace
