// The pace in eval's progress lines: evaluations an hour over those finished in this process, and the
// rest at that pace.
#include <gtest/gtest.h>

#include "headroom/report/eval_pace.hpp"

using namespace headroom::report;
using std::chrono::seconds;

TEST(EvalPace, EvaluationsAnHourAndTheRestAtThatPace) {
  const auto t0 = eval_pace::clock::time_point{};
  eval_pace pace(t0);
  EXPECT_EQ(pace.finished(1, 11, t0 + seconds(12)), "300/h, about 2 min left");  // 10 more at 12 s
  EXPECT_EQ(pace.finished(2, 11, t0 + seconds(18)), "400/h, about 81 s left");  // 9 more at 9 s
}

TEST(EvalPace, AResumedRunPacesOnlyWhatThisProcessFinished) {
  // 40 of 50 were stored by an earlier run: one finished here in 6 s leaves 9 at 6 s each.
  const auto t0 = eval_pace::clock::time_point{};
  eval_pace pace(t0);
  EXPECT_EQ(pace.finished(41, 50, t0 + seconds(6)), "600/h, about 54 s left");
}

TEST(EvalPace, TheLastOneSaysOnlyThePace) {
  const auto t0 = eval_pace::clock::time_point{};
  eval_pace pace(t0);
  EXPECT_EQ(pace.finished(1, 1, t0 + seconds(36)), "100/h");
}

TEST(EvalPace, NoTimePassedNoPace) {
  const auto t0 = eval_pace::clock::time_point{};
  eval_pace pace(t0);
  EXPECT_EQ(pace.finished(1, 3, t0), "");
}

TEST(EvalPace, DurationsRoundedForAPerson) {
  EXPECT_EQ(rough_duration(42), "42 s");
  EXPECT_EQ(rough_duration(540), "9 min");
  EXPECT_EQ(rough_duration(3 * 3600 + 720), "3.2 h");
}
