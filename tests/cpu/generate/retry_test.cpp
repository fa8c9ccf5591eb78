#include "headroom/generate/retry.hpp"

#include <gtest/gtest.h>

#include "headroom/generate/http_client.hpp"

using namespace headroom::generate;

TEST(Retry, WhichStatusesAreWorthAnotherAttempt) {
  for (long s : {408L, 429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(retryable_status(s)) << s;
  for (long s : {400L, 401L, 403L, 404L, 422L}) EXPECT_FALSE(retryable_status(s)) << s;
}

TEST(Retry, RetryAfterIsHonouredAndCapped) {
  std::mt19937_64 rng(1);
  retry_policy p;
  EXPECT_DOUBLE_EQ(retry_delay_s(p, 1, 7.0, rng), 7.0);
  EXPECT_DOUBLE_EQ(retry_delay_s(p, 1, 0.0, rng), 0.0);
  EXPECT_DOUBLE_EQ(retry_delay_s(p, 1, 1e6, rng), p.retry_after_cap_s);
}

TEST(Retry, BackoffDoublesWithJitterUpToTheCap) {
  std::mt19937_64 rng(2);
  retry_policy p;
  p.base_s = 1;
  p.cap_s = 10;
  for (int attempt = 1; attempt <= 6; ++attempt) {
    const double full = std::min(10.0, std::pow(2.0, attempt - 1));
    for (int i = 0; i < 50; ++i) {
      const double d = retry_delay_s(p, attempt, std::nullopt, rng);
      EXPECT_GE(d, full / 2) << attempt;
      EXPECT_LE(d, full) << attempt;
    }
  }
}

TEST(Retry, RetryAfterHeaderValues) {
  EXPECT_EQ(parse_retry_after("3", 0), 3.0);
  EXPECT_EQ(parse_retry_after("0.5", 0), 0.5);
  // An HTTP date: the seconds until it.
  EXPECT_EQ(parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 40), 60.0);
  EXPECT_EQ(parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 1000), 0.0);
  EXPECT_EQ(parse_retry_after("soon", 0), std::nullopt);
  EXPECT_EQ(parse_retry_after("", 0), std::nullopt);
}
