// Kineto times are microseconds written as decimal text; nanoseconds must survive exactly.
#include <gtest/gtest.h>

#include "headroom/trace/kineto.hpp"

namespace headroom::trace {
namespace {

TEST(KinetoTime, SixteenDigitTimestampsKeepTheirNanoseconds) {
  EXPECT_EQ(microseconds_text_to_ns("1712195495505583.0"), 1712195495505583000);
  EXPECT_EQ(microseconds_text_to_ns("1712195495505583.123"), 1712195495505583123);
  EXPECT_EQ(microseconds_text_to_ns("2413669097444.592"), 2413669097444592);
  // A double cannot hold this one: 1712195495505583.001 us rounds to ...583.0 as a double.
  EXPECT_EQ(microseconds_text_to_ns("1712195495505583.001"), 1712195495505583001);
}

TEST(KinetoTime, FractionsIntegersStringsAndExponents) {
  EXPECT_EQ(microseconds_text_to_ns("4.928"), 4928);
  EXPECT_EQ(microseconds_text_to_ns("4"), 4000);
  EXPECT_EQ(microseconds_text_to_ns("0"), 0);
  EXPECT_EQ(microseconds_text_to_ns("\"7.5\""), 7500);
  EXPECT_EQ(microseconds_text_to_ns("13336315.805 "), 13336315805);
  EXPECT_EQ(microseconds_text_to_ns("1.5e3"), 1500000);
  EXPECT_EQ(microseconds_text_to_ns("25E-3"), 25);
  EXPECT_EQ(microseconds_text_to_ns("-3.25"), -3250);
}

TEST(KinetoTime, DigitsBelowANanosecondRoundHalfUp) {
  EXPECT_EQ(microseconds_text_to_ns("0.0004"), 0);
  EXPECT_EQ(microseconds_text_to_ns("0.0005"), 1);
  EXPECT_EQ(microseconds_text_to_ns("1.2345678"), 1235);
  EXPECT_EQ(microseconds_text_to_ns("-0.0015"), -2);
}

TEST(KinetoTime, NotANumberIsRejected) {
  EXPECT_FALSE(microseconds_text_to_ns(""));
  EXPECT_FALSE(microseconds_text_to_ns("abc"));
  EXPECT_FALSE(microseconds_text_to_ns("1.2.3"));
  EXPECT_FALSE(microseconds_text_to_ns("null"));
  EXPECT_FALSE(microseconds_text_to_ns("1e"));
  EXPECT_FALSE(microseconds_text_to_ns("."));
  EXPECT_FALSE(microseconds_text_to_ns("1e400"));  // past int64 nanoseconds
  EXPECT_FALSE(microseconds_text_to_ns("99999999999999999999999"));  // likewise
}

}  // namespace
}  // namespace headroom::trace
