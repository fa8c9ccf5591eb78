// Alternating calls (src/eval/call_alternation.hpp): two workers' timings on two threads take their
// calls strictly in turn, the first side first; a side whose request ends never holds the other up;
// and a side waits (its sandbox frozen) only while the other has the turn.
#include "call_alternation.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <thread>

namespace {

using headroom::eval::call_alternation;

// Each side runs `calls[side]` calls, each one asked for first, and records which side ran when.
std::string run_alternating(int calls0, int calls1) {
  call_alternation turns;
  std::mutex m;
  std::string order;
  auto side = [&](int s, int calls) {
    for (int i = 0; i < calls; ++i) {
      turns.before_call(s);
      std::lock_guard lock(m);
      order += static_cast<char>('A' + s);
    }
    turns.end(s);  // the request's answer: done
  };
  // The second side starts first: it must still wait for the first side's call.
  std::thread second(side, 1, calls1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::thread first(side, 0, calls0);
  first.join();
  second.join();
  return order;
}

TEST(CallAlternation, CallsTakeTurnsFirstSideFirst) { EXPECT_EQ(run_alternating(5, 5), "ABABABABAB"); }

TEST(CallAlternation, ASideWhoseRequestEndedHoldsNobodyUp) {
  EXPECT_EQ(run_alternating(2, 5), "ABABBBB");
  EXPECT_EQ(run_alternating(5, 1), "ABAAAA");
  EXPECT_EQ(run_alternating(0, 3), "BBB");
}

TEST(CallAlternation, ASideIsFrozenOnlyWhileTheOtherHasTheTurn) {
  call_alternation turns;
  int frozen[2] = {0, 0}, thawed[2] = {0, 0};
  std::mutex m;
  std::string order;
  auto side = [&](int s) {
    for (int i = 0; i < 3; ++i) {
      turns.before_call(
          s, [&] { ++frozen[s]; }, [&] { ++thawed[s]; });
      std::lock_guard lock(m);
      order += static_cast<char>('A' + s);
    }
    turns.end(s);
  };
  std::thread first(side, 0);
  std::thread second(side, 1);
  first.join();
  second.join();
  EXPECT_EQ(order, "ABABAB");
  // The first side waits before its second and third calls; the second before its second and third,
  // and before its first when it asked before the first side's first call was over.
  EXPECT_EQ(frozen[0], 2);
  EXPECT_GE(frozen[1], 2);
  EXPECT_LE(frozen[1], 3);
  EXPECT_EQ(thawed[0], frozen[0]);  // every freeze is undone before that side's call
  EXPECT_EQ(thawed[1], frozen[1]);
}

}  // namespace
