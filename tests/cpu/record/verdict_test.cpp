#include <gtest/gtest.h>

#include "headroom/record/evaluation.hpp"
#include "headroom/record/verdict.hpp"

namespace {

using namespace headroom::record;

TEST(Verdict, EveryVerdictHasItsNameAndParsesBack) {
  const std::pair<verdict, std::string_view> expected[] = {
      {verdict::correct, "correct"},
      {verdict::incorrect, "incorrect"},
      {verdict::compile_error, "compile_error"},
      {verdict::load_error, "load_error"},
      {verdict::runtime_error, "runtime_error"},
      {verdict::crash, "crash"},
      {verdict::timeout, "timeout"},
      {verdict::reference_error, "reference_error"},
  };
  for (const auto& [v, name] : expected) {
    EXPECT_EQ(verdict_name(v), name);
    EXPECT_EQ(parse_verdict(name), v);
  }
  EXPECT_FALSE(parse_verdict("Correct").has_value());
  EXPECT_FALSE(parse_verdict("").has_value());
}

TEST(Verdict, OnlyMeasurementFlagsDisqualifyASpeedup) {
  EXPECT_TRUE(disqualifies_speedup("other_stream_work"));
  EXPECT_TRUE(disqualifies_speedup("below_speed_of_light"));
  EXPECT_TRUE(disqualifies_speedup("torch_fallback"));
  EXPECT_TRUE(disqualifies_speedup("timing_modes_differ"));  // held vs dispatch-included times
  EXPECT_TRUE(disqualifies_speedup("excessive_speedup"));  // over 10x with no floor to check it by
  EXPECT_TRUE(disqualifies_speedup("degenerate_problem"));  // the problem cannot tell a kernel from zeros
  EXPECT_FALSE(disqualifies_speedup("mismatch"));
  // Informative: the parent's clock could not confirm the times on a sandboxed worker of a busy
  // machine (docs/eval.md), and the timed calls' outputs went unchecked.
  EXPECT_FALSE(disqualifies_speedup("timing_unconfirmed"));
  EXPECT_FALSE(disqualifies_speedup("timed_outputs_unchecked"));
}

TEST(Verified, NeedsCorrectVerdictASpeedupAndNoDisqualifyingFlag) {
  evaluation e;
  e.result = verdict::correct;
  e.speedup = 1.7;
  EXPECT_TRUE(verified(e));
  e.reasons.push_back({"other_stream_work", "wall clock 40% above events"});
  EXPECT_FALSE(verified(e));
  e.reasons = {{"excessive_speedup", "35x over eager, and no speed-of-light floor to check it against"}};
  EXPECT_FALSE(verified(e));
  e.reasons.clear();
  e.speedup.reset();
  EXPECT_FALSE(verified(e));  // correct but never timed
  e.speedup = 2.0;
  e.result = verdict::incorrect;
  EXPECT_FALSE(verified(e));
}

}  // namespace
