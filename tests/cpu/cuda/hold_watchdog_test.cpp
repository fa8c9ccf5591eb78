// The word a held stream waits on and its watchdog (worker/hold_watchdog.hpp): the worker opens it
// after the call (1); a call that outlives the hold is let out at the deadline (2), and the worker
// learns that its sample cannot be used; an earlier hold's deadline never opens a later hold.
#include "headroom/cuda/hold_watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using headroom::cuda::hold_watchdog;
using namespace std::chrono_literals;

namespace {
// A watchdog as the worker has one: made once, never destroyed (its thread waits on it for the life
// of the process; destroying a condition variable with a waiter blocks at exit).
hold_watchdog& watchdog_on(std::atomic<std::uint32_t>& word) { return *new hold_watchdog(word); }

// Waits up to `limit` for the word to leave 0.
bool opened_within(const std::atomic<std::uint32_t>& word, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (word.load() == 0) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}
}  // namespace

TEST(HoldWatchdog, OpenedByTheWorkerBeforeTheDeadline) {
  static std::atomic<std::uint32_t> word{1};  // outlives the watchdog's thread
  static hold_watchdog& dog = watchdog_on(word);
  dog.close(500ms);
  EXPECT_EQ(word.load(), 0u);
  EXPECT_TRUE(dog.open());
  EXPECT_EQ(word.load(), 1u);
  std::this_thread::sleep_for(600ms);  // past the deadline: the watchdog must not touch it
  EXPECT_EQ(word.load(), 1u);
}

TEST(HoldWatchdog, OpenedByTheWatchdogWhenTheCallOutlivesTheHold) {
  static std::atomic<std::uint32_t> word{1};
  static hold_watchdog& dog = watchdog_on(word);
  auto began = std::chrono::steady_clock::now();
  dog.close(50ms);
  ASSERT_TRUE(opened_within(word, 2000ms));
  EXPECT_GE(std::chrono::steady_clock::now() - began, 45ms);
  EXPECT_EQ(word.load(), 2u);
  EXPECT_FALSE(dog.open());  // the worker learns its sample was let out
  EXPECT_EQ(word.load(), 2u);
}

// A hold opened and the next one closed at once, while the watchdog is still waiting out the first
// hold's deadline: that deadline must not open the second hold. (Repeated: the watchdog may or may
// not get in between the two.)
TEST(HoldWatchdog, AnEarlierHoldsDeadlineDoesNotOpenALaterHold) {
  static std::atomic<std::uint32_t> word{1};
  static hold_watchdog& dog = watchdog_on(word);
  for (int i = 0; i < 10; ++i) {
    dog.close(50ms);
    std::this_thread::sleep_for(5ms);  // the watchdog now waits for the first deadline
    EXPECT_TRUE(dog.open());
    dog.close(3000ms);
    std::this_thread::sleep_for(90ms);  // the first deadline has passed
    EXPECT_EQ(word.load(), 0u) << "round " << i;
    EXPECT_TRUE(dog.open());
  }
}
